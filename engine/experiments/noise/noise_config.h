#pragma once
/// @file Configuration of the noise lab (docs/experiments/noise.md: how much of a CPU a busy-polling task never
/// gets, and who took it) and its one validation path, shared by the CLI, the GUI, presets and the agent.
#include "engine/rt/sched_policy.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace rtscope {

struct CpuTopology;

struct NoiseConfig {
    // Limits, in one place: the CLI help, the GUI ranges and validate() all read them.
    static constexpr int64_t kMinThresholdNs = 100;                        ///< 100 ns: a few clock reads
    static constexpr int64_t kMaxThresholdNs = 10'000'000;                 ///< 10 ms
    static constexpr int64_t kMinDurationNs = 100'000'000;                 ///< 100 ms
    static constexpr int64_t kMaxDurationNs = 24LL * 3600 * 1'000'000'000; ///< 24 h
    static constexpr int kMaxCpus = 256;

    /// The CPUs measured, one polling thread each; empty: the highest usable CPU. A real-time poller takes its
    /// whole CPU: under fifo/rr at least one usable CPU must stay unmeasured.
    std::vector<int> cpus;
    Policy policy = Policy::Other; ///< of the polling threads: SCHED_OTHER as osnoise's workload by default
    int priority = 0;              ///< 1..99 for fifo/rr, 0 otherwise
    int64_t thresholdNs = 1'000;   ///< a gap between two clock reads at least this long is noise (1 µs)
    /// Run length; 0 = until stopped (the GUI's live mode). The command line refuses a given 0 (-D 0).
    int64_t durationNs = 5'000'000'000;
    bool trace = true; ///< attribute every gap with the kernel's trace events, when tracefs is usable

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& topology) const;
    /// @brief cpus, or {the highest usable CPU} when empty.
    std::vector<int> resolvedCpus(const CpuTopology& topology) const;
    /// @brief "OTHER · CPUs 1 · threshold 1.0 us · 5 s · traced".
    std::string label() const;

    bool operator==(const NoiseConfig&) const = default;
};

/// @brief JSON form used by presets, the agent and the `config` object of --json output.
nlohmann::json toJson(const NoiseConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported in @p errors (field named), missing keys keep
/// their defaults. Range checks are validate()'s job.
NoiseConfig noiseConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
