#pragma once
/// @file Configuration of the starvation lab (docs/experiments/starvation.md: a SCHED_FIFO thread that never blocks
/// starves its CPU) and its one validation path, shared by the CLI, the GUI and the presets. Its refusals are part of
/// the lab's safety: the spinner never goes on a CPU the controller needs, nor on the only CPU there is.
#include "engine/rt/sched_policy.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace rtscope {

struct CpuTopology;

struct StarvationConfig {
    // Limits, in one place: the CLI help, the GUI ranges and validate() all read them.
    static constexpr int64_t kMinBurstNs = 10'000'000;    ///< 10 ms
    static constexpr int64_t kMaxBurstNs = 5'000'000'000; ///< 5 s: the hard limit of a spinner burst
    static constexpr int64_t kMinGapNs = 10'000'000;      ///< 10 ms
    static constexpr int64_t kMaxGapNs = 60'000'000'000;  ///< 60 s
    static constexpr int kMaxBursts = 1000;
    static constexpr int kMaxCounters = 8;
    static constexpr int kWatchdogPriority = 99;             ///< the spinner stays below it
    static constexpr int64_t kWatchdogMarginNs = 50'000'000; ///< overrun tolerated before the watchdog demotes
    static constexpr int64_t kWatchdogPollNs = 5'000'000;
    static constexpr int64_t kSampleIntervalNs = 10'000'000; ///< the sampler reads the counters this often
    static constexpr int kMaxCpuNumber = 1023;               ///< CPU_SETSIZE - 1

    Policy policy = Policy::Fifo;  ///< fifo or rr: the spinner must be real-time to starve anything
    int priority = 80;             ///< 1..98 (the watchdog runs at 99)
    int64_t burstNs = 300'000'000; ///< how long the spinner busy-loops, 10 ms..5 s
    int64_t gapNs = 700'000'000;   ///< sleep before the first burst and after every burst, 10 ms..60 s
    int bursts = 3;                ///< 1..1000, or 0 to repeat until stopped
    int counters = 1;              ///< SCHED_OTHER counter threads on the spinner's CPU, 1..8
    int counterNice = 0;           ///< -20..19
    int cpu = -1;                  ///< spinner CPU; -1 = the highest usable CPU that is not reserved
    bool controlCounter = false;   ///< one more counter on another CPU: it must not notice the bursts
    int controlCpu = -1;           ///< -1 = the controller's CPU
    int samplerPriority = 0;       ///< 0 = SCHED_OTHER sampler; 1..priority-1 = SCHED_FIFO below the spinner
    /// @brief CPUs the spinner must never take: where the caller, the UI, the collector, the sampler and the
    /// watchdog run. Defaults to defaultReservedCpus() of the thread that builds the config.
    std::vector<int> reservedCpus = defaultReservedCpus();

    /// @brief CPU 0 plus every CPU the calling thread is pinned to (nothing more when it may run anywhere the
    /// process may: then it is not pinned, and the controller is pinned away from the spinner instead).
    static std::vector<int> defaultReservedCpus();
    /// @brief The same for a caller whose CPUs are @p callerCpus (the GUI: its thread's affinity before parking).
    static std::vector<int> defaultReservedCpus(const std::vector<int>& callerCpus);

    /// @brief The CPUs the lab may place threads on: the online CPUs and the process's cpuset, whatever the
    /// calling thread's own affinity. Validate against this (a pinned GUI thread narrows
    /// CpuTopology::current() to its own CPU, which would refuse every placement).
    static CpuTopology placementTopology();

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;

    /// @brief The spinner's CPU: cpu, or the highest usable CPU that is not reserved; -1 when there is none.
    int resolvedCpu(const CpuTopology& cpus) const;
    /// @brief Where the watchdog, sampler and collector run: the first usable reserved CPU other than the
    /// spinner's, else any other usable CPU; -1 when there is none.
    int resolvedControllerCpu(const CpuTopology& cpus) const;
    /// @brief The control counter's CPU: controlCpu, or the controller's CPU.
    int resolvedControlCpu(const CpuTopology& cpus) const;
    /// @brief Planned run time (gap, then burst + gap per burst); 0 when bursts repeat until stopped.
    int64_t plannedDurationNs() const;

    /// @brief "FIFO 80 · burst 300.00 ms · gap 700.00 ms · 3 bursts · 1 counter · CPU 1": markers, table rows.
    std::string label() const;

    bool operator==(const StarvationConfig&) const = default;
};

/// @brief JSON form used by presets, recordings and the `config` object of --json output.
nlohmann::json toJson(const StarvationConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported in @p errors (field named), missing keys
/// keep their defaults. Range checks are validate()'s job.
StarvationConfig starvationConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
