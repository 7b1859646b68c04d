#pragma once
/// @file Configuration of the latency experiment (docs/science.md, Latency under load) and its one validation path,
/// shared by the CLI, the GUI and the presets.
#include "engine/rt/sched_deadline.h"
#include "engine/rt/sched_policy.h"
#include "engine/rt/waiter.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace rtscope {

struct CpuTopology;

struct LatencyConfig {
    // Limits, in one place: the CLI help, the GUI ranges and validate() all read them.
    static constexpr int64_t kMinPeriodNs = 10'000;         ///< 10 µs (100 kHz)
    static constexpr int64_t kMaxPeriodNs = 10'000'000'000; ///< 10 s
    /// Hogs per CPU: 256 on one CPU of a loaded 2-vCPU VM start in ~20-30 ms and are joined in ~10 ms, well within
    /// kJoinBudgetMs (bench_hogs, docs/BENCHMARKS.md "Hog start-up").
    static constexpr int kMaxHogs = 256;
    static constexpr int64_t kMinDurationNs = 1'000'000;                    ///< 1 ms
    static constexpr int64_t kMaxDurationNs = 30LL * 86400 * 1'000'000'000; ///< 30 days
    static constexpr uint64_t kMaxSamples = 1'000'000'000'000ULL;
    static constexpr int kMaxHistogramUs = 1'000'000;
    static constexpr int kMaxHogThreads = 1024; ///< hogs × hog CPUs

    Policy policy = Policy::Other;
    int priority = 0; ///< 1..99 for fifo/rr, 0 for the others
    int nice = 0;     ///< -20..19, for other/batch
    int64_t periodNs = 1'000'000;
    /// Policy deadline (docs/cli.md, "SCHED_DEADLINE"): the thread declares `runtimeNs` of CPU
    /// time in every `periodNs` (the measuring period is the deadline period), due within `deadlineNs` of each
    /// period's start. runtime is required with that policy; deadline 0 = the period. Both 0 for other policies.
    int64_t runtimeNs = 0;
    int64_t deadlineNs = 0;
    int cpu = -1;          ///< measuring CPU; -1 = the highest usable CPU
    std::vector<int> cpus; ///< measure on each of these CPUs at once (cyclictest -t -a); empty = just `cpu`
    WaiterKind waiter = WaiterKind::Absolute;

    int hogs = 0;                     ///< CPU-hog threads per hog CPU, 0..256
    Policy hogPolicy = Policy::Other; ///< other, batch or idle: RT spinners belong to the starvation lab
    int hogNice = 0;
    int hogCpu = -1; ///< -1 = every measuring CPU

    int64_t durationNs = 0;  ///< 0 = until stopped
    uint64_t maxSamples = 0; ///< 0 = until stopped; exclusive with durationNs
    int histogramUs = 0;     ///< cyclictest-style exact 1 µs bins kept for export (0 = none)
    bool dmaLatency = false; ///< hold /dev/cpu_dma_latency at 0 while running

    // Latency anatomy (docs/experiments/anatomy.md): explain late wake-ups from the kernel's trace events.
    bool trace = false;           ///< run a private tracefs instance on the measured CPUs ("trace")
    int64_t traceThresholdNs = 0; ///< also keep every wake-up later than this; 0 = none ("trace_threshold_ns")
    int traceTop = 10;            ///< keep the anatomy of the N worst wake-ups, 1 … kMaxTraceTop ("trace_top")
    static constexpr int kMaxTraceTop = 100;
    static constexpr int64_t kMaxTraceThresholdNs = 10'000'000'000; ///< 10 s

    /// @brief Every problem as a sentence naming the field and its allowed range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& cpus) const;
    /// @brief The sentence for a run length outside kMinDurationNs … kMaxDurationNs, empty inside. validate()
    /// asks it for a non-zero durationNs (0 is "until stopped"); the command line also for a given 0, which must
    /// not mean "until stopped" there.
    static std::string durationProblem(int64_t ns);
    /// @brief The same for a sample count outside 1 … kMaxSamples.
    static std::string samplesProblem(uint64_t samples);

    /// @brief What the measuring thread declares with policy deadline: runtime, deadline (or the period), period.
    DeadlineParams deadlineParams() const;
    int resolvedCpu(const CpuTopology& cpus) const;    ///< cpu, or the default
    int resolvedHogCpu(const CpuTopology& cpus) const; ///< hogCpu, or the (first) measuring CPU
    /// @brief The CPUs measured: `cpus` if given, else the single resolved `cpu`.
    std::vector<int> resolvedCpus(const CpuTopology& topo) const;
    /// @brief The CPUs that get `hogs` hogs each: hogCpu if given, else every measured CPU.
    std::vector<int> resolvedHogCpus(const CpuTopology& topo) const;

    /// @brief "FIFO 80 · 1 ms · 4 hogs · CPU 1 · abs" (and " · trace" when tracing): the label of a config on markers
    /// and table rows.
    std::string label() const;

    bool operator==(const LatencyConfig&) const = default;
};

/// @brief JSON form used by presets, recordings and the `rtscope` object of --json output.
nlohmann::json toJson(const LatencyConfig& c);
/// @brief Reads a config; unknown keys and wrong types are reported in @p errors (field named), missing
/// keys keep their defaults. Range checks are validate()'s job.
LatencyConfig latencyConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors);

} // namespace rtscope
