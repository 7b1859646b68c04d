#pragma once
/// @file The lock-contention experiment (docs/experiments/locks.md): T pinned workers repeatedly take one lock, hold it
/// for a critical section of busy work, release it and do non-critical work; each lock kind runs in turn with
/// the same settings. Every acquisition's wait streams through a per-worker ring to the collector, which feeds the
/// kind's ContentionAggregator (engine/pipeline/contention_aggregator.h); the counters (acquisition paths, context
/// switches, CPU time) are published by each worker on its own cache line. Snapshots are immutable and live while
/// the experiment runs, like LatencyExperiment's.
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/locks/contention_config.h"
#include "engine/experiments/run_status.h"
#include "engine/locks/lock.h"
#include "engine/pipeline/contention_aggregator.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rtscope {

/// @brief The figures of one lock kind (live while it runs, final afterwards): the aggregator's, and which kind.
struct ContentionKindResult : ContentionKindFigures {
    LockKind kind = LockKind::Mutex;
};

/// finished: every kind ran (or the run failed).
struct ContentionSnapshot : SnapshotOf<ContentionConfig> {
    std::vector<int> workerCpus; ///< one per worker
    int currentKind = -1;        ///< index into kinds of the kind running now; -1 when none is
    /// @brief One per config.kinds entry, same order; pending kinds have state Pending and no figures.
    std::vector<std::shared_ptr<const ContentionKindResult>> kinds;

    /// @brief The result of @p kind, or null when it is not part of the run.
    const ContentionKindResult* result(LockKind kind) const;
};

/// @brief One run of the contention experiment (an ExperimentRun): created by ContentionExperiment::start(),
/// destroyed by its stop(). A control thread runs the kinds one after the other; each kind has its own lock, rings,
/// worker counters, workers and aggregator, all gone when the kind ends.
class ContentionRun {
public:
    using Config = ContentionConfig;
    using Snapshot = ContentionSnapshot;
    static constexpr std::string_view kName = "contention";

    /// @brief How often a worker refreshes its context-switch and CPU-time figures (a getrusage and a
    /// clock_gettime, outside the timed part of an acquisition).
    static constexpr int64_t kCounterRefreshNs = 20'000'000;

    ContentionRun(const ContentionConfig& config, const RunEnvironment& env);
    ~ContentionRun();
    ContentionRun(const ContentionRun&) = delete;
    ContentionRun& operator=(const ContentionRun&) = delete;

    /// @brief Checks that the workers' scheduling is permitted (a throw-away thread with the same attributes), then
    /// starts the control thread that runs the kinds. Returns at once.
    Error start();
    /// @brief Stops the running kind (its workers demoted first, then joined), skips the rest and joins the control
    /// thread. Returns within about 100 ms. Idempotent.
    void stop();
    /// @brief The running kind's rings into its aggregator (collector thread).
    size_t drain();
    std::shared_ptr<ContentionSnapshot> makeSnapshot(bool running);

    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    /// @brief The workers' CPUs, sorted, each once.
    std::vector<int> busyCpus() const;
    const ContentionConfig& config() const { return m_config; }
    /// @brief Off the workers' CPU when they share one; with spread workers every CPU is theirs and it floats.
    int collectorCpu() const { return m_collectorCpu; }

private:
    struct KindRun;
    struct WorkerCounters;

    void runAll();
    Error runKind(size_t index);
    void workerLoop(KindRun& run, int worker, const std::atomic<bool>& threadStop);
    ThreadSpec workerSpec(int cpu) const;
    std::shared_ptr<ContentionKindResult> buildResult(const KindRun& run, KindRunState state, int64_t now) const;
    size_t drainKind(KindRun& run);

    ContentionConfig m_config;
    RunEnvironment m_env;
    std::vector<int> m_workerCpus;
    int m_collectorCpu = -1;
    std::atomic<bool> m_finished{false};
    int64_t m_startNs = 0;

    std::thread m_runner;
    std::mutex m_stopMutex;
    std::condition_variable m_stopCv;
    bool m_stopAll = false; ///< guarded by m_stopMutex

    // Shared by the control thread and the collector thread.
    std::mutex m_runMutex;
    std::shared_ptr<KindRun> m_current;
    int m_currentIndex = -1;
    std::vector<std::shared_ptr<const ContentionKindResult>> m_results;
    std::string m_error;
    MemoryLockStatus m_memoryLock; ///< what the rings' and stacks' locking gave so far, every kind's
};

/// @brief The contention experiment: ContentionRun on the experiment host (engine/experiments/experiment_host.h).
/// start(config, topology) validates and runs the kinds in turn; stop() ends the running kind and skips the rest.
class ContentionExperiment : public ExperimentHost<ContentionRun> {
public:
    /// @brief See ContentionRun::kCounterRefreshNs.
    static constexpr int64_t kCounterRefreshNs = ContentionRun::kCounterRefreshNs;
};

} // namespace rtscope
