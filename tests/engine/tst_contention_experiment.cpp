// The contention experiment end to end: real workers, every kind in turn. Asserts invariants (every acquisition
// counted once, paths add up, fairness within its bounds, no sample lost, threads joined) and shapes that survive
// a busy 2-CPU VM (a spinlock never sleeps, a futex mutex does; the adaptive lock wins by spinning), never times.
#include "engine/experiments/locks/contention_experiment.h"
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
#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

using namespace rtscope;
using namespace rtscope::test;

namespace {

ContentionConfig quick()
{
    ContentionConfig c;
    c.threads = 2;
    c.holdNs = 1'000;
    c.workNs = 1'000;
    c.durationNs = 200'000'000;
    return c;
}

// A change to the default config, given this machine's CPUs.
using ContentionEdit = std::function<void(ContentionConfig&, const CpuTopology&)>;

} // namespace

Q_DECLARE_METATYPE(ContentionEdit)

class TestContentionExperiment : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpExperimentTest(); }

    void validationNamesTheFieldAndRange_data()
    {
        QTest::addColumn<ContentionEdit>("edit");
        QTest::addColumn<bool>("twoCpus"); // the row needs two usable CPUs
        QTest::addColumn<QString>("expected");
        using C = ContentionConfig&;
        using T = const CpuTopology&;
        const auto fifo = [](C c) {
            c.policy = Policy::Fifo;
            c.priority = 10;
        };
        QTest::newRow("threads low") << ContentionEdit([](C c, T) { c.threads = 1; }) << false
                                     << "threads must be between 2 and 32 (got 1)";
        QTest::newRow("threads high") << ContentionEdit([](C c, T) { c.threads = 33; }) << false
                                      << "threads must be between 2 and 32 (got 33)";
        QTest::newRow("hold") << ContentionEdit([](C c, T) { c.holdNs = 2'000'000; }) << false
                              << "hold must be between 0 ns and 1.00 ms (got 2.00 ms)";
        QTest::newRow("work") << ContentionEdit([](C c, T) { c.workNs = -1; }) << false
                              << "work must be between 0 ns and 1.00 ms (got -1 ns)";
        QTest::newRow("duration") << ContentionEdit([](C c, T) { c.durationNs = 1'000'000; }) << false
                                  << "duration must be between 10.00 ms and 3600.000 s per kind";
        QTest::newRow("no kinds") << ContentionEdit([](C c, T) { c.kinds.clear(); }) << false
                                  << "kinds must name 1 to 5 of spin, mutex, adaptive-glibc, adaptive or pi";
        QTest::newRow("ceiling") << ContentionEdit([](C c, T) { c.kinds = {LockKind::Ceiling}; }) << false
                                 << "kinds: ceiling is not a contention kind";
        QTest::newRow("twice") << ContentionEdit([](C c, T) {
            c.kinds = {LockKind::Mutex, LockKind::Mutex};
        }) << false << "kinds must name each kind once (mutex is given twice)";
        QTest::newRow("spin limit") << ContentionEdit([](C c, T) { c.spinLimit = -5; }) << false
                                    << "spin-limit must be between 0 and 10000000 (got -5)";
        QTest::newRow("cpu") << ContentionEdit([](C c, T) {
            c.placement = Placement::OneCpu;
            c.cpu = 4096;
        }) << false << "cpu must be one of the online CPUs this process may use";
        QTest::newRow("cpu with spread") << ContentionEdit([](C c, T cpus) { c.cpu = cpus.lastUsable(); }) << false
                                         << "cpu applies to placement one-cpu only";
        QTest::newRow("fifo spread") << ContentionEdit([fifo](C c, T) { fifo(c); }) << false
                                     << "placement must be one-cpu with policy fifo";
        QTest::newRow("fifo spin") << ContentionEdit([fifo](C c, T) {
            fifo(c);
            c.placement = Placement::OneCpu;
        }) << false << "kinds: spin cannot run with policy fifo";
        QTest::newRow("fifo cpu 0") << ContentionEdit([fifo](C c, T) {
            fifo(c);
            c.placement = Placement::OneCpu;
            c.cpu = usableCpus().front();
            c.kinds = {LockKind::Mutex};
        }) << true << "with policy fifo: that CPU stays free for the UI";
        QTest::newRow("fifo long") << ContentionEdit([fifo](C c, T) {
            fifo(c);
            c.placement = Placement::OneCpu;
            c.kinds = {LockKind::Mutex};
            c.durationNs = 61'000'000'000;
        }) << false << "duration must be between 10.00 ms and 60.000 s per kind with policy fifo";
        QTest::newRow("priority other") << ContentionEdit([](C c, T) { c.priority = 5; }) << false
                                        << "priority must be 0 for other";
    }
    void validationNamesTheFieldAndRange()
    {
        QFETCH(ContentionEdit, edit);
        QFETCH(bool, twoCpus);
        QFETCH(QString, expected);
        if (twoCpus && usableCpus().size() < 2)
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs");
        const CpuTopology cpus = CpuTopology::current();
        ContentionConfig c;
        edit(c, cpus);
        const QString problems = joined(c.validate(cpus));
        QVERIFY2(problems.contains(expected), qPrintable(problems));

        ContentionExperiment exp;
        const Error e = exp.start(c, cpus);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QCOMPARE(threadsAlive(), 0);
    }

    void defaultsAreValid()
    {
        QVERIFY(ContentionConfig().validate(CpuTopology::current()).empty());
        QCOMPARE(ContentionConfig().kinds.size(), size_t(5));
        QCOMPARE(ContentionConfig().spinLimit, 10'000);
    }

    void jsonRoundTrip()
    {
        ContentionConfig c;
        c.kinds = {LockKind::Pi, LockKind::Spin};
        c.threads = 7;
        c.placement = Placement::OneCpu;
        c.cpu = 1;
        c.holdNs = 250;
        c.workNs = 0;
        c.durationNs = 3'000'000'000;
        c.spinLimit = 77;
        c.stealing = false;
        std::vector<std::string> errors;
        const ContentionConfig back = contentionConfigFromJson(toJson(c), errors);
        QVERIFY(errors.empty());
        QVERIFY(back == c);

        nlohmann::json j = toJson(c);
        j["threds"] = 3;
        j["threads"] = "four";
        j["kinds"] = {"mutex", "ticket"};
        errors.clear();
        contentionConfigFromJson(j, errors);
        QStringList all;
        for (const auto& e : errors)
            all << QString::fromStdString(e);
        QVERIFY2(all.contains("unknown field 'threds'"), qPrintable(all.join(" | ")));
        QVERIFY2(all.contains("threads must be an integer"), qPrintable(all.join(" | ")));
        QVERIFY2(all.join(" | ").contains("kinds entries must be lock kind names"), qPrintable(all.join(" | ")));
    }

    void jainFairnessBounds()
    {
        QCOMPARE(jainFairness({10, 10, 10, 10}), 1.0);
        QCOMPARE(jainFairness({40, 0, 0, 0}), 0.25);
        QCOMPARE(jainFairness({0, 0}), 0.0);
        const double mid = jainFairness({30, 10});
        QVERIFY(mid > 0.5 && mid < 1.0);
    }

    // One run, three kinds: every invariant of the figures, and the shapes docs/experiments/locks.md describes.
    void runsEveryKindWithConsistentFigures()
    {
        ContentionExperiment exp;
        ContentionConfig c = quick();
        c.kinds = {LockKind::Spin, LockKind::Mutex, LockKind::Adaptive};
        QVERIFY(!exp.start(c, CpuTopology::current()));
        // Spread workers: every CPU one of them is pinned to, sorted, each once.
        std::vector<int> spread = c.workerCpus(CpuTopology::current());
        std::sort(spread.begin(), spread.end());
        spread.erase(std::unique(spread.begin(), spread.end()), spread.end());
        QCOMPARE(exp.busyCpus(), spread);
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->currentKind >= 0);
        QVERIFY(exp.snapshot()->running);
        QTRY_COMPARE(threadsAlive("rtscope-lock", true), c.threads);
        auto snap = runExperimentToEnd(exp, 30000);
        QVERIFY(snap);
        QVERIFY(snap->finished);
        QVERIFY(!snap->running);
        QCOMPARE(snap->currentKind, -1);
        QVERIFY2(snap->error.empty(), snap->error.c_str());
        QCOMPARE(snap->kinds.size(), size_t(3));
        QCOMPARE(threadsAlive(), 0);

        for (const auto& rp : snap->kinds) {
            const ContentionKindResult& r = *rp;
            const QByteArray name = lockKindName(r.kind);
            QCOMPARE(int(r.state), int(KindRunState::Done));
            QVERIFY2(r.counts.acquisitions > 1000, name);
            QCOMPARE(r.elapsedNs, c.durationNs);
            QCOMPARE(r.threads.size(), size_t(c.threads));
            uint64_t perThread = 0;
            for (const auto& t : r.threads) {
                perThread += t.counts.acquisitions;
                QVERIFY(t.tid > 0);
                QVERIFY(t.cpuNs > 0);
            }
            QCOMPARE(perThread, r.counts.acquisitions);
            QCOMPARE(r.counts.uncontended + r.counts.spun + r.counts.slept, r.counts.acquisitions);
            QCOMPARE(r.samplesDropped, uint64_t(0));
            QCOMPARE(r.wait.count() + r.samplesDropped, r.counts.acquisitions);
            QVERIFY(r.wait.min() >= 0);
            QVERIFY(r.fairness >= 1.0 / c.threads - 1e-9 && r.fairness <= 1.0 + 1e-9);
            QVERIFY(r.minShare <= 1.0 + 1e-9 && r.maxShare >= 1.0 - 1e-9);
            QVERIFY(r.cpuNsPerAcquisition > 0);
            QVERIFY(r.acquisitionsPerSec > 0);
            qInfo("%-9s %9.0f acq/s  p50 %lld ns  p99 %lld ns  vcs %llu  ivcs %llu  cpu/acq %.0f ns  fair %.3f",
                  name.constData(), r.acquisitionsPerSec, (long long)r.wait.percentile(50),
                  (long long)r.wait.percentile(99), (unsigned long long)r.voluntarySwitches,
                  (unsigned long long)r.involuntarySwitches, r.cpuNsPerAcquisition, r.fairness);
        }
        const ContentionKindResult* spin = snap->result(LockKind::Spin);
        const ContentionKindResult* mutex = snap->result(LockKind::Mutex);
        const ContentionKindResult* adaptive = snap->result(LockKind::Adaptive);
        QVERIFY(spin && mutex && adaptive);
        // A spinlock's waiters never sleep; a futex mutex's contended waiters do, and that is a context switch.
        QCOMPARE(spin->counts.slept, uint64_t(0));
        QVERIFY(spin->counts.spun > 0);
        QVERIFY2(mutex->counts.slept > 0, "the mutex never went to the futex: no contention?");
        QVERIFY2(mutex->voluntarySwitches > spin->voluntarySwitches,
                 qPrintable(QString("voluntary switches: mutex %1, spin %2")
                                .arg(mutex->voluntarySwitches)
                                .arg(spin->voluntarySwitches)));
        // The adaptive lock, with its owner running on the other CPU, mostly wins by spinning; and every sleep
        // it reports has one of the three reasons.
        QVERIFY(adaptive->counts.spun > 0);
        QCOMPARE(adaptive->counts.sleptOwnerNotRunning + adaptive->counts.sleptOwnerOnThisCpu +
                     adaptive->counts.sleptSpinLimit,
                 adaptive->counts.slept);
        QCOMPARE(throughputVsMutex(*snap, *mutex), 1.0);

        // The exports carry the same figures.
        const nlohmann::json j = contentionReportJson(*snap);
        QCOMPARE(j["kinds"].size(), size_t(3));
        QCOMPARE(j["kinds"][1]["kind"].get<std::string>(), std::string("mutex"));
        QCOMPARE(j["kinds"][1]["acquisitions"].get<uint64_t>(), mutex->counts.acquisitions);
        QVERIFY(j["kinds"][0].contains("wait_buckets"));
        const QString csv = QString::fromStdString(contentionCsv(*snap));
        QCOMPARE(csv.count('\n'), 4);
        QVERIFY(csv.startsWith("kind,state,threads,"));
    }

    // Stop in the middle of the first of three long kinds: prompt, partial, nothing left running.
    void stopIsPromptAndKeepsPartialResults()
    {
        ContentionExperiment exp;
        ContentionConfig c = quick();
        c.kinds = {LockKind::Mutex, LockKind::Spin, LockKind::Pi};
        c.threads = 4;
        c.durationNs = 20'000'000'000;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->currentKind == 0 &&
                    exp.snapshot()->kinds[0]->counts.acquisitions > 100);
        rtscope::test::stopExperimentWithin100ms(exp);
        auto snap = exp.snapshot();
        QVERIFY(!snap->running);
        QCOMPARE(int(snap->kinds[0]->state), int(KindRunState::Stopped));
        QVERIFY(snap->kinds[0]->elapsedNs > 0 && snap->kinds[0]->elapsedNs < c.durationNs);
        QVERIFY(snap->kinds[0]->counts.acquisitions > 100);
        QCOMPARE(int(snap->kinds[1]->state), int(KindRunState::Pending));
        QCOMPARE(int(snap->kinds[2]->state), int(KindRunState::Pending));
        QCOMPARE(snap->kinds[1]->counts.acquisitions, uint64_t(0));
        // It can be started again.
        c.durationNs = 50'000'000;
        c.kinds = {LockKind::AdaptiveGlibc};
        QVERIFY(!exp.start(c, CpuTopology::current()));
        auto again = runExperimentToEnd(exp, 30000);
        QCOMPARE(int(again->kinds[0]->state), int(KindRunState::Done));
        QCOMPARE(again->kinds.size(), size_t(1));
    }

    void oneCpuPlacementPinsEveryWorkerThere()
    {
        const int cpu = CpuTopology::current().lastUsable();
        ContentionExperiment exp;
        ContentionConfig c = quick();
        c.kinds = {LockKind::Adaptive};
        c.threads = 3;
        c.placement = Placement::OneCpu;
        c.holdNs = 20'000; // mostly holding: the scheduler's preemptions land inside the section
        c.durationNs = 300'000'000;
        QVERIFY(exp.busyCpus().empty());
        QVERIFY(!exp.start(c, CpuTopology::current()));
        QCOMPARE(exp.busyCpus(), std::vector<int>{cpu}); // three workers, one CPU, listed once
        auto snap = runExperimentToEnd(exp, 30000);
        QVERIFY(exp.busyCpus().empty());
        QCOMPARE(snap->workerCpus, std::vector<int>(3, cpu));
        const ContentionKindResult& r = *snap->kinds[0];
        QVERIFY(r.counts.acquisitions > 0);
        // Owner and waiter share the CPU: a waiter that finds the lock held knows the owner cannot be running,
        // and sleeps without spinning. (A waiter can still win by spinning in the rare case that it was preempted
        // inside lock() and the owner released meanwhile.)
        const uint64_t contended = r.counts.spun + r.counts.slept;
        qInfo("one CPU: %llu contended, %llu slept because the owner was on this CPU, %llu spun and won",
              (unsigned long long)contended, (unsigned long long)r.counts.sleptOwnerOnThisCpu,
              (unsigned long long)r.counts.spun);
        QVERIFY2(contended > 0, "no acquisition was contended: the workers never preempted a holder");
        QVERIFY(r.counts.sleptOwnerOnThisCpu * 10 >= contended * 8);
        QCOMPARE(r.counts.sleptOwnerOnThisCpu + r.counts.sleptOwnerNotRunning + r.counts.sleptSpinLimit,
                 r.counts.slept);
    }

    void fifoWorkersRunAsFifoOnTheirCpu()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        if (usableCpus().size() < 2)
            RTSCOPE_SKIP(Cpus, "real-time workers need a CPU of their own");
        ContentionExperiment exp;
        ContentionConfig c = quick();
        c.kinds = {LockKind::Mutex, LockKind::Pi};
        c.policy = Policy::Fifo;
        c.priority = 10;
        c.placement = Placement::OneCpu;
        c.durationNs = 400'000'000;
        QVERIFY(!exp.start(c, CpuTopology::current()));
        // Looked at early in the first kind, so that its workers cannot have been demoted at its end yet.
        auto early = [&] {
            const auto s = exp.snapshot();
            if (!s || s->currentKind != 0)
                return false;
            const ContentionKindResult& r = *s->kinds[0];
            return r.threads.size() == 2 && r.threads[1].tid > 0 && r.elapsedNs < 200'000'000;
        };
        QTRY_VERIFY(early());
        const SchedState s = schedulingOf(exp.snapshot()->kinds[0]->threads[1].tid);
        QCOMPARE(int(s.policy), int(Policy::Fifo));
        QCOMPARE(s.priority, 10);
        auto snap = runExperimentToEnd(exp, 30000);
        QVERIFY2(snap->error.empty(), snap->error.c_str());
        QCOMPARE(snap->workerCpus, std::vector<int>(2, c.resolvedCpu(CpuTopology::current())));
        for (const auto& r : snap->kinds) {
            QCOMPARE(int(r->state), int(KindRunState::Done));
            QVERIFY(r->counts.acquisitions > 0);
            // Equal FIFO priorities on one CPU do not time-share: whoever runs first may keep the CPU.
            qInfo("%s under FIFO on one CPU: fairness %.3f", lockKindName(r->kind), r->fairness);
        }
        QCOMPARE(threadsAlive(), 0);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestContentionExperiment)
#include "tst_contention_experiment.moc"
