#pragma once
/// @file One run of the latency experiment (docs/science.md, Latency under load; cyclictest's method): periodic
/// measuring threads and N CPU hogs, reconfigurable while it runs, streaming samples through a ring per thread to
/// the host's collector. LatencyExperiment (latency_experiment.h) hosts it.
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/latency/latency_config.h"
#include "engine/experiments/latency/latency_run_sink.h"
#include "engine/experiments/latency/latency_snapshot.h"
#include "engine/experiments/latency/latency_tracer.h"
#include "engine/pipeline/latency_aggregator.h"
#include "engine/pipeline/run_counters.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/dma_latency.h"
#include "engine/rt/hog_set.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtscope {

/// @brief One run of the latency experiment, created by ExperimentHost::start() and destroyed by its stop()
/// (experiment_host.h: the ExperimentRun contract, PacedRun and EndingRun). It owns the measuring threads and
/// their rings and aggregators, the hogs, the cpu_dma_latency hold, the markers and the run sink's calls.
///
/// Threads: the control thread (the one that calls start, stop and the verbs), the collector thread (drain,
/// makeSnapshot), the measuring threads and the hogs. The set of measuring threads changes while the run goes on
/// (a new CPU); m_workersMutex keeps the collector out while it does. No measuring thread or hog ever takes a lock.
class LatencyRun {
public:
    using Config = LatencyConfig;
    using Snapshot = LatencySnapshot;
    static constexpr std::string_view kName = "latency";
    /// @brief Samples a ring holds before it drops (for tests and the benchmark).
    static constexpr size_t kRingCapacity = 1 << 17; ///< 1.3 s at the 10 µs shortest period; 8 MiB (64-byte slots)
    /// @brief Resolves the CPUs of @p config against the environment's topology and allocates the rings and hog
    /// counters; starts no thread. @p config must be valid for that topology (the host validated it).
    LatencyRun(const LatencyConfig& config, const RunEnvironment& env);
    ~LatencyRun();
    LatencyRun(const LatencyRun&) = delete;
    LatencyRun& operator=(const LatencyRun&) = delete;

    // What outlives a run, handed in by the experiment before start() (ExperimentHost::configureRun).
    void setPace(CollectorPace pace) { m_pace = pace; }
    void setSink(LatencyRunSink* sink) { m_sink = sink; }
    /// @brief How much of the timeline the next snapshots carry; also while the run goes on.
    void setSeriesWindow(int64_t ns) { m_seriesWindowNs.store(ns, std::memory_order_relaxed); }
    /// @brief Where the trace session looks for tracefs (TraceConfig::tracingDir; empty: the mounted one).
    void setTracingDir(std::string dir) { m_tracer.setTracingDir(std::move(dir)); }
    /// @brief Where every trace session of the run also keeps its raw sub-buffers (TraceConfig::capture).
    void setTraceCapture(std::shared_ptr<TraceDatCapture> capture) { m_tracer.setCapture(std::move(capture)); }
    /// @brief A run whose period and series window do not change while it runs (the command line): its rings hold
    /// about 2 s of samples (kMinCompactRing to kRingCapacity) and its timeline only the series window, so the
    /// measuring process stays small (docs/BENCHMARKS.md, "The far tail"). reconfigure() is refused.
    void setCompact(bool compact) { m_compact = compact; }
    static constexpr size_t kMinCompactRing = 4096;
    /// @brief The ring a compact run at @p periodNs gets: 2 s of samples, within kMinCompactRing..kRingCapacity.
    static size_t compactRingCapacity(int64_t periodNs);

    /// @brief Holds cpu_dma_latency if asked, starts the hogs, the trace session (config.trace), then the measuring
    /// threads; tells the sink and records the start marker. On failure the host calls stop(). A trace session
    /// that cannot start fails nothing: the run goes on untraced and its snapshots' tracing says why.
    Error start();
    /// @brief The stop order (docs/architecture.md §3): the stop-request time for every measuring thread, then the
    /// hogs leave, then each measuring thread is joined, then the trace session stops (after the joins, so the
    /// last wake-ups' events are in; before the collector's last drain, which analyses them), then
    /// cpu_dma_latency is let go. Idempotent.
    void stop();
    /// @brief Collector thread: pending resets and sink events, then every ring into its aggregator (and the sink).
    size_t drain();
    /// @brief Collector thread: the figures now; with @p running false, the last ones (stop time, workers' errors).
    std::shared_ptr<LatencySnapshot> makeSnapshot(bool running);
    /// @brief After the last publish: the sink's onRunEnd.
    void ended(int64_t stoppedNs);

    /// @brief Every measuring thread reached the duration or sample count.
    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    /// @brief Every measuring CPU and, with hogs, every hog CPU.
    std::vector<int> busyCpus() const;
    /// @brief As in force now (cpu resolved); the control thread's copy.
    const LatencyConfig& config() const { return m_config; }
    /// @brief A CPU without measuring threads or hogs, where hogs cannot starve the collector; -1 if none.
    int collectorCpu() const { return m_quietCpu; }
    CollectorPace pace() const { return m_pace; }

    /// @brief What reconfigure() did.
    struct Change {
        Error error;          ///< why the change was refused; empty when it was applied (or changed nothing)
        bool publish = false; ///< applied: the views should see it at the next pass
        /// Refused, and the previous setting could not be put back either: the run has no measuring thread left
        /// and must be stopped; error says both, and so does the run's last snapshot.
        bool endRun = false;
    };
    /// @brief Applies @p requested, validated against @p topology, and records a marker. Period, policy, priority
    /// and hog count change in place; a new waiter or CPU restarts the measuring threads (each thread's sequence
    /// numbers continue). Tracing turns on and off with the run going on; a CPU change restarts the trace session on
    /// the new CPUs (and its figures from zero, like the threads' aggregates); a new threshold or top applies to the
    /// figures kept. A refused change leaves the run as it was.
    Change reconfigure(const LatencyConfig& requested, const CpuTopology& topology);
    /// @brief Clears histogram and counters (and the anatomy's figures) at the collector's next drain (the timeline
    /// is kept) and records a "reset" marker.
    void resetStatistics();

private:
    /// One measuring thread with its own ring and aggregates (cyclictest -t: one per CPU).
    struct Worker {
        Worker(size_t histogramUs, size_t seriesCapacity)
            : agg(histogramUs, DecimatedSeries::Storage::Upfront, seriesCapacity)
        {}
        int cpu = -1;
        RtThread thread;
        std::unique_ptr<SpscRing<LatencySample>> ring;
        std::atomic<int> tid{0};
        std::atomic<uint64_t> nextSeq{0}; ///< written by the thread as it exits; the restart continues from it
        std::atomic<int64_t> stopRequestNs{kNoStopRequest}; ///< a wake-up at or after this is not measured
        std::string error;                                  ///< written by the thread before it exits; read after join
        DeadlineOverrunCounter overruns;                    ///< policy deadline: its SIGXCPUs (any thread reads)
        // Collector-thread state.
        LatencyAggregator agg;
        uint64_t dropsAtReset = 0;
    };
    using Workers = std::vector<std::unique_ptr<Worker>>;

    static constexpr int64_t kNoStopRequest = INT64_MAX;
    /// New workers on @p cpus with fresh rings and aggregates, and the rings locked when mlockall is not in force.
    Workers makeWorkers(const std::vector<int>& cpus, MemoryLockStatus& lock) const;
    /// Replaces the workers (none of them running) by new ones on @p cpus and starts them.
    Error startAllWorkers(const std::vector<int>& cpus);
    Error startWorker(Worker& w);
    /// @brief The workers again after stopAllWorkers(), on @p cpus. On the same CPUs as before (@p sameCpus) the
    /// existing ones restart and their aggregates and sequence numbers continue (traced, the replaced threads' last
    /// samples go to the anatomy first, each under its own thread's tid); on others, a new set starts.
    Error restartWorkers(const std::vector<int>& cpus, bool sameCpus);
    /// Marks the moment from which @p w measures nothing more and asks it to stop (does not wait).
    static void requestWorkerStop(Worker& w, int64_t requestNs);
    void stopWorker(Worker& w);
    void stopAllWorkers();
    void addMarker(const std::string& label);
    void configChanged(); ///< hands m_config to the collector thread
    /// Ends the run after a refused change whose undo failed too: the error says both, and so will the last snapshot.
    Change endAfterFailedRestore(const Error& refused, const Error& restore);
    uint64_t currentSeq() const;
    size_t drainLocked();                          ///< drain(), with m_workersMutex held
    void sendDrops(size_t thread, uint64_t total); ///< collector side of the run sink
    void measuringLoop(Worker& w, const std::atomic<bool>& stop, uint64_t firstSeq);

    LatencyConfig m_config;     ///< control thread's copy (cpu and hogCpu resolved)
    const RunEnvironment m_env; ///< the topology validated against, what mlockall gave
    std::vector<int> m_cpus;    ///< measured CPUs (resolved)
    int m_quietCpu = -1;
    CollectorPace m_pace;
    std::atomic<int64_t> m_seriesWindowNs{10'000'000'000};
    bool m_stopped = false; ///< control thread: stop() ran
    bool m_compact = false; ///< setCompact()

    // Shared with the measuring threads.
    std::atomic<int64_t> m_periodNs{1'000'000};
    std::atomic<uint32_t> m_epoch{0};
    std::atomic<bool> m_finished{false};
    std::atomic<int> m_workersDone{0};         ///< threads that reached their duration or sample count
    std::atomic<int> m_workerCount{0};         ///< how many there are, read by a thread as it ends
    int64_t m_startNs = 0;                     ///< set before any thread starts, then constant
    std::atomic<int64_t> m_stopRequestedNs{0}; ///< when stop() was called, 0 while running

    // The workers: the vector and the collector-side state below change only with m_workersMutex held. The
    // collector holds it for each drain and snapshot; the control thread while it replaces the workers (a restart
    // on other CPUs), so the sink sees the old threads' last samples, then onRestart, then the new ones.
    mutable std::mutex m_workersMutex;
    Workers m_workers;
    MemoryLockStatus m_memoryLock; ///< what the rings and stacks of the current workers have
    ReportedTotals m_dropsSent;    ///< the last drop total the sink got, per worker
    DrainBuffer<LatencySample, 1024> m_drainBatch;

    HogSet m_hogs; ///< m_config.hogs on each CPU of its placement (the resolved hog CPUs)

    DmaLatencyHold m_dma;
    // What the hold gave at start: a snapshot reports what the run had, also after stop() let go of the device.
    bool m_dmaHeld = false;
    std::string m_dmaNote;

    // Collector-thread state (makeSnapshot, with m_workersMutex held) ...
    CounterRate m_hogRate;
    // ... and what the control thread hands to it.
    std::mutex m_controlMutex;
    LatencyConfig m_publishedConfig; ///< the collector's copy of m_config
    std::vector<Marker> m_markers;
    bool m_resetRequested = false;
    int64_t m_resetNs = 0;
    std::string m_runError; ///< why the run ended on its own (a failed restore)

    // The run sink: set before start(); m_sinkActive is written only while the collector is not running.
    struct SinkEvent {
        bool reset = false;
        Marker marker;
        LatencyConfig config;
    };
    LatencyRunSink* m_sink = nullptr;
    bool m_sinkActive = false;
    std::vector<SinkEvent> m_sinkEvents; ///< guarded by m_controlMutex

    // Tracing (config.trace): the control thread drives the session, the collector feeds and reads the figures.
    LatencyTracer m_tracer;
};

} // namespace rtscope
