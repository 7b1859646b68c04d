// The noise lab's demo load (engine/experiments/noise/noise_demo_load.h): each kind starts one thread, pinned to the
// CPU asked with the policy asked, does its bounded work, stops and is joined within the 100 ms budget, and leaves no
// file behind; bad settings are refused with a sentence naming the field.
#include "engine/experiments/noise/noise_demo_load.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <sched.h>
#include <thread>

using namespace rtscope;

namespace {

/// Runs @p load until it has done @p rounds rounds (or 3 s passed), then stops it; returns the stop's time in ms.
double runUntilRounds(NoiseDemoLoad& load, uint64_t rounds)
{
    const int64_t deadline = nowNs() + 3 * kNsPerSec;
    while (load.rounds() < rounds && nowNs() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int64_t t0 = nowNs();
    const bool inTime = load.stop();
    const double ms = double(nowNs() - t0) / 1e6;
    if (!inTime)
        qWarning("stop overstayed the join budget: %.1f ms", ms);
    return ms;
}

} // namespace

class TestNoiseDemoLoad : public QObject {
    Q_OBJECT

private slots:
    void refusesBadSettingsWithASentence()
    {
        NoiseDemoConfig c;
        c.kind = NoiseDemoKind::RtThread;
        c.cpu = 0;
        c.spinNs = 5 * kNsPerMs; // 25 % of 20 ms: more than the 10 % a demo may take
        const auto errors = c.validate();
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY2(QString::fromStdString(errors[0]).contains("spin must be more than 0 and at most 10 %"),
                 errors[0].c_str());
        NoiseDemoLoad load;
        const Error e = load.start(c);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY(!load.running());

        c.kind = NoiseDemoKind::TimerStorm;
        c.timers = 0;
        QVERIFY(QString::fromStdString(joinErrors(c.validate())).contains("timers must be 1..256, got 0"));
        c.kind = NoiseDemoKind::DiskIo;
        c.cpu = -1;
        QVERIFY(QString::fromStdString(joinErrors(c.validate())).contains("cpu must be the measured CPU"));
    }

    void namesRoundTrip()
    {
        for (NoiseDemoKind k : kNoiseDemoKinds) {
            bool ok = false;
            QCOMPARE(noiseDemoKindFromName(noiseDemoKindName(k), &ok), k);
            QVERIFY(ok);
        }
        bool ok = true;
        QCOMPARE(noiseDemoKindFromName("fork-bomb", &ok), NoiseDemoKind::None);
        QVERIFY(!ok);
    }

    void rtThreadIsFifoOnTheCpuAndStopsInTime()
    {
        const int cpu = CpuTopology::current().lastUsable();
        NoiseDemoConfig c;
        c.kind = NoiseDemoKind::RtThread;
        c.cpu = cpu;
        c.rtPriority = 50;
        NoiseDemoLoad load;
        const Error e = load.start(c);
        if (e.kind == ErrorKind::Permission)
            RTSCOPE_SKIP(RtPrivilege, e.message);
        QVERIFY2(!e, e.message.c_str());
        QVERIFY(load.running());
        QVERIFY(load.tid() > 0);
        const SchedState s = schedulingOf(load.tid());
        QCOMPARE(s.policy, Policy::Fifo);
        QCOMPARE(s.priority, 50);
        QCOMPARE(test::threadCpus(load.tid()), std::vector<int>{cpu});
        QVERIFY(QString::fromStdString(c.describe()).contains("1.5 % of the CPU"));
        const double ms = runUntilRounds(load, 5); // five bursts: 100 ms
        QVERIFY2(load.rounds() >= 5, qPrintable(QString::fromStdString(load.status())));
        QVERIFY2(ms < kJoinBudgetMs, qPrintable(QString::number(ms)));
        QVERIFY(!load.running());
        const QString status = QString::fromStdString(load.status());
        QVERIFY2(status.contains(QString::fromStdString("bursts of " + formatDuration(300'000) +
                                                        " (SCHED_FIFO 50) on CPU " + std::to_string(cpu))),
                 qPrintable(status));
    }

    void diskIoWritesFromTheCpuAndLeavesNoFile()
    {
        const int cpu = CpuTopology::current().lastUsable();
        QTemporaryDir dir(QDir::currentPath() + "/noise-demo-XXXXXX"); // the build tree: on a disk, not tmpfs
        QVERIFY(dir.isValid());
        NoiseDemoConfig c;
        c.kind = NoiseDemoKind::DiskIo;
        c.cpu = cpu;
        c.directory = dir.path().toStdString();
        NoiseDemoLoad load;
        const Error e = load.start(c);
        QVERIFY2(!e, e.message.c_str());
        const SchedState s = schedulingOf(load.tid());
        QCOMPARE(s.policy, Policy::Other);
        QCOMPARE(test::threadCpus(load.tid()), std::vector<int>{cpu});
        QVERIFY(QString::fromStdString(load.tempPath()).startsWith(dir.path() + "/rtscope-noise-demo-"));
        // The file is unlinked as soon as it is open: nothing is in the directory even while the load runs.
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
        const double ms = runUntilRounds(load, 20);
        QVERIFY2(load.rounds() >= 20, qPrintable(QString::fromStdString(load.status())));
        QVERIFY2(ms < kJoinBudgetMs, qPrintable(QString::number(ms)));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
        const QString irqs = QString::fromStdString(load.interruptReport());
        qInfo("%s", qPrintable(irqs));
        QVERIFY2(irqs.startsWith("disk interrupts"), qPrintable(irqs));
    }

    void timerStormFiresOnTheCpuAndStopsInTime()
    {
        const int cpu = CpuTopology::current().lastUsable();
        NoiseDemoConfig c;
        c.kind = NoiseDemoKind::TimerStorm;
        c.cpu = cpu;
        NoiseDemoLoad load;
        const Error e = load.start(c);
        QVERIFY2(!e, e.message.c_str());
        QCOMPARE(test::threadCpus(load.tid()), std::vector<int>{cpu});
        const double ms = runUntilRounds(load, 1000); // 8 timers at 2 ms: a quarter of a second
        QVERIFY2(load.rounds() >= 1000, qPrintable(QString::fromStdString(load.status())));
        QVERIFY2(ms < kJoinBudgetMs, qPrintable(QString::number(ms)));
    }

    void destructorStopsARunningLoad()
    {
        const int cpu = CpuTopology::current().lastUsable();
        NoiseDemoConfig c;
        c.kind = NoiseDemoKind::TimerStorm;
        c.cpu = cpu;
        int tid = 0;
        const int64_t t0 = nowNs();
        {
            NoiseDemoLoad load;
            QVERIFY(!load.start(c));
            tid = load.tid();
            QVERIFY(tid > 0);
        }
        QVERIFY(double(nowNs() - t0) / 1e6 < 50 + kJoinBudgetMs);
        QVERIFY(test::exiting(QString("/proc/self/task/%1").arg(tid))); // joined: gone, or past its last instruction
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestNoiseDemoLoad)
#include "tst_noise_demo_load.moc"
