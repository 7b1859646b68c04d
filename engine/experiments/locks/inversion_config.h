#pragma once
/// @file Configuration of the priority-inversion experiment (docs/experiments/inversion.md, Mars Pathfinder) and its
/// one validation path, shared by the CLI, the GUI and the presets. Its refusals are part of the lab's safety: the
/// three SCHED_FIFO threads never go on the CPU kept for the UI, the collector and the watchdog.
#include "engine/locks/lock.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace rtscope {

struct CpuTopology;

struct InversionConfig {
    // Limits, in one place: the CLI help, the GUI ranges and validate() all read them.
    static constexpr int64_t kMinBurstNs = 100'000;                  ///< 100 µs
    static constexpr int64_t kMaxBurstNs = 1'000'000'000;            ///< 1 s
    static constexpr int64_t kMinHoldNs = 100'000;                   ///< 100 µs
    static constexpr int64_t kMaxHoldNs = 100'000'000;               ///< 100 ms
    static constexpr int64_t kMinPeriodNs = 10'000'000;              ///< 10 ms
    static constexpr int64_t kMaxPeriodNs = 10'000'000'000;          ///< 10 s
    static constexpr int64_t kMinDurationNs = 100'000'000;           ///< 100 ms
    static constexpr int64_t kMaxDurationNs = 600LL * 1'000'000'000; ///< 10 min
    static constexpr int kMaxPriority = 98;                          ///< 99 belongs to the watchdog
    static constexpr int64_t kHighHoldNs = 20'000;                   ///< the high thread's own critical section

    /// @brief mutex, pi, ceiling.
    static const std::vector<LockKind>& inversionKinds();

    LockKind lock = LockKind::Mutex;
    int64_t mediumBurstNs = 50'000'000; ///< the medium thread spins this long each period, without the lock
    int64_t holdNs = 1'000'000;         ///< the low thread's critical section (CPU work while holding the lock)
    int64_t periodNs = 100'000'000;     ///< all three threads are released once per period
    int64_t durationNs = 5'000'000'000;
    int cpu = -1;         ///< the one CPU of all three threads; -1 = the highest usable CPU that is not reserved
    int lowPriority = 10; ///< SCHED_FIFO priorities, low < medium < high <= 98
    int mediumPriority = 20;
    int highPriority = 30;

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;

    /// @brief cpu, or the highest usable CPU other than reservedCpu(); -1 when there is none.
    int resolvedCpu(const CpuTopology& cpus) const;
    /// @brief The CPU kept free of the three threads (the first usable one, normally 0): the watchdog, the
    /// collector and the UI run there.
    static int reservedCpu(const CpuTopology& cpus);

    /// @brief Within each period: the low thread is released at 0 and takes the lock, the high thread at
    /// hold/3 (so it finds the lock held), the medium thread at 2·hold/3 (so it finds low inside its section).
    int64_t highOffsetNs() const { return holdNs / 3; }
    int64_t mediumOffsetNs() const { return 2 * holdNs / 3; }

    /// @brief "pi · burst 50.00 ms · hold 1.00 ms · period 100.00 ms · CPU 1".
    std::string label() const;

    bool operator==(const InversionConfig&) const = default;
};

nlohmann::json toJson(const InversionConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported in @p errors (field named), missing keys
/// keep their defaults. Range checks are validate()'s job.
InversionConfig inversionConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
