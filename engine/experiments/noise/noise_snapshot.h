#pragma once
/// @file What the noise lab publishes (docs/experiments/noise.md): per measured CPU, how long the poller ran, how
/// much of that was taken from it (gaps at or above the threshold) and by whom, as osnoise's summary reports it,
/// plus a histogram of every loop's length as oslat reports it.
#include "engine/experiments/noise/noise_config.h"
#include "engine/experiments/run_status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rtscope {

/// @brief Who took a gap. Every nanosecond of a gap is charged to exactly one kind: the innermost traced context
/// running at that instant (an interrupt inside a thread's time is the interrupt's). What no traced work covers is
/// Unexplained: hardware, firmware (SMIs) or a hypervisor. Untraced: the run had no trace events to look at (no
/// tracefs, no privilege, or trace off), so nothing could be attributed.
enum class NoiseKind : uint8_t { Irq, Softirq, Nmi, Thread, Unexplained, Untraced };
inline constexpr NoiseKind kNoiseKinds[] = {NoiseKind::Irq,    NoiseKind::Softirq,     NoiseKind::Nmi,
                                            NoiseKind::Thread, NoiseKind::Unexplained, NoiseKind::Untraced};
inline constexpr size_t kNoiseKindCount = std::size(kNoiseKinds);

/// @brief "irq", "softirq", "nmi", "thread", "unexplained", "untraced" (the JSON and CSV names).
const char* noiseKindName(NoiseKind kind);
/// @brief "IRQ" (interrupt handlers and IPIs), "softirq", "NMI", "thread", "unexplained (HW/VM)", "untraced".
const char* noiseKindLabel(NoiseKind kind);

/// @brief One thing that took time from a measured CPU: an interrupt (by name), a softirq (by name), an NMI, or a
/// thread (comm and pid).
struct NoiseCulprit {
    NoiseKind kind = NoiseKind::Unexplained;
    std::string name; ///< "irq 24 virtio0-input.0", "local_timer", "IPI reschedule", "softirq TIMER", "kworker/1:1"
    int cpu = -1;     ///< the measured CPU it took time from
    int pid = 0;      ///< threads: the pid; 0 otherwise
    /// What the kernel numbers it by: a device IRQ's line, a softirq's vector, an x86 vector's TraceVector, a
    /// thread's pid; -1 for the unexplained and untraced entries (the doctor acts on it: --noise).
    int64_t id = -1;
    bool vector = false; ///< an x86 interrupt vector (the local timer, an IPI), not a device IRQ line
    int prio = -2;       ///< threads: the kernel prio from the trace (0..98 real-time, 100..139 normal, -1 deadline)
    std::string sched;   ///< threads: describeKernelPrio() of its kernel prio ("RT 50 (FIFO/RR)"); empty otherwise
    uint64_t count = 0;  ///< times it ran inside a gap
    int64_t totalNs = 0; ///< its time inside gaps
    int64_t maxNs = 0;   ///< its longest single stretch inside one gap
    double percent = 0;  ///< totalNs of the CPU's runtime, in %
};

/// @brief Loop lengths: bucket i counts loops that took [i, i+1) µs between two clock reads; the last bucket counts
/// everything at or above kNoiseHistogramBuckets − 1 µs (the exact maximum is maxLoopNs).
inline constexpr size_t kNoiseHistogramBuckets = 10'001;
/// @brief The heat strip's resolution: the share of each window the poller lost.
inline constexpr int64_t kNoiseHeatWindowNs = 100'000'000;
/// @brief The heat strip keeps the last this many windows (2 min at 100 ms).
inline constexpr size_t kNoiseHeatWindows = 1200;

struct NoiseCpuStats {
    int cpu = -1;
    int tid = 0;                   ///< the polling thread
    int64_t runtimeNs = 0;         ///< from the poller's first clock read to its last
    int64_t noiseNs = 0;           ///< the sum of every gap at or above the threshold
    double availablePercent = 100; ///< (runtime − noise) / runtime, in %
    int64_t maxSingleNs = 0;       ///< the longest gap
    uint64_t loops = 0;            ///< clock reads compared
    uint64_t gaps = 0;             ///< loops at or above the threshold
    uint64_t drops = 0;            ///< gaps the ring refused (their time is in noiseNs but not attributed; must stay 0)
    /// Time and count per kind (index: NoiseKind). The times add up to noiseNs; a count is how many times traced
    /// work of that kind ran inside a gap (Unexplained: gaps that no traced work touched at all).
    std::array<int64_t, kNoiseKindCount> kindNs{};
    std::array<uint64_t, kNoiseKindCount> kindCount{};
    std::vector<uint64_t> histogram; ///< kNoiseHistogramBuckets loop-length buckets (empty before the first publish)
    int64_t minLoopNs = 0;
    int64_t maxLoopNs = 0;
    double meanLoopNs = 0;
    std::vector<float> heat;     ///< share of each kNoiseHeatWindowNs window lost to noise (0..1), oldest first
    int64_t heatFirstWindow = 0; ///< index (since the start) of heat.front(): earlier windows were let go
    int64_t stealNs = -1;        ///< the hypervisor's steal time on this CPU during the run (/proc/stat); -1 unreadable
    int64_t smiCount = -1;       ///< SMIs on this CPU during the run (MSR 0x34); -1 unreadable (smiNote says why)
    std::string error;           ///< why this CPU's poller stopped early; empty if it did not
};

/// finished: the duration has passed (never with durationNs 0). error: why the run could not go on.
struct NoiseSnapshot : SnapshotOf<NoiseConfig> {
    int64_t elapsedNs = 0;
    std::vector<NoiseCpuStats> cpus;    ///< in the order of config.cpus (resolved)
    std::vector<NoiseCulprit> culprits; ///< every CPU's, by totalNs, longest first (at most kMaxCulprits)
    static constexpr size_t kMaxCulprits = 200;
    bool traced = false;          ///< trace events were read for the whole run so far
    std::string traceNote;        ///< not traced: why and the fix; traced: lost events, if any
    uint64_t traceLostEvents = 0; ///< events the kernel dropped (their time may show as unexplained)
    double stealTickNs = 0;       ///< /proc/stat's resolution (one USER_HZ tick), for the steal figures
    std::string stealNote;        ///< why steal time is unreadable, or ""
    std::string smiNote;          ///< "read from /dev/cpu/N/msr", or why not (no msr module, AMD, no root)
    bool osnoiseTracer = false;   ///< the kernel has the osnoise tracer (a second method could be offered)
    std::string osnoiseNote;      ///< whether the kernel's osnoise tracer exists, in a sentence
    /// What the pollers read to time their loops: "TSC at 2096.1 MHz (calibrated against CLOCK_MONOTONIC)", or
    /// "CLOCK_MONOTONIC (vDSO)" and why not the TSC (util/loop_clock.h).
    std::string loopClock;
};

} // namespace rtscope
