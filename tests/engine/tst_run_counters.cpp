// ctest: parallel. Pure counters.
// CounterRate and ReportedTotals on numbers written by hand: the latency run's hog rate (resampled every 250 ms) and
// the drop totals its sink hears of only when they change.
#include "engine/pipeline/run_counters.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"

#include <QtTest>

using namespace rtscope;

namespace {
constexpr int64_t kCountersT0 = 50 * kNsPerSec;
} // namespace

class TestRunCounters : public QObject {
    Q_OBJECT
private slots:
    void rateIsZeroUntilTheFirstWindowEnds()
    {
        CounterRate rate(kCountersT0);
        QCOMPARE(rate.perSecond(), 0.0);
        QVERIFY(!rate.sample(kCountersT0 + 100 * kNsPerMs, 1'000)); // 100 ms: too short a window
        QCOMPARE(rate.perSecond(), 0.0);
    }

    void rateOverEachWindow()
    {
        CounterRate rate(kCountersT0);
        QVERIFY(rate.sample(kCountersT0 + 250 * kNsPerMs, 5'000)); // exactly the interval: 5000 in 0.25 s
        QCOMPARE(rate.perSecond(), 20'000.0);
        QVERIFY(!rate.sample(kCountersT0 + 300 * kNsPerMs, 6'000)); // 50 ms later: the rate stays
        QCOMPARE(rate.perSecond(), 20'000.0);
        // The window runs from the last resample (250 ms), not from the sample that was too early.
        QVERIFY(rate.sample(kCountersT0 + 750 * kNsPerMs, 10'000)); // 5000 more in 0.5 s
        QCOMPARE(rate.perSecond(), 10'000.0);
        QVERIFY(rate.sample(kCountersT0 + 1'750 * kNsPerMs, 10'000)); // no work for a second
        QCOMPARE(rate.perSecond(), 0.0);
    }

    void aCounterThatWentBackCountsNoGrowth()
    {
        CounterRate rate(kCountersT0);
        QVERIFY(rate.sample(kCountersT0 + 250 * kNsPerMs, 8'000));
        QVERIFY(rate.sample(kCountersT0 + 500 * kNsPerMs, 4'000)); // below the last: no negative rate
        QCOMPARE(rate.perSecond(), 0.0);
        QVERIFY(rate.sample(kCountersT0 + 750 * kNsPerMs, 6'500)); // and the next window counts from 4000
        QCOMPARE(rate.perSecond(), 10'000.0);
    }

    void anIntervalOfItsOwn()
    {
        CounterRate rate(0, 10);
        QVERIFY(!rate.sample(9, 100));
        QVERIFY(rate.sample(20, 100)); // 100 in 20 ns
        QCOMPARE(rate.perSecond(), 5e9);
        CounterRate none(0, 0); // no interval at all: at least 1 ns, never a division by zero
        QVERIFY(!none.sample(0, 100));
        QVERIFY(none.sample(1, 100));
        QCOMPARE(none.perSecond(), 100e9);
    }

    void totalsAreReportedWhenTheyChange()
    {
        ReportedTotals sent;
        sent.reset(2);
        QCOMPARE(sent.size(), size_t(2));
        QVERIFY(!sent.changed(0, 0)); // a run without drops reports none
        QVERIFY(sent.changed(0, 3));
        QVERIFY(!sent.changed(0, 3));
        QVERIFY(sent.changed(0, 5));
        QVERIFY(!sent.changed(1, 0)); // each thread on its own
        QVERIFY(sent.changed(1, 1));
        QVERIFY(sent.changed(0, 2)); // a smaller total is a change too
    }

    void aThreadPastTheEndIsAdded()
    {
        ReportedTotals sent;
        QVERIFY(!sent.changed(3, 0));
        QCOMPARE(sent.size(), size_t(4));
        QVERIFY(sent.changed(3, 7));
        QVERIFY(sent.changed(1, 7)); // the added ones in between start at 0 too
    }

    void resetForgetsWhatWasSent()
    {
        ReportedTotals sent;
        sent.reset(1);
        QVERIFY(sent.changed(0, 5));
        sent.reset(1); // new threads: their rings count from 0
        QVERIFY(sent.changed(0, 5));
        sent.reset(0);
        QCOMPARE(sent.size(), size_t(0));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestRunCounters)
#include "tst_run_counters.moc"
