// The noise lab end to end, with real pollers and the kernel's trace events (docs/experiments/noise.md). Asserts
// shapes that survive a noisy two-CPU virtual machine: a planted real-time thread is named with about its share and
// its burst as its longest stretch, the kinds add up to the noise, a run without it does not name it, every thread is
// stopped and joined within 100 ms.
#include "engine/experiments/noise/noise_experiment.h"
#include "engine/rt/caller_affinity.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include "tests/common/planted_culprit.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include "tests/common/thread_census.h"
#include "tests/common/traced_run.h"

#include <QtTest>
#include <numeric>

using namespace rtscope;
using namespace rtscope::test;

namespace {

std::shared_ptr<const NoiseSnapshot> noiseRunToEnd(NoiseExperiment& exp, int timeoutMs = 20000)
{
    const int64_t end = nowNs() + int64_t(timeoutMs) * kNsPerMs;
    while (!exp.finished() && nowNs() < end)
        QTest::qWait(10);
    exp.stop();
    return exp.snapshot();
}

const NoiseCulprit* noiseCulpritNamed(const NoiseSnapshot& snap, const std::string& name)
{
    for (const NoiseCulprit& c : snap.culprits)
        if (c.name == name)
            return &c;
    return nullptr;
}

// What must hold for any finished run's CPU: the kinds add up to the noise, the histogram to the loops.
QString noiseShapeProblem(const NoiseCpuStats& s)
{
    const int64_t kinds = std::accumulate(s.kindNs.begin(), s.kindNs.end(), int64_t(0));
    if (kinds != s.noiseNs)
        return QString("kinds add up to %1 ns, the noise is %2 ns").arg(kinds).arg(s.noiseNs);
    for (NoiseKind k : kNoiseKinds)
        if (s.kindNs[size_t(k)] < 0)
            return QString("%1 is negative").arg(noiseKindName(k));
    const uint64_t counted = std::accumulate(s.histogram.begin(), s.histogram.end(), uint64_t(0));
    if (counted != s.loops)
        return QString("the histogram counts %1 loops, the poller %2").arg(counted).arg(s.loops);
    if (s.noiseNs > s.runtimeNs || s.runtimeNs <= 0)
        return QString("noise %1 ns in a runtime of %2 ns").arg(s.noiseNs).arg(s.runtimeNs);
    if (s.drops != 0)
        return QString("%1 gaps dropped").arg(s.drops);
    return {};
}

} // namespace

class TestNoiseExperiment : public QObject {
    Q_OBJECT

    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = probeSystem(); }

    // A SCHED_FIFO 90 thread spins 300 us every 20 ms on the measured CPU: 1.5 % of it. The run names it as a thread
    // by its comm and pid, with a share near 1.5 % and its longest stretch near 300 us. The band is generous
    // (0.8-3 %): the thread spins 300 us of wall-clock time, so a host preemption inside a burst does not lengthen
    // it, but its wake-up and switch cost, a burst that the run cut in two at its start or end, and the interrupts
    // inside its bursts (charged to themselves, not to it) move its share by tenths of a percent on a virtual CPU.
    void plantedThreadIsNamed()
    {
        int cpu = -1;
        RTSCOPE_SKIP_IF(tracedRunUnavailable(cpu));
        RTSCOPE_SKIP_IF(withoutFifo(m_probe));
        const CpuTopology topology = CpuTopology::current(); // before this thread leaves the measured CPU
        const ScopedCallerAffinity away({cpu});
        std::string plantedName;
        {
            PlantedCulprit culprit(cpu, 90, 300, 20'000);
            QVERIFY2(culprit.problem().empty(), culprit.problem().c_str());
            plantedName = culprit.name();
            NoiseConfig c;
            c.cpus = {cpu};
            c.durationNs = 2'500'000'000;
            NoiseExperiment exp;
            const Error e = exp.start(c, topology);
            QVERIFY2(!e, e.message.c_str());
            const auto snap = noiseRunToEnd(exp);
            QVERIFY2(snap->traced, snap->traceNote.c_str());
            QVERIFY(snap->finished);
            QCOMPARE(snap->cpus.size(), size_t(1));
            const NoiseCpuStats& s = snap->cpus.front();
            QVERIFY2(noiseShapeProblem(s).isEmpty(), qPrintable(noiseShapeProblem(s)));
            const NoiseCulprit* planted = noiseCulpritNamed(*snap, plantedName);
            QVERIFY2(planted, qPrintable("the planted thread " + QString::fromStdString(plantedName) +
                                         " is not among the culprits"));
            qInfo("planted %s: %.2f %% of the CPU, longest %.1f us, %llu times; the CPU: %.2f %% available, "
                  "longest gap %.1f us, %s",
                  plantedName.c_str(), planted->percent, double(planted->maxNs) / 1e3,
                  static_cast<unsigned long long>(planted->count), s.availablePercent, double(s.maxSingleNs) / 1e3,
                  snap->traceNote.empty() ? "no trace losses" : snap->traceNote.c_str());
            QCOMPARE(planted->kind, NoiseKind::Thread);
            QCOMPARE(planted->pid, int(culprit.tid()));
            QCOMPARE(planted->cpu, cpu);
            QCOMPARE(QString::fromStdString(planted->sched), QString("RT 90 (FIFO/RR)"));
            QVERIFY2(planted->percent >= 0.8 && planted->percent <= 3.0, qPrintable(QString::number(planted->percent)));
            QVERIFY2(planted->maxNs >= 250'000 && planted->maxNs <= 1'000'000,
                     qPrintable(QString::number(planted->maxNs)));
            QVERIFY2(planted->count >= 60 && planted->count <= 200, qPrintable(QString::number(planted->count)));
            QVERIFY(s.maxSingleNs >= planted->maxNs);
            QVERIFY(s.kindNs[size_t(NoiseKind::Thread)] >= planted->totalNs);
            QCOMPARE(s.kindNs[size_t(NoiseKind::Untraced)], int64_t(0));
            // The machine's own load shares the CPU with a SCHED_OTHER poller: only the arithmetic is certain.
            QVERIFY(s.availablePercent > 0 && s.availablePercent <= 100 - planted->percent);
            QCOMPARE(s.availablePercent, 100.0 * double(s.runtimeNs - s.noiseNs) / double(s.runtimeNs));
            qInfo("steal %lld ns (%s), SMIs %lld (%s), osnoise: %s", static_cast<long long>(s.stealNs),
                  snap->stealNote.empty() ? "read" : snap->stealNote.c_str(), static_cast<long long>(s.smiCount),
                  snap->smiNote.c_str(), snap->osnoiseNote.c_str());
            QVERIFY(s.stealNs >= 0 || !snap->stealNote.empty());
            QVERIFY(s.smiCount >= 0 || !snap->smiNote.empty());
            for (size_t i = 0; i < snap->culprits.size() && i < 6; ++i)
                qInfo("  %-24s %-11s %6.2f %%  max %8.1f us  x%llu", snap->culprits[i].name.c_str(),
                      noiseKindName(snap->culprits[i].kind), snap->culprits[i].percent,
                      double(snap->culprits[i].maxNs) / 1e3, static_cast<unsigned long long>(snap->culprits[i].count));
            QVERIFY(!s.heat.empty() && s.heat.size() <= 26);
            QCOMPARE(s.tid > 0, true);
        }
        // The same CPU without it: the run does not name it.
        NoiseConfig c;
        c.cpus = {cpu};
        c.durationNs = 1'000'000'000;
        NoiseExperiment exp;
        QVERIFY(!exp.start(c, topology));
        const auto snap = noiseRunToEnd(exp);
        QVERIFY2(snap->traced, snap->traceNote.c_str());
        QVERIFY2(noiseShapeProblem(snap->cpus.front()).isEmpty(), qPrintable(noiseShapeProblem(snap->cpus.front())));
        QVERIFY2(!noiseCulpritNamed(*snap, plantedName), "a run without the planted thread names it");
        QCOMPARE(threadsAlive(), 0);
    }

    // Without tracing every gap is measured and shown as untraced, with the reason.
    void untracedRun()
    {
        NoiseConfig c;
        c.trace = false;
        c.durationNs = 300'000'000;
        NoiseExperiment exp;
        const CpuTopology topology = CpuTopology::current();
        QVERIFY(!exp.start(c, topology));
        const auto snap = noiseRunToEnd(exp);
        QVERIFY(!snap->traced);
        QVERIFY2(QString::fromStdString(snap->traceNote).contains("tracing is off"), snap->traceNote.c_str());
        const NoiseCpuStats& s = snap->cpus.front();
        QCOMPARE(s.cpu, topology.lastUsable());
        QVERIFY2(noiseShapeProblem(s).isEmpty(), qPrintable(noiseShapeProblem(s)));
        QCOMPARE(s.kindNs[size_t(NoiseKind::Untraced)], s.noiseNs);
        QVERIFY(s.loops > 1000 && s.minLoopNs > 0 && s.meanLoopNs >= double(s.minLoopNs));
        QVERIFY(!snap->smiNote.empty() && !snap->osnoiseNote.empty());
        QVERIFY(snap->stealTickNs > 0);
        QCOMPARE(threadsAlive(), 0);
    }

    // Every thread (the pollers, a real-time one included, and the trace reader) stopped and joined within 100 ms.
    void stopJoinsWithinAHundredMilliseconds_data()
    {
        QTest::addColumn<bool>("fifo");
        QTest::newRow("other") << false;
        QTest::newRow("fifo") << true;
    }
    void stopJoinsWithinAHundredMilliseconds()
    {
        QFETCH(bool, fifo);
        if (fifo)
            RTSCOPE_SKIP_IF(withoutFifo(m_probe));
        const CpuTopology topology = CpuTopology::current();
        if (topology.otherThan({topology.lastUsable()}) < 0)
            RTSCOPE_SKIP(Cpus, "a real-time poller needs a second usable CPU");
        NoiseConfig c;
        c.durationNs = 0;
        if (fifo) {
            c.policy = Policy::Fifo;
            c.priority = 50;
        }
        NoiseExperiment exp;
        const Error e = exp.start(c, topology);
        QVERIFY2(!e, e.message.c_str());
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->cpus.front().loops > 1000);
        const ScopedCallerAffinity away(exp.busyCpus());
        const int64_t t0 = nowNs();
        exp.stop();
        const int64_t took = nowNs() - t0;
        qInfo("stop took %.1f ms", double(took) / 1e6);
        QVERIFY2(took < 100 * kNsPerMs, qPrintable(QString("stop took %1 ms").arg(double(took) / 1e6)));
        QCOMPARE(threadsAlive(), 0);
        const auto snap = exp.snapshot();
        QVERIFY(!snap->running);
        QVERIFY(!snap->finished); // stopped, not run to its end
        QVERIFY2(noiseShapeProblem(snap->cpus.front()).isEmpty(), qPrintable(noiseShapeProblem(snap->cpus.front())));
        if (!snap->traced) { // without tracefs or root: said why, and every gap is untraced
            qInfo("untraced: %s", snap->traceNote.c_str());
            QVERIFY(!snap->traceNote.empty());
            QCOMPARE(snap->cpus.front().kindNs[size_t(NoiseKind::Untraced)], snap->cpus.front().noiseNs);
        }
    }

    void invalidConfigStartsNothing()
    {
        NoiseExperiment exp;
        NoiseConfig c;
        c.thresholdNs = 0;
        const Error e = exp.start(c, CpuTopology::current());
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY2(QString::fromStdString(e.message).contains("threshold must be between 100 ns and 10.00 ms"),
                 e.message.c_str());
        QVERIFY(!exp.running());
        QCOMPARE(threadsAlive(), 0);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestNoiseExperiment)
#include "tst_noise_experiment.moc"
