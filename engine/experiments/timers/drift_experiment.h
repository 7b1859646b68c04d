#pragma once
/// @file The drift experiment (docs/experiments/drift.md): several periodic timing methods side by side, one thread
/// each, same period, policy and CPU, every tick streamed through a ring to the collector, which turns it into
/// cumulative drift, lateness and missed-tick figures per method.
#include "engine/experiments/timers/drift_config.h"
#include "engine/pipeline/append_log.h"
#include "engine/pipeline/collector.h"
#include "engine/pipeline/histogram.h"
#include "engine/pipeline/spsc_ring.h"
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

/// @brief One wake-up of one method, as the worker saw it (plain data: copied through the ring).
struct DriftSample {
    int64_t wakeNs = 0;     ///< clock read right after the wait returned
    int64_t deadlineNs = 0; ///< t0 + k·P; for the naive loop what its sleep aimed at (sleep start + P)
    int64_t tick = 0;       ///< index k of the tick this wake-up answers, 1-based
};

/// @brief One tick of one method, as kept for the curves and the CSV.
struct DriftTick {
    int64_t tick = 0;       ///< k, 1-based; gaps are missed ticks
    int64_t driftNs = 0;    ///< cumulative drift: wake − (t0 + k·P)
    int64_t latenessNs = 0; ///< this wake-up's own lateness: wake − the deadline it aimed at
    uint32_t missed = 0;    ///< ticks that expired unanswered just before this one (timerfd/POSIX overruns, ...)
};

/// @brief Figures of one method, live and at the end.
struct DriftMethodStats {
    WaiterKind method = WaiterKind::Absolute;
    int tid = 0;
    uint64_t wakes = 0;       ///< wake-ups received
    int64_t lastTick = 0;     ///< index of the latest tick answered ("after N ticks")
    uint64_t missedTicks = 0; ///< ticks counted as expired but never woken for: never lost
    int64_t driftNs = 0;      ///< drift at lastTick
    int64_t minDriftNs = 0;
    int64_t maxDriftNs = 0;
    double slopeNsPerTick = 0; ///< least-squares slope of drift against tick (0 before two ticks)
    double rateHz = 0;         ///< wake-ups per second since t0
    double ratePercent = 0;    ///< rateHz as a percentage of the nominal rate 1/P
    int64_t latenessP50Ns = 0;
    int64_t latenessP99Ns = 0;
    int64_t latenessMaxNs = 0;
    int64_t timerSlackNs = -1; ///< prctl(PR_GET_TIMERSLACK) read in the method's own thread; -1 before it ran
    uint64_t drops = 0;        ///< samples the ring refused (must stay 0)
    bool done = false;         ///< reached the tick count, failed or was stopped
    std::string error;         ///< why the method stopped early, empty if it did not

    /// Every tick so far, shared with the experiment without copying (see AppendLog).
    std::shared_ptr<const AppendLog<DriftTick>> log;
    size_t logCount = 0;
    std::span<const DriftTick> ticks() const { return log ? log->prefix(logCount) : std::span<const DriftTick>(); }
};

struct DriftSnapshot {
    DriftConfig config;      ///< in force (cpu and tick count resolved)
    uint64_t generation = 0; ///< increases with every publish
    bool running = false;
    bool finished = false; ///< every method reached the tick count (or failed)
    int64_t t0Ns = 0;      ///< CLOCK_MONOTONIC origin: tick k is due at t0 + k·P
    int64_t publishedNs = 0;
    double nominalHz = 0;
    int64_t effectiveSlackNs = 0;          ///< what the sleeping methods actually get: 0 under fifo/rr
    std::string slackNote;                 ///< the slack in force, in words ("50.0 us (the default)", ...)
    std::vector<DriftMethodStats> methods; ///< in the config's order
    std::string memoryLock;
    std::string error; ///< first method failure or a timeout, empty if none
};

class DriftExperiment : private CollectorSource {
public:
    DriftExperiment();
    ~DriftExperiment() override;
    DriftExperiment(const DriftExperiment&) = delete;
    DriftExperiment& operator=(const DriftExperiment&) = delete;

    /// @brief Lock all memory with mlockall (CLI) instead of only the rings and stacks (GUI). Before start().
    void setLockAllMemory(bool all) { m_lockAll = all; }

    /// @brief Validates, starts one thread per method and the collector; all methods share t0. On any failure
    /// everything started is stopped again and the error returned (InvalidConfig, Permission, ...).
    Error start(const DriftConfig& config);
    /// @brief Stops and joins every thread (within 100 ms; one that overstays is demoted), drains the last samples,
    /// publishes. Idempotent.
    void stop();

    bool running() const { return m_running.load(); }
    /// @brief Every method is done, or the run overran its length by far (then the snapshot says why).
    bool finished() const;
    const DriftConfig& config() const { return m_config; }
    /// @brief The CPU this run loads (every method's thread runs on it); empty when not running. Whoever drives
    /// the experiment keeps its own threads off it (ScopedCallerAffinity in the CLI). Control thread only.
    std::vector<int> busyCpus() const { return m_running ? std::vector<int>{m_config.cpu} : std::vector<int>{}; }
    /// @brief The latest published snapshot; never blocks a worker. Null before the first start().
    std::shared_ptr<const DriftSnapshot> snapshot() const;

    static constexpr size_t kRingCapacity = 1 << 14;

private:
    struct Worker;

    size_t drain() override;
    void publish() override;
    void methodLoop(Worker& w, const std::atomic<bool>& stop);
    void stopWorkers();
    Error waitUntilReady();

    DriftConfig m_config;
    bool m_lockAll = false;
    std::atomic<bool> m_running{false};
    std::atomic<int64_t> m_t0{0};    ///< 0 until every worker is ready; then the shared origin
    std::atomic<bool> m_quit{false}; ///< tells every worker to stop at once, before any is joined
    int64_t m_runLimitNs = 0;        ///< after this, finished() gives up on methods that never completed
    std::vector<std::unique_ptr<Worker>> m_workers;
    MemoryLockStatus m_memoryLock;
    Collector m_collector;
    uint64_t m_generation = 0;                  ///< collector thread only
    DrainBuffer<DriftSample, 512> m_drainBatch; ///< collector thread only

    mutable std::mutex m_snapshotMutex;
    std::shared_ptr<const DriftSnapshot> m_snapshot;
};

} // namespace rtscope
