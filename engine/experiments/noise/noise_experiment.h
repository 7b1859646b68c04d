#pragma once
/// @file The noise lab's run (docs/experiments/noise.md): one busy-polling thread per measured CPU reads
/// CLOCK_MONOTONIC in a tight loop, counts every loop's length into its own histogram and streams every gap at or
/// above the threshold through a ring to the collector, which charges each gap to whoever took it from the kernel's
/// trace events of that CPU (NoiseAttribution) and keeps the heat strip. Besides: steal time (/proc/stat), the SMI
/// count (MSR 0x34, where readable) and whether the kernel has the osnoise tracer.
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/noise/noise_attribution.h"
#include "engine/experiments/noise/noise_config.h"
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/memory_lock.h"
#include "engine/util/error.h"
#include "engine/util/loop_clock.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

class TraceBatchQueue;
class TraceSession;

/// @brief One run of the noise lab (the ExperimentRun of experiment_host.h): a poller per measured CPU, a ring each,
/// the trace session of those CPUs (config.trace, where tracefs is usable) and the attribution the collector feeds.
class NoiseRun {
public:
    using Config = NoiseConfig;
    using Snapshot = NoiseSnapshot;
    static constexpr std::string_view kName = "noise";
    /// @brief Gaps waiting per poller: seconds of gaps even at one every few microseconds.
    static constexpr size_t kRingCapacity = size_t(1) << 16;
    /// @brief Trace events waiting between the reader and the collector before whole batches are dropped (counted).
    static constexpr size_t kTraceQueueEvents = size_t(1) << 18;
    /// @brief The attribution's watermark never trails the collector's clock by more than this: a measured CPU with
    /// no trace events (nohz_full) still gets its gaps settled. A reader later than this makes its events late
    /// (NoiseAttribution::lateEvents, said in traceNote).
    static constexpr int64_t kMaxSettleDelayNs = 1'000'000'000;
    /// @brief How often a snapshot reads /proc/stat again.
    static constexpr int64_t kStealReadNs = 500'000'000;
    /// @brief How often a snapshot reads the SMI counters again: each read interrupts its CPU (an IPI), which is
    /// noise of its own.
    static constexpr int64_t kSmiReadNs = 5'000'000'000;

    /// @brief Resolves the CPUs, allocates the rings and the histograms and locks them (unless mlockall is in
    /// force). No thread yet.
    NoiseRun(const NoiseConfig& config, const RunEnvironment& env);
    ~NoiseRun();
    NoiseRun(const NoiseRun&) = delete;
    NoiseRun& operator=(const NoiseRun&) = delete;

    /// @brief Starts the trace session (config.trace; a failure is kept as traceNote, the run goes on untraced),
    /// reads the steal and SMI counters, then starts the pollers and waits until each has read the clock.
    Error start();
    /// @brief Every poller leaves its loop at once, a real-time one is demoted, each is joined (within
    /// kJoinBudgetMs), then the trace session stops (its last events reach the queue). Idempotent.
    void stop();
    /// @brief Collector thread: the reader's batches and the pollers' gaps into the attribution and the heat strip;
    /// settles what is safe.
    size_t drain();
    /// @brief Collector thread: the figures so far; with @p running false the final ones (everything settled).
    /// While the run goes on, runtime, noise, gaps, the kinds and the culprits cover the settled part of the run
    /// (NoiseAttribution::kSettleLagNs behind the newest trace event, kMaxSettleDelayNs at most), so that they
    /// always add up; the loop counts, the histogram and the heat strip are live.
    std::shared_ptr<NoiseSnapshot> makeSnapshot(bool running);

    /// @brief The duration has passed (never with durationNs 0), or every poller has stopped.
    bool finished() const;
    /// @brief The measured CPUs: each poller takes its CPU whole.
    std::vector<int> busyCpus() const { return m_config.cpus; }
    const NoiseConfig& config() const { return m_config; }
    /// @brief Off the measured CPUs: the collector there would be noise of its own.
    int collectorCpu() const { return m_env.topology.otherThan(m_config.cpus); }

private:
    struct Poller;
    struct Counters; ///< steal and SMI at the start and as last read

    void pollLoop(Poller& p, const std::atomic<bool>& stop);
    void startTracing();
    void addHeat(Poller& p, const NoiseGap& gap);
    void growHeat(Poller& p, int64_t window);
    void readCounters(int64_t now, bool final);
    std::string traceNote() const;

    NoiseConfig m_config;
    RunEnvironment m_env;
    MemoryLockStatus m_memoryLock;
    std::atomic<bool> m_quit{false};
    std::atomic<bool> m_stopped{false};
    std::atomic<int64_t> m_startNs{0};
    std::atomic<int64_t> m_stoppedNs{0};
    std::vector<std::unique_ptr<Poller>> m_pollers;

    // Tracing: the control thread owns the session; the queue is shared with the reader's handler.
    std::unique_ptr<TraceSession> m_session;
    std::shared_ptr<TraceBatchQueue> m_queue;
    bool m_traced = false;
    std::string m_untracedReason; ///< why the run is not traced; empty when it is
    std::vector<std::string> m_missingEvents;
    std::atomic<uint64_t> m_readerStopLost{0}; ///< events still in the kernel's buffer when the reader stopped
    bool m_osnoiseTracer = false;
    std::string m_osnoiseNote;
    LoopClock m_loopClock = LoopClock::monotonic(); ///< what the pollers read (set in start(), before they run)
    std::string m_loopClockText;

    // Collector-thread state (set up by start(), before the collector starts).
    std::unique_ptr<NoiseAttribution> m_attribution;
    DrainBuffer<NoiseGap, 1024> m_drainBatch;
    std::unique_ptr<Counters> m_counters;
};

/// @brief The noise lab: NoiseRun on the experiment host (start(config, topology), stop, snapshot, ...).
class NoiseExperiment : public ExperimentHost<NoiseRun> {
public:
    static constexpr size_t kRingCapacity = NoiseRun::kRingCapacity;
};

} // namespace rtscope
