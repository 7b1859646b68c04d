#pragma once
/// @file The sleep-floor experiment (docs/experiments/sleep-floor.md): one pinned thread asks for each requested length
/// N times with each method (nanosleep, clock_nanosleep relative/absolute, busy-wait, hybrid) and measures what it got
/// on the wall clock and in CPU time; optional background load keeps the other CPUs awake. The collector turns the
/// samples into exact figures per request and method (SleepFloorAggregator).
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/run_status.h"
#include "engine/experiments/timers/sleep_floor_config.h"
#include "engine/pipeline/append_log.h"
#include "engine/pipeline/sleep_floor_aggregator.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/hog_set.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief Figures of one requested length with one method (SleepCellFigures, from the SleepFloorAggregator), and
/// the method.
struct SleepFloorCell : SleepCellFigures {
    SleepMethod method = SleepMethod::Nanosleep;
};

/// finished: every sample taken; false after a stop or a failure.
struct SleepFloorSnapshot : SnapshotOf<SleepFloorConfig> {
    int64_t clockResolutionNs = 0;  ///< clock_getres(CLOCK_MONOTONIC): how finely the clock is read
    int64_t timerSlackNs = -1;      ///< prctl(PR_GET_TIMERSLACK) in the measuring thread; -1 before it ran
    int64_t effectiveSlackNs = 0;   ///< what its sleeps actually get: 0 under fifo/rr
    std::string slackNote;          ///< in words, for the view and the table
    int64_t cpuClockOverheadNs = 0; ///< cost of reading the CPU-time clock, subtracted from every sample's cpuNs
    int tid = 0;
    uint64_t samplesDone = 0;
    uint64_t samplesTotal = 0;
    int currentRequest = -1;           ///< index of the request being measured, -1 before the first sample
    std::vector<SleepFloorCell> cells; ///< request-major: cells[request × methods + method]
    /// Median of the smallest request, per method (in the config's method order): the measured floor.
    std::vector<int64_t> floorNs;
    int loadThreads = 0; ///< background spinners started (0 when load is off)
    uint64_t loadIterations = 0;
    uint64_t drops = 0; ///< samples the ring refused (must stay 0)

    std::shared_ptr<const AppendLog<SleepSample>> log;
    size_t logCount = 0;
    std::span<const SleepSample> rawSamples() const
    {
        return log ? log->prefix(logCount) : std::span<const SleepSample>();
    }
    const SleepFloorCell& cell(size_t request, size_t method) const
    {
        return cells[request * config.methods.size() + method];
    }
};

/// @brief One run of the sleep-floor experiment (the ExperimentRun of experiment_host.h): the measuring thread, its
/// ring, the background load threads, and the SleepFloorAggregator the collector drains the ring into.
class SleepFloorRun {
public:
    using Config = SleepFloorConfig;
    using Snapshot = SleepFloorSnapshot;
    static constexpr std::string_view kName = "sleep-floor";
    static constexpr size_t kRingCapacity = 1 << 14;

    /// @brief Resolves the CPU, reads clock_getres, allocates the ring, the cells and the raw-sample log and locks
    /// the ring (unless mlockall is in force). No thread yet.
    SleepFloorRun(const SleepFloorConfig& config, const RunEnvironment& env);
    ~SleepFloorRun();
    SleepFloorRun(const SleepFloorRun&) = delete;
    SleepFloorRun& operator=(const SleepFloorRun&) = delete;

    /// @brief Starts the background load (if asked), then the measuring thread.
    Error start();
    /// @brief Joins the measuring thread, then the load threads (each within kJoinBudgetMs; one that overstays is
    /// demoted). Idempotent.
    void stop();
    /// @brief Collector thread: moves the ring into the aggregator.
    size_t drain();
    /// @brief Collector thread: the figures so far (every cell recomputed when not @p running).
    std::shared_ptr<SleepFloorSnapshot> makeSnapshot(bool running);

    /// @brief The measuring thread has ended (every sample taken, failed or stopped).
    bool finished() const { return m_done.load(std::memory_order_acquire); }
    /// @brief The measuring CPU and, with background load, every CPU a load thread spins on; sorted.
    std::vector<int> busyCpus() const;
    const SleepFloorConfig& config() const { return m_config; }
    /// @brief The collector and the load threads share the other CPUs; the measuring CPU stays for the waits alone.
    int collectorCpu() const { return m_env.topology.otherThan({m_config.cpu}); }

private:
    void measuringLoop(const std::atomic<bool>& stop);
    Error startLoad();

    SleepFloorConfig m_config;
    RunEnvironment m_env;
    MemoryLockStatus m_memoryLock;
    int64_t m_clockResolutionNs = 0;
    int64_t m_startNs = 0;
    std::atomic<bool> m_done{false};      ///< the measuring thread has ended, for whatever reason
    std::atomic<bool> m_completed{false}; ///< ... having taken every sample

    std::unique_ptr<SpscRing<SleepSample>> m_ring;
    RtThread m_measuring;
    std::atomic<int> m_tid{0};
    std::atomic<int64_t> m_slackNs{-1};
    std::atomic<int64_t> m_cpuOverheadNs{0};
    std::string m_workerError; ///< written by the measuring thread before it sets m_done

    // Started by start() only, before the collector starts: the collector reads m_loadThreads and the counters.
    HogSet m_load;         ///< one spinner on each CPU of its placement
    int m_loadThreads = 0; ///< how many started

    // Collector-thread state (set up before the collector starts).
    SleepFloorAggregator m_aggregator;
    DrainBuffer<SleepSample, 1024> m_drainBatch;
};

/// @brief The sleep-floor experiment: SleepFloorRun on the experiment host (start(config, topology), stop, ...).
class SleepFloorExperiment : public ExperimentHost<SleepFloorRun> {
public:
    static constexpr size_t kRingCapacity = SleepFloorRun::kRingCapacity;
};

} // namespace rtscope
