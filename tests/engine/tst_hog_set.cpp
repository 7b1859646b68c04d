// HogSet (engine/rt/hog_set.h), the latency experiment's CPU hogs: as many on each CPU as asked, started in time
// linear in their number (not one slice round per hog), a start-up that a stop request ends at the next hog, and
// the latency experiment's start that gives up when its interrupt says so (issue 27, item 5).
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/rt/caller_affinity.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/hog_set.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <vector>

using namespace rtscope;

namespace {

// The CPU the hogs go on: the highest usable one, with another left for the thread that starts them.
int hogCpuOrSkip(test::MaybeSkip& skip)
{
    const std::vector<int> cpus = callerCpus();
    if (cpus.size() < 2) {
        skip = test::Skip(test::SkipKind::Cpus, "needs two usable CPUs: one for the hogs, one for their starter");
        return -1;
    }
    return cpus.back();
}

// The fastest of @p rounds start-ups of @p n hogs on @p cpu, in ms: the least disturbed by whatever else runs.
double fastestStartMs(int cpu, int n, int rounds)
{
    double best = 1e18;
    for (int r = 0; r < rounds; ++r) {
        HogSet hogs(n);
        hogs.place({{cpu}, Policy::Other, 0, "tst-hog"});
        const int64_t t0 = nowNs();
        const Error e = hogs.setPerCpu(n);
        const double ms = double(nowNs() - t0) / 1e6;
        if (e)
            return -1;
        best = std::min(best, ms);
    }
    return best;
}

} // namespace

class TestHogSet : public QObject {
    Q_OBJECT

private slots:
    void startsTheSameNumberOnEveryCpuAndStopsThem()
    {
        const std::vector<int> cpus = callerCpus();
        HogSet hogs(64);
        hogs.place({cpus, Policy::Other, 0, "tst-hog"});
        const Error e = hogs.setPerCpu(3);
        QVERIFY2(!e, e.message.c_str());
        QCOMPARE(hogs.threadCount(), 3 * cpus.size());
        QCOMPARE(hogs.perCpu(), 3);
        QVERIFY(!hogs.setPerCpu(1));
        QCOMPARE(hogs.threadCount(), cpus.size());
        hogs.stopAll();
        QCOMPARE(hogs.threadCount(), size_t(0));
    }

    // Hogs are launched, not waited for: a real-time thread is refused (it must be start()ed and checked).
    void launchRefusesRealTimeThreads()
    {
        RtThread t;
        ThreadSpec spec;
        spec.policy = Policy::Fifo;
        spec.priority = 1;
        spec.cpu = callerCpus().front();
        spec.name = "tst-launch";
        const Error e = t.launch(spec, [](const std::atomic<bool>&) {});
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY2(e.message.find("start()") != std::string::npos, e.message.c_str());
    }

    // A stop request during the start-up: asked before every hog, it ends the start-up at the next one, says how
    // many had started, and those are joined within the stop budget.
    void anInterruptEndsTheStartAtTheNextHog()
    {
        test::MaybeSkip skip;
        const int cpu = hogCpuOrSkip(skip);
        RTSCOPE_SKIP_IF(skip);
        HogSet hogs(256);
        hogs.place({{cpu}, Policy::Other, 0, "tst-hog"});
        int asked = 0;
        const Error e = hogs.setPerCpu(256, [&asked] { return ++asked > 40; });
        QCOMPARE(e.kind, ErrorKind::Interrupted);
        QCOMPARE(asked, 41);
        QCOMPARE(hogs.threadCount(), size_t(40));
        QVERIFY2(e.message.find("40 of 256") != std::string::npos, e.message.c_str());
        const int64_t t0 = nowNs();
        hogs.stopAll();
        const double stopMs = double(nowNs() - t0) / 1e6;
        qInfo("40 hogs on one CPU joined in %.1f ms", stopMs);
        QCOMPARE(hogs.threadCount(), size_t(0));
        QVERIFY2(stopMs < 10 * kJoinBudgetMs, qPrintable(QString::number(stopMs))); // generous: a shared machine
    }

    // Start-up time grows linearly with the number of hogs on one CPU: 4× the hogs take about 4× the time (starting
    // them one turn at a time took 16× — each new hog waited a slice per spinner already there). The fastest of a
    // few rounds is compared, the least disturbed by other work on this machine; the bound sits between the two.
    void startUpGrowsLinearly()
    {
        test::MaybeSkip skip;
        const int cpu = hogCpuOrSkip(skip);
        RTSCOPE_SKIP_IF(skip);
        const double small = fastestStartMs(cpu, 32, 5);
        const double large = fastestStartMs(cpu, 128, 5);
        QVERIFY(small > 0 && large > 0);
        const double ratio = large / small;
        qInfo("start-up, fastest of 5: 32 hogs %.2f ms, 128 hogs %.2f ms, ratio %.1f (linear 4, quadratic 16)", small,
              large, ratio);
        QVERIFY2(ratio < 8, qPrintable(QString("ratio %1").arg(ratio)));
    }

    // The latency experiment asks its start interrupt between its steps and before every hog: a true answer ends
    // start() with Interrupted, and nothing is left running.
    void anInterruptedLatencyStartLeavesNothingRunning()
    {
        test::MaybeSkip skip;
        const int cpu = hogCpuOrSkip(skip);
        RTSCOPE_SKIP_IF(skip);
        LatencyConfig c;
        c.cpu = cpu;
        c.hogs = LatencyConfig::kMaxHogs;
        c.durationNs = 10 * kNsPerSec;
        LatencyExperiment exp;
        std::atomic<int> asked{0};
        int64_t interruptedNs = 0;
        exp.setStartInterrupt([&] {
            if (++asked <= 100)
                return false;
            if (!interruptedNs)
                interruptedNs = nowNs();
            return true;
        });
        const Error e = exp.start(c, CpuTopology::current());
        const double ms = double(nowNs() - interruptedNs) / 1e6;
        QCOMPARE(e.kind, ErrorKind::Interrupted);
        QVERIFY(!exp.running());
        qInfo("start() returned %.1f ms after its interrupt said stop", ms);
        QVERIFY2(ms < 10 * kJoinBudgetMs, qPrintable(QString::number(ms))); // generous: a shared machine
        // The next start, not interrupted, runs.
        exp.setStartInterrupt({});
        c.hogs = 2;
        c.durationNs = 50 * kNsPerMs;
        const Error again = exp.start(c, CpuTopology::current());
        QVERIFY2(!again, again.message.c_str());
        exp.stop();
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestHogSet)
#include "tst_hog_set.moc"
