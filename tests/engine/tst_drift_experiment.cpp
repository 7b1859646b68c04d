// The drift experiment end to end, with real threads and real timers (docs/experiments/drift.md). Asserts shapes that
// survive a noisy two-CPU machine: the naive loop's drift grows by at least its work every tick, the absolute
// methods stay within a few periods, a deliberate stall is counted as missed ticks, every thread is joined.
#include "engine/experiments/timers/drift_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include "tests/common/experiment_run.h"
#include "tests/common/find_by.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"
#include <QDir>
#include <QFile>

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <sched.h>
#include <span>
#include <vector>

using namespace rtscope;
using namespace rtscope::test;

namespace {

// QTest starts its watchdog thread before initTestCase; block SIGALRM and the rest before main(), as the app
// does first thing, so ITIMER_REAL's process-directed signal reaches the itimer method's thread.
[[maybe_unused]] const bool g_driftSignalsBlocked = [] {
    blockProcessSignals(false);
    return true;
}();

int64_t medianDrift(std::span<const DriftTick> ticks, size_t from, size_t to)
{
    std::vector<int64_t> d;
    for (size_t i = from; i < to && i < ticks.size(); ++i)
        d.push_back(ticks[i].driftNs);
    if (d.empty())
        return 0;
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    return d[d.size() / 2];
}

const DriftMethodStats* find(const DriftSnapshot& s, WaiterKind k)
{
    return rtscope::test::findBy(s.methods, &DriftMethodStats::method, k);
}

} // namespace

class TestDriftExperiment : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    // SCHED_FIFO when allowed, so that other work on this machine (a parallel build, another lab's real-time
    // spinner at 80) cannot push the absolute methods' wake-ups by whole periods; the work per tick keeps the
    // CPU half idle.
    void useRealtimeIfAllowed(DriftConfig& c) const
    {
        if (m_probe.rtAvailable && CpuTopology::current().allowed.size() >= 2) {
            c.policy = Policy::Fifo;
            c.priority = 90;
        }
    }

private slots:
    void initTestCase()
    {
        blockProcessSignals(false);
        m_probe = probeSystem();
        if (!m_probe.rtAvailable)
            qWarning("methods run as SCHED_OTHER: %s", m_probe.rtUnavailableReason.c_str());
    }

    // The lesson's claim (docs/science.md, Timer drift): the naive loop's drift grows with the tick count, every
    // absolute method's drift after 500 ticks stays within a few periods' jitter.
    void naiveDriftGrowsAbsoluteStaysFlat()
    {
        DriftConfig c;
        c.periodNs = kNsPerMs;
        c.ticks = 500;
        c.workNs = 100'000;
        useRealtimeIfAllowed(c);
        DriftExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        auto snap = runExperimentToEnd(exp, 20000);
        QVERIFY(snap);
        QVERIFY2(snap->finished, snap->error.c_str());
        QVERIFY2(snap->error.empty(), snap->error.c_str());
        QCOMPARE(snap->methods.size(), size_t(5));

        const DriftMethodStats* naive = find(*snap, WaiterKind::Relative);
        QVERIFY(naive);
        QCOMPARE(naive->lastTick, int64_t(500));
        QCOMPARE(naive->wakes, uint64_t(500));
        QCOMPARE(naive->missedTicks, uint64_t(0));
        // Each round of "work; sleep P" takes at least work + P, and the naive loop never pays the excess back:
        // tick k is at least (k − 1)·work late. This bound does not depend on how noisy the machine is.
        const auto ticks = naive->ticks();
        QCOMPARE(ticks.size(), size_t(500));
        for (size_t i = 0; i < ticks.size(); ++i)
            QVERIFY(ticks[i].tick == int64_t(i + 1) && ticks[i].driftNs >= int64_t(i) * c.workNs);
        QVERIFY(ticks[499].driftNs >= ticks[249].driftNs + 250 * c.workNs);
        QVERIFY(naive->driftNs >= 499 * c.workNs);
        // Least squares weighs every step of at least `work` positively, so the slope is at least `work` too.
        QVERIFY(naive->slopeNsPerTick >= double(c.workNs));
        QVERIFY(naive->ratePercent < 100.0 * 1e6 / (1e6 + double(c.workNs)) + 0.1);
        const int64_t naiveRise = medianDrift(ticks, 250, 500) - medianDrift(ticks, 0, 250);
        QVERIFY(naiveRise >= 250 * c.workNs);

        for (WaiterKind k : {WaiterKind::Absolute, WaiterKind::Timerfd, WaiterKind::Itimer, WaiterKind::Posix}) {
            const DriftMethodStats* m = find(*snap, k);
            QVERIFY(m);
            const QByteArray what = QByteArray(driftMethodName(k)) + ": drift " + QByteArray::number(m->driftNs) +
                                    " ns, slope " + QByteArray::number(m->slopeNsPerTick) + " ns/tick, missed " +
                                    QByteArray::number(m->missedTicks);
            QVERIFY2(m->done && m->error.empty(), m->error.c_str());
            QVERIFY2(m->lastTick >= 500, what);
            QCOMPARE(m->wakes + m->missedTicks, uint64_t(m->lastTick)); // every tick woken for or counted
            QVERIFY2(std::llabs(m->driftNs) < 5 * c.periodNs, what);
            // Flat: the typical drift of the second half is where it was in the first half (medians, so that one
            // burst of lateness does not decide), where the naive loop's has moved on by 250 work items.
            const auto t = m->ticks();
            const int64_t rise = medianDrift(t, t.size() / 2, t.size()) - medianDrift(t, 0, t.size() / 2);
            QVERIFY2(std::llabs(rise) * 10 < naiveRise, what + ", median rise " + QByteArray::number(rise));
            QVERIFY2(std::llabs(rise) < c.periodNs, what + ", median rise " + QByteArray::number(rise));
            QVERIFY2(m->latenessP50Ns < c.periodNs, what);
            QCOMPARE(m->drops, uint64_t(0));
            // Ticks are strictly increasing and start at 1.
            QVERIFY(!t.empty() && t.front().tick >= 1);
            for (size_t i = 1; i < t.size(); ++i)
                QVERIFY(t[i].tick > t[i - 1].tick);
        }
        qInfo("drift after 500 ticks: naive %.1f us, abs %.1f us, timerfd %.1f us, itimer %.1f us, posix %.1f us",
              double(naive->driftNs) / 1e3, double(find(*snap, WaiterKind::Absolute)->driftNs) / 1e3,
              double(find(*snap, WaiterKind::Timerfd)->driftNs) / 1e3,
              double(find(*snap, WaiterKind::Itimer)->driftNs) / 1e3,
              double(find(*snap, WaiterKind::Posix)->driftNs) / 1e3);
        QCOMPARE(threadsAlive(), 0);
    }

    // A method stalled on purpose for ten periods: the kernel timers count the expirations it slept through, the
    // schedules of abs and itimer skip them, nothing is lost, and the naive loop just slides.
    void missedTicksAreCountedWhenStalled()
    {
        DriftConfig c;
        c.periodNs = kNsPerMs;
        c.ticks = 100;
        c.stallTick = 30;
        c.stallNs = 10 * kNsPerMs;
        useRealtimeIfAllowed(c);
        DriftExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        auto snap = runExperimentToEnd(exp, 20000);
        QVERIFY2(snap && snap->finished && snap->error.empty(), snap ? snap->error.c_str() : "no snapshot");

        for (WaiterKind k : {WaiterKind::Absolute, WaiterKind::Timerfd, WaiterKind::Itimer, WaiterKind::Posix}) {
            const DriftMethodStats* m = find(*snap, k);
            const QByteArray what = QByteArray(driftMethodName(k)) + ": missed " + QByteArray::number(m->missedTicks) +
                                    ", wakes " + QByteArray::number(m->wakes);
            QVERIFY2(m->missedTicks >= 8, what);
            QCOMPARE(m->wakes + m->missedTicks, uint64_t(m->lastTick));
            // The ticks right after the stall carry the count: one wake-up answers the latest expiry.
            uint32_t largest = 0;
            for (const DriftTick& t : m->ticks())
                if (t.tick > c.stallTick)
                    largest = std::max(largest, t.missed);
            QVERIFY2(largest >= 5, what);
            // The schedule did not move: the last tick is back on t0 + k·P.
            QVERIFY2(std::llabs(m->driftNs) < 5 * c.periodNs, what);
        }
        const DriftMethodStats* naive = find(*snap, WaiterKind::Relative);
        QCOMPARE(naive->missedTicks, uint64_t(0));
        QCOMPARE(naive->wakes, uint64_t(100));
        QVERIFY(naive->driftNs >= c.stallNs); // the stall is added to the naive schedule for good
        QCOMPARE(threadsAlive(), 0);
    }

    void snapshotsAreLiveAndShareTheTickLog()
    {
        DriftConfig c;
        c.periodNs = kNsPerMs;
        c.ticks = 400;
        c.methods = {WaiterKind::Relative, WaiterKind::Timerfd};
        DriftExperiment exp;
        QVERIFY(!exp.snapshot());
        QVERIFY(exp.busyCpus().empty());
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QCOMPARE(threadsAlive("rtscope-drift"), 2);
        // Both methods on the one measuring CPU: the CLI keeps its main thread off it.
        QCOMPARE(exp.busyCpus(), std::vector<int>{c.resolvedCpu(CpuTopology::current())});
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->methods.front().wakes > 20);
        auto early = exp.snapshot();
        QVERIFY(early->running);
        QVERIFY(!early->finished);
        const size_t seen = early->methods.front().ticks().size();
        QCOMPARE(seen, size_t(early->methods.front().wakes));
        QTRY_VERIFY(exp.snapshot()->generation > early->generation + 3);
        auto snap = runExperimentToEnd(exp, 20000);
        QVERIFY(!snap->running);
        QVERIFY(snap->finished);
        QVERIFY(exp.busyCpus().empty());
        QCOMPARE(snap->methods.front().ticks().size(), size_t(400));
        // The early snapshot still shows what it showed, and agrees with the final one on that prefix.
        QCOMPARE(early->methods.front().ticks().size(), seen);
        for (size_t i = 0; i < seen; ++i)
            QCOMPARE(early->methods.front().ticks()[i].driftNs, snap->methods.front().ticks()[i].driftNs);
        QVERIFY(snap->methods.front().timerSlackNs >= 0);
        QVERIFY(!snap->slackNote.empty());
    }

    // Slack is per thread: 1 ns asked in the methods' threads is what they read back, under SCHED_OTHER.
    void timerSlackIsAppliedAndReported()
    {
        DriftConfig c;
        c.ticks = 20;
        c.methods = {WaiterKind::Relative};
        c.timerSlackNs = 1;
        DriftExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        auto snap = runExperimentToEnd(exp, 20000);
        QCOMPARE(snap->methods.front().timerSlackNs, int64_t(1));
        QCOMPARE(snap->effectiveSlackNs, int64_t(1));
        QVERIFY(QString::fromStdString(snap->slackNote).contains("PR_SET_TIMERSLACK"));
        QVERIFY(timerSlack() != 1); // the test thread's own slack was left alone
    }

    void fifoRunsAsFifoWithZeroSlack()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        DriftConfig c;
        c.ticks = 300;
        c.methods = {WaiterKind::Absolute};
        c.policy = Policy::Fifo;
        c.priority = 60;
        DriftExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->methods.front().wakes > 5);
        const SchedState s = schedulingOf(exp.snapshot()->methods.front().tid);
        QCOMPARE(int(s.policy), int(Policy::Fifo));
        QCOMPARE(s.priority, 60);
        auto snap = runExperimentToEnd(exp, 20000);
        QCOMPARE(snap->effectiveSlackNs, int64_t(0));
        QVERIFY(QString::fromStdString(snap->slackNote).contains("SCHED_FIFO"));
    }

    // Every thread stoppable within 100 ms: in a 1 s sleep, and in the middle of 900 ms of busy work.
    void stopJoinsWithinAHundredMilliseconds_data()
    {
        QTest::addColumn<qint64>("work");
        QTest::newRow("sleeping") << qint64(0);
        QTest::newRow("working") << qint64(900'000'000);
    }
    void stopJoinsWithinAHundredMilliseconds()
    {
        QFETCH(qint64, work);
        DriftConfig c;
        c.periodNs = kNsPerSec;
        c.ticks = 10;
        c.workNs = work;
        c.methods = {WaiterKind::Relative, WaiterKind::Absolute, WaiterKind::Timerfd, WaiterKind::Itimer,
                     WaiterKind::Posix};
        if (work > 0)
            c.methods = {WaiterKind::Relative}; // one spinner is enough to prove the point
        else
            useRealtimeIfAllowed(c); // the real-time case; the 900 ms spin stays SCHED_OTHER
        DriftExperiment exp;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QTest::qWait(work > 0 ? 1200 : 50); // with work: inside the first tick's busy work
        const AwayFrom away(exp.config().cpu);
        rtscope::test::stopExperimentWithin100ms(exp);
        QVERIFY(!exp.snapshot()->running);
    }

    void invalidConfigStartsNothing()
    {
        DriftExperiment exp;
        DriftConfig c;
        c.workNs = c.periodNs;
        c.methods.clear();
        checkStartRefused(exp, c, CpuTopology::current(),
                          {"work must be between 0 ns and 90 % of the period", "methods must name at least one"});
    }

    void canRunTwiceInARow()
    {
        DriftExperiment exp;
        DriftConfig c;
        c.ticks = 30;
        c.methods = {WaiterKind::Itimer, WaiterKind::Posix};
        QVERIFY(!exp.start(c, CpuTopology::current()));
        auto first = runExperimentToEnd(exp, 20000);
        QVERIFY(!exp.start(c, CpuTopology::current())); // the process-wide itimer was released
        auto second = runExperimentToEnd(exp, 20000);
        for (const auto& snap : {first, second}) {
            QVERIFY2(snap->finished && snap->error.empty(), snap->error.c_str());
            for (const DriftMethodStats& m : snap->methods) {
                QVERIFY(m.lastTick >= 30);
                QCOMPARE(m.wakes + m.missedTicks, uint64_t(m.lastTick));
            }
        }
        QVERIFY(first->methods.front().log != second->methods.front().log); // each run has its own
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDriftExperiment)
#include "tst_drift_experiment.moc"
