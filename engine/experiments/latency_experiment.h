#pragma once
/// @file The latency experiment (docs/science.md, Latency under load; cyclictest's method): a periodic measuring thread
/// and N CPU hogs on one CPU, reconfigurable while it runs, streaming samples through a ring to the collector.
#include "engine/experiments/latency_config.h"
#include "engine/pipeline/collector.h"
#include "engine/pipeline/latency_aggregator.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/dma_latency.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace rtscope {

/// @brief How many markers a run keeps (live or replayed): a change a second for almost three hours.
inline constexpr size_t kMaxMarkers = 10'000;

/// @brief A labelled point on the timeline: a configuration change, a start, a reset.
struct Marker {
    int64_t tNs = 0;
    uint64_t seq = 0;
    std::string label;
};

struct LatencySnapshot {
    LatencyConfig config;    ///< in force now (cpu resolved)
    uint64_t generation = 0; ///< increases with every publish
    bool running = false;
    bool finished = false; ///< reached its duration or sample count
    int64_t startNs = 0;   ///< CLOCK_MONOTONIC at start
    int64_t resetNs = 0;   ///< CLOCK_MONOTONIC of the last statistics reset (== startNs if none)
    int64_t publishedNs = 0;
    /// CLOCK_MONOTONIC when the run was asked to stop (0 while it runs): no counted wake-up is at or after it.
    int64_t stopRequestedNs = 0;
    std::vector<LatencyThreadStats> threads;
    std::vector<Marker> markers;
    uint64_t hogIterations = 0; ///< work done by all hogs since start (RT changes when, not how much)
    double hogIterationsPerSec = 0;
    std::string memoryLock; ///< what was locked, in words
    bool dmaLatencyHeld = false;
    std::string dmaLatencyNote;
    std::string error; ///< a worker's failure (e.g. a wait returned an error), empty if none
};

/// @brief What a run sink learns when a run starts.
struct LatencyRunInfo {
    LatencyConfig config;  ///< as started (cpu resolved)
    int64_t startNs = 0;   ///< CLOCK_MONOTONIC, the snapshots' startNs
    std::vector<int> cpus; ///< measuring thread i runs on cpus[i]
    int quietCpu = -1;     ///< a CPU without measuring threads or hogs (the collector's), -1 if none
};

/// @brief Receives everything the aggregators see, in the order they see it: the raw-sample tap for recordings
/// and exports. onRunStart and onRunEnd run on the thread that calls start() and stop(); every other call runs
/// on the collector thread (or on the control thread while the collector is detached), never concurrently
/// and never on a measuring thread, so a sink may allocate and block briefly, at the price of a fuller ring.
class LatencyRunSink {
public:
    virtual ~LatencyRunSink() = default;
    virtual void onRunStart(const LatencyRunInfo& info) = 0;
    /// A drained batch of measuring thread @p thread, in sequence order.
    virtual void onSamples(size_t thread, std::span<const LatencySample> batch) = 0;
    /// A marker (the start, a live change) and the config in force from it on.
    virtual void onMarker(const Marker& marker, const LatencyConfig& config) = 0;
    /// Statistics were cleared here: samples after this call count from zero.
    virtual void onReset(int64_t tNs) = 0;
    /// The ring of @p thread has refused @p total samples since the thread started (sent when it changes).
    virtual void onDrops(size_t thread, uint64_t total) = 0;
    /// The hogs' work counter (sent when the rate is resampled, every 250 ms, and once more at the end).
    virtual void onHogWork(int64_t tNs, uint64_t iterations, double perSecond) = 0;
    /// The measuring threads were replaced (a CPU change): new aggregates, thread i now on @p cpus[i].
    virtual void onRestart(int64_t tNs, const std::vector<int>& cpus) = 0;
    virtual void onRunEnd(int64_t stopNs) = 0;
};

class LatencyExperiment : private CollectorSource {
public:
    LatencyExperiment();
    ~LatencyExperiment() override;
    LatencyExperiment(const LatencyExperiment&) = delete;
    LatencyExperiment& operator=(const LatencyExperiment&) = delete;

    /// @brief Lock all memory with mlockall (CLI, like cyclictest -m) instead of only the RT path's
    /// stacks and rings (GUI). Call before start().
    void setLockAllMemory(bool all) { m_lockAll = all; }
    /// @brief How often the collector drains the rings (default 1 ms) and publishes a snapshot (default 16 ms, one
    /// per frame for the GUI). Each pass wakes the collector's CPU and publishing copies the histograms; a headless
    /// run that looks once a second asks for less, so the instrument disturbs the machine less. Drain is clamped to
    /// 1 … 100 ms (the ring holds 1.3 s at the shortest period), publish to drain … 10 s; applies at the next start().
    void setCollectorPace(int64_t drainNs, int64_t publishNs);
    /// @brief How much of the timeline each snapshot carries (1 s … 120 s, default 10 s).
    void setSeriesWindow(int64_t ns);
    /// @brief Hands every run's samples, markers, resets and drops to @p sink (null: none). Only while not
    /// running; the sink must outlive every later run.
    void setRunSink(LatencyRunSink* sink);

    /// @brief Validates, then starts hogs, the measuring thread(s) (one per CPU in config.cpus) and the collector. On
    /// any failure everything started is stopped again and the error returned (InvalidConfig, Permission, …).
    Error start(const LatencyConfig& config);
    /// @brief Stops and joins every thread (within 100 ms; one that overstays is demoted), drains the last samples,
    /// publishes. Idempotent.
    void stop();
    /// @brief Applies a new configuration to the running experiment without restarting the process and
    /// records a marker. Period, policy, priority and hog count change in place; a new waiter or CPU
    /// restarts the measuring threads (each thread's sequence numbers continue). A refused change leaves the run
    /// as it was; when even that cannot be put back, the run stops, and the error and the snapshot say so.
    Error reconfigure(const LatencyConfig& config);
    /// @brief Clears histogram and counters (the timeline is kept) and records a "reset" marker.
    void resetStatistics();

    bool running() const { return m_running.load(); }
    /// @brief Every measuring thread reached the duration or sample count.
    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    const LatencyConfig& config() const { return m_config; }
    /// @brief The CPUs this run loads: every measuring CPU and, with hogs, every hog CPU; empty when not running.
    /// Whoever drives the experiment keeps its own threads off them (ScopedCallerAffinity, GuiThreadAffinity).
    std::vector<int> busyCpus() const;
    /// @brief The latest published snapshot; never blocks a worker. Null before the first start().
    std::shared_ptr<const LatencySnapshot> snapshot() const;
    /// @brief Publishes now (after stop(), or for tests).
    void publishNow();

    /// @brief Samples the ring can hold before it drops (for tests and the benchmark).
    static constexpr size_t kRingCapacity = 1 << 16;

private:
    size_t drain() override;
    void publish() override;

    /// One measuring thread with its own ring and aggregates (cyclictest -t: one per CPU).
    struct Worker {
        int cpu = -1;
        RtThread thread;
        std::unique_ptr<SpscRing<LatencySample>> ring;
        std::atomic<int> tid{0};
        std::atomic<uint64_t> nextSeq{0}; ///< written by the thread as it exits; the restart continues from it
        std::atomic<int64_t> stopRequestNs{kNoStopRequest}; ///< a wake-up at or after this is not measured
        std::string error;                                  ///< written by the thread before it exits; read after join
        // Collector-thread state.
        LatencyAggregator agg;
        uint64_t dropsAtReset = 0;
    };

    static constexpr int64_t kNoStopRequest = INT64_MAX;
    Error startWorker(Worker& w);
    /// Marks the moment from which @p w measures nothing more and asks it to stop (does not wait).
    static void requestWorkerStop(Worker& w, int64_t requestNs);
    void stopWorker(Worker& w);
    Error startAllWorkers(const std::vector<int>& cpus);
    void stopAllWorkers();
    Error setHogCount(int perCpu);
    void stopAllHogs();
    void addMarker(const std::string& label);
    void configChanged(); ///< hands m_config to the collector thread
    /// Ends the run after a refused change whose undo failed too; returns the error that says both.
    Error stopAfterFailedRestore(const Error& refused, const Error& restore);
    uint64_t currentSeq() const;
    void sendDrops(size_t thread, uint64_t total); ///< collector side of the run sink
    void measuringLoop(Worker& w, const std::atomic<bool>& stop, uint64_t firstSeq);

    LatencyConfig m_config;          ///< control thread's copy (cpu and hogCpu resolved)
    LatencyConfig m_publishedConfig; ///< the collector's copy, guarded by m_controlMutex
    std::vector<int> m_cpus;         ///< measured CPUs (resolved)
    std::vector<int> m_hogCpus;      ///< CPUs that get m_config.hogs hogs each
    std::atomic<bool> m_running{false};
    bool m_lockAll = false;
    int64_t m_drainIntervalNs = 1'000'000;
    int64_t m_publishIntervalNs = 16'000'000;
    std::atomic<int64_t> m_seriesWindowNs{10'000'000'000};

    // Shared with the measuring threads.
    std::atomic<int64_t> m_periodNs{1'000'000};
    std::atomic<uint32_t> m_epoch{0};
    std::atomic<bool> m_finished{false};
    std::atomic<int> m_workersDone{0}; ///< threads that reached their duration or sample count
    int64_t m_startNs = 0;
    int64_t m_stopRequestedNs = 0;                  ///< when stop() was called, 0 while running
    std::vector<std::unique_ptr<Worker>> m_workers; ///< changed only while the collector is detached

    // Hogs: counters on their own cache lines, so hogs do not slow each other through false sharing.
    struct alignas(kCacheLine) HogCounter {
        std::atomic<uint64_t> iterations{0};
        std::atomic<bool> retire{false}; ///< set for every hog to remove before joining any of them
    };
    std::unique_ptr<HogCounter[]> m_hogCounters;
    std::vector<std::unique_ptr<RtThread>> m_hogs;
    std::atomic<uint64_t> m_retiredHogIterations{0};

    Collector m_collector;
    DmaLatencyHold m_dma;
    MemoryLockStatus m_memoryLock;
    std::string m_lockAllDetail; ///< why mlockall did not happen, if it was asked for

    // Collector-thread state ...
    int64_t m_lastHogSampleNs = 0;
    uint64_t m_lastHogIterations = 0;
    double m_hogRate = 0;
    uint64_t m_generation = 0;
    // ... and what the control thread hands to it.
    std::mutex m_controlMutex;
    std::vector<Marker> m_markers;
    bool m_resetRequested = false;
    int64_t m_resetNs = 0;

    // The run sink: set while stopped; m_sinkActive is written only while the collector is not running.
    struct SinkEvent {
        bool reset = false;
        Marker marker;
        LatencyConfig config;
    };
    LatencyRunSink* m_sink = nullptr;
    bool m_sinkActive = false;
    std::vector<SinkEvent> m_sinkEvents; ///< guarded by m_controlMutex
    std::string m_runError;              ///< why the run ended on its own (a failed restore), guarded by m_controlMutex
    std::vector<uint64_t> m_dropsSent;   ///< collector thread: the last total sent per worker
    DrainBuffer<LatencySample, 1024> m_drainBatch; ///< collector thread only

    mutable std::mutex m_snapshotMutex;
    std::shared_ptr<const LatencySnapshot> m_snapshot;
};

} // namespace rtscope
