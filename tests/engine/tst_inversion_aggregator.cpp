// ctest: parallel. Pure aggregation.
// The inversion lab's aggregator without threads: made-up segments and period records in, the high thread's wait
// figures, the overlaps and the windowed timeline out, each checked against a value worked out by hand in the
// comments (docs/experiments/inversion.md, "What it shows", says what they mean).
#include "engine/pipeline/inversion_aggregator.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <cstdint>
#include <vector>

using namespace rtscope;

namespace {

using InvAggLane = InversionLane;
using InvAggState = SegmentState;

InversionPeriod inversionAggPeriod(int64_t release, int64_t acquired, bool contended = true, bool missed = false,
                                   uint32_t skipped = 0)
{
    InversionPeriod p;
    p.releaseNs = release;
    p.wakeNs = release;
    p.acquiredNs = acquired;
    p.doneNs = acquired + 20;
    p.contended = contended;
    p.missed = missed;
    p.skipped = skipped;
    return p;
}

// Two periods 10 µs apart, in ns.
// Period 1, a plain mutex: low holds from 0, high is released at 100 and waits, medium preempts low from 300 to
// 800, low finishes its section at 1000, high holds 1000 … 1020.
// Period 2, inheritance: low holds 10000 … 10700 (boosted: medium cannot preempt it), high waits 10100 … 10700
// and holds until 10720, medium runs 10720 … 11220.
void inversionAggFeedTwoPeriods(InversionAggregator& a)
{
    a.addSegment({0, 300, InvAggLane::Low, InvAggState::HoldingLock});
    a.addSegment({100, 1000, InvAggLane::High, InvAggState::WaitingForLock});
    a.addSegment({300, 800, InvAggLane::Medium, InvAggState::Running});
    a.addSegment({800, 1000, InvAggLane::Low, InvAggState::HoldingLock});
    a.addSegment({1000, 1020, InvAggLane::High, InvAggState::HoldingLock});
    a.addPeriod(inversionAggPeriod(100, 1000));
    a.addSegment({10000, 10700, InvAggLane::Low, InvAggState::HoldingLock});
    a.addSegment({10100, 10700, InvAggLane::High, InvAggState::WaitingForLock});
    a.addSegment({10700, 10720, InvAggLane::High, InvAggState::HoldingLock});
    a.addSegment({10720, 11220, InvAggLane::Medium, InvAggState::Running});
    a.addPeriod(inversionAggPeriod(10100, 10700));
}

} // namespace

class TestInversionAggregator : public QObject {
    Q_OBJECT
private slots:
    void emptyHasNoFigures()
    {
        const InversionAggregator a;
        const InversionFigures f = a.figures(0);
        QCOMPARE(f.highWait.count(), uint64_t(0));
        QCOMPARE(f.highPeriods, uint64_t(0));
        QCOMPARE(f.highContended, uint64_t(0));
        QCOMPARE(f.highMissed, uint64_t(0));
        QCOMPARE(f.highSkipped, uint64_t(0));
        QCOMPARE(f.highWaitTotalNs, int64_t(0));
        QCOMPARE(f.mediumRanWhileHighWaitedNs, int64_t(0));
        QCOMPARE(f.lowRanWhileHighWaitedNs, int64_t(0));
        QVERIFY(f.timeline.empty());
        QVERIFY(f.periods.empty());
        QCOMPARE(f.timelineFromNs, int64_t(0));
        QVERIFY(!f.timelineTruncated);
    }

    void onePeriod()
    {
        // Released at 1000, held the lock at 4000: a 3000 ns wait.
        InversionAggregator a;
        a.addPeriod(inversionAggPeriod(1000, 4000));
        const InversionFigures f = a.figures(0);
        QCOMPARE(f.highPeriods, uint64_t(1));
        QCOMPARE(f.highWait.count(), uint64_t(1));
        QCOMPARE(f.highWait.min(), int64_t(3000));
        QCOMPARE(f.highWait.max(), int64_t(3000));
        QCOMPARE(f.highWaitTotalNs, int64_t(3000));
        QCOMPARE(f.highContended, uint64_t(1));
        QCOMPARE(f.highMissed, uint64_t(0));
        QCOMPARE(f.periods.size(), size_t(1));
        QCOMPARE(f.periods[0].waitNs(), int64_t(3000));
        QVERIFY(f.timeline.empty()); // no segment was added
        QCOMPARE(f.mediumRanWhileHighWaitedNs, int64_t(0));

        // One waiting segment of high and nothing else: no overlap with anyone.
        a.addSegment({1000, 4000, InvAggLane::High, InvAggState::WaitingForLock});
        QCOMPARE(a.figures(0).timeline.size(), size_t(1));
        QCOMPARE(a.figures(0).lowRanWhileHighWaitedNs, int64_t(0));
    }

    void typicalRunGivesTheInversion()
    {
        InversionAggregator a;
        inversionAggFeedTwoPeriods(a);
        const InversionFigures f = a.figures(0);
        // Waits: 1000 − 100 = 900 and 10700 − 10100 = 600.
        QCOMPARE(f.highPeriods, uint64_t(2));
        QCOMPARE(f.highWait.min(), int64_t(600));
        QCOMPARE(f.highWait.max(), int64_t(900));
        QCOMPARE(f.highWaitTotalNs, int64_t(1500));
        QCOMPARE(f.highContended, uint64_t(2));
        // Medium ran while high waited: [300, 800) inside [100, 1000) = 500 in period 1; after high's wait in
        // period 2, so nothing there.
        QCOMPARE(f.mediumRanWhileHighWaitedNs, int64_t(500));
        // Low ran while high waited: [100, 300) and [800, 1000) = 400 in period 1, [10100, 10700) = 600 in period 2.
        QCOMPARE(f.lowRanWhileHighWaitedNs, int64_t(1000));
        // From 0 on, the timeline has all nine segments and both periods.
        QCOMPARE(f.timeline.size(), size_t(9));
        QCOMPARE(f.periods.size(), size_t(2));
        QVERIFY(!f.timelineTruncated);
    }

    void windowKeepsTheRecentTimeline()
    {
        InversionAggregator a;
        inversionAggFeedTwoPeriods(a);
        // From 5000: the four segments of period 2 and its period; the overlaps and waits still cover both periods.
        const InversionFigures late = a.figures(5000);
        QCOMPARE(late.timelineFromNs, int64_t(5000));
        QCOMPARE(late.timeline.size(), size_t(4));
        QCOMPARE(late.timeline.front().startNs, int64_t(10000));
        QCOMPARE(late.periods.size(), size_t(1));
        QCOMPARE(late.periods[0].releaseNs, int64_t(10100));
        QCOMPARE(late.highPeriods, uint64_t(2));
        QCOMPARE(late.mediumRanWhileHighWaitedNs, int64_t(500));
        // The edge: a segment that ends exactly at the window's start is kept (high's hold, 1000 … 1020), one that
        // ends before it is not (low's 800 … 1000); a period released before it is not.
        const InversionFigures edge = a.figures(1020);
        QCOMPARE(edge.timeline.size(), size_t(5));
        QCOMPARE(edge.timeline.front().startNs, int64_t(1000));
        QCOMPARE(int(edge.timeline.front().lane), int(InvAggLane::High));
        QCOMPARE(edge.periods.size(), size_t(1));
        // Past the last segment: an empty timeline, the figures unchanged.
        const InversionFigures after = a.figures(20'000);
        QVERIFY(after.timeline.empty());
        QVERIFY(after.periods.empty());
        QCOMPARE(after.highWaitTotalNs, int64_t(1500));
    }

    void windowStart()
    {
        // Started at 1000, published at 5000: a 2000 ns window starts at 3000; a longer one at the start; 0 (or a
        // negative one) means everything since the start.
        QCOMPARE(InversionAggregator::windowStart(1000, 5000, 2000), int64_t(3000));
        QCOMPARE(InversionAggregator::windowStart(1000, 5000, 10'000), int64_t(1000));
        QCOMPARE(InversionAggregator::windowStart(1000, 5000, 4000), int64_t(1000));
        QCOMPARE(InversionAggregator::windowStart(1000, 5000, 0), int64_t(1000));
        QCOMPARE(InversionAggregator::windowStart(1000, 5000, -5), int64_t(1000));
    }

    void missedAndSkippedPeriods()
    {
        // Period 100 µs: high released at 0 got the lock at 150 µs (after its next release: missed) and finished
        // past 200 µs, so the releases at 100 and 200 µs were skipped; the next, at 300 µs, went well.
        InversionAggregator a;
        a.addPeriod(inversionAggPeriod(0, 150'000, true, true, 2));
        a.addPeriod(inversionAggPeriod(300'000, 301'000, false, false, 0));
        a.addPeriod(inversionAggPeriod(400'000, 520'000, true, true, 1));
        const InversionFigures f = a.figures(0);
        QCOMPARE(f.highPeriods, uint64_t(3));
        QCOMPARE(f.highMissed, uint64_t(2));
        QCOMPARE(f.highSkipped, uint64_t(3));
        QCOMPARE(f.highContended, uint64_t(2));
        QCOMPARE(f.highWaitTotalNs, int64_t(150'000 + 1'000 + 120'000));
        QCOMPARE(f.highWait.max(), int64_t(150'000));
        QCOMPARE(f.highWait.min(), int64_t(1'000));
    }

    void timelineIsSortedByStart()
    {
        // Lanes arrive in any order relative to each other (each ring is drained in turn); the timeline is by
        // start, whatever lane a segment belongs to.
        InversionAggregator a;
        a.addSegment({500, 600, InvAggLane::High, InvAggState::HoldingLock});
        a.addSegment({50, 60, InvAggLane::Medium, InvAggState::Running});
        a.addSegment({10, 40, InvAggLane::Low, InvAggState::HoldingLock});
        a.addSegment({700, 900, InvAggLane::Medium, InvAggState::Running});
        a.addSegment({300, 400, InvAggLane::Low, InvAggState::HoldingLock});
        const InversionFigures f = a.figures(0);
        QCOMPARE(f.timeline.size(), size_t(5));
        const int64_t starts[] = {10, 50, 300, 500, 700};
        for (size_t i = 0; i < f.timeline.size(); ++i)
            QCOMPARE(f.timeline[i].startNs, starts[i]);
        QCOMPARE(int(f.timeline[1].lane), int(InvAggLane::Medium));
        QCOMPARE(int(f.timeline[3].state), int(InvAggState::HoldingLock));
        // Periods stay in the order they were pushed (release order).
        a.addPeriod(inversionAggPeriod(100, 200));
        a.addPeriod(inversionAggPeriod(1100, 1200));
        QCOMPARE(a.figures(0).periods[0].releaseNs, int64_t(100));
        QCOMPARE(a.figures(0).periods[1].releaseNs, int64_t(1100));
    }

    void overlapCountsOnlyHighsWaits()
    {
        // High holding the lock while medium runs (impossible on one CPU, but the sum must not count it), and a
        // medium segment spanning two of high's waits: 100 + 100 of it fall inside them.
        InversionAggregator a;
        a.addSegment({0, 100, InvAggLane::High, InvAggState::HoldingLock});
        a.addSegment({200, 300, InvAggLane::High, InvAggState::WaitingForLock});
        a.addSegment({400, 500, InvAggLane::High, InvAggState::WaitingForLock});
        a.addSegment({0, 100, InvAggLane::Medium, InvAggState::Running});
        a.addSegment({150, 550, InvAggLane::Medium, InvAggState::Running});
        QCOMPARE(a.figures(0).mediumRanWhileHighWaitedNs, int64_t(200));
        QCOMPARE(a.figures(0).lowRanWhileHighWaitedNs, int64_t(0));
    }

    void limitsTruncateTheTimelineNotTheFigures()
    {
        // At most 2 segments per lane and 1 period record.
        InversionAggregator a(2, 1);
        a.addSegment({0, 10, InvAggLane::Low, InvAggState::HoldingLock});
        a.addSegment({20, 30, InvAggLane::Low, InvAggState::HoldingLock});
        QVERIFY(!a.figures(0).timelineTruncated); // exactly at the limit
        a.addSegment({40, 50, InvAggLane::Low, InvAggState::HoldingLock});
        a.addSegment({5, 45, InvAggLane::High, InvAggState::WaitingForLock}); // another lane still has room
        InversionFigures f = a.figures(0);
        QVERIFY(f.timelineTruncated);
        QCOMPARE(f.timeline.size(), size_t(3));
        // The third low segment was not kept, so only 5 … 10 and 20 … 30 of high's wait overlap low: 15.
        QCOMPARE(f.lowRanWhileHighWaitedNs, int64_t(15));

        // Periods past the limit still count in the waits; only their records are not kept (and that is not a
        // truncated timeline).
        InversionAggregator p(2, 1);
        p.addPeriod(inversionAggPeriod(0, 10));
        p.addPeriod(inversionAggPeriod(100, 130));
        p.addPeriod(inversionAggPeriod(200, 250, true, true, 1));
        f = p.figures(0);
        QCOMPARE(f.highPeriods, uint64_t(3));
        QCOMPARE(f.highWaitTotalNs, int64_t(10 + 30 + 50));
        QCOMPARE(f.highMissed, uint64_t(1));
        QCOMPARE(f.highSkipped, uint64_t(1));
        QCOMPARE(f.periods.size(), size_t(1));
        QCOMPARE(f.periods[0].releaseNs, int64_t(0));
        QVERIFY(!f.timelineTruncated);

        // A segment of a lane that does not exist is ignored.
        InversionAggregator bad;
        bad.addSegment({0, 10, InversionLane(7), InvAggState::Running});
        QVERIFY(bad.figures(0).timeline.empty());
        QVERIFY(!bad.figures(0).timelineTruncated);
    }

    void names()
    {
        QCOMPARE(inversionLaneName(InvAggLane::Low), "low");
        QCOMPARE(inversionLaneName(InvAggLane::Medium), "medium");
        QCOMPARE(inversionLaneName(InvAggLane::High), "high");
        QCOMPARE(segmentStateName(InvAggState::Running), "running");
        QCOMPARE(segmentStateName(InvAggState::HoldingLock), "holding");
        QCOMPARE(segmentStateName(InvAggState::WaitingForLock), "waiting");
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestInversionAggregator)
#include "tst_inversion_aggregator.moc"
