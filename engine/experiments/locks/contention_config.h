#pragma once
/// @file Configuration of the lock-contention experiment (docs/experiments/locks.md) and its one validation path,
/// shared by the CLI, the GUI and the presets.
#include "engine/locks/lock.h"
#include "engine/rt/sched_policy.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct CpuTopology;

/// @brief Where the workers run.
enum class Placement {
    Spread, ///< pinned round-robin over the usable CPUs
    OneCpu, ///< all on one CPU
};
const char* placementName(Placement p); ///< "spread", "one-cpu"
std::optional<Placement> parsePlacement(std::string_view name);

struct ContentionConfig {
    // Limits, in one place: the CLI help, the GUI ranges and validate() all read them.
    static constexpr int kMinThreads = 2;
    static constexpr int kMaxThreads = 32;
    static constexpr int64_t kMaxHoldNs = 1'000'000;                        ///< 1 ms
    static constexpr int64_t kMaxWorkNs = 1'000'000;                        ///< 1 ms
    static constexpr int64_t kMinDurationNs = 10'000'000;                   ///< 10 ms per kind
    static constexpr int64_t kMaxDurationNs = 3600LL * 1'000'000'000;       ///< 1 h per kind
    static constexpr int64_t kMaxRealtimeDurationNs = 60LL * 1'000'000'000; ///< 60 s per kind under fifo/rr
    static constexpr int kMaxSpinLimit = 10'000'000;

    /// @brief The kinds this experiment runs: every kind except the ceiling, which needs real-time threads
    /// below its priority and belongs to the inversion lab.
    static const std::vector<LockKind>& contentionKinds();

    std::vector<LockKind> kinds = contentionKinds(); ///< run one after the other, each for durationNs
    int threads = 4;                                 ///< workers, 2..32
    Placement placement = Placement::Spread;
    int cpu = -1;                  ///< placement one-cpu: the CPU; -1 = the highest usable CPU
    Policy policy = Policy::Other; ///< workers' policy; fifo/rr only on one CPU that is not the first usable one
    int priority = 0;
    int nice = 0;
    int64_t holdNs = 1'000;                         ///< critical section: busy work while holding the lock, 0..1 ms
    int64_t workNs = 5'000;                         ///< non-critical busy work between acquisitions, 0..1 ms
    int64_t durationNs = 2'000'000'000;             ///< per kind
    int spinLimit = LockOptions::kDefaultSpinLimit; ///< rtscope adaptive lock, 0..10 000 000
    bool stealing = true;                           ///< rtscope adaptive lock

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;

    /// @brief The one-cpu CPU: cpu, or the highest usable CPU; -1 when there is none.
    int resolvedCpu(const CpuTopology& cpus) const;
    /// @brief One CPU per worker, in worker order.
    std::vector<int> workerCpus(const CpuTopology& cpus) const;
    LockOptions lockOptions() const;

    /// @brief "4 threads spread · hold 1.0 us · work 5.0 us · OTHER · 2.000 s per kind".
    std::string label() const;

    bool operator==(const ContentionConfig&) const = default;
};

/// @brief JSON form used by presets, recordings and the "config" object of --json output.
nlohmann::json toJson(const ContentionConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported in @p errors (field named), missing keys
/// keep their defaults. Range checks are validate()'s job.
ContentionConfig contentionConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
