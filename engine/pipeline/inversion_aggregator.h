#pragma once
/// @file What the priority-inversion lab (docs/experiments/inversion.md, "What it shows") makes of its three
/// threads' own timestamps: each thread's running segments and the high thread's period records, turned into the
/// high thread's wait distribution, its missed and skipped periods, how long the medium and the low thread ran while
/// high waited (the inversion itself), and the timeline of who ran when.
///
/// Thread-free: the collector feeds it what it drains from the rings and asks it for figures; a test can do the
/// same with made-up segments and periods.
#include "engine/pipeline/histogram.h"

#include <array>
#include <cstddef>
#include <cstdint>
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

/// @brief The lab's figures at one moment (InversionSnapshot adds the run's own details to them).
struct InversionFigures {
    Histogram highWait; ///< the high thread's wait for the lock, from its release
    uint64_t highPeriods = 0;
    uint64_t highContended = 0;
    uint64_t highMissed = 0;  ///< periods in which it got the lock after its next release
    uint64_t highSkipped = 0; ///< releases it missed entirely
    int64_t highWaitTotalNs = 0;
    int64_t mediumRanWhileHighWaitedNs = 0; ///< the inversion: > 0 with a plain mutex, ~0 with pi/ceiling
    int64_t lowRanWhileHighWaitedNs = 0;    ///< the holder's progress while high waited

    std::vector<InversionPeriod> periods;  ///< within the timeline window, oldest first
    std::vector<TimelineSegment> timeline; ///< within the timeline window, by start
    int64_t timelineFromNs = 0;
    bool timelineTruncated = false; ///< more segments than the aggregator keeps (its segment limit per lane)
};

class InversionAggregator {
public:
    static constexpr size_t kMaxSegmentsPerLane = 200'000;
    static constexpr size_t kMaxPeriods = 200'000;

    /// @param maxSegmentsPerLane segments kept per thread; later ones are counted as a truncated timeline
    /// @param maxPeriods period records kept; later periods still enter the wait figures
    explicit InversionAggregator(size_t maxSegmentsPerLane = kMaxSegmentsPerLane, size_t maxPeriods = kMaxPeriods);

    /// @brief One running segment of the thread @p s.lane. Each thread pushes its own segments in time order and
    /// they never overlap (one thread runs in one place at a time): the overlap figures rely on it. A segment
    /// of an unknown lane is ignored.
    void addSegment(const TimelineSegment& s);
    /// @brief One period of the high thread, as it pushed it (in release order).
    void addPeriod(const InversionPeriod& p);

    /// @brief The figures; the timeline keeps the segments that end at or after @p fromNs (sorted by start), the
    /// periods those released at or after it. The wait figures and overlaps cover everything added.
    InversionFigures figures(int64_t fromNs) const;

    /// @brief Where the timeline of a snapshot published at @p publishedNs starts: @p windowNs back from it, never
    /// before @p startNs; a @p windowNs of 0 (or less) means everything since @p startNs.
    static int64_t windowStart(int64_t startNs, int64_t publishedNs, int64_t windowNs);

private:
    size_t m_maxSegmentsPerLane;
    size_t m_maxPeriods;
    std::array<std::vector<TimelineSegment>, 3> m_segments; ///< low, medium, high
    bool m_truncated = false;
    std::vector<InversionPeriod> m_periods;
    Histogram m_highWait;
    uint64_t m_highContended = 0;
    uint64_t m_highMissed = 0;
    uint64_t m_highSkipped = 0;
    int64_t m_highWaitTotalNs = 0;
};

} // namespace rtscope
