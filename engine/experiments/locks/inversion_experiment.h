#pragma once
/// @file The priority-inversion experiment (docs/experiments/inversion.md, Mars Pathfinder): three SCHED_FIFO threads
/// pinned to one CPU. Each period the low thread takes the lock and works inside it, the high thread wakes and needs
/// the lock, and the medium thread wakes and spins for a burst without it. With a plain mutex the medium
/// thread keeps the holder off the CPU and the high thread waits for the whole burst; with priority
/// inheritance or a priority ceiling it waits only for the rest of the critical section.
///
/// Every thread streams its own timestamps through its own ring: running segments (split where its clock
/// jumped by more than kOffCpuGapNs, i.e. where it did not run) and, for the high thread, one record per
/// period. The collector feeds them to an InversionAggregator (engine/pipeline/inversion_aggregator.h), which
/// turns them into the high thread's wait distribution, missed periods and a timeline of who ran when. Safety:
/// the medium burst is bounded by the thread's own clock and guarded by the shared Watchdog on the reserved CPU,
/// the threads never run on that CPU, and stop() demotes and joins them all.
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/locks/inversion_config.h"
#include "engine/experiments/run_status.h"
#include "engine/locks/lock.h"
#include "engine/pipeline/inversion_aggregator.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/watchdog.h"
#include "engine/util/error.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief The aggregator's figures (InversionFigures: the high thread's waits, the overlaps, the timeline and the
/// periods within the window) and the run's own details.
/// finished: all three threads reached the duration.
struct InversionSnapshot : SnapshotOf<InversionConfig>, InversionFigures {
    int watchdogCpu = -1;
    int64_t t0Ns = 0; ///< release of period 0

    uint64_t lowSections = 0;
    uint64_t mediumBursts = 0;
    uint64_t ringDrops = 0; ///< must stay 0

    std::vector<WatchdogTrip> watchdogTrips;
    std::array<int, 3> tids{}; ///< low, medium, high
};

/// @brief One run of the inversion experiment (an ExperimentRun, and a PacedRun: its publish interval is a setting):
/// created by InversionExperiment::start(), destroyed by its stop(). Owns the lock, the rings, the three threads,
/// the watchdog and the aggregator.
class InversionRun {
public:
    using Config = InversionConfig;
    using Snapshot = InversionSnapshot;
    static constexpr std::string_view kName = "inversion";

    InversionRun(const InversionConfig& config, const RunEnvironment& env);
    ~InversionRun();
    InversionRun(const InversionRun&) = delete;
    InversionRun& operator=(const InversionRun&) = delete;

    /// @brief See InversionExperiment::setTimelineWindow; any time, from the control thread.
    void setTimelineWindow(int64_t ns) { m_timelineWindowNs.store(ns < 0 ? 0 : ns); }
    /// @brief How often snapshots are published while running; before start().
    void setPublishInterval(int64_t ns) { m_publishIntervalNs = ns; }

    /// @brief Makes the lock, starts the watchdog, then the three threads (errors: Permission when SCHED_FIFO is
    /// refused, ...). On a failure the host calls stop(), which stops what was started.
    Error start();
    /// @brief Demotes and joins the three threads, then stops the watchdog. Idempotent.
    void stop();
    size_t drain();
    std::shared_ptr<InversionSnapshot> makeSnapshot(bool running);

    bool finished() const { return m_threadsDone.load(std::memory_order_acquire) == 3; }
    /// @brief The CPU the three threads share.
    std::vector<int> busyCpus() const { return {m_config.cpu}; }
    const InversionConfig& config() const { return m_config; }
    /// @brief The watchdog's CPU, the one the threads never use.
    int collectorCpu() const { return m_watchdogCpu; }
    CollectorPace pace() const { return {CollectorPace{}.drainNs, m_publishIntervalNs}; }

private:
    void lowLoop(const std::atomic<bool>& stop);
    void mediumLoop(const std::atomic<bool>& stop);
    void highLoop(const std::atomic<bool>& stop);
    bool sleepUntil(int64_t ns, const std::atomic<bool>& stop);
    bool stopping(const std::atomic<bool>& stop) const;
    void threadDone();
    /// @brief What the thread of @p lane (0 low … 2 high) does first: its tid for the snapshot and its watchdog
    /// slot, which it returns.
    int enterLane(int lane);
    /// @brief The lock, taken at @p acquiredNs, held for @p holdNs of CPU work and released, the watchdog's @p slot
    /// disarmed: the holding segments on @p ring; the end of the work.
    int64_t holdLock(SpscRing<TimelineSegment>& ring, InversionLane lane, int slot, int64_t acquiredNs, int64_t holdNs);

    InversionConfig m_config;
    int m_watchdogCpu = -1;
    bool m_lockStacks = true; ///< mlockall is not in force: the threads lock their own stacks
    std::atomic<int64_t> m_timelineWindowNs{2'000'000'000};
    int64_t m_publishIntervalNs = CollectorPace{}.publishNs;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_threadsDone{0};
    int64_t m_startNs = 0;
    int64_t m_t0 = 0;
    int64_t m_endNs = 0;
    MemoryLockStatus m_memoryLock;

    std::unique_ptr<Lock> m_lock;
    std::array<std::unique_ptr<SpscRing<TimelineSegment>>, 3> m_segmentRings;
    std::unique_ptr<SpscRing<InversionPeriod>> m_periodRing;
    DrainBuffer<TimelineSegment, 256> m_segmentBatch;
    DrainBuffer<InversionPeriod, 64> m_periodBatch;
    std::array<RtThread, 3> m_threads; ///< low, medium, high
    std::array<int, 3> m_slots{-1, -1, -1};
    std::array<std::atomic<int>, 3> m_tids{};
    std::atomic<uint64_t> m_lowSections{0};
    std::atomic<uint64_t> m_mediumBursts{0};
    std::atomic<int> m_lockErrno{0};
    Watchdog m_watchdog;

    InversionAggregator m_aggregator; ///< collector thread only (and the host's last drain, after the joins)
};

/// @brief The inversion experiment: InversionRun on the experiment host (engine/experiments/experiment_host.h).
class InversionExperiment : public ExperimentHost<InversionRun> {
public:
    static constexpr size_t kMaxSegmentsPerLane = InversionAggregator::kMaxSegmentsPerLane;
    static constexpr size_t kMaxPeriods = InversionAggregator::kMaxPeriods;

    /// @brief How much of the timeline and of the per-period records each snapshot carries, counted back
    /// from its publication; 0 = everything since start (for exports). Default 2 s. Applies at once to a run.
    void setTimelineWindow(int64_t ns)
    {
        m_timelineWindowNs = ns < 0 ? 0 : ns;
        if (InversionRun* r = run())
            r->setTimelineWindow(m_timelineWindowNs);
    }
    /// @brief How often snapshots are published while running (default 16 ms). Applies at the next start().
    void setPublishInterval(int64_t ns) { m_publishIntervalNs = ns; }

protected:
    void configureRun(InversionRun& run) override
    {
        run.setTimelineWindow(m_timelineWindowNs);
        run.setPublishInterval(m_publishIntervalNs);
    }

private:
    int64_t m_timelineWindowNs = 2'000'000'000;
    int64_t m_publishIntervalNs = CollectorPace{}.publishNs;
};

} // namespace rtscope
