// ctest: parallel. Pure diagnosis and verdict functions.
// The doctor's diagnosis and its trial verdict as pure functions (engine/doctor/diagnosis.h, trial.h): fixtures of
// facts and anatomy in, findings out — which rule names which culprit, with what fix, in what order; the verdict of
// alternated phases from their spread; /proc/interrupts parsed.
#include "engine/doctor/diagnosis.h"
#include "engine/doctor/trial.h"

#include "tests/common/find_by.h"
#include "tests/common/test_main.h"

#include <QtTest>
#include <cstring>

using namespace rtscope;
using namespace rtscope::doctor;

namespace {

// A 2-CPU machine measured on CPU 1, its facts as a VM like the development one has them.
MachineFacts facts()
{
    MachineFacts f;
    f.cpu = 1;
    f.probe.preemptModel = "PREEMPT_DYNAMIC (full)";
    f.preemptMode = "full";
    f.probe.rtRuntimeUs = 950000;
    f.probe.rtPeriodUs = 1000000;
    f.probe.onlineCpus = {0, 1};
    f.thpEnabled = "madvise";
    f.thpDefrag = "never";
    f.timerMigration = 1;
    f.workqueueCpumask = "0-1";
    f.cpusets.v1 = "/sys/fs/cgroup/cpuset";
    f.idleDriver = "none";
    // irq, name, chip, affinity, effective affinity, counts by CPU, count on the measured CPU during the baseline
    f.irqs = {{36, "virtio1-req.0", "", "0-1", "1", {0, 5000}, 412}, {41, "virtio3-rx", "", "0-1", "0", {900, 3}, 3}};
    SystemThread culprit;
    culprit.tid = culprit.pid = 4242;
    culprit.name = "xq7burst";
    culprit.kernelPolicy = 1;
    culprit.policy = "FIFO";
    culprit.rtPriority = 90;
    culprit.allowedCpus = "1";
    culprit.startTime = 123456;
    f.threads = {culprit};
    return f;
}

DiagnosisContext context()
{
    DiagnosisContext c;
    c.cpu = 1;
    c.priority = 80;
    c.onlineCpus = {0, 1};
    c.measuringTids = {777};
    return c;
}

CulpritShare culprit(CulpritKind kind, int64_t id, std::string name, int32_t prio, int64_t tailNs, int64_t totalNs)
{
    CulpritShare c;
    c.kind = kind;
    c.id = id;
    c.name = std::move(name);
    c.prio = prio;
    c.wakeups = 50;
    c.totalNs = totalNs;
    c.worstNs = tailNs / 4;
    c.tailWakeups = 10;
    c.tailNs = tailNs;
    return c;
}

// 100 worst wake-ups, 10 ms of lateness together; 10000 analysed, 200 ms together.
MeasuredLateness lateness(std::vector<CulpritShare> culprits)
{
    MeasuredLateness m;
    m.analysed = 10000;
    m.analysedNs = 200'000'000;
    m.tailWakeups = 100;
    m.tailNs = 10'000'000;
    m.tailThresholdNs = 60'000;
    m.culprits = std::move(culprits);
    return m;
}

const Finding* byId(const std::vector<Finding>& fs, const std::string& id)
{
    return rtscope::test::findBy(fs, &Finding::id, id);
}

PhaseFigures phase(bool withFix, double p99)
{
    PhaseFigures p;
    p.withFix = withFix;
    p.figures.p99Us = p99;
    p.figures.samples = 1500;
    return p;
}

} // namespace

class TestDoctorDiagnosis : public QObject {
    Q_OBJECT
private slots:
    void higherPriorityThreadIsNamedFirstWithAMove()
    {
        // The planted culprit: FIFO 90 (kernel prio 9) on CPU 1, 60 % of the tail; the disk IRQ 20 %.
        const auto findings =
            diagnose(facts(),
                     lateness({culprit(CulpritKind::Task, 4242, "xq7burst", 9, 6'000'000, 30'000'000),
                               culprit(CulpritKind::Irq, 36, "irq 36 (virtio1-req.0)", -2, 2'000'000, 10'000'000)}),
                     context());
        QVERIFY(findings.size() >= 2);
        const Finding& top = findings.front();
        QCOMPARE(QString::fromStdString(top.id), QString("thread-4242"));
        QCOMPARE(QString::fromStdString(top.rule), QString("thread-on-cpu"));
        QVERIFY2(top.title.find("xq7burst") != std::string::npos, top.title.c_str());
        QVERIFY2(top.title.find("above the measuring thread") != std::string::npos, top.title.c_str());
        QCOMPARE(top.tailShare, 0.6);
        QCOMPARE(top.share, 0.15);
        QVERIFY2(top.evidence.find("60 %") != std::string::npos, top.evidence.c_str());
        QCOMPARE(int(top.fix.kind), int(FixKind::ThreadAffinity));
        QCOMPARE(QString::fromStdString(top.fix.from), QString("1"));
        QCOMPARE(QString::fromStdString(top.fix.to), QString("0"));
        QVERIFY(top.fix.runtime);
        QCOMPARE(top.fix.changes.size(), size_t(1));
        QCOMPARE(int(top.fix.changes[0].kind), int(KnobKind::ThreadAffinity));
        QCOMPARE(QString::fromStdString(top.fix.changes[0].target), QString("4242@123456"));
        const Finding& irq = findings[1];
        QCOMPARE(QString::fromStdString(irq.id), QString("irq-36"));
        QCOMPARE(int(irq.fix.kind), int(FixKind::IrqAffinity));
        QCOMPARE(QString::fromStdString(irq.fix.changes[0].target), QString("36"));
        QVERIFY2(irq.evidence.find("412 time(s) on CPU 1") != std::string::npos, irq.evidence.c_str());
        QVERIFY2(irq.evidence.find("managed") != std::string::npos, irq.evidence.c_str());
        // Ranked by the tail share, every one of them.
        for (size_t i = 1; i < findings.size(); ++i)
            QVERIFY(findings[i - 1].tailShare >= findings[i].tailShare);
    }

    void measuringThreadAndIdleAreNeverCulprits()
    {
        const auto findings = diagnose(facts(),
                                       lateness({culprit(CulpritKind::Task, 777, "rtscope-measure", 19, 5'000'000, 1),
                                                 culprit(CulpritKind::Task, 0, "swapper/1", 120, 5'000'000, 1)}),
                                       context());
        QVERIFY(!byId(findings, "thread-777"));
        QVERIFY(!byId(findings, "thread-0"));
    }

    void minorTasksAreFoldedIntoIsolation()
    {
        // A compiler that held the CPU once for 3 us of 200 ms of lateness, in none of the worst wake-ups: no finding
        // of its own; its share goes to the isolation finding, which says it counted it.
        CulpritShare tiny = culprit(CulpritKind::Task, 5000, "cc1plus", 130, 0, 3'000);
        tiny.tailWakeups = 0;
        CulpritShare small = culprit(CulpritKind::Task, 5001, "make", 120, 0, 2'000'000); // 1 % of all: kept
        small.tailWakeups = 0;
        const auto findings = diagnose(facts(), lateness({tiny, small}), context());
        QVERIFY(!byId(findings, "thread-5000"));
        QVERIFY(byId(findings, "thread-5001"));
        const Finding* iso = byId(findings, "cpuset-isolation");
        QVERIFY(iso);
        QVERIFY2(iso->evidence.find("1 task(s) too small") != std::string::npos, iso->evidence.c_str());
        QCOMPARE(iso->share, (3'000 + 2'000'000) / 200'000'000.0);
        QCOMPARE(int(iso->fix.kind), int(FixKind::CpusetPartition));
    }

    void perCpuKthreadsAndTimersGoToTheirSettings()
    {
        const auto findings =
            diagnose(facts(),
                     lateness({culprit(CulpritKind::Task, 30, "ksoftirqd/1", 120, 1'000'000, 1'000'000),
                               culprit(CulpritKind::Task, 31, "kworker/u4:2", 120, 2'000'000, 2'000'000),
                               culprit(CulpritKind::Softirq, 1, "softirq TIMER", -2, 3'000'000, 3'000'000),
                               culprit(CulpritKind::Softirq, 9, "softirq RCU", -2, 500'000, 500'000),
                               culprit(CulpritKind::Softirq, 3, "softirq NET_RX", -2, 400'000, 400'000)}),
                     context());
        QVERIFY(!byId(findings, "thread-30")); // cannot leave CPU 1: the boot-time isolation's
        QVERIFY(!byId(findings, "thread-31")); // an unbound kworker: the workqueue mask's
        const Finding* timers = byId(findings, "timer-migration");
        QVERIFY(timers);
        QCOMPARE(timers->tailShare, 0.3);
        QCOMPARE(QString::fromStdString(timers->fix.changes[0].target), QString("kernel.timer_migration"));
        QCOMPARE(QString::fromStdString(timers->fix.to), QString("0"));
        const Finding* wq = byId(findings, "workqueue");
        QVERIFY(wq);
        QCOMPARE(wq->tailShare, 0.2);
        QCOMPARE(QString::fromStdString(wq->fix.to), QString("0"));
        const Finding* boot = byId(findings, "boot-isolation");
        QVERIFY(boot);
        QVERIFY(!boot->fix.runtime);
        QCOMPARE(boot->tailShare, 0.15);
        QVERIFY2(boot->fix.to.find("nohz_full=1") != std::string::npos, boot->fix.to.c_str());
        QVERIFY2(boot->fix.to.find("isolcpus=managed_irq,domain,1") != std::string::npos, boot->fix.to.c_str());
        QVERIFY2(boot->evidence.find("ksoftirqd/1") != std::string::npos, boot->evidence.c_str());
        // NET_RX: the device IRQs that fired on CPU 1 during the baseline, moved together.
        const Finding* net = byId(findings, "softirq-NET_RX");
        QVERIFY(net);
        QCOMPARE(net->fix.changes.size(), size_t(2));
        QCOMPARE(QString::fromStdString(timers->id), QString("timer-migration"));
        QCOMPARE(QString::fromStdString(findings.front().id), QString("timer-migration"));
    }

    void idleExitsAreChargedTheirExtraTimerDelay()
    {
        MeasuredLateness m = lateness({});
        m.tailIdleExits = 40; // 40 idle exits of 50 us timer delay on average, 60 busy wake-ups of 10 us
        m.tailIdleTimerDelayNs = 40 * 50'000;
        m.tailTimerDelayNs = 60 * 10'000;
        const auto findings = diagnose(facts(), m, context());
        const Finding* idle = byId(findings, "idle-exit");
        QVERIFY(idle);
        QCOMPARE(idle->tailShare, 40 * 40'000 / 10'000'000.0);
        QCOMPARE(int(idle->fix.kind), int(FixKind::CpuDmaLatency));
        QCOMPARE(int(idle->fix.changes[0].kind), int(KnobKind::CpuDmaLatency));
        QVERIFY2(idle->evidence.find("40 of the 100 worst") != std::string::npos, idle->evidence.c_str());
    }

    void settingsRulesFollowTheFacts()
    {
        MachineFacts f = facts();
        // As the facts are: timer migration on, workqueue on CPU 1, RT throttling on, not isolated; THP fine,
        // preemption full.
        auto findings = diagnose(f, lateness({}), context());
        QVERIFY(byId(findings, "timer-migration"));
        QVERIFY(byId(findings, "workqueue"));
        QVERIFY(byId(findings, "rt-throttling"));
        QVERIFY(byId(findings, "boot-isolation"));
        QVERIFY(!byId(findings, "thp"));
        QVERIFY(!byId(findings, "preempt-model"));
        QCOMPARE(byId(findings, "rt-throttling")->share, 0.0);
        // Device IRQs that fired there but delayed nothing: listed, with no share.
        QVERIFY(byId(findings, "irq-36"));
        QCOMPARE(byId(findings, "irq-36")->tailShare, 0.0);
        // Changed facts, changed findings.
        f.timerMigration = 0;
        f.workqueueCpumask = "0";
        f.probe.rtRuntimeUs = -1;
        f.thpEnabled = "always";
        f.thpDefrag = "madvise";
        f.preemptMode = "voluntary";
        findings = diagnose(f, lateness({}), context());
        QVERIFY(!byId(findings, "timer-migration"));
        QVERIFY(!byId(findings, "workqueue"));
        QVERIFY(!byId(findings, "rt-throttling"));
        const Finding* thp = byId(findings, "thp");
        QVERIFY(thp);
        QCOMPARE(thp->fix.changes.size(), size_t(2));
        const Finding* preempt = byId(findings, "preempt-model");
        QVERIFY(preempt);
        QVERIFY(preempt->fix.runtime);
        QCOMPARE(int(preempt->fix.changes[1].kind), int(KnobKind::PreemptMode));
        // Without PREEMPT_DYNAMIC the model is a boot (a kernel) matter.
        f.probe.preemptModel = "voluntary";
        f.preemptMode.clear();
        findings = diagnose(f, lateness({}), context());
        QVERIFY(byId(findings, "preempt-model"));
        QVERIFY(!byId(findings, "preempt-model")->fix.runtime);
    }

    void threadedIrqFollowsItsIrq()
    {
        const auto findings = diagnose(
            facts(), lateness({culprit(CulpritKind::Task, 99, "irq/36-virtio1-req.0", 49, 1'000'000, 1)}), context());
        const Finding* f = byId(findings, "irq-36");
        QVERIFY(f);
        QCOMPARE(QString::fromStdString(f->rule), QString("threaded-irq"));
        QCOMPARE(f->tailShare, 0.1);
    }

    void perCpuKthreadNames()
    {
        QCOMPARE(perCpuKthreadCpu("ksoftirqd/1"), 1);
        QCOMPARE(perCpuKthreadCpu("kworker/12:2H"), 12);
        QCOMPARE(perCpuKthreadCpu("kworker/u8:3"), -1);
        QCOMPARE(perCpuKthreadCpu("irq/36-virtio1"), -1);
        QCOMPARE(perCpuKthreadCpu("bash"), -1);
        QCOMPARE(perCpuKthreadCpu("rcu_preempt"), -1);
    }

    void summaryChargesTheWorstWakeups()
    {
        AnatomyFigures a;
        a.wakeupsAnalysed = 1000;
        CulpritRow row;
        row.kind = CulpritKind::Irq;
        row.id = 36;
        row.name = "irq 36 (disk)";
        row.wakeups = 7;
        row.totalNs = 70'000;
        a.culprits = {row};
        for (int i = 0; i < 2; ++i) {
            TracedWakeup w;
            w.anatomy.latencyNs = 100'000;
            w.anatomy.timerIrqDelayNs = 5'000;
            w.anatomy.idleAtTimer = i == 0;
            AnatomyInterrupt irq;
            irq.kind = CulpritKind::Irq;
            irq.id = 36;
            irq.ns = 30'000;
            AnatomyInterrupt own;
            own.kind = CulpritKind::Hrtimer;
            own.ownTimer = true;
            own.ns = 2'000;
            w.anatomy.interrupts = {irq, own};
            AnatomySlice s;
            s.pid = 4242;
            s.comm = "xq7burst";
            s.prio = 9;
            s.ns = 50'000;
            w.anatomy.tasks = {s};
            a.worst.push_back(w);
        }
        const MeasuredLateness m = summarizeLateness(a, 20'000.0);
        QCOMPARE(m.analysedNs, int64_t(20'000'000));
        QCOMPARE(m.tailWakeups, uint64_t(2));
        QCOMPARE(m.tailNs, int64_t(200'000));
        QCOMPARE(m.tailIdleExits, uint64_t(1));
        QCOMPARE(m.tailIdleTimerDelayNs, int64_t(5'000));
        QCOMPARE(m.tailTimerDelayNs, int64_t(5'000));
        QCOMPARE(m.culprits.size(), size_t(2)); // the IRQ (from the table) and the task (from the worst only)
        QCOMPARE(m.culprits[0].tailNs, int64_t(60'000));
        QCOMPARE(m.culprits[0].totalNs, int64_t(70'000));
        QCOMPARE(m.culprits[1].tailNs, int64_t(100'000));
        QCOMPARE(m.culprits[1].tailWakeups, uint64_t(2));
    }

    void verdictFromThePhasesSpread()
    {
        std::string why;
        // Every B below every A, by more than the noise floor: helped.
        QCOMPARE(int(judgeTrial({phase(false, 300), phase(true, 40), phase(false, 280), phase(true, 45),
                                 phase(false, 310), phase(true, 42)},
                                why)),
                 int(Verdict::Helped));
        QVERIFY2(why.find("280.0–310.0 us") != std::string::npos, why.c_str());
        // Interleaved: no effect, even though B's mean is lower.
        QCOMPARE(int(judgeTrial({phase(false, 60), phase(true, 40), phase(false, 39), phase(true, 45), phase(false, 70),
                                 phase(true, 42)},
                                why)),
                 int(Verdict::NoEffect));
        // Every B above: hurt.
        QCOMPARE(int(judgeTrial({phase(false, 40), phase(true, 60), phase(false, 41), phase(true, 65), phase(false, 42),
                                 phase(true, 61)},
                                why)),
                 int(Verdict::Hurt));
        // In order but within a fraction of a microsecond: no effect.
        QCOMPARE(int(judgeTrial({phase(false, 40.5), phase(true, 40.1), phase(false, 40.6), phase(true, 40.2)}, why)),
                 int(Verdict::NoEffect));
        // One pair is never enough.
        QCOMPARE(int(judgeTrial({phase(false, 300), phase(true, 40)}, why)), int(Verdict::NotTried));
        PhaseFigures empty = phase(true, 0);
        empty.figures.samples = 0;
        QCOMPARE(int(judgeTrial({phase(false, 300), empty, phase(false, 300), phase(true, 1)}, why)),
                 int(Verdict::NotTried));
        // 5 pairs, one B phase above two A phases (a noisy phase): still helped (U = 23 of 25, p = 4/252).
        QCOMPARE(
            int(judgeTrial({phase(false, 300), phase(true, 40), phase(false, 280), phase(true, 45), phase(false, 310),
                            phase(true, 290), phase(false, 285), phase(true, 41), phase(false, 295), phase(true, 43)},
                           why)),
            int(Verdict::Helped));
        QVERIFY2(why.find("U = 23.0 of 25") != std::string::npos, why.c_str());
        // 3 pairs with that one crossing: no effect (p = 2/20 > 0.05).
        QCOMPARE(int(judgeTrial({phase(false, 300), phase(true, 40), phase(false, 280), phase(true, 290),
                                 phase(false, 310), phase(true, 42)},
                                why)),
                 int(Verdict::NoEffect));
        // The exact null distribution of U.
        QVERIFY(qAbs(mannWhitneyTail(3, 3, 9) - 1.0 / 20) < 1e-12);
        QVERIFY(qAbs(mannWhitneyTail(4, 4, 15) - 2.0 / 70) < 1e-12);
        QVERIFY(qAbs(mannWhitneyTail(5, 5, 21) - 12.0 / 252) < 1e-12);
        QVERIFY(qAbs(mannWhitneyTail(5, 5, 0) - 1.0) < 1e-12);
        QCOMPARE(mannWhitneyBelow({3, 4}, {1, 2}), 4.0);
        QCOMPARE(mannWhitneyBelow({1, 2}, {3, 4}), 0.0);
        QCOMPARE(mannWhitneyBelow({1}, {1}), 0.5);
    }

    void defaultRunFitsInTwoMinutes()
    {
        QVERIFY(phasePlan(DoctorDepth::Default).budgetNs() <= int64_t(110) * 1'000'000'000);
        QVERIFY(phasePlan(DoctorDepth::Quick).budgetNs() < phasePlan(DoctorDepth::Default).budgetNs());
        for (DoctorDepth d : {DoctorDepth::Quick, DoctorDepth::Default, DoctorDepth::Thorough})
            QVERIFY(phasePlan(d).pairs >= 3);
    }

    void interruptsParsed()
    {
        const std::string text = "           CPU0       CPU1       \n"
                                 " 36:          0     767251 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
                                 " 41:       9621          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
                                 "LOC:    4223054    5403032   Local timer interrupts\n"
                                 "ERR:          0\n";
        const auto rows = parseInterrupts(text);
        QCOMPARE(rows.size(), size_t(4));
        QCOMPARE(rows[0].irq, 36);
        QCOMPARE(QString::fromStdString(rows[0].name), QString("virtio1-req.0"));
        QCOMPARE(QString::fromStdString(rows[0].chip), QString("PCI-MSIX-0000:00:02.0 1-edge"));
        QCOMPARE(rows[0].counts, (std::vector<uint64_t>{0, 767251}));
        QCOMPARE(rows[2].irq, -1);
        QCOMPARE(QString::fromStdString(rows[2].name), QString("LOC (Local timer interrupts)"));
        QCOMPARE(rows[3].counts.size(), size_t(1));
        auto later = rows;
        later[0].counts[1] += 412;
        const auto since = interruptsSince(rows, later, 1);
        QCOMPARE(since.size(), size_t(4));
        QCOMPARE(since[0], uint64_t(412));
        QCOMPARE(since[1], uint64_t(0));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorDiagnosis)
#include "tst_doctor_diagnosis.moc"
