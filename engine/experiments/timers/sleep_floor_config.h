#pragma once
/// @file Configuration of the sleep-floor experiment (docs/experiments/sleep-floor.md: clock_getres says 1 ns, a sleep
/// costs tens of microseconds) and its one validation path, shared by the CLI, the GUI and the presets.
#include "engine/rt/sched_policy.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct CpuTopology;

/// @brief The ways to wait once for a requested length.
enum class SleepMethod {
    Nanosleep, ///< nanosleep(2) for the request
    Relative,  ///< clock_nanosleep(CLOCK_MONOTONIC, 0) for the request
    Absolute,  ///< clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) to start + request
    Busy,      ///< spin on clock_gettime until start + request (exact, costs the whole wait in CPU time)
    Hybrid,    ///< absolute sleep to start + request − margin, then spin to start + request
};

inline constexpr SleepMethod kSleepMethods[] = {SleepMethod::Nanosleep, SleepMethod::Relative, SleepMethod::Absolute,
                                                SleepMethod::Busy, SleepMethod::Hybrid};

const char* sleepMethodName(SleepMethod m);  ///< "nanosleep", "rel", "abs", "busy", "hybrid"
const char* sleepMethodLabel(SleepMethod m); ///< "nanosleep", "clock_nanosleep relative", ...: for tables and legends
/// @brief Accepts the names above and a few aliases ("relative", "absolute", "busy-wait", "spin", ...).
std::optional<SleepMethod> parseSleepMethod(std::string_view name);
/// @brief "nanosleep, rel, abs, busy, hybrid": for help texts and error sentences.
std::string sleepMethodList();

struct SleepFloorConfig {
    // Limits, in one place: the CLI help, the GUI ranges and validate() all read them.
    static constexpr int64_t kMaxRequestNs = 100'000'000; ///< 100 ms: a busy-wait sample stays stoppable
    static constexpr size_t kMaxRequests = 32;
    static constexpr int64_t kMaxSamples = 100'000;             ///< per request and method
    static constexpr int64_t kMaxTotalSamples = 1'000'000;      ///< every sample is kept: ~40 MB at most
    static constexpr int64_t kMaxRunNs = 600LL * 1'000'000'000; ///< estimated run length: 10 min
    static constexpr int64_t kMaxSlackNs = 10'000'000;          ///< 10 ms
    static constexpr int64_t kMaxMarginNs = 10'000'000;         ///< hybrid's spin margin

    /// Requested lengths, swept in this order (a log scale by default: 0, 1 ns, 10 ns, … 10 ms).
    std::vector<int64_t> requestsNs{0, 1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000};
    int64_t samples = 200; ///< per request and method, 1 … 100 000
    std::vector<SleepMethod> methods{std::begin(kSleepMethods), std::end(kSleepMethods)};
    int64_t timerSlackNs = 0; ///< 0 = the thread's default (50 µs unless changed); otherwise 1 ns … 10 ms
    Policy policy = Policy::Other;
    int priority = 0;                 ///< 1..99 for fifo/rr, 0 otherwise
    int cpu = -1;                     ///< measuring CPU; -1 = the highest usable CPU
    bool backgroundLoad = false;      ///< a SCHED_OTHER spinner on every other usable CPU, so CPUs stay awake
    int64_t hybridMarginNs = 100'000; ///< hybrid: sleep until this long before the deadline, then spin

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;

    int resolvedCpu(const CpuTopology& cpus) const; ///< cpu, or the default
    int64_t totalSamples() const;                   ///< requests × methods × samples
    /// @brief A generous estimate of the run length (every sleep padded with the slack and 100 µs).
    int64_t estimatedRunNs() const;

    /// @brief "OTHER · 9 requests × 5 methods × 200 samples · slack default · CPU auto · load off".
    std::string label() const;

    bool operator==(const SleepFloorConfig&) const = default;
};

nlohmann::json toJson(const SleepFloorConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported in @p errors (field named), missing keys
/// keep their defaults. Range checks are validate()'s job.
SleepFloorConfig sleepFloorConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
