#pragma once
/// @file The priority-inversion experiment (docs/experiments/inversion.md, Mars Pathfinder): three SCHED_FIFO threads
/// pinned to one CPU. Each period the low thread takes the lock and works inside it, the high thread wakes and needs
/// the lock, and the medium thread wakes and spins for a burst without it. With a plain mutex the medium
/// thread keeps the holder off the CPU and the high thread waits for the whole burst; with priority
/// inheritance or a priority ceiling it waits only for the rest of the critical section.
///
/// Every thread streams its own timestamps through its own ring: running segments (split where its clock
/// jumped by more than kOffCpuGapNs, i.e. where it did not run) and, for the high thread, one record per
/// period. The collector turns them into the high thread's wait distribution, missed periods and a timeline
/// of who ran when. Safety: the medium burst is bounded by the thread's own clock and guarded by the shared
/// Watchdog on the reserved CPU, the threads never run on that CPU, and stop() demotes and joins them all.
#include "engine/experiments/inversion_config.h"
#include "engine/locks/lock.h"
#include "engine/pipeline/collector.h"
#include "engine/pipeline/histogram.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/watchdog.h"
#include "engine/util/error.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rtscope {

enum class InversionLane : uint8_t { Low, Medium, High };
const char* inversionLaneName(InversionLane l); ///< "low", "medium", "high"

enum class SegmentState : uint8_t {
    Running,        ///< ran without the lock (the medium thread's burst)
    HoldingLock,    ///< ran while holding the lock
    WaitingForLock, ///< the high thread: released, but does not hold the lock yet (blocked or not scheduled)
};
const char* segmentStateName(SegmentState s); ///< "running", "holding", "waiting"

/// @brief A stretch of one thread's life, from its own clock reads (CLOCK_MONOTONIC ns).
struct TimelineSegment {
    int64_t startNs = 0;
    int64_t endNs = 0;
    InversionLane lane = InversionLane::Low;
    SegmentState state = SegmentState::Running;
};

/// @brief One period of the high thread.
struct InversionPeriod {
    int64_t releaseNs = 0;  ///< when it was due
    int64_t wakeNs = 0;     ///< its first clock read after the sleep
    int64_t acquiredNs = 0; ///< when it held the lock
    int64_t doneNs = 0;     ///< when it released it
    uint32_t skipped = 0;   ///< releases that passed while it still waited for this one
    bool contended = false; ///< the lock was held when it asked (the ceiling kind never shows this)
    bool missed = false;    ///< it got the lock only after its next release
    int64_t waitNs() const { return acquiredNs - releaseNs; }
};

struct InversionSnapshot {
    InversionConfig config; ///< as running (cpu resolved)
    int watchdogCpu = -1;
    uint64_t generation = 0;
    bool running = false;
    bool finished = false; ///< all three threads reached the duration
    int64_t startNs = 0;   ///< CLOCK_MONOTONIC of start()
    int64_t t0Ns = 0;      ///< release of period 0
    int64_t publishedNs = 0;

    Histogram highWait; ///< the high thread's wait for the lock, from its release
    uint64_t highPeriods = 0;
    uint64_t highContended = 0;
    uint64_t highMissed = 0;  ///< periods in which it got the lock after its next release
    uint64_t highSkipped = 0; ///< releases it missed entirely
    uint64_t lowSections = 0;
    uint64_t mediumBursts = 0;
    int64_t highWaitTotalNs = 0;
    int64_t mediumRanWhileHighWaitedNs = 0; ///< the inversion: > 0 with a plain mutex, ~0 with pi/ceiling
    int64_t lowRanWhileHighWaitedNs = 0;    ///< the holder's progress while high waited

    std::vector<InversionPeriod> periods;  ///< within the timeline window, oldest first
    std::vector<TimelineSegment> timeline; ///< within the timeline window, by start
    int64_t timelineFromNs = 0;
    bool timelineTruncated = false; ///< more segments than the collector keeps (kMaxSegmentsPerLane)
    uint64_t ringDrops = 0;         ///< must stay 0

    std::vector<WatchdogTrip> watchdogTrips;
    std::array<int, 3> tids{}; ///< low, medium, high
    std::string memoryLock;
    std::string error;
};

class InversionExperiment : private CollectorSource {
public:
    static constexpr size_t kMaxSegmentsPerLane = 200'000;
    static constexpr size_t kMaxPeriods = 200'000;

    InversionExperiment();
    ~InversionExperiment() override;
    InversionExperiment(const InversionExperiment&) = delete;
    InversionExperiment& operator=(const InversionExperiment&) = delete;

    /// @brief Lock all memory with mlockall (CLI) instead of only the rings (GUI). Call before start().
    void setLockAllMemory(bool all) { m_lockAll = all; }
    /// @brief How much of the timeline and of the per-period records each snapshot carries, counted back
    /// from its publication; 0 = everything since start (for exports). Default 2 s.
    void setTimelineWindow(int64_t ns) { m_timelineWindowNs.store(ns < 0 ? 0 : ns); }
    /// @brief How often snapshots are published while running (default 16 ms). Call before start().
    void setPublishInterval(int64_t ns) { m_publishIntervalNs = ns; }

    /// @brief Validates, starts the watchdog, then the three threads (errors: InvalidConfig, Permission
    /// when SCHED_FIFO is refused, ...). On any failure everything started is stopped again.
    Error start(const InversionConfig& config);
    /// @brief Demotes and joins the three threads, stops the watchdog, drains and publishes. Idempotent.
    void stop();

    bool running() const { return m_running.load(); }
    bool finished() const { return m_threadsDone.load(std::memory_order_acquire) == 3; }
    const InversionConfig& config() const { return m_config; }
    /// @brief The CPU the three threads share; empty when not running. Whoever drives the experiment keeps its own
    /// threads off it (ScopedCallerAffinity in the CLI). Control thread only.
    std::vector<int> busyCpus() const { return m_running ? std::vector<int>{m_config.cpu} : std::vector<int>{}; }
    std::shared_ptr<const InversionSnapshot> snapshot() const;
    void publishNow();

private:
    size_t drain() override;
    void publish() override;

    void lowLoop(const std::atomic<bool>& stop);
    void mediumLoop(const std::atomic<bool>& stop);
    void highLoop(const std::atomic<bool>& stop);
    bool sleepUntil(int64_t ns, const std::atomic<bool>& stop);
    bool stopping(const std::atomic<bool>& stop) const;
    void threadDone();

    InversionConfig m_config;
    int m_watchdogCpu = -1;
    bool m_lockAll = false;
    std::atomic<int64_t> m_timelineWindowNs{2'000'000'000};
    int64_t m_publishIntervalNs = 16'000'000;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_threadsDone{0};
    int64_t m_startNs = 0;
    int64_t m_t0 = 0;
    int64_t m_endNs = 0;
    MemoryLockStatus m_memoryLock;

    std::unique_ptr<Lock> m_lock;
    std::array<std::unique_ptr<SpscRing<TimelineSegment>>, 3> m_segmentRings;
    std::unique_ptr<SpscRing<InversionPeriod>> m_periodRing;
    std::array<RtThread, 3> m_threads; ///< low, medium, high
    std::array<int, 3> m_slots{-1, -1, -1};
    std::array<std::atomic<int>, 3> m_tids{};
    std::atomic<uint64_t> m_lowSections{0};
    std::atomic<uint64_t> m_mediumBursts{0};
    std::atomic<int> m_lockErrno{0};
    Watchdog m_watchdog;

    // Collector-thread state.
    Collector m_collector;
    std::mutex m_aggMutex; ///< the aggregates below: the collector thread, and stop() after it has joined
    std::array<std::vector<TimelineSegment>, 3> m_segments;
    bool m_truncated = false;
    std::vector<InversionPeriod> m_periods;
    Histogram m_highWait;
    uint64_t m_highContended = 0;
    uint64_t m_highMissed = 0;
    uint64_t m_highSkipped = 0;
    int64_t m_highWaitTotalNs = 0;
    uint64_t m_generation = 0;

    mutable std::mutex m_snapshotMutex;
    std::shared_ptr<const InversionSnapshot> m_snapshot;
};

} // namespace rtscope
