#pragma once
/// @file The lock-contention experiment (docs/experiments/locks.md): T pinned workers repeatedly take one lock, hold it
/// for a critical section of busy work, release it and do non-critical work; each lock kind runs in turn with
/// the same settings. Every acquisition's wait streams through a per-worker ring to the collector; the
/// counters (acquisition paths, context switches, CPU time) are published by each worker on its own cache
/// line. Snapshots are immutable and live while the experiment runs, like LatencyExperiment's.
#include "engine/experiments/contention_config.h"
#include "engine/pipeline/collector.h"
#include "engine/pipeline/histogram.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rtscope {

/// @brief How a set of acquisitions went (see Acquisition).
struct AcquisitionCounts {
    uint64_t acquisitions = 0;
    uint64_t uncontended = 0;          ///< the first attempt took it
    uint64_t spun = 0;                 ///< spun (or retried) and won without sleeping
    uint64_t slept = 0;                ///< went to the sleep (futex/kernel) path
    uint64_t sleptOwnerNotRunning = 0; ///< rtscope adaptive: stopped spinning because the owner was blocked
    uint64_t sleptOwnerOnThisCpu = 0;  ///< rtscope adaptive: ... because the owner was on the waiter's CPU
    uint64_t sleptSpinLimit = 0;       ///< rtscope adaptive: ... because the spin limit was reached
    uint64_t spinIterations = 0;       ///< spin and rtscope adaptive kinds
    uint64_t futexSleeps = 0;          ///< rtscope adaptive: futex waits that really blocked

    void add(const AcquisitionCounts& o);
    bool operator==(const AcquisitionCounts&) const = default;
};

/// @brief One worker's figures for one lock kind.
struct ContentionThreadStats {
    int index = 0;
    int cpu = -1;
    int tid = 0;
    AcquisitionCounts counts;
    uint64_t voluntarySwitches = 0;   ///< getrusage(RUSAGE_THREAD) ru_nvcsw during the run: it blocked
    uint64_t involuntarySwitches = 0; ///< ru_nivcsw: it was preempted
    int64_t cpuNs = 0;                ///< CLOCK_THREAD_CPUTIME_ID during the run
    uint64_t samplesDropped = 0;      ///< waits its ring refused (full); must stay 0
};

enum class KindRunState { Pending, Running, Done, Stopped, Failed };
const char* kindRunStateName(KindRunState s); ///< "pending", "running", "done", "stopped", "failed"

/// @brief The figures of one lock kind (live while it runs, final afterwards).
struct ContentionKindResult {
    LockKind kind = LockKind::Mutex;
    KindRunState state = KindRunState::Pending;
    int64_t startNs = 0;   ///< CLOCK_MONOTONIC when the workers were released
    int64_t elapsedNs = 0; ///< measured time so far (the kind's duration once done)
    AcquisitionCounts counts;
    double acquisitionsPerSec = 0;
    Histogram wait; ///< per acquisition: from the request to holding the lock, ns
    uint64_t samplesDropped = 0;
    uint64_t voluntarySwitches = 0;
    uint64_t involuntarySwitches = 0;
    double cpuNsPerAcquisition = 0; ///< all workers' CPU time / acquisitions (spinning shows up here)
    double fairness = 0;            ///< Jain's index of the per-thread acquisitions: 1 = even, 1/threads = one took all
    double minShare = 0;            ///< fewest acquisitions of one thread / the mean
    double maxShare = 0;            ///< most acquisitions of one thread / the mean
    std::vector<ContentionThreadStats> threads;
    std::string error;
};

struct ContentionSnapshot {
    ContentionConfig config;     ///< as running (cpu resolved)
    std::vector<int> workerCpus; ///< one per worker
    uint64_t generation = 0;
    bool running = false;
    bool finished = false; ///< every kind ran (or the run failed)
    int64_t startNs = 0;
    int64_t publishedNs = 0;
    int currentKind = -1; ///< index into kinds of the kind running now; -1 when none is
    /// @brief One per config.kinds entry, same order; pending kinds have state Pending and no figures.
    std::vector<std::shared_ptr<const ContentionKindResult>> kinds;
    std::string memoryLock;
    std::string error; ///< why the run failed, empty if it did not

    /// @brief The result of @p kind, or null when it is not part of the run.
    const ContentionKindResult* result(LockKind kind) const;
};

/// @brief Jain's fairness index of per-thread counts: (Σx)² / (n·Σx²); 0 when every count is 0.
double jainFairness(const std::vector<uint64_t>& counts);

class ContentionExperiment : private CollectorSource {
public:
    ContentionExperiment();
    ~ContentionExperiment() override;
    ContentionExperiment(const ContentionExperiment&) = delete;
    ContentionExperiment& operator=(const ContentionExperiment&) = delete;

    /// @brief Lock all memory with mlockall (CLI) instead of only the rings (GUI). Call before start().
    void setLockAllMemory(bool all) { m_lockAll = all; }

    /// @brief Validates, checks that the workers' scheduling is permitted (a throw-away thread with the same
    /// attributes), then runs the kinds one after the other on a control thread. Returns at once.
    Error start(const ContentionConfig& config);
    /// @brief Stops the running kind (its workers demoted first, then joined), skips the rest, publishes.
    /// Returns within about 100 ms. Idempotent.
    void stop();

    bool running() const { return m_running.load(); }
    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    const ContentionConfig& config() const { return m_config; }
    /// @brief The workers' CPUs, sorted, each once; empty when not running. Whoever drives the experiment keeps its
    /// own threads off them (ScopedCallerAffinity in the CLI). Control thread only.
    std::vector<int> busyCpus() const;
    /// @brief The latest published snapshot; never blocks a worker. Null before the first start().
    std::shared_ptr<const ContentionSnapshot> snapshot() const;
    /// @brief Publishes now (after stop(), or for tests).
    void publishNow();

    /// @brief How often a worker refreshes its context-switch and CPU-time figures (a getrusage and a
    /// clock_gettime, outside the timed part of an acquisition).
    static constexpr int64_t kCounterRefreshNs = 20'000'000;

private:
    struct KindRun;
    struct WorkerCounters;

    size_t drain() override;
    void publish() override;

    void runAll();
    Error runKind(size_t index);
    void workerLoop(KindRun& run, int worker, const std::atomic<bool>& threadStop);
    std::shared_ptr<ContentionKindResult> buildResult(const KindRun& run, KindRunState state, int64_t now) const;
    size_t drainRun(KindRun& run);

    ContentionConfig m_config;
    std::vector<int> m_workerCpus;
    bool m_lockAll = false;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_finished{false};
    int64_t m_startNs = 0;
    MemoryLockStatus m_memoryLock;

    std::thread m_runner;
    std::mutex m_stopMutex;
    std::condition_variable m_stopCv;
    bool m_stopAll = false; ///< guarded by m_stopMutex

    // Shared by the runner and the collector thread.
    std::mutex m_runMutex;
    std::shared_ptr<KindRun> m_current;
    int m_currentIndex = -1;
    std::vector<std::shared_ptr<const ContentionKindResult>> m_results;
    std::string m_error;

    Collector m_collector;
    uint64_t m_generation = 0; ///< collector thread only
    mutable std::mutex m_snapshotMutex;
    std::shared_ptr<const ContentionSnapshot> m_snapshot;
};

} // namespace rtscope
