// The watchdog on its own: it demotes a real-time thread that stays armed past its deadline by more than the
// margin (a sleeping one and a real spinner), leaves a thread that disarmed in time alone, never demotes itself,
// and demotes whatever is still armed when it stops. Spinners run on CPU 1 only, bounded to a few hundred ms.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/watchdog.h"
#include "engine/util/clock.h"

#include "tests/common/data_rows.h"
#include "tests/common/experiment_run.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>

#include <atomic>
#include <ctime>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

using namespace rtscope;

namespace {

constexpr int kWatchdogCpu = 0;
constexpr int kWatchdogSpinnerCpu = 1;
constexpr int64_t kMarginNs = 50 * kNsPerMs;
constexpr int64_t kPollNs = 5 * kNsPerMs;
// Allowed lateness of a demotion beyond margin + poll: the watchdog is SCHED_FIFO 99 on an otherwise
// SCHED_OTHER CPU, but this is a shared 2-CPU VM.
constexpr int64_t kSlackNs = 45 * kNsPerMs;

WatchdogConfig watchdogConfig()
{
    WatchdogConfig c;
    c.cpu = kWatchdogCpu;
    c.priority = 99;
    c.marginNs = kMarginNs;
    c.pollNs = kPollNs;
    return c;
}

ThreadSpec fifoOnSpinnerCpu(const char* name)
{
    ThreadSpec s;
    s.policy = Policy::Fifo;
    s.priority = 10;
    s.cpu = kWatchdogSpinnerCpu;
    s.name = name;
    return s;
}

// Starts @p w with @p config, and @p sleeper (a SCHED_FIFO thread on the spinner CPU that sleeps until stopped)
// bound to a new slot of @p w, returned in @p slot.
void startWatchedSleeper(Watchdog& w, const WatchdogConfig& config, RtThread& sleeper, int& slot)
{
    QVERIFY(!w.start(config));
    slot = w.addSlot();
    QVERIFY(!sleeper.start(fifoOnSpinnerCpu("wd-sleeper"), test::sleepUntilStopped));
    w.bindThread(slot, sleeper.tid());
}

} // namespace

class TestWatchdog : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    rtscope::test::MaybeSkip m_missing; ///< why the real-time tests cannot run here

private slots:
    void initTestCase()
    {
        // The test thread polls while CPU 1 may be starved: it lives on CPU 0 with the watchdog.
        m_missing = rtscope::test::setUpPinnedExperimentTest(
            m_probe, CpuTopology::current(), "the watchdog on one, the watched thread on the other", kWatchdogCpu);
    }

    void validateNamesTheField_data()
    {
        test::addColumns<int, int, qint64, qint64, QString>("cpu", "priority", "margin", "poll", "expected");
        QTest::newRow("cpu") << 4096 << 99 << qint64(kMarginNs) << qint64(kPollNs)
                             << "watchdog cpu must be one of the online CPUs";
        QTest::newRow("priority 0") << 0 << 0 << qint64(kMarginNs) << qint64(kPollNs)
                                    << "watchdog priority must be between 1 and 99";
        QTest::newRow("priority 100") << 0 << 100 << qint64(kMarginNs) << qint64(kPollNs)
                                      << "watchdog priority must be between 1 and 99 (got 100)";
        QTest::newRow("margin") << 0 << 99 << qint64(0) << qint64(kPollNs)
                                << "watchdog margin must be between 1.00 ms and 10.000 s (got 0 ns)";
        QTest::newRow("poll") << 0 << 99 << qint64(kMarginNs) << qint64(1'000'000'000)
                              << "watchdog poll must be between 100.0 us and 100.00 ms (got 1.000 s)";
    }
    void validateNamesTheField()
    {
        QFETCH(int, cpu);
        QFETCH(int, priority);
        QFETCH(qint64, margin);
        QFETCH(qint64, poll);
        QFETCH(QString, expected);
        const WatchdogConfig c{.cpu = cpu, .priority = priority, .marginNs = margin, .pollNs = poll};
        CpuTopology t;
        t.online = {0, 1};
        t.allowed = {0, 1};
        const auto problems = c.validate(t);
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY2(QString::fromStdString(problems.front()).startsWith(expected), problems.front().c_str());
        Watchdog w;
        const Error e = w.start(c);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY(!w.running());
    }

    void slotsAreBounded()
    {
        Watchdog w;
        for (int i = 0; i < Watchdog::kMaxSlots; ++i)
            QCOMPARE(w.addSlot(), i);
        QCOMPARE(w.addSlot(), -1);
    }

    // The cheap proof: a FIFO thread that sleeps while armed is demoted just like a spinner, without starving
    // anything.
    void demotesAThreadArmedPastItsMargin()
    {
        RTSCOPE_SKIP_IF(m_missing);
        Watchdog w;
        RtThread sleeper;
        int slot = -1;
        startWatchedSleeper(w, watchdogConfig(), sleeper, slot);
        QCOMPARE(int(schedulingOf(w.tid()).policy), int(Policy::Fifo));
        const int64_t deadline = nowNs() + 20 * kNsPerMs;
        w.arm(slot, deadline);
        QTRY_COMPARE_WITH_TIMEOUT(w.tripCount(slot), 1u, 2000);
        const auto trips = w.trips();
        QCOMPARE(trips.size(), size_t(1));
        QVERIFY(trips[0].demoted);
        QVERIFY(!trips[0].atStop);
        QCOMPARE(trips[0].tid, sleeper.tid());
        QCOMPARE(trips[0].deadlineNs, deadline);
        QVERIFY2(trips[0].overrunNs() > kMarginNs, qPrintable(QString::number(trips[0].overrunNs())));
        QVERIFY2(trips[0].overrunNs() <= kMarginNs + kPollNs + kSlackNs,
                 qPrintable(QString::number(trips[0].overrunNs())));
        QCOMPARE(int(schedulingOf(sleeper.tid()).policy), int(Policy::Other));
        // A trip is recorded once: the deadline it claimed is gone.
        QTest::qWait(3 * int(kPollNs / kNsPerMs));
        QCOMPARE(w.tripCount(slot), 1u);
        QCOMPARE(w.trips().size(), size_t(1));
        sleeper.stop();
        w.stop();
    }

    void leavesAThreadThatDisarmedInTime()
    {
        RTSCOPE_SKIP_IF(m_missing);
        Watchdog w;
        RtThread sleeper;
        int slot = -1;
        startWatchedSleeper(w, watchdogConfig(), sleeper, slot);
        for (int i = 0; i < 5; ++i) {
            // Overrunning by less than the margin is allowed.
            w.arm(slot, nowNs() - kMarginNs / 2);
            QTest::qWait(int(2 * kPollNs / kNsPerMs));
            w.disarm(slot);
        }
        QTest::qWait(int((kMarginNs + 2 * kPollNs) / kNsPerMs));
        QCOMPARE(w.tripCount(slot), 0u);
        QVERIFY(w.trips().empty());
        const SchedState s = schedulingOf(sleeper.tid());
        QCOMPARE(int(s.policy), int(Policy::Fifo));
        QCOMPARE(s.priority, 10);
        sleeper.stop();
    }

    // The real thing: a SCHED_FIFO spinner that ignores its deadline starves CPU 1 until the watchdog demotes
    // it; from then on a SCHED_OTHER counter on CPU 1 shares the CPU although the spinner keeps spinning.
    void demotesASpinnerThatIgnoresItsDeadline_data()
    {
        test::addRows<bool>("cpuTime", {{"wall-clock overrun", false}, {"cpu-time overrun", true}});
    }
    void demotesASpinnerThatIgnoresItsDeadline()
    {
        QFETCH(bool, cpuTime);
        RTSCOPE_SKIP_IF(m_missing);
        Watchdog w;
        WatchdogConfig config = watchdogConfig();
        config.cpuTimeOverrun = cpuTime;
        QVERIFY(!w.start(config));
        const int slot = w.addSlot();

        std::atomic<uint64_t> counted{0};
        RtThread counter;
        ThreadSpec cs;
        cs.cpu = kWatchdogSpinnerCpu;
        cs.name = "wd-counter";
        QVERIFY(!counter.start(cs, [&counted](const std::atomic<bool>& stop) {
            uint64_t n = 0;
            while (!stop.load(std::memory_order_relaxed))
                counted.store(++n, std::memory_order_relaxed);
        }));

        std::atomic<uint64_t> atArm{0}, atDeadline{0}, atEnd{0};
        std::atomic<int64_t> deadlineNs{0};
        RtThread spinner;
        QVERIFY(!spinner.start(fifoOnSpinnerCpu("wd-spinner"), [&](const std::atomic<bool>& stop) {
            w.bindThread(slot, gettid());
            const int64_t start = nowNs();
            const int64_t deadline = start + 100 * kNsPerMs;
            deadlineNs.store(deadline);
            atArm.store(counted.load());
            w.arm(slot, deadline);
            // Ignores the deadline on purpose, but stays bounded: 400 ms at most.
            bool passed = false;
            while (!stop.load(std::memory_order_relaxed) && nowNs() < start + 400 * kNsPerMs) {
                if (!passed && nowNs() >= deadline) {
                    passed = true;
                    atDeadline.store(counted.load());
                }
            }
            atEnd.store(counted.load());
        }));
        QTRY_VERIFY_WITH_TIMEOUT(!spinner.running(), 3000);
        spinner.stop();
        counter.stop();
        w.stop();

        const auto trips = w.trips();
        QCOMPARE(trips.size(), size_t(1));
        QVERIFY(trips[0].demoted);
        QCOMPARE(trips[0].deadlineNs, deadlineNs.load());
        QVERIFY2(trips[0].overrunNs() > kMarginNs && trips[0].overrunNs() <= kMarginNs + kPollNs + kSlackNs,
                 qPrintable(QString("overrun %1 ms").arg(double(trips[0].overrunNs()) / 1e6)));
        qInfo("demoted %.1f ms past the deadline", double(trips[0].overrunNs()) / 1e6);
        if (cpuTime)
            QVERIFY2(trips[0].ranPastDeadlineNs > kMarginNs &&
                         trips[0].ranPastDeadlineNs <= trips[0].overrunNs() + kPollNs,
                     qPrintable(QString::number(trips[0].ranPastDeadlineNs)));
        else
            QCOMPARE(trips[0].ranPastDeadlineNs, int64_t(-1));
        // Starved while FIFO (100 ms, far from any throttling window), sharing the CPU once demoted.
        QCOMPARE(atDeadline.load(), atArm.load());
        QVERIFY2(atEnd.load() > atDeadline.load(), "the counter must run once the spinner is SCHED_OTHER");
    }

    // With cpuTimeOverrun, a thread that is late but has not run since its deadline (the kernel kept it off the
    // CPU, as RT throttling or the fair server do for ~50 ms) is not demoted, however late it is.
    void cpuTimeModeSparesAThreadThatDidNotRun()
    {
        RTSCOPE_SKIP_IF(m_missing);
        Watchdog w;
        WatchdogConfig config = watchdogConfig();
        config.cpuTimeOverrun = true;
        RtThread sleeper;
        int slot = -1;
        startWatchedSleeper(w, config, sleeper, slot);
        w.arm(slot, nowNs() - 10 * kNsPerMs);
        QTest::qWait(int((2 * kMarginNs + 4 * kPollNs) / kNsPerMs));
        QCOMPARE(w.tripCount(slot), 0u);
        QCOMPARE(int(schedulingOf(sleeper.tid()).policy), int(Policy::Fifo));
        w.disarm(slot);
        sleeper.stop();
    }

    void stopDemotesWhatIsStillArmed()
    {
        RTSCOPE_SKIP_IF(m_missing);
        Watchdog w;
        RtThread sleeper;
        int slot = -1;
        startWatchedSleeper(w, watchdogConfig(), sleeper, slot);
        w.arm(slot, nowNs() + 10 * kNsPerSec);
        const int64_t t0 = nowNs();
        w.stop();
        QVERIFY2(nowNs() - t0 < 100 * kNsPerMs, "the watchdog must stop within 100 ms");
        QVERIFY(!w.running());
        const auto trips = w.trips();
        QCOMPARE(trips.size(), size_t(1));
        QVERIFY(trips[0].atStop);
        QVERIFY(trips[0].demoted);
        QCOMPARE(int(schedulingOf(sleeper.tid()).policy), int(Policy::Other));
        sleeper.stop();
    }

    // An armed slot without a thread must never make the watchdog demote the caller of sched_setscheduler(0):
    // itself.
    void neverDemotesItself()
    {
        RTSCOPE_SKIP_IF(m_missing);
        Watchdog w;
        QVERIFY(!w.start(watchdogConfig()));
        const int slot = w.addSlot();
        w.arm(slot, nowNs() - kNsPerSec);
        QTRY_COMPARE_WITH_TIMEOUT(w.tripCount(slot), 1u, 2000);
        QVERIFY(!w.trips().front().demoted);
        const SchedState s = schedulingOf(w.tid());
        QCOMPARE(int(s.policy), int(Policy::Fifo));
        QCOMPARE(s.priority, 99);
        w.stop();
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestWatchdog)
#include "tst_watchdog.moc"
