// The sleep-floor experiment end to end, with real sleeps (docs/experiments/sleep-floor.md). Asserts shapes that
// survive a noisy two-CPU machine, through medians and ratios only: a 1 ns sleep costs about what a 0 ns sleep costs
// and far more than 1 ns, slack 1 ns lowers that floor under SCHED_OTHER, busy-waiting is exact and burns its whole
// wait in CPU time, the hybrid is nearly as exact for a fraction of it, every thread is joined.
#include "engine/experiments/timers/sleep_floor_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include "tests/common/experiment_run.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"
#include <QDir>
#include <QFile>

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <sched.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

std::shared_ptr<const SleepFloorSnapshot> measure(const SleepFloorConfig& c)
{
    SleepFloorExperiment exp;
    if (Error e = exp.start(c, CpuTopology::current())) {
        qWarning("%s", e.message.c_str());
        return nullptr;
    }
    return runExperimentToEnd(exp, 20000, 5);
}

QByteArray us(double ns)
{
    return QByteArray::number(ns / 1000.0, 'f', 2) + " us";
}

} // namespace

class TestSleepFloorExperiment : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    // SCHED_FIFO when allowed, where a test needs the busy-wait not to be preempted by other work on this
    // machine (a parallel build, another lab's real-time spinner at 80); every spin is bounded (100 µs … 1 ms a
    // sample, 50 ms a test) and runs on one CPU of two.
    bool useRealtimeIfAllowed(SleepFloorConfig& c) const
    {
        if (!m_probe.rtAvailable || CpuTopology::current().allowed.size() < 2)
            return false;
        c.policy = Policy::Fifo;
        c.priority = 90;
        return true;
    }

    // measure() of @p c, in SCHED_FIFO when allowed (useRealtimeIfAllowed()).
    std::shared_ptr<const SleepFloorSnapshot> measureRealtimeIfAllowed(SleepFloorConfig c) const
    {
        useRealtimeIfAllowed(c);
        return measure(c);
    }

private slots:
    void initTestCase()
    {
        blockProcessSignals(false);
        m_probe = probeSystem();
    }

    // clock_getres promises nanoseconds; asking to sleep 0 ns or 1 ns costs the same, far more than that.
    void oneNanosecondCostsTheFloor()
    {
        SleepFloorConfig c;
        c.requestsNs = {0, 1};
        c.methods = {SleepMethod::Nanosleep, SleepMethod::Relative, SleepMethod::Absolute};
        c.samples = 200;
        auto snap = measure(c);
        QVERIFY(snap);
        QVERIFY2(snap->finished && snap->error.empty(), snap->error.c_str());
        QCOMPARE(snap->samplesDone, uint64_t(2 * 3 * 200));
        QVERIFY(snap->clockResolutionNs > 0);
        for (size_t m = 0; m < c.methods.size(); ++m) {
            const SleepFloorCell& zero = snap->cell(0, m);
            const SleepFloorCell& one = snap->cell(1, m);
            const QByteArray what = QByteArray(sleepMethodName(c.methods[m])) + ": 0 ns -> " + us(zero.p50Ns) +
                                    ", 1 ns -> " + us(one.p50Ns) + ", clock_getres " +
                                    QByteArray::number(qint64(snap->clockResolutionNs)) + " ns";
            QCOMPARE(one.samples, uint64_t(200));
            QVERIFY2(one.p50Ns >= 1000, what); // a thousand times the request, at the very least
            QVERIFY2(one.p50Ns > 10 * snap->clockResolutionNs, what);
            QVERIFY2(std::llabs(one.p50Ns - zero.p50Ns) <= std::max(one.p50Ns, zero.p50Ns) / 2, what);
            QCOMPARE(one.overshootNs, one.p50Ns - 1);
            QVERIFY(one.overshootRatio > 999.0);
            QVERIFY(zero.p99Ns >= zero.p50Ns && zero.maxNs >= zero.p99Ns && zero.minNs <= zero.p50Ns);
            QCOMPARE(snap->floorNs[m], zero.p50Ns);
        }
        qInfo("floor (median, 0 ns): nanosleep %s, rel %s, abs %s; slack %s; clock_getres %lld ns",
              us(snap->floorNs[0]).constData(), us(snap->floorNs[1]).constData(), us(snap->floorNs[2]).constData(),
              snap->slackNote.c_str(), (long long)snap->clockResolutionNs);
        QCOMPARE(threadsAlive(), 0);
    }

    // The default slack (50 µs) is part of the floor under SCHED_OTHER; 1 ns of slack takes it away.
    void slackOfOneNanosecondLowersTheFloor()
    {
        SleepFloorConfig c;
        c.requestsNs = {0, 1000};
        c.methods = {SleepMethod::Relative};
        c.samples = 300;
        auto byDefault = measure(c);
        QVERIFY(byDefault && byDefault->finished);
        if (byDefault->timerSlackNs < 20'000)
            RTSCOPE_SKIP(Kernel, QString("the default timer slack here is %1 ns, too small to show its effect")
                                     .arg(byDefault->timerSlackNs));
        c.timerSlackNs = 1;
        auto tight = measure(c);
        QVERIFY(tight && tight->finished);
        QCOMPARE(tight->timerSlackNs, int64_t(1));
        QVERIFY(QString::fromStdString(tight->slackNote).contains("PR_SET_TIMERSLACK"));
        for (size_t r = 0; r < c.requestsNs.size(); ++r) {
            const int64_t slow = byDefault->cell(r, 0).p50Ns, fast = tight->cell(r, 0).p50Ns;
            const QByteArray what = "request " + QByteArray::number(qint64(c.requestsNs[r])) + " ns: slack " +
                                    QByteArray::number(qint64(byDefault->timerSlackNs)) + " ns -> " + us(slow) +
                                    ", slack 1 ns -> " + us(fast);
            qInfo("%s", what.constData());
            QVERIFY2(fast * 2 < slow, what);
        }
    }

    // Busy-waiting is exact far below the floor, and pays for it with its whole wait in CPU time.
    void busyWaitIsExactAndCostsItsWallTime()
    {
        SleepFloorConfig c;
        c.requestsNs = {0, 100'000};
        c.methods = {SleepMethod::Busy, SleepMethod::Relative};
        c.samples = 200;
        auto snap = measureRealtimeIfAllowed(c);
        QVERIFY(snap && snap->finished);
        const SleepFloorCell& busy = snap->cell(1, 0);
        const SleepFloorCell& sleep = snap->cell(1, 1);
        const int64_t floor = snap->cell(0, 1).p50Ns;
        const QByteArray what = "100 us: busy overshoot " + us(busy.overshootNs) + ", cpu share " +
                                QByteArray::number(busy.cpuShare) + "; sleep floor " + us(floor) +
                                ", sleep cpu share " + QByteArray::number(sleep.cpuShare);
        qInfo("%s", what.constData());
        QVERIFY2(busy.overshootNs >= 0, what);
        QVERIFY2(busy.overshootNs * 10 < floor, what);
        QVERIFY2(busy.minNs >= busy.requestNs, what); // a spin never returns early
        QVERIFY2(busy.cpuShare > 0.9 && busy.cpuShare < 1.1, what);
        QVERIFY2(busy.cpuPerWaitNs > 0.9 * 100'000, what);
        QVERIFY2(sleep.cpuShare < 0.5, what); // a real sleep leaves the CPU
        QVERIFY2(sleep.overshootNs > busy.overshootNs, what);
    }

    // The hybrid sleeps to a margin before the deadline, then spins: almost busy-wait's precision, a fraction of
    // its CPU time.
    void hybridIsPreciseForAFractionOfTheCpu()
    {
        SleepFloorConfig c;
        c.requestsNs = {1'000'000};
        c.methods = {SleepMethod::Hybrid, SleepMethod::Busy, SleepMethod::Absolute};
        c.hybridMarginNs = 200'000;
        c.samples = 40;
        auto snap = measureRealtimeIfAllowed(c);
        QVERIFY(snap && snap->finished);
        const SleepFloorCell& hybrid = snap->cell(0, 0);
        const SleepFloorCell& busy = snap->cell(0, 1);
        const SleepFloorCell& sleep = snap->cell(0, 2);
        const QByteArray what = "1 ms: hybrid overshoot " + us(hybrid.overshootNs) + " cpu " +
                                QByteArray::number(hybrid.cpuShare) + "; busy overshoot " + us(busy.overshootNs) +
                                " cpu " + QByteArray::number(busy.cpuShare) + "; abs overshoot " +
                                us(sleep.overshootNs);
        qInfo("%s", what.constData());
        QVERIFY2(hybrid.minNs >= hybrid.requestNs, what);
        QVERIFY2(hybrid.overshootNs < sleep.overshootNs, what);
        QVERIFY2(hybrid.cpuShare < 0.5 && busy.cpuShare > 0.9, what);
    }

    void everySampleIsKeptForTheCsv()
    {
        SleepFloorConfig c;
        c.requestsNs = {0, 10'000, 1000};
        c.methods = {SleepMethod::Busy, SleepMethod::Hybrid, SleepMethod::Nanosleep};
        c.samples = 30;
        auto snap = measure(c);
        QVERIFY(snap && snap->finished);
        QCOMPARE(snap->drops, uint64_t(0));
        QCOMPARE(snap->samplesTotal, uint64_t(3 * 3 * 30));
        const auto raw = snap->rawSamples();
        QCOMPARE(raw.size(), size_t(3 * 3 * 30));
        std::vector<int> perCell(9, 0);
        for (const SleepSample& s : raw) {
            QVERIFY(s.request < 3 && s.method < 3 && s.sample < 30);
            QVERIFY(s.actualNs >= 0 && s.cpuNs >= 0);
            ++perCell[s.request * 3 + s.method];
        }
        for (int n : perCell)
            QCOMPARE(n, 30);
        // Requests are swept in the order given; the floor is read at the smallest one, not the first.
        QCOMPARE(raw.front().request, uint16_t(0));
        QCOMPARE(raw.back().request, uint16_t(2));
        QCOMPARE(snap->floorNs.size(), size_t(3));
        QCOMPARE(snap->floorNs[2], snap->cell(0, 2).p50Ns);
        QCOMPARE(snap->cell(1, 0).requestNs, int64_t(10'000));
        QCOMPARE(snap->currentRequest, 2);
    }

    void backgroundLoadRunsOnTheOtherCpusAndStops()
    {
        const CpuTopology cpus = CpuTopology::current();
        if (cpus.allowed.size() < 2)
            RTSCOPE_SKIP(Cpus, "needs a second CPU for the load");
        SleepFloorConfig c;
        c.requestsNs = {0, 1'000'000};
        c.methods = {SleepMethod::Absolute};
        c.samples = 100;
        c.backgroundLoad = true;
        SleepFloorExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QCOMPARE(threadsAlive("rtscope-load"), int(cpus.allowed.size()) - 1);
        QCOMPARE(threadsAlive("rtscope-sleep"), 1);
        // The measuring CPU and every load CPU: all of them.
        std::vector<int> all = cpus.allowed;
        std::sort(all.begin(), all.end());
        QCOMPARE(exp.busyCpus(), all);
        auto snap = runExperimentToEnd(exp, 20000, 5);
        QVERIFY(exp.busyCpus().empty());
        QVERIFY(snap->finished);
        QCOMPARE(snap->loadThreads, int(cpus.allowed.size()) - 1);
        QVERIFY(snap->loadIterations > 0);
        QCOMPARE(threadsAlive(), 0);
    }

    void fifoRunsAsFifoWithZeroSlack()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        SleepFloorConfig c;
        c.requestsNs = {1'000'000};
        c.methods = {SleepMethod::Absolute};
        c.samples = 1000;
        c.policy = Policy::Fifo;
        c.priority = 40;
        SleepFloorExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->samplesDone > 5);
        const SchedState s = schedulingOf(exp.snapshot()->tid);
        QCOMPARE(int(s.policy), int(Policy::Fifo));
        QCOMPARE(s.priority, 40);
        QVERIFY(exp.snapshot()->running);
        exp.stop();
        auto snap = exp.snapshot();
        QVERIFY(!snap->running);
        QVERIFY(snap->samplesDone < 1000); // stopped early: partial results
        QCOMPARE(snap->effectiveSlackNs, int64_t(0));
        QVERIFY(QString::fromStdString(snap->slackNote).contains("SCHED_FIFO"));
    }

    // 100 ms is the longest request: a spin and a sleep of that length must both give way to Stop at once.
    void stopJoinsWithinAHundredMilliseconds_data()
    {
        QTest::addColumn<int>("method");
        for (SleepMethod m : kSleepMethods)
            QTest::newRow(sleepMethodName(m)) << int(m);
    }
    void stopJoinsWithinAHundredMilliseconds()
    {
        QFETCH(int, method);
        SleepFloorConfig c;
        c.requestsNs = {100'000'000};
        c.methods = {SleepMethod(method)};
        c.samples = 10;
        c.hybridMarginNs = 10'000'000;
        useRealtimeIfAllowed(c);
        SleepFloorExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        // Without background load only the measuring CPU is busy.
        QCOMPARE(exp.busyCpus(), std::vector<int>{c.resolvedCpu(CpuTopology::current())});
        QTest::qWait(30);
        const AwayFrom away(exp.config().cpu);
        rtscope::test::stopExperimentWithin100ms(exp);
        QVERIFY(exp.snapshot()->error.empty()); // an interrupted wait is not a failure
    }

    void invalidConfigStartsNothing()
    {
        SleepFloorExperiment exp;
        SleepFloorConfig c;
        c.samples = 0;
        c.requestsNs = {-5};
        checkStartRefused(
            exp, c, CpuTopology::current(),
            {"samples must be between 1 and 100000 (got 0)", "requests must each be between 0 ns and 100.00 ms"});
        QVERIFY(!exp.snapshot());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestSleepFloorExperiment)
#include "tst_sleep_floor_experiment.moc"
