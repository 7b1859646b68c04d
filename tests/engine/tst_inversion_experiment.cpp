// The priority-inversion experiment end to end, with real SCHED_FIFO threads on one CPU (never the first one):
// with a plain mutex the high thread's wait reaches the medium thread's burst, and the medium thread runs while
// high waits; with priority inheritance or a ceiling the wait stays near the critical section and the medium
// thread does not run while high waits. Shapes only: another test's real-time threads may share the CPU and can
// only lengthen waits, so the mutex assertions are lower bounds and the pi/ceiling ones are medians.
#include "engine/experiments/locks/inversion_experiment.h"
#include "engine/export/lock_lab_report.h"
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
#include <functional>
#include <nlohmann/json.hpp>

using namespace rtscope;
using namespace rtscope::test;

namespace {

constexpr int64_t kBurstNs = 30'000'000;
constexpr int64_t kHoldNs = 2'000'000;

InversionConfig quick(LockKind kind)
{
    InversionConfig c;
    c.lock = kind;
    c.mediumBurstNs = kBurstNs;
    c.holdNs = kHoldNs;
    c.periodNs = 60'000'000;
    c.durationNs = 500'000'000;
    return c;
}

// A change to the default config, given this machine's CPUs.
using InversionEdit = std::function<void(InversionConfig&, const CpuTopology&)>;

} // namespace

Q_DECLARE_METATYPE(InversionEdit)

class TestInversionExperiment : public QObject {
    Q_OBJECT
    SystemProbe m_probe;
    int64_t m_mutexMedianNs = 0;
    int64_t m_mutexOverlapNs = 0;

    // Why the FIFO tests cannot run here, for RTSCOPE_SKIP_IF in the test itself (a skip in a helper would return
    // from the helper only, and the test would go on).
    rtscope::test::MaybeSkip missingFifoOrCpus() const
    {
        if (rtscope::test::MaybeSkip noFifo = rtscope::test::withoutFifo(m_probe))
            return noFifo;
        if (InversionConfig().resolvedCpu(CpuTopology::current()) < 0)
            return rtscope::test::Skip{rtscope::test::SkipKind::Cpus,
                                       "needs two usable CPUs: the three FIFO threads never go on the first one"};
        return std::nullopt;
    }

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpExperimentTest(); }

    void validationNamesTheFieldAndRange_data()
    {
        QTest::addColumn<InversionEdit>("edit");
        QTest::addColumn<bool>("reservedCpu"); // the row needs a reserved CPU and two usable ones
        QTest::addColumn<QString>("expected");
        using C = InversionConfig&;
        using T = const CpuTopology&;
        QTest::newRow("lock") << InversionEdit([](C c, T) { c.lock = LockKind::Spin; }) << false
                              << "lock must be mutex, pi or ceiling (got spin)";
        QTest::newRow("burst") << InversionEdit([](C c, T) { c.mediumBurstNs = 2'000'000'000; }) << false
                               << "medium-burst must be between 100.0 us and 1.000 s (got 2.000 s)";
        QTest::newRow("hold") << InversionEdit([](C c, T) { c.holdNs = 10'000; }) << false
                              << "hold must be between 100.0 us and 100.00 ms (got 10.0 us)";
        QTest::newRow("hold vs period") << InversionEdit([](C c, T) { c.holdNs = 60'000'000; }) << false
                                        << "hold must be at most half the period (got 60.00 ms with period 100.00 ms)";
        QTest::newRow("period") << InversionEdit([](C c, T) { c.periodNs = 1'000'000; }) << false
                                << "period must be between 10.00 ms and 10.000 s (got 1.00 ms)";
        QTest::newRow("duration") << InversionEdit([](C c, T) { c.durationNs = 3600'000'000'000; }) << false
                                  << "duration must be between 100.00 ms and 600.000 s (got 3600.000 s)";
        QTest::newRow("priority 99") << InversionEdit([](C c, T) { c.highPriority = 99; }) << false
                                     << "high-priority must be between 1 and 98 (got 99); 99 is kept for the watchdog";
        QTest::newRow("order") << InversionEdit([](C c, T) {
            c.lowPriority = 30;
            c.mediumPriority = 20;
            c.highPriority = 10;
        }) << false << "priorities must rise from low to medium to high (got low 30, medium 20, high 10)";
        QTest::newRow("reserved cpu") << InversionEdit([](C c, T cpus) { c.cpu = InversionConfig::reservedCpu(cpus); })
                                      << true << "that CPU stays free for the UI, the collector and the watchdog";
        QTest::newRow("cpu") << InversionEdit([](C c, T) { c.cpu = 4096; }) << false
                             << "cpu must be one of the online CPUs this process may use";
    }
    void validationNamesTheFieldAndRange()
    {
        QFETCH(InversionEdit, edit);
        QFETCH(bool, reservedCpu);
        QFETCH(QString, expected);
        const CpuTopology cpus = CpuTopology::current();
        if (reservedCpu && (InversionConfig::reservedCpu(cpus) < 0 || cpus.allowed.size() < 2))
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs");
        InversionConfig c;
        edit(c, cpus);
        const QString problems = joined(c.validate(cpus));
        QVERIFY2(problems.contains(expected), qPrintable(problems));
        InversionExperiment exp;
        QCOMPARE(exp.start(c, CpuTopology::current()).kind, ErrorKind::InvalidConfig);
        QCOMPARE(threadsAlive(), 0);
    }

    void jsonRoundTrip()
    {
        InversionConfig c;
        c.lock = LockKind::Ceiling;
        c.mediumBurstNs = 12'345'000;
        c.holdNs = 678'000;
        c.periodNs = 40'000'000;
        c.durationNs = 2'000'000'000;
        c.cpu = 1;
        c.lowPriority = 5;
        c.mediumPriority = 6;
        c.highPriority = 7;
        std::vector<std::string> errors;
        QVERIFY(inversionConfigFromJson(toJson(c), errors) == c);
        QVERIFY(errors.empty());
        nlohmann::json j = toJson(c);
        j["lock"] = "semaphore";
        j["period"] = 5;
        inversionConfigFromJson(j, errors);
        QStringList all;
        for (const auto& e : errors)
            all << QString::fromStdString(e);
        QVERIFY2(all.contains("lock must be one of mutex, pi, ceiling"), qPrintable(all.join(" | ")));
        QVERIFY2(all.contains("unknown field 'period'"), qPrintable(all.join(" | ")));
    }

    // Runs first: the pi and ceiling cases compare against its figures.
    void mutexLetsTheMediumThreadDelayTheHighOne()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        InversionExperiment exp;
        const InversionConfig c = quick(LockKind::Mutex);
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->tids[2] > 0);
        const auto live = exp.snapshot();
        const int expected[3] = {c.lowPriority, c.mediumPriority, c.highPriority};
        for (int i = 0; i < 3; ++i) {
            const SchedState s = schedulingOf(live->tids[size_t(i)]);
            QCOMPARE(int(s.policy), int(Policy::Fifo));
            QCOMPARE(s.priority, expected[i]);
        }
        QCOMPARE(threadsAlive("rtscope-inv-"), 3);
        QCOMPARE(threadsAlive("rtscope-watchd"), 1);
        auto snap = runExperimentToEnd(exp, 20000);
        QVERIFY(snap && snap->finished);
        QVERIFY2(snap->error.empty(), snap->error.c_str());
        QCOMPARE(threadsAlive(), 0);
        QVERIFY2(snap->highPeriods >= 5, qPrintable(QString::number(snap->highPeriods)));
        QCOMPARE(snap->ringDrops, uint64_t(0));
        QVERIFY(snap->config.cpu != snap->watchdogCpu);
        const Histogram& h = snap->highWait;
        qInfo("mutex: %llu periods (%llu contended, %llu missed), wait p50 %.2f ms max %.2f ms, medium ran %.1f ms "
              "while high waited, %zu watchdog trips",
              (unsigned long long)snap->highPeriods, (unsigned long long)snap->highContended,
              (unsigned long long)snap->highMissed, h.percentile(50) / 1e6, h.max() / 1e6,
              snap->mediumRanWhileHighWaitedNs / 1e6, snap->watchdogTrips.size());
        // The inversion: high waits for the medium thread's whole burst (it only gets longer under interference).
        QVERIFY2(h.max() >= kBurstNs * 9 / 10, "the high thread's worst wait never reached the medium burst");
        QVERIFY2(h.percentile(50) >= kBurstNs * 8 / 10, "the inversion should happen in most periods");
        QVERIFY(snap->mediumRanWhileHighWaitedNs >= int64_t(snap->highPeriods / 2) * kBurstNs * 8 / 10);
        m_mutexMedianNs = h.percentile(50);
        m_mutexOverlapNs = snap->mediumRanWhileHighWaitedNs;

        // The timeline from the threads' own clocks: within one of high's waits the medium thread ran for most of
        // a burst (possibly split where something else took the CPU).
        int64_t mostMediumInOneWait = 0;
        for (const TimelineSegment& w : snap->timeline) {
            if (w.lane != InversionLane::High || w.state != SegmentState::WaitingForLock)
                continue;
            int64_t inside = 0;
            for (const TimelineSegment& m : snap->timeline)
                if (m.lane == InversionLane::Medium)
                    inside += std::max<int64_t>(0, std::min(m.endNs, w.endNs) - std::max(m.startNs, w.startNs));
            mostMediumInOneWait = std::max(mostMediumInOneWait, inside);
        }
        QVERIFY2(mostMediumInOneWait >= kBurstNs / 2, qPrintable(QString::number(mostMediumInOneWait / 1e6)));
        for (const TimelineSegment& s : snap->timeline)
            QVERIFY(s.endNs >= s.startNs);
    }

    void inheritanceAndCeilingBoundTheWait_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("pi") << int(LockKind::Pi);
        QTest::newRow("ceiling") << int(LockKind::Ceiling);
    }
    void inheritanceAndCeilingBoundTheWait()
    {
        QFETCH(int, kind);
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        InversionExperiment exp;
        QVERIFY(!exp.start(quick(LockKind(kind)), CpuTopology::current()));
        auto snap = runExperimentToEnd(exp, 20000);
        QVERIFY(snap && snap->finished);
        QVERIFY2(snap->error.empty(), snap->error.c_str());
        QCOMPARE(threadsAlive(), 0);
        QVERIFY(snap->highPeriods >= 5);
        QCOMPARE(snap->ringDrops, uint64_t(0));
        const Histogram& h = snap->highWait;
        qInfo("%s: %llu periods (%llu contended), wait p50 %.2f ms p99 %.2f ms max %.2f ms, medium ran %.2f ms while "
              "high waited",
              lockKindName(LockKind(kind)), (unsigned long long)snap->highPeriods,
              (unsigned long long)snap->highContended, h.percentile(50) / 1e6, h.percentile(99) / 1e6, h.max() / 1e6,
              snap->mediumRanWhileHighWaitedNs / 1e6);
        // Near the critical section: high waits for at most the rest of low's section, never for the burst.
        QVERIFY2(h.percentile(50) <= kHoldNs + kBurstNs / 10,
                 qPrintable(QString("median wait %1 ms").arg(h.percentile(50) / 1e6)));
        if (m_mutexMedianNs > 0) {
            QVERIFY(h.percentile(50) * 4 < m_mutexMedianNs);
            QVERIFY(snap->mediumRanWhileHighWaitedNs * 10 < m_mutexOverlapNs);
        }
        if (LockKind(kind) == LockKind::Pi)
            QVERIFY2(snap->highContended >= snap->highPeriods / 2, "high should usually find low holding the lock");
    }

    void stopIsPromptAndLeavesNothingRunning()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        InversionExperiment exp;
        InversionConfig c = quick(LockKind::Mutex);
        c.durationNs = 20'000'000'000;
        c.mediumBurstNs = 500'000'000; // stop lands inside a long burst
        c.periodNs = 1'000'000'000;
        QVERIFY(exp.busyCpus().empty());
        QVERIFY(!exp.start(c, CpuTopology::current()));
        // The three threads' one CPU; the watchdog's CPU is not loaded.
        QCOMPARE(exp.busyCpus(), std::vector<int>{c.resolvedCpu(CpuTopology::current())});
        QTest::qWait(200);
        rtscope::test::stopExperimentWithin100ms(exp);
        QVERIFY(exp.busyCpus().empty());
        auto snap = exp.snapshot();
        QVERIFY(!snap->running);
        QVERIFY(snap->mediumBursts >= 1);
        QVERIFY(snap->watchdogTrips.empty());
    }

    void reportsCarryTheFigures()
    {
        RTSCOPE_SKIP_IF(missingFifoOrCpus());
        InversionExperiment exp;
        exp.setTimelineWindow(0);
        InversionConfig c = quick(LockKind::Pi);
        c.durationNs = 200'000'000;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        auto snap = runExperimentToEnd(exp, 20000);
        const nlohmann::json j = inversionReportJson(*snap);
        QCOMPARE(j["experiment"].get<std::string>(), std::string("inversion"));
        QCOMPARE(j["high"]["periods"].get<uint64_t>(), snap->highPeriods);
        QCOMPARE(j["periods"].size(), size_t(snap->highPeriods));
        QCOMPARE(j["timeline"].size(), snap->timeline.size());
        QVERIFY(j.contains("medium_ran_while_high_waited_ns"));
        const QString csv = QString::fromStdString(inversionTimelineCsv(*snap));
        QVERIFY(csv.startsWith("lane,state,start_s,end_s,duration_us\n"));
        QCOMPARE(csv.count('\n'), int(snap->timeline.size()) + 1);
        QVERIFY(csv.contains("\nmedium,running,"));
        QVERIFY(csv.contains("\nhigh,waiting,"));
        QVERIFY(csv.contains("\nlow,holding,"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestInversionExperiment)
#include "tst_inversion_experiment.moc"
