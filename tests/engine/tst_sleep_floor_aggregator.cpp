// ctest: parallel. Pure aggregation.
// The sleep-floor aggregator on synthetic waits whose figures are worked out by hand
// (docs/experiments/sleep-floor.md): exact nearest-rank percentiles per request and method, the overshoot and its
// ratio, the CPU share of a busy wait against a sleep, the floor per method at the smallest request, and the raw
// log kept for the CSV.
#include "engine/pipeline/sleep_floor_aggregator.h"

#include "tests/common/test_main.h"

#include <QtTest>
#include <cmath>
#include <vector>

using namespace rtscope;

namespace {

constexpr int64_t kSleepAggNowNs = 1'000'000'000; ///< a collector's clock, far past 0

SleepSample sleepAggSample(uint16_t request, uint8_t method, int64_t actualNs, int64_t cpuNs = 0)
{
    return {.request = request, .method = method, .sample = 0, .actualNs = actualNs, .cpuNs = cpuNs};
}

int64_t sleepAggRank(std::vector<int64_t> values, double percent)
{
    std::vector<int64_t> scratch;
    return SleepFloorAggregator::nearestRank(values, percent, scratch);
}

} // namespace

class TestSleepFloorAggregator : public QObject {
    Q_OBJECT
private slots:
    // The smallest value with at least p % of the values at or below it: rank ⌈p/100 · n⌉, at least 1.
    void nearestRankOnSmallSets()
    {
        QCOMPARE(sleepAggRank({}, 50), int64_t(0));
        QCOMPARE(sleepAggRank({7}, 50), int64_t(7));
        QCOMPARE(sleepAggRank({7}, 99), int64_t(7));
        QCOMPARE(sleepAggRank({5, 1, 4, 2, 3}, 50), int64_t(3));   // rank ⌈2.5⌉ = 3
        QCOMPARE(sleepAggRank({5, 1, 4, 2, 3}, 99), int64_t(5));   // rank ⌈4.95⌉ = 5
        QCOMPARE(sleepAggRank({5, 1, 4, 2, 3}, 0), int64_t(1));    // rank 0 is taken as 1
        QCOMPARE(sleepAggRank({40, 10, 30, 20}, 50), int64_t(20)); // rank 2: the lower middle, no interpolation
        QCOMPARE(sleepAggRank({40, 10, 30, 20}, 99), int64_t(40));
        QCOMPARE(sleepAggRank({40, 10, 30, 20}, 100), int64_t(40));
        QCOMPARE(sleepAggRank({3, 3, 1}, 50), int64_t(3)); // rank 2 of {1, 3, 3}
    }

    void emptyCellsKnowOnlyTheirRequest()
    {
        SleepFloorAggregator agg({0, 1000}, 2, 3);
        agg.update(kSleepAggNowNs, true);
        QCOMPARE(agg.requests(), size_t(2));
        QCOMPARE(agg.methods(), size_t(2));
        QCOMPARE(agg.samplesDone(), uint64_t(0));
        QCOMPARE(agg.currentRequest(), -1);
        QCOMPARE(agg.cell(1, 1).requestNs, int64_t(1000));
        QCOMPARE(agg.cell(1, 1).samples, uint64_t(0));
        QCOMPARE(agg.cell(1, 1).p50Ns, int64_t(0));
        QCOMPARE(agg.cell(1, 1).overshootRatio, 0.0);
        QCOMPARE(agg.floorNs(), (std::vector<int64_t>{0, 0}));
        QCOMPARE(agg.log()->size(), size_t(0));
        QCOMPARE(agg.log()->capacity(), size_t(2 * 2 * 3)); // every planned sample
        QVERIFY(SleepFloorAggregator({}, 2, 3).floorNs().empty());
    }

    // One 1500 ns wait for 1 µs that cost 300 ns of CPU: every percentile is that wait.
    void oneSample()
    {
        SleepFloorAggregator agg({0, 1000}, 2, 3);
        QVERIFY(agg.add(sleepAggSample(1, 0, 1500, 300)));
        QCOMPARE(agg.samplesDone(), uint64_t(1));
        QCOMPARE(agg.currentRequest(), 1);
        QCOMPARE(agg.cell(1, 0).samples, uint64_t(0)); // the figures are those of the last update
        agg.update(kSleepAggNowNs, true);
        const SleepCellFigures& c = agg.cell(1, 0);
        QCOMPARE(c.samples, uint64_t(1));
        QCOMPARE(c.minNs, int64_t(1500));
        QCOMPARE(c.p50Ns, int64_t(1500));
        QCOMPARE(c.p99Ns, int64_t(1500));
        QCOMPARE(c.maxNs, int64_t(1500));
        QCOMPARE(c.meanNs, 1500.0);
        QCOMPARE(c.overshootNs, int64_t(500));
        QCOMPARE(c.overshootRatio, 1.5);
        QCOMPARE(c.cpuPerWaitNs, 300.0);
        QCOMPARE(c.cpuShare, 0.2);
        QCOMPARE(agg.cell(1, 1).samples, uint64_t(0)); // the other method's cell is untouched
        QCOMPARE(agg.cell(0, 0).samples, uint64_t(0));
    }

    // A 0 ns request has an overshoot (the whole wait) but no ratio.
    void zeroRequestHasNoRatio()
    {
        SleepFloorAggregator agg({0}, 1, 3);
        for (int64_t ns : {60, 50, 70})
            agg.add(sleepAggSample(0, 0, ns, 0));
        agg.update(kSleepAggNowNs, false);
        const SleepCellFigures& c = agg.cell(0, 0);
        QCOMPARE(c.samples, uint64_t(3));
        QCOMPARE(c.minNs, int64_t(50));
        QCOMPARE(c.p50Ns, int64_t(60)); // rank 2 of {50, 60, 70}
        QCOMPARE(c.p99Ns, int64_t(70)); // rank ⌈2.97⌉ = 3
        QCOMPARE(c.maxNs, int64_t(70));
        QCOMPARE(c.meanNs, 60.0);
        QCOMPARE(c.overshootNs, int64_t(60));
        QCOMPARE(c.overshootRatio, 0.0);
        QCOMPARE(c.cpuShare, 0.0); // no CPU time at all
    }

    // A busy wait burns its whole wait in CPU time (share 1); a sleep of the same request burns almost none.
    void cpuShareOfABusyWaitAgainstASleep()
    {
        SleepFloorAggregator agg({1000}, 2, 3);
        const int64_t busy[] = {1000, 1020, 1010}, sleep[] = {1060, 1050, 1070}, sleepCpu[] = {5, 7, 6};
        for (int i = 0; i < 3; ++i) {
            agg.add(sleepAggSample(0, 0, busy[i], busy[i]));
            agg.add(sleepAggSample(0, 1, sleep[i], sleepCpu[i]));
        }
        agg.update(kSleepAggNowNs, false);
        const SleepCellFigures& b = agg.cell(0, 0);
        QCOMPARE(b.p50Ns, int64_t(1010));
        QCOMPARE(b.cpuPerWaitNs, 1010.0);
        QCOMPARE(b.cpuShare, 1.0);
        QCOMPARE(b.overshootNs, int64_t(10));
        QCOMPARE(b.overshootRatio, 1.01);
        const SleepCellFigures& s = agg.cell(0, 1);
        QCOMPARE(s.p50Ns, int64_t(1060));
        QCOMPARE(s.cpuPerWaitNs, 6.0);
        QCOMPARE(s.cpuShare, 6.0 / 1060.0);
        QCOMPARE(s.overshootNs, int64_t(60));
    }

    // The floor is the median at the smallest request, per method, wherever that request is in the sweep (the
    // first of two equal ones).
    void floorPerMethodIsReadAtTheSmallestRequest()
    {
        SleepFloorAggregator agg({1000, 0, 10, 0}, 2, 3);
        for (int64_t ns : {900, 800, 700}) {
            agg.add(sleepAggSample(1, 0, ns));      // request 0 ns, method 0: median 800
            agg.add(sleepAggSample(1, 1, ns + 50)); // method 1: median 850
            agg.add(sleepAggSample(3, 0, 5));       // the second 0 ns request does not count
            agg.add(sleepAggSample(0, 0, 2000));    // the first request is not the smallest
        }
        agg.update(kSleepAggNowNs, false);
        QCOMPARE(agg.floorNs(), (std::vector<int64_t>{800, 850}));
        QCOMPARE(agg.cell(0, 0).p50Ns, int64_t(2000));
        QCOMPARE(agg.currentRequest(), 0); // the request of the latest sample
        QCOMPARE(agg.samplesDone(), uint64_t(12));
    }

    // A wait outside the grid is refused and not counted; the raw log keeps arrival order and refuses (and counts)
    // what goes past the planned total, while the cell still counts it.
    void outsideTheGridAndLogOverflow()
    {
        SleepFloorAggregator agg({100}, 1, 2);
        QVERIFY(!agg.add(sleepAggSample(1, 0, 10)));
        QVERIFY(!agg.add(sleepAggSample(0, 1, 10)));
        QCOMPARE(agg.samplesDone(), uint64_t(0));
        for (int64_t ns : {300, 100, 200})
            QVERIFY(agg.add(sleepAggSample(0, 0, ns)));
        QCOMPARE(agg.samplesDone(), uint64_t(3));
        const auto log = agg.log();
        QCOMPARE(log->size(), size_t(2));
        QCOMPARE(log->refused(), size_t(1));
        QCOMPARE(log->prefix(2)[0].actualNs, int64_t(300));
        QCOMPARE(log->prefix(2)[1].actualNs, int64_t(100));
        agg.update(kSleepAggNowNs, false);
        QCOMPARE(agg.cell(0, 0).samples, uint64_t(3));
        QCOMPARE(agg.cell(0, 0).p50Ns, int64_t(200));
    }

    // A big cell still filling is recomputed at most every 100 ms while the run lasts; a complete one, or the last
    // update after the run, at once.
    void bigCellsAreRecomputedAtMostEveryHundredMilliseconds()
    {
        const size_t big = SleepFloorAggregator::kBigCell + 1;
        SleepFloorAggregator agg({0}, 1, big + 2);
        for (size_t i = 0; i < big; ++i)
            agg.add(sleepAggSample(0, 0, 1000));
        agg.update(kSleepAggNowNs, true);
        QCOMPARE(agg.cell(0, 0).samples, uint64_t(big));
        agg.add(sleepAggSample(0, 0, 1000));
        agg.update(kSleepAggNowNs + 50'000'000, true);
        QCOMPARE(agg.cell(0, 0).samples, uint64_t(big)); // 50 ms later: not yet
        agg.update(kSleepAggNowNs + SleepFloorAggregator::kBigCellIntervalNs, true);
        QCOMPARE(agg.cell(0, 0).samples, uint64_t(big + 1)); // 100 ms later
        agg.add(sleepAggSample(0, 0, 1000));
        agg.update(kSleepAggNowNs + SleepFloorAggregator::kBigCellIntervalNs + 1, true);
        QCOMPARE(agg.cell(0, 0).samples, uint64_t(big + 2)); // complete: at once

        SleepFloorAggregator last({0}, 1, big + 2);
        for (size_t i = 0; i < big; ++i)
            last.add(sleepAggSample(0, 0, 1000));
        last.update(kSleepAggNowNs, true);
        last.add(sleepAggSample(0, 0, 1000));
        last.update(kSleepAggNowNs + 1, false); // the run has ended: everything
        QCOMPARE(last.cell(0, 0).samples, uint64_t(big + 1));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestSleepFloorAggregator)
#include "tst_sleep_floor_aggregator.moc"
