#pragma once
/// @file The starvation lab (docs/experiments/starvation.md): a SCHED_FIFO/RR spinner busy-loops for bursts on one CPU
/// while SCHED_OTHER counter threads on the same CPU try to make progress. A sampler on another CPU reads the
/// counters every 10 ms and streams them, like every worker's events, through rings to the collector, which feeds
/// them to a StarvationAggregator (engine/pipeline/starvation_aggregator.h) and publishes immutable snapshots through
/// the experiment host: per-counter rates, progress during and after every burst, and the windows in which a starved
/// counter advanced anyway (RT throttling / the fair server).
///
/// Safety is part of the feature: the spinner checks its own deadline every few thousand iterations, a
/// watchdog on another CPU at a higher FIFO priority demotes it when it overruns by more than 50 ms, it never
/// goes on a reserved or the only CPU (StarvationConfig::validate), and stop(), the destructor and every
/// failed start() demote it and join every thread within 100 ms (StarvationRun::stop).
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/run_status.h"
#include "engine/experiments/starvation/starvation_config.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/pipeline/starvation_aggregator.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/throttle_settings.h"
#include "engine/rt/watchdog.h"
#include "engine/util/error.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace rtscope {

// RunSegment, ThrottleWindow, findThrottleWindows, CounterStats, BurstRecord and kStarvationMaxThreads are the
// aggregator's plain data (engine/pipeline/starvation_aggregator.h), reachable from here as before.
static_assert(kStarvationMaxThreads == StarvationConfig::kMaxCounters + 1, "counters + control");

/// finished: the spinner ran its bursts (or the watchdog ended the run). error: a failure of the run (a remote link
/// lost); why bursts were cancelled is the note, part of the lesson.
struct StarvationSnapshot : SnapshotOf<StarvationConfig> {
    int controllerCpu = -1; ///< where the watchdog, sampler and collector run
    pid_t spinnerTid = 0;
    bool interrupted = false;                             ///< stopped before the planned end
    int64_t endNs = 0;                                    ///< when the spinner finished; 0 while running
    int64_t leadInNs = 0;                                 ///< the gap before the first burst (so far)
    std::array<uint64_t, kStarvationMaxThreads> leadIn{}; ///< per counter, during the lead-in: the normal rate
    int starvedCounters = 0; ///< counters[0 .. starvedCounters) share the spinner's CPU; a control follows
    std::vector<CounterStats> counters;
    std::vector<BurstRecord> bursts; ///< oldest first, the running one last (at most kMaxBurstRecords)
    uint64_t burstsDropped = 0;      ///< older records left out of a long repeating run
    ThrottleSettings kernel;
    WatchdogConfig watchdog;
    std::vector<WatchdogTrip> watchdogTrips;
    uint64_t droppedSamples = 0;  ///< sampler ring full (the rate lines have a gap)
    uint64_t droppedSegments = 0; ///< counters' run-segment rings full (windows may be incomplete)
    uint64_t droppedEvents = 0;   ///< spinner event ring full (a burst record is missing)
    std::string note;             ///< e.g. why the remaining bursts were cancelled

    /// @brief The burst that is spinning now, or null.
    const BurstRecord* spinningBurst() const;
};

/// @brief One run of the starvation lab (the ExperimentRun of experiment_host.h): the spinner, the counters, the
/// sampler, the watchdog, their rings and the aggregator, created by StarvationExperiment::start() and destroyed by
/// its stop(). The collector (on the controller CPU) calls drain() and makeSnapshot().
class StarvationRun {
public:
    using Config = StarvationConfig;
    using Snapshot = StarvationSnapshot;
    static constexpr std::string_view kName = "starvation";

    static constexpr int64_t kStallNs = StarvationAggregator::kStallNs;
    static constexpr int kSpinBatch = 4096;    ///< spinner iterations between two deadline checks
    static constexpr int kCounterBatch = 1024; ///< counter operations between two clock reads
    static constexpr int64_t kDrainIntervalNs = 2'000'000;
    static constexpr int64_t kPublishIntervalNs = 20'000'000;
    static constexpr int64_t kDefaultSeriesWindowNs = 10'000'000'000;

    /// @brief Resolves the CPUs against @p env's topology, reads the kernel's throttling settings, allocates the
    /// rings and locks them unless all memory is. No thread yet.
    StarvationRun(const StarvationConfig& config, const RunEnvironment& env);
    /// @brief Stops (stop()) whatever is still running.
    ~StarvationRun();
    StarvationRun(const StarvationRun&) = delete;
    StarvationRun& operator=(const StarvationRun&) = delete;

    /// @brief How much of the rate lines each snapshot carries; before start() it also sizes them. Any thread.
    void setSeriesWindow(int64_t ns) { m_seriesWindowNs.store(ns, std::memory_order_relaxed); }
    /// @brief See StarvationExperiment::setTestDeadlineOverrun(). Before start().
    void setTestDeadlineOverrun(int64_t ns) { m_testOverrunNs = ns; }

    /// @brief Refuses a priority that leaves the watchdog no room above it (Permission), then starts the watchdog,
    /// the counters, the sampler and last the spinner, which sleeps one gap before its first burst. On failure the
    /// host calls stop(), which stops what was started.
    Error start();
    /// @brief Asks the spinner to leave its burst, demotes and joins it, then the counters, the sampler and the
    /// watchdog, each within kJoinBudgetMs. Idempotent; also stops a partly started run.
    void stop();
    /// @brief Collector thread: everything waiting in the rings into the aggregator.
    size_t drain();
    /// @brief Collector thread: the windows brought up to date, then an immutable snapshot of everything.
    std::shared_ptr<StarvationSnapshot> makeSnapshot(bool running);

    /// @brief The spinner has run all its bursts (or the watchdog ended the run).
    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    /// @brief The spinner's CPU, which its starved counters share: a caller's thread there would be starved too,
    /// and would count as one more task the spinner starves.
    std::vector<int> busyCpus() const { return {m_config.cpu}; }
    const StarvationConfig& config() const { return m_config; }
    /// @brief The controller's CPU, with the watchdog and the sampler: never the spinner's.
    int collectorCpu() const { return m_controllerCpu; }
    CollectorPace pace() const { return {kDrainIntervalNs, kPublishIntervalNs}; }

private:
    struct alignas(kCacheLine) CounterSlot {
        std::atomic<uint64_t> ops{0};
        std::atomic<int64_t> openStartNs{INT64_MAX}; ///< start of the segment running now; INT64_MAX: none
        std::atomic<int64_t> lastSeenNs{0};          ///< the counter's latest clock read
        std::atomic<pid_t> tid{0};
    };

    Error startCounters();
    void spinnerLoop(const std::atomic<bool>& stop);
    void counterLoop(int index, const std::atomic<bool>& stop);
    void samplerLoop(const std::atomic<bool>& stop);
    bool sleepUntil(int64_t tNs, const std::atomic<bool>& stop);
    void pushEvent(StarvationSpinnerEvent::Kind kind, int burst, int64_t tNs, bool demoted, bool interrupted);
    size_t drainSegments();

    StarvationConfig m_config; ///< resolved, fixed while running
    int m_controllerCpu = -1;
    int m_threads = 0; ///< counters including the control one
    bool m_stopped = false;
    std::atomic<bool> m_finished{false};
    int64_t m_testOverrunNs = 0;
    std::atomic<int64_t> m_seriesWindowNs{kDefaultSeriesWindowNs};
    int64_t m_startNs = 0;
    MemoryLockStatus m_memoryLock;
    ThrottleSettings m_kernel;

    // Shared with the workers.
    std::unique_ptr<CounterSlot[]> m_counters;
    std::unique_ptr<SpscRing<StarvationSpinnerEvent>> m_events;
    std::unique_ptr<SpscRing<StarvationProgressSample>> m_samples;
    std::vector<std::unique_ptr<SpscRing<RunSegment>>> m_segmentRings;
    std::atomic<pid_t> m_spinnerTid{0};
    std::atomic<bool> m_retireCounters{false}; ///< one flag for all counters, so they leave together
    std::atomic<bool> m_leaveBurst{false};     ///< stop() asks the spinner to end its burst before demoting it
    std::atomic<bool> m_spinning{false};       ///< the spinner is inside a burst
    Watchdog m_watchdog;
    int m_watchdogSlot = -1;
    RtThread m_spinner;
    RtThread m_sampler;
    std::vector<std::unique_ptr<RtThread>> m_counterThreads;

    // Collector-thread state.
    StarvationAggregator m_agg;
    std::vector<RunSegment> m_segmentBatch; ///< one ring's segments on their way into the aggregator
};

class StarvationExperiment final : public ExperimentHost<StarvationRun> {
public:
    static constexpr int64_t kStallNs = StarvationRun::kStallNs; ///< a counter off the CPU longer ends a segment
    static constexpr int64_t kWindowMergeNs = StarvationAggregator::kWindowMergeNs; ///< breaks inside one window
    static constexpr int kSpinBatch = StarvationRun::kSpinBatch;
    static constexpr int kCounterBatch = StarvationRun::kCounterBatch;
    static constexpr size_t kMaxBurstRecords = StarvationAggregator::kMaxBurstRecords;
    static constexpr int64_t kMaxTestOverrunNs = 1'000'000'000;

    /// @brief How much of the rate lines each snapshot carries (1 s … 120 s, default 10 s).
    void setSeriesWindow(int64_t ns);
    /// @brief Test hook: the spinner keeps spinning @p ns past every burst deadline, as a buggy spinner would,
    /// so that the watchdog has something to catch (0 … 1 s, default 0). Call before start().
    void setTestDeadlineOverrun(int64_t ns);

    // start(config, topology): validates against @p topology (StarvationConfig::placementTopology(): the lab's
    // threads are pinned by attribute, so the calling thread's affinity does not bound them), then the run starts
    // the watchdog, the counters, the sampler and last the spinner; the host adds the collector. stop(): the
    // spinner is demoted first (StarvationRun::stop), then everything is joined within 100 ms, the rings drained
    // and a final snapshot with the partial results published. busyCpus(): the spinner's CPU.

protected:
    void configureRun(StarvationRun& run) override;

private:
    int64_t m_seriesWindowNs = StarvationRun::kDefaultSeriesWindowNs;
    int64_t m_testOverrunNs = 0;
};

} // namespace rtscope
