#pragma once
/// @file What the contention lab (docs/experiments/locks.md, "How it is measured") makes of one lock kind: the
/// wait of every acquisition, drained from the workers' rings, and the counters each worker publishes, turned into
/// the kind's figures (throughput, wait distribution, context switches, CPU time per acquisition, fairness).
///
/// Thread-free, like LatencyAggregator: the collector feeds it and asks it for figures, and a test can do the
/// same with made-up events. Which lock kind it was is the experiment's business (engine/locks is a layer above
/// this one), so the figures carry no kind; ContentionKindResult adds it.
#include "engine/pipeline/histogram.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rtscope {

/// @brief One acquisition as it crosses a worker's ring: how long the worker waited for the lock.
struct LockWaitSample {
    int64_t waitNs = 0;
};

/// @brief How a set of acquisitions went (see Acquisition in engine/locks/lock.h).
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
struct ContentionKindFigures {
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

/// @brief Jain's fairness index of per-thread counts: (Σx)² / (n·Σx²); 0 when every count is 0.
double jainFairness(const std::vector<uint64_t>& counts);

/// @brief One lock kind's run, as the collector sees it: the waits it drained, and when the kind began and was
/// planned to end. A new kind is a new aggregator.
class ContentionAggregator {
public:
    ContentionAggregator() = default;
    /// @param startNs when the workers were released (CLOCK_MONOTONIC)
    /// @param endNs when the kind ends if nobody stops it
    ContentionAggregator(int64_t startNs, int64_t endNs);

    void add(const LockWaitSample& s) { m_wait.record(s.waitNs); }
    void add(const LockWaitSample* samples, size_t n);

    const Histogram& waits() const { return m_wait; }
    int64_t startNs() const { return m_startNs; }
    int64_t endNs() const { return m_endNs; }

    /// @brief The kind's figures at @p nowNs in state @p state. @p stoppedNs is when a stop cut the kind short
    /// (0: it was not), which ends its measured time there; otherwise the time runs to @p nowNs, at most to
    /// endNs(). @p threads are the workers' counters as read now, in worker order: the kind's counts, switches,
    /// drops and shares are their sums and ratios, the wait distribution is what was added here.
    ContentionKindFigures figures(KindRunState state, int64_t nowNs, int64_t stoppedNs,
                                  std::vector<ContentionThreadStats> threads) const;

private:
    int64_t m_startNs = 0;
    int64_t m_endNs = 0;
    Histogram m_wait;
};

} // namespace rtscope
