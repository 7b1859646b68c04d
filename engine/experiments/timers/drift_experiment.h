#pragma once
/// @file The drift experiment (docs/experiments/drift.md): several periodic timing methods side by side, one thread
/// each, same period, policy and CPU, every tick streamed through a ring to the collector, which turns it into
/// cumulative drift, lateness and missed-tick figures per method (DriftAggregator).
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/run_status.h"
#include "engine/experiments/timers/drift_config.h"
#include "engine/pipeline/drift_aggregator.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief Figures of one method, live and at the end: what its wake-ups add up to (DriftMethodFigures, from the
/// DriftAggregator) and what only its thread knows.
struct DriftMethodStats : DriftMethodFigures {
    WaiterKind method = WaiterKind::Absolute;
    int tid = 0;
    int64_t timerSlackNs = -1; ///< prctl(PR_GET_TIMERSLACK) read in the method's own thread; -1 before it ran
    uint64_t drops = 0;        ///< samples the ring refused (must stay 0)
    bool done = false;         ///< reached the tick count, failed or was stopped
    std::string error;         ///< why the method stopped early, empty if it did not
};

/// finished: every method reached the tick count (or failed). error: the first method failure or a timeout.
struct DriftSnapshot : SnapshotOf<DriftConfig> {
    int64_t t0Ns = 0; ///< CLOCK_MONOTONIC origin: tick k is due at t0 + k·P
    double nominalHz = 0;
    int64_t effectiveSlackNs = 0;          ///< what the sleeping methods actually get: 0 under fifo/rr
    std::string slackNote;                 ///< the slack in force, in words ("50.0 us (the default)", ...)
    std::vector<DriftMethodStats> methods; ///< in the config's order
};

/// @brief One run of the drift experiment (the ExperimentRun of experiment_host.h): one thread per method on the
/// measured CPU, a ring each, and the DriftAggregator the collector drains them into. All methods share t0.
class DriftRun {
public:
    using Config = DriftConfig;
    using Snapshot = DriftSnapshot;
    static constexpr std::string_view kName = "drift";
    static constexpr size_t kRingCapacity = 1 << 14;

    /// @brief Resolves the CPU and the tick count, allocates the rings and the tick logs and locks the rings
    /// (unless mlockall is in force). No thread yet.
    DriftRun(const DriftConfig& config, const RunEnvironment& env);
    ~DriftRun();
    DriftRun(const DriftRun&) = delete;
    DriftRun& operator=(const DriftRun&) = delete;

    /// @brief Starts one thread per method, waits until every one is ready, then sets t0.
    Error start();
    /// @brief Every method gives up at once, then each is joined (within kJoinBudgetMs; one that overstays is
    /// demoted). Idempotent.
    void stop();
    /// @brief Collector thread: moves every method's ring into the aggregator.
    size_t drain();
    /// @brief Collector thread: the figures so far.
    std::shared_ptr<DriftSnapshot> makeSnapshot(bool running);

    /// @brief Every method is done, or the run overran its length by far (then the snapshot says why).
    bool finished() const;
    /// @brief The CPU this run loads: every method's thread runs on it.
    std::vector<int> busyCpus() const { return {m_config.cpu}; }
    const DriftConfig& config() const { return m_config; }
    /// @brief Off the measured CPU: the methods' work would delay the collector and the rings would fill.
    int collectorCpu() const { return m_env.topology.otherThan({m_config.cpu}); }

private:
    struct Worker;

    void methodLoop(Worker& w, const std::atomic<bool>& stop);

    DriftConfig m_config;
    RunEnvironment m_env;
    MemoryLockStatus m_memoryLock;
    std::atomic<int64_t> m_t0{0};    ///< 0 until every worker is ready; then the shared origin
    std::atomic<bool> m_quit{false}; ///< tells every worker to stop at once, before any is joined
    std::atomic<bool> m_live{false}; ///< started and not yet stopped: only then does the run limit apply
    int64_t m_runLimitNs = 0;        ///< after this, finished() gives up on methods that never completed
    std::vector<std::unique_ptr<Worker>> m_workers;

    // Collector-thread state (set up before the collector starts).
    DriftAggregator m_aggregator;
    DrainBuffer<DriftSample, 512> m_drainBatch;
};

/// @brief The drift experiment: DriftRun on the experiment host (start(config, topology), stop, snapshot, ...).
class DriftExperiment : public ExperimentHost<DriftRun> {
public:
    static constexpr size_t kRingCapacity = DriftRun::kRingCapacity;
};

} // namespace rtscope
