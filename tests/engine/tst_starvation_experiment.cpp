// The starvation lab end to end: real SCHED_FIFO bursts on CPU 1, never more than one spinner at a time, 300 ms
// bursts except one 1.5 s throttling run. Asserts the shapes docs/experiments/starvation.md promises (zero progress
// during a burst, normal progress after it, a short window in a long burst) and the safety without which a FIFO spinner
// could hang the machine (refusals, the watchdog catching a spinner that ignores its deadline, stop and exceptions
// joining within 100 ms, CPU 0 responsive throughout), never absolute rates.
#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/export/starvation_report.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/experiment_run.h"
#include "tests/common/thread_census.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QDir>
#include <QFile>

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <sched.h>
#include <stdexcept>
#include <thread>

using namespace rtscope;

namespace {

constexpr int kControllerCpu = 0;
constexpr int kSpinnerCpu = 1;

StarvationConfig shortRun()
{
    StarvationConfig c;
    c.burstNs = 300 * kNsPerMs;
    c.gapNs = 200 * kNsPerMs;
    c.bursts = 1;
    c.cpu = kSpinnerCpu;
    c.reservedCpus = {kControllerCpu};
    return c;
}

// Waits until the published snapshot shows the spinner inside a burst.
bool waitForBurst(StarvationExperiment& exp, int timeoutMs = 3000)
{
    const int64_t end = nowNs() + int64_t(timeoutMs) * kNsPerMs;
    while (nowNs() < end) {
        auto s = exp.snapshot();
        if (s && s->spinningBurst())
            return true;
        QTest::qWait(5);
    }
    return false;
}

} // namespace

class TestStarvationExperiment : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    rtscope::test::MaybeSkip m_missing; ///< why the real-time tests cannot run here

private slots:
    void initTestCase()
    {
        // This thread is the controller: it must keep running while CPU 1 is starved.
        m_missing = rtscope::test::setUpPinnedExperimentTest(m_probe, StarvationConfig::placementTopology(),
                                                             "the spinner on 1, the controller on 0", kControllerCpu);
    }

    void windowsFromRunSegments_data()
    {
        QTest::addColumn<QList<qint64>>("segments"); // start, end pairs in ms, relative to the burst start
        QTest::addColumn<QList<qint64>>("expected"); // start, end pairs in ms
        QTest::newRow("nothing") << QList<qint64>{} << QList<qint64>{};
        QTest::newRow("work before the burst") << QList<qint64>{-50, -1} << QList<qint64>{};
        QTest::newRow("ends exactly at the start") << QList<qint64>{-50, 0} << QList<qint64>{};
        QTest::newRow("starts after the end") << QList<qint64>{1500, 1600} << QList<qint64>{};
        QTest::newRow("one window") << QList<qint64>{950, 1000} << QList<qint64>{950, 1000};
        QTest::newRow("a single clock read") << QList<qint64>{950, 950} << QList<qint64>{950, 950};
        QTest::newRow("turns inside a window merge")
            << QList<qint64>{950, 960, 965, 980, 990, 1000} << QList<qint64>{950, 1000};
        QTest::newRow("unsorted, overlapping") << QList<qint64>{990, 1000, 950, 995} << QList<qint64>{950, 1000};
        QTest::newRow("two windows a period apart")
            << QList<qint64>{200, 250, 1200, 1250} << QList<qint64>{200, 250, 1200, 1250};
        QTest::newRow("clipped at both edges")
            << QList<qint64>{-100, 20, 1480, 1700} << QList<qint64>{0, 20, 1480, 1500};
    }
    void windowsFromRunSegments()
    {
        QFETCH(QList<qint64>, segments);
        QFETCH(QList<qint64>, expected);
        const int64_t base = 1'000'000 * kNsPerSec;
        std::vector<RunSegment> in;
        for (qsizetype i = 0; i + 1 < segments.size(); i += 2)
            in.push_back({base + segments[i] * kNsPerMs, base + segments[i + 1] * kNsPerMs});
        const auto windows =
            findThrottleWindows(base, base + 1500 * kNsPerMs, in, StarvationExperiment::kWindowMergeNs);
        QCOMPARE(qsizetype(windows.size()), expected.size() / 2);
        for (size_t i = 0; i < windows.size(); ++i) {
            QCOMPARE(windows[i].offsetNs, expected[qsizetype(2 * i)] * kNsPerMs);
            QCOMPARE(windows[i].lengthNs(), (expected[qsizetype(2 * i + 1)] - expected[qsizetype(2 * i)]) * kNsPerMs);
            QCOMPARE(windows[i].spacingNs, i ? windows[i].startNs - windows[i - 1].startNs : 0);
        }
    }

    void validateRefusesUnsafeAndOutOfRange_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("expected");
        // field: which change to make to a valid config (see the switch below)
        QTest::newRow("spinner on the reserved CPU") << 0 << "cpu must not be a reserved CPU (0: the controller";
        QTest::newRow("only one online CPU") << 1 << "cpu: this machine has only one online CPU (0)";
        QTest::newRow("every allowed CPU") << 2 << "cpu: this process may only use CPU 1; a spinner there would take";
        QTest::newRow("everything reserved") << 3 << "cpu: every CPU this process may use (0-1) is reserved";
        QTest::newRow("burst over the hard limit") << 4 << "burst must be between 10.00 ms and 5.000 s (got 6.000 s)";
        QTest::newRow("burst too short") << 5 << "burst must be between 10.00 ms and 5.000 s (got 5.00 ms)";
        QTest::newRow("priority 99") << 6 << "priority must be between 1 and 98 (got 99): the watchdog runs above";
        QTest::newRow("policy other") << 7 << "policy must be fifo or rr (got other)";
        QTest::newRow("no counters") << 8 << "counters must be between 1 and 8 (got 0)";
        QTest::newRow("nine counters") << 9 << "counters must be between 1 and 8 (got 9)";
        QTest::newRow("gap") << 10 << "gap must be between 10.00 ms and 60.000 s (got 0 ns)";
        QTest::newRow("sampler above the spinner") << 11 << "sampler-priority must be between 0 (SCHED_OTHER) and 79";
        QTest::newRow("control on the spinner CPU") << 12 << "control-cpu must be a usable CPU other than the spinner";
        QTest::newRow("offline cpu") << 13 << "cpu must be one of the online CPUs this process may use (0-1); got 7";
        QTest::newRow("bursts") << 14 << "bursts must be between 1 and 1000, or 0 to repeat until stopped (got -1)";
        QTest::newRow("nice") << 15 << "counter-nice must be between -20 and 19 (got 20)";
        QTest::newRow("reserved cpu number") << 16 << "reserved-cpus entries must be between 0 and 1023 (got -1)";
    }
    void validateRefusesUnsafeAndOutOfRange()
    {
        QFETCH(int, field);
        QFETCH(QString, expected);
        StarvationConfig c = shortRun();
        CpuTopology t = rtscope::test::twoCpuTopology();
        QVERIFY(c.validate(t).empty());
        switch (field) {
        case 0:
            c.cpu = 0;
            break;
        case 1:
            t.online = {0};
            t.allowed = {0};
            c.cpu = -1;
            break;
        case 2:
            t.allowed = {1};
            c.cpu = -1;
            break;
        case 3:
            c.reservedCpus = {0, 1};
            c.cpu = -1;
            break;
        case 4:
            c.burstNs = 6 * kNsPerSec;
            break;
        case 5:
            c.burstNs = 5 * kNsPerMs;
            break;
        case 6:
            c.priority = 99;
            break;
        case 7:
            c.policy = Policy::Other;
            c.priority = 80;
            break;
        case 8:
            c.counters = 0;
            break;
        case 9:
            c.counters = 9;
            break;
        case 10:
            c.gapNs = 0;
            break;
        case 11:
            c.samplerPriority = 80;
            break;
        case 12:
            c.controlCounter = true;
            c.controlCpu = 1;
            break;
        case 13:
            c.cpu = 7;
            break;
        case 14:
            c.bursts = -1;
            break;
        case 15:
            c.counterNice = 20;
            break;
        case 16:
            c.reservedCpus = {0, -1};
            break;
        }
        const auto problems = c.validate(t);
        QVERIFY(!problems.empty());
        QStringList all;
        for (const auto& p : problems)
            all << QString::fromStdString(p);
        QVERIFY2(std::any_of(all.begin(), all.end(), [&](const QString& p) { return p.startsWith(expected); }),
                 qPrintable(all.join(" | ")));
    }

    void placementDefaults()
    {
        StarvationConfig c;
        c.reservedCpus = {0};
        CpuTopology t = rtscope::test::twoCpuTopology();
        QCOMPARE(c.resolvedCpu(t), 1);
        QCOMPARE(c.resolvedControllerCpu(t), 0);
        c.controlCounter = true;
        QCOMPARE(c.resolvedControlCpu(t), 0);
        t.online = {0, 1, 2, 3};
        t.allowed = {0, 1, 2, 3};
        QCOMPARE(c.resolvedCpu(t), 3);
        c.reservedCpus = {2, 3};
        QCOMPARE(c.resolvedCpu(t), 1);
        QCOMPARE(c.resolvedControllerCpu(t), 2);
        QVERIFY(c.validate(t).empty());
    }

    void reservedCpusDefaultToCpu0AndTheCallersPin()
    {
        const CpuTopology t = StarvationConfig::placementTopology();
        if (!t.usable(0) || !t.usable(1))
            RTSCOPE_SKIP(Cpus, "needs CPUs 0 and 1");
        std::vector<int> unpinned, pinnedTo1;
        std::thread([&] {
            cpu_set_t all;
            CPU_ZERO(&all);
            for (int c : t.allowed)
                CPU_SET(c, &all);
            pthread_setaffinity_np(pthread_self(), sizeof all, &all);
            unpinned = StarvationConfig::defaultReservedCpus();
            rtscope::test::pinCallingThread(1);
            pinnedTo1 = StarvationConfig::defaultReservedCpus();
        }).join();
        QCOMPARE(unpinned, std::vector<int>{0});
        QCOMPARE(pinnedTo1, (std::vector<int>{0, 1}));
        // A config built on a thread pinned to CPU 1 refuses to put the spinner there.
        StarvationConfig c;
        c.reservedCpus = pinnedTo1;
        c.cpu = 1;
        QVERIFY(!c.validate(t).empty());
    }

    void jsonRoundTrip()
    {
        StarvationConfig c = shortRun();
        c.policy = Policy::RR;
        c.counters = 3;
        c.counterNice = 5;
        c.controlCounter = true;
        c.samplerPriority = 10;
        c.reservedCpus = {0, 2};
        std::vector<std::string> errors;
        QCOMPARE(starvationConfigFromJson(toJson(c), errors), c);
        QVERIFY(errors.empty());
        auto j = toJson(c);
        j["turbo"] = true;
        j["counters"] = "many";
        starvationConfigFromJson(j, errors);
        QCOMPARE(errors.size(), size_t(2));
    }

    void refusesBeforeStartingAnything()
    {
        StarvationExperiment exp;
        StarvationConfig c = shortRun();
        c.cpu = kControllerCpu;
        rtscope::test::checkStartRefused(exp, c, StarvationConfig::placementTopology(),
                                         {"cpu must not be a reserved CPU"});
    }

    // docs/experiments/starvation.md: the counters sharing the spinner's CPU make exactly zero progress while it spins,
    // the control counter on the other CPU does not notice, and progress resumes the moment the burst ends.
    void countersStandStillDuringAFifoBurst()
    {
        RTSCOPE_SKIP_IF(m_missing);
        StarvationExperiment exp;
        StarvationConfig c = shortRun();
        c.counters = 2;
        c.controlCounter = true;
        QVERIFY(!exp.start(c, StarvationConfig::placementTopology()));
        QVERIFY(waitForBurst(exp));
        const SchedState spinner = schedulingOf(exp.snapshot()->spinnerTid);
        QCOMPARE(int(spinner.policy), int(Policy::Fifo));
        QCOMPARE(spinner.priority, 80);
        auto s = test::runExperimentToEnd(exp, 10000);
        QVERIFY(s && s->finished && !s->interrupted);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QCOMPARE(s->counters.size(), size_t(3));
        QCOMPARE(s->starvedCounters, 2);
        QCOMPARE(s->bursts.size(), size_t(1));
        const BurstRecord& b = s->bursts.front();
        QVERIFY(b.windowsFinal);
        QVERIFY2(b.spinnerNs() >= c.burstNs && b.spinnerNs() < c.burstNs + 20 * kNsPerMs,
                 qPrintable(QString::number(b.spinnerNs())));
        QVERIFY(b.gapNs() >= c.gapNs);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(b.during[size_t(i)], uint64_t(0));
            QVERIFY(s->leadIn[size_t(i)] > 0);
            QVERIFY(b.after[size_t(i)] > 0);
        }
        QVERIFY(b.windows.empty());
        QVERIFY2(b.during[2] > 0, "the control counter on CPU 0 must not notice the burst");
        // "Normally after it": the gap's rate is of the same order as the lead-in's (a noisy shared CPU, so only
        // a loose bound; a starved gap would read 0).
        const double leadRate = double(s->leadIn[0] + s->leadIn[1]) / double(s->leadInNs);
        const double gapRate = double(b.afterSum(2)) / double(b.gapNs());
        QVERIFY2(gapRate > leadRate / 10, qPrintable(QString("gap %1/ns lead-in %2/ns").arg(gapRate).arg(leadRate)));
        // The rate lines read 0 for every sampler interval that lies inside the burst, and not after it. A point
        // is stamped with its interval's start (bucketed down to 1 ms); the next point's stamp is its end.
        for (int i = 0; i < 2; ++i) {
            const auto& rate = s->counters[size_t(i)].rate;
            int inside = 0, afterPositive = 0;
            for (size_t k = 0; k + 1 < rate.size(); ++k) {
                if (rate[k].tNs >= b.startNs && rate[k + 1].tNs + kNsPerMs <= b.endNs) {
                    ++inside;
                    QCOMPARE(rate[k].maxNs, int64_t(0));
                }
                if (rate[k].tNs >= b.endNs && rate[k].maxNs > 0)
                    ++afterPositive;
            }
            QVERIFY2(inside >= 20, qPrintable(QString::number(inside)));
            QVERIFY(afterPositive > 0);
        }
        QVERIFY(s->watchdogTrips.empty());
        QCOMPARE(s->droppedSamples, uint64_t(0));
        QCOMPARE(s->droppedSegments, uint64_t(0));
        QCOMPARE(s->droppedEvents, uint64_t(0));
        QVERIFY(s->note.empty());

        const auto j = starvationReportJson(*s);
        QCOMPARE(j["bursts"][0]["starved_during"].get<uint64_t>(), uint64_t(0));
        QCOMPARE(j["counters"].size(), size_t(3));
        QVERIFY(j["kernel"].contains("sched_rt_runtime_us"));
        const QStringList csv = QString::fromStdString(starvationBurstCsv(*s)).trimmed().split('\n');
        QCOMPARE(csv.size(), 1 + 3 + 3); // header, lead-in rows, burst rows
    }

    // The test hook makes the spinner ignore its deadline: the watchdog must demote it within its margin,
    // record that it had to, and the run must end without another burst.
    void watchdogDemotesASpinnerThatIgnoresItsDeadline()
    {
        RTSCOPE_SKIP_IF(m_missing);
        StarvationExperiment exp;
        exp.setTestDeadlineOverrun(300 * kNsPerMs);
        StarvationConfig c = shortRun();
        c.burstNs = 100 * kNsPerMs;
        c.gapNs = 100 * kNsPerMs;
        c.bursts = 3;
        QVERIFY(!exp.start(c, StarvationConfig::placementTopology()));
        auto s = test::runExperimentToEnd(exp, 10000);
        QVERIFY(s && s->finished);
        QCOMPARE(s->watchdogTrips.size(), size_t(1));
        const WatchdogTrip& t = s->watchdogTrips.front();
        QVERIFY(t.demoted);
        QVERIFY(!t.atStop);
        QVERIFY2(t.overrunNs() > StarvationConfig::kWatchdogMarginNs &&
                     t.overrunNs() <=
                         StarvationConfig::kWatchdogMarginNs + StarvationConfig::kWatchdogPollNs + 45 * kNsPerMs,
                 qPrintable(QString("overrun %1 ms").arg(double(t.overrunNs()) / 1e6)));
        qInfo("watchdog demoted the spinner %.1f ms past its deadline", double(t.overrunNs()) / 1e6);
        QCOMPARE(s->bursts.size(), size_t(1)); // no burst after a trip
        const BurstRecord& b = s->bursts.front();
        QVERIFY(b.watchdogDemoted);
        QVERIFY(b.spinnerNs() >= c.burstNs + 300 * kNsPerMs);
        // Demoted, the spinner shares the CPU: the counter advances inside the (overlong) burst, and only after
        // the watchdog acted.
        QVERIFY(b.during[0] > 0);
        QVERIFY(b.windowsFinal && !b.windows.empty());
        QVERIFY(b.windows.front().startNs >= t.demotedNs - 5 * kNsPerMs);
        QVERIFY(!s->note.empty());
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void stopDuringABurstJoinsWithinAHundredMilliseconds()
    {
        RTSCOPE_SKIP_IF(m_missing);
        StarvationExperiment exp;
        StarvationConfig c = shortRun();
        c.gapNs = 50 * kNsPerMs;
        c.counters = 4;
        QVERIFY(exp.busyCpus().empty());
        QVERIFY(!exp.start(c, StarvationConfig::placementTopology()));
        // The spinner's CPU, which its counters share; not the controller's CPU (watchdog, sampler, collector).
        QCOMPARE(exp.busyCpus(), std::vector<int>{c.resolvedCpu(StarvationConfig::placementTopology())});
        QVERIFY(waitForBurst(exp));
        QTest::qWait(50);
        const int64_t t0 = nowNs();
        exp.stop();
        const int64_t took = nowNs() - t0;
        QVERIFY2(took < 100 * kNsPerMs, qPrintable(QString("stop took %1 ms").arg(double(took) / 1e6)));
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY(exp.busyCpus().empty());
        auto s = exp.snapshot();
        QVERIFY(s->interrupted);
        QCOMPARE(s->bursts.size(), size_t(1));
        QVERIFY(s->bursts.front().interrupted);
        QVERIFY(s->bursts.front().spinnerNs() < c.burstNs);
        QVERIFY(s->watchdogTrips.empty());
    }

    void exceptionDuringABurstStopsEverything()
    {
        RTSCOPE_SKIP_IF(m_missing);
        int64_t thrown = 0;
        try {
            StarvationExperiment exp;
            QVERIFY(!exp.start(shortRun(), StarvationConfig::placementTopology()));
            QVERIFY(waitForBurst(exp));
            thrown = nowNs();
            throw std::runtime_error("something failed in the controller");
        } catch (const std::runtime_error&) {
        }
        const int64_t took = nowNs() - thrown;
        QVERIFY2(took < 100 * kNsPerMs, qPrintable(QString("unwinding took %1 ms").arg(double(took) / 1e6)));
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    // While CPU 1 is starved, a SCHED_OTHER thread on CPU 0 keeps waking up on time: the machine stays usable.
    void theOtherCpuStaysResponsive()
    {
        RTSCOPE_SKIP_IF(m_missing);
        std::atomic<bool> done{false};
        std::vector<std::pair<int64_t, int64_t>> wakes; // (deadline, latency)
        wakes.reserve(4000);
        std::thread probe([&] {
            rtscope::test::pinCallingThread(kControllerCpu);
            int64_t next = nowNs() + kNsPerMs;
            while (!done.load() && wakes.size() < wakes.capacity()) {
                const timespec ts = toTimespec(next);
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
                const int64_t now = nowNs();
                wakes.emplace_back(next, now - next);
                next = std::max(next + kNsPerMs, now);
            }
        });
        StarvationExperiment exp;
        QVERIFY(!exp.start(shortRun(), StarvationConfig::placementTopology()));
        auto s = test::runExperimentToEnd(exp, 10000);
        done = true;
        probe.join();
        QCOMPARE(s->bursts.size(), size_t(1));
        const BurstRecord& b = s->bursts.front();
        QCOMPARE(b.during[0], uint64_t(0)); // CPU 1 really was starved
        std::vector<int64_t> during;
        for (const auto& [deadline, latency] : wakes)
            if (deadline >= b.startNs && deadline < b.endNs)
                during.push_back(latency);
        std::sort(during.begin(), during.end());
        QVERIFY2(during.size() >= 150, qPrintable(QString("%1 wake-ups in a 300 ms burst").arg(during.size())));
        const int64_t median = during[during.size() / 2], worst = during.back();
        qInfo("CPU 0 wake-up latency during the burst: median %.1f us, max %.1f us over %zu wake-ups",
              double(median) / 1e3, double(worst) / 1e3, during.size());
        // A spinner on CPU 0 would push the worst wake-up to the whole burst (300 ms).
        QVERIFY2(worst < 50 * kNsPerMs, qPrintable(QString::number(worst)));
        QVERIFY2(median < 5 * kNsPerMs, qPrintable(QString::number(median)));
    }

    // docs/science.md, Starvation and RT throttling: in a burst longer than the kernel's RT period, a starved counter
    // gets one short window (RT throttling / the fair server) and nothing around it.
    void aLongBurstShowsTheThrottlingWindow()
    {
        RTSCOPE_SKIP_IF(m_missing);
        const ThrottleSettings k = readThrottleSettings(kSpinnerCpu);
        if (k.rtRuntimeUs && *k.rtRuntimeUs < 0 && !k.fairServerKernel)
            RTSCOPE_SKIP(Kernel,
                         "RT throttling is disabled (sched_rt_runtime_us = -1) and this kernel has no fair server: no "
                         "safety net to show");
        StarvationExperiment exp;
        StarvationConfig c = shortRun();
        c.burstNs = 1500 * kNsPerMs;
        c.gapNs = 200 * kNsPerMs;
        QVERIFY(!exp.start(c, StarvationConfig::placementTopology()));
        auto s = test::runExperimentToEnd(exp, 10000);
        QCOMPARE(s->bursts.size(), size_t(1));
        const BurstRecord& b = s->bursts.front();
        QVERIFY(b.windowsFinal);
        QVERIFY2(!b.windows.empty(), "a 1.5 s FIFO burst should meet the kernel's safety net at least once");
        QVERIFY(b.during[0] > 0); // the windows and the counts tell the same story
        int64_t total = 0;
        for (const ThrottleWindow& w : b.windows) {
            qInfo("window of %.1f ms at +%.1f ms", double(w.lengthNs()) / 1e6, double(w.offsetNs) / 1e6);
            QVERIFY(w.startNs >= b.startNs && w.endNs <= b.endNs);
            total += w.lengthNs();
        }
        // A safety net, not a share: the counter gets a small fraction of the burst, far below its normal rate.
        QVERIFY2(total < b.spinnerNs() / 4, qPrintable(QString::number(total)));
        const double duringRate = double(b.during[0]) / double(b.spinnerNs());
        const double gapRate = double(b.after[0]) / double(b.gapNs());
        QVERIFY2(duringRate < gapRate / 2, qPrintable(QString("during %1/ns, gap %2/ns").arg(duringRate).arg(gapRate)));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestStarvationExperiment)
#include "tst_starvation_experiment.moc"
