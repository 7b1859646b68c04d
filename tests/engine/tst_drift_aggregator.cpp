// ctest: parallel. Pure aggregation.
// The drift aggregator on synthetic wake-ups whose figures are worked out by hand (docs/experiments/drift.md):
// cumulative drift against t0 + k·P, lateness against each wake-up's own deadline, gaps counted as missed ticks,
// the least-squares slope, the rate against the nominal 1/P, and the tick log shared with snapshots.
#include "engine/pipeline/drift_aggregator.h"

#include "tests/common/test_main.h"

#include <QtTest>
#include <cmath>

using namespace rtscope;

namespace {

// A wake-up of tick @p tick at @p wakeNs that aimed at @p deadlineNs.
DriftSample driftAggSample(int64_t tick, int64_t wakeNs, int64_t deadlineNs)
{
    return DriftSample{wakeNs, deadlineNs, tick};
}

bool driftAggClose(double a, double b)
{
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// What a method's figures count of its ticks, and its drift: now, at its least and at its most.
struct TicksAndDrift {
    uint64_t wakes;
    int64_t lastTick;
    uint64_t missedTicks;
    int64_t driftNs, minDriftNs, maxDriftNs;
};

void compareTicksAndDrift(const DriftMethodFigures& f, const TicksAndDrift& want)
{
    QCOMPARE(f.wakes, want.wakes);
    QCOMPARE(f.lastTick, want.lastTick);
    QCOMPARE(f.missedTicks, want.missedTicks);
    QCOMPARE(f.driftNs, want.driftNs);
    QCOMPARE(f.minDriftNs, want.minDriftNs);
    QCOMPARE(f.maxDriftNs, want.maxDriftNs);
}

} // namespace

class TestDriftAggregator : public QObject {
    Q_OBJECT
private slots:
    void emptyHasNoFigures()
    {
        DriftAggregator agg(2, 1000, 10);
        agg.setOrigin(5000);
        QCOMPARE(agg.methods(), size_t(2));
        QCOMPARE(agg.originNs(), int64_t(5000));
        QCOMPARE(agg.nominalHz(), 1e6); // P = 1 µs
        const DriftMethodFigures f = agg.figures(0);
        QCOMPARE(f.wakes, uint64_t(0));
        QCOMPARE(f.lastTick, int64_t(0));
        QCOMPARE(f.missedTicks, uint64_t(0));
        QCOMPARE(f.driftNs, int64_t(0));
        QCOMPARE(f.slopeNsPerTick, 0.0);
        QCOMPARE(f.rateHz, 0.0);
        QCOMPARE(f.ratePercent, 0.0);
        QCOMPARE(f.latenessP50Ns, int64_t(0));
        QCOMPARE(f.latenessMaxNs, int64_t(0));
        QVERIFY(f.log);
        QCOMPARE(f.log->capacity(), size_t(10)); // one entry per tick of the run
        QVERIFY(f.ticks().empty());
        // An index the run does not have: empty figures, no log, nothing counted.
        QVERIFY(!agg.figures(2).log);
        QVERIFY(!agg.add(2, driftAggSample(1, 6000, 6000)));
        QCOMPARE(agg.figures(0).wakes + agg.figures(1).wakes, uint64_t(0));
    }

    // t0 = 10 000 ns, P = 1000 ns; tick 1 is due at 11 000 and comes at 11 200.
    void oneSample()
    {
        DriftAggregator agg(1, 1000, 10);
        agg.setOrigin(10'000);
        QVERIFY(agg.add(0, driftAggSample(1, 11'200, 11'000)));
        const DriftMethodFigures f = agg.figures(0);
        compareTicksAndDrift(
            f, {.wakes = 1, .lastTick = 1, .missedTicks = 0, .driftNs = 200, .minDriftNs = 200, .maxDriftNs = 200});
        QCOMPARE(f.slopeNsPerTick, 0.0); // a slope needs two ticks
        // One wake-up in the 1200 ns since t0: 833 333.3 Hz, 83.3 % of the nominal 1 MHz.
        QVERIFY(driftAggClose(f.rateHz, 1e9 / 1200.0));
        QVERIFY(driftAggClose(f.ratePercent, 100.0 * 1000.0 / 1200.0));
        QCOMPARE(f.latenessP50Ns, int64_t(200));
        QCOMPARE(f.latenessP99Ns, int64_t(200));
        QCOMPARE(f.latenessMaxNs, int64_t(200));
        QCOMPARE(f.ticks().size(), size_t(1));
        QCOMPARE(f.ticks()[0].tick, int64_t(1));
        QCOMPARE(f.ticks()[0].driftNs, int64_t(200));
        QCOMPARE(f.ticks()[0].latenessNs, int64_t(200));
        QCOMPARE(f.ticks()[0].missed, uint32_t(0));
    }

    // The naive loop: each round is "work 100 ns; sleep P = 1000 ns", so tick k wakes at t0 + k·1100 and its drift
    // grows by the work every tick (100, 200, 300, 400), a slope of exactly 100 ns per tick, while each sleep on its
    // own is only 10 ns late. Four wake-ups in 4400 ns: 1/1.1 of the nominal rate.
    void errorGrowsWithTheWorkOfTheNaiveLoop()
    {
        const int64_t t0 = 1'000'000;
        DriftAggregator agg(1, 1000, 10);
        agg.setOrigin(t0);
        for (int64_t k = 1; k <= 4; ++k) {
            const int64_t wake = t0 + k * 1100;
            agg.add(0, driftAggSample(k, wake, wake - 10));
        }
        const DriftMethodFigures f = agg.figures(0);
        compareTicksAndDrift(
            f, {.wakes = 4, .lastTick = 4, .missedTicks = 0, .driftNs = 400, .minDriftNs = 100, .maxDriftNs = 400});
        QVERIFY2(driftAggClose(f.slopeNsPerTick, 100.0), qPrintable(QString::number(f.slopeNsPerTick)));
        QVERIFY(driftAggClose(f.rateHz, 4e9 / 4400.0));
        QVERIFY(driftAggClose(f.ratePercent, 100.0 / 1.1));
        QCOMPARE(f.latenessP50Ns, int64_t(10));
        QCOMPARE(f.latenessMaxNs, int64_t(10));
        const auto ticks = f.ticks();
        QCOMPARE(ticks.size(), size_t(4));
        for (size_t i = 0; i < ticks.size(); ++i) {
            QCOMPARE(ticks[i].tick, int64_t(i + 1));
            QCOMPARE(ticks[i].driftNs, int64_t(100 * (i + 1)));
        }
    }

    // Least squares over (1, 0), (2, 10), (3, 50): (3·170 − 6·60) / (3·14 − 6²) = 150 / 6 = 25 ns per tick.
    void slopeIsTheLeastSquaresFit()
    {
        DriftAggregator agg(1, 1000, 10);
        agg.setOrigin(0);
        agg.add(0, driftAggSample(1, 1000, 1000));
        agg.add(0, driftAggSample(2, 2010, 2000));
        agg.add(0, driftAggSample(3, 3050, 3000));
        QVERIFY(driftAggClose(agg.figures(0).slopeNsPerTick, 25.0));
    }

    // An absolute method that slept through ticks 3 and 4: the gap is counted on tick 5, wake-ups plus missed ticks
    // make the latest tick, and the drift stays where the schedule is. t0 = 5000, P = 1000.
    void gapsAreMissedTicks()
    {
        DriftAggregator agg(1, 1000, 10);
        agg.setOrigin(5000);
        agg.add(0, driftAggSample(1, 6050, 6000));
        agg.add(0, driftAggSample(2, 7030, 7000));
        agg.add(0, driftAggSample(5, 10'040, 10'000));
        agg.add(0, driftAggSample(6, 11'020, 11'000));
        const DriftMethodFigures f = agg.figures(0);
        QCOMPARE(f.wakes, uint64_t(4));
        QCOMPARE(f.missedTicks, uint64_t(2));
        QCOMPARE(f.lastTick, int64_t(6));
        QCOMPARE(f.wakes + f.missedTicks, uint64_t(f.lastTick));
        const auto ticks = f.ticks();
        QCOMPARE(ticks.size(), size_t(4));
        QCOMPARE(ticks[0].missed, uint32_t(0));
        QCOMPARE(ticks[1].missed, uint32_t(0));
        QCOMPARE(ticks[2].missed, uint32_t(2));
        QCOMPARE(ticks[3].missed, uint32_t(0));
        QCOMPARE(f.driftNs, int64_t(20)); // the latest wake-up's
        QCOMPARE(f.minDriftNs, int64_t(20));
        QCOMPARE(f.maxDriftNs, int64_t(50));
        // Lateness {50, 30, 40, 20}: nearest rank 2 of 4 is 30, rank 4 is 50.
        QCOMPARE(f.latenessP50Ns, int64_t(30));
        QCOMPARE(f.latenessP99Ns, int64_t(50));
        QCOMPARE(f.latenessMaxNs, int64_t(50));
        // Σk = 14, Σk² = 66, Σd = 140, Σkd = 430: (4·430 − 14·140) / (4·66 − 14²) = −240 / 68.
        QVERIFY(driftAggClose(f.slopeNsPerTick, -240.0 / 68.0));
        QVERIFY(driftAggClose(f.rateHz, 4e9 / 6020.0));
    }

    // Ticks arrive in increasing order from a worker; one that is not past the latest (and a wake-up before its
    // due time) is still a wake-up, misses nothing and does not move the latest tick back.
    void ordering()
    {
        DriftAggregator agg(1, 1000, 10);
        agg.setOrigin(0);
        agg.add(0, driftAggSample(3, 3100, 3000));
        agg.add(0, driftAggSample(2, 1995, 2000));
        const DriftMethodFigures f = agg.figures(0);
        QCOMPARE(f.wakes, uint64_t(2));
        QCOMPARE(f.missedTicks, uint64_t(2)); // ticks 1 and 2 before tick 3; tick 2 afterwards adds none
        QCOMPARE(f.lastTick, int64_t(3));
        QCOMPARE(f.driftNs, int64_t(-5)); // the latest wake-up's, 5 ns before tick 2 was due
        QCOMPARE(f.minDriftNs, int64_t(-5));
        QCOMPARE(f.maxDriftNs, int64_t(100));
        QCOMPARE(f.ticks()[1].tick, int64_t(2)); // the log keeps the order they came in
        QCOMPARE(f.ticks()[1].missed, uint32_t(0));
        QCOMPARE(f.ticks()[1].latenessNs, int64_t(-5));
        QCOMPARE(f.latenessMaxNs, int64_t(100));
    }

    // The log holds the run's tick count; a wake-up past it still counts in the figures and is a refused append.
    // Methods are aggregated apart.
    void logOverflowAndMethodsApart()
    {
        DriftAggregator agg(2, 1000, 2);
        agg.setOrigin(0);
        for (int64_t k = 1; k <= 3; ++k)
            agg.add(1, driftAggSample(k, k * 1000 + 7, k * 1000));
        const DriftMethodFigures f = agg.figures(1);
        QCOMPARE(f.wakes, uint64_t(3));
        QCOMPARE(f.lastTick, int64_t(3));
        QCOMPARE(f.logCount, size_t(2));
        QCOMPARE(f.ticks().size(), size_t(2));
        QCOMPARE(f.log->refused(), size_t(1));
        QCOMPARE(agg.figures(0).wakes, uint64_t(0));
        QVERIFY(agg.figures(0).log != f.log);
    }

    // Figures taken early keep showing the ticks they saw, which later figures agree with.
    void earlyFiguresShareTheLog()
    {
        DriftAggregator agg(1, 1000, 10);
        agg.setOrigin(0);
        agg.add(0, driftAggSample(1, 1010, 1000));
        const DriftMethodFigures early = agg.figures(0);
        agg.add(0, driftAggSample(2, 2020, 2000));
        const DriftMethodFigures late = agg.figures(0);
        QCOMPARE(early.ticks().size(), size_t(1));
        QCOMPARE(late.ticks().size(), size_t(2));
        QVERIFY(early.log == late.log);
        QCOMPARE(early.ticks()[0].driftNs, late.ticks()[0].driftNs);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDriftAggregator)
#include "tst_drift_aggregator.moc"
