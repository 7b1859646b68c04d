// The doctor's whole loop on this machine (engine/doctor/doctor_run.h), with a planted culprit: a SCHED_FIFO thread
// with a random name bursting on the measured CPU above the measuring thread. The doctor names it first, tries moving
// it, the alternated trial says it helped (the phases with the move rank below those without), and
// afterwards the thread's CPUs and priority and every knob of the machine read back as before; the journal is gone.
// The events a GUI page follows arrive in order: the baseline, each phase started and finished (A B A B …), the
// verdict, the end. Also: a stop in the middle of a trial (requestStop(), returning at once) is seen within the stop
// budget and puts everything back.
#include "engine/doctor/doctor_run.h"

#include "tests/common/doctor_test_util.h"
#include "tests/common/planted_culprit.h"
#include "tests/common/test_main.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <functional>
#include <mutex>
#include <sched.h>

using namespace rtscope;
using namespace rtscope::doctor;

namespace {

DoctorPlan shortPlan(int cpu)
{
    DoctorPlan p;
    p.cpu = cpu;
    p.phases.baselineNs = 2'000'000'000;
    // Seven short pairs rather than five long ones: this VM stalls for milliseconds now and then, which can lift one
    // phase's p99 whatever the fix; the rank test over 7 + 7 phases takes one or two such phases in its stride. A
    // phase of 250 wake-ups is enough against the planted culprit, which delays four in ten of them by milliseconds.
    p.phases.phaseNs = 250'000'000;
    p.phases.pairs = 7;
    p.phases.settleNs = 50'000'000;
    p.journal.dir = kDefaultJournalDir; // the tests that change the real machine take turns through its lock
    p.guardian.executable = qEnvironmentVariable("RTSCOPE_BINARY").toStdString();
    p.guardian.arguments = {"doctor", "guardian"};
    p.command = "tst_doctor_run";
    return p;
}

QString findingsText(const DoctorReport& r)
{
    return QString::fromStdString(reportTable(r));
}

// The events of a run, gathered on the loop's thread.
class EventLog {
public:
    std::function<void(const DoctorEvent&)> sink()
    {
        return [this](const DoctorEvent& e) {
            std::lock_guard lock(m_mutex);
            m_events.push_back(e);
        };
    }
    std::vector<DoctorEvent> events() const
    {
        std::lock_guard lock(m_mutex);
        return m_events;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<DoctorEvent> m_events;
};

int policyOf(pid_t tid, int& priority)
{
    sched_param sp{};
    sched_getparam(tid, &sp);
    priority = sp.sched_priority;
    return sched_getscheduler(tid);
}

} // namespace

class TestDoctorRun : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (geteuid() != 0)
            RTSCOPE_SKIP(Root, "the doctor's trials need root (this machine's test runs have it)");
        if (CpuTopology::current().online.size() < 2)
            RTSCOPE_SKIP(Cpus, "the doctor needs two CPUs");
    }

    void plantedCulpritIsNamedMovedProvenAndPutBack()
    {
        const int cpu = CpuTopology::current().lastUsable();
        // Wait for any other doctor (another test) to end before reading what the machine is without one.
        RTSCOPE_CLEAN_MACHINE(machine);
        RTSCOPE_PLANTED_CULPRIT(culprit, cpu);
        const std::vector<int> cpusBefore = test::threadCpus(culprit.tid());
        int prioBefore = 0;
        const int policyBefore = policyOf(culprit.tid(), prioBefore);
        QCOMPARE(policyBefore, SCHED_FIFO);

        DoctorPlan plan = shortPlan(cpu);
        const std::string id = "thread-" + std::to_string(culprit.tid());
        plan.only = {id};
        DoctorRun run;
        EventLog events;
        run.setEvents(events.sink());
        QVERIFY(!run.start(plan));
        QVERIFY(run.wait(120000));
        const auto report = run.report();
        QVERIFY(report);
        QVERIFY2(report->error.empty(), report->error.c_str());
        qInfo("%s", qPrintable(findingsText(*report)));

        // Named, first, with its random name and a share of the worst wake-ups.
        QVERIFY(!report->findings.empty());
        // First, unless another real-time thread (another program's, on this shared machine) outranks it.
        auto it = report->findings.begin();
        for (; it != report->findings.end() && it->id != id; ++it)
            QVERIFY2(it->title.find("a real-time thread above the measuring thread") == 0, it->title.c_str());
        QVERIFY(it != report->findings.end());
        const Finding& top = *it;
        QVERIFY2(top.title.find(culprit.name()) != std::string::npos, top.title.c_str());
        QVERIFY2(top.title.find("above the measuring thread") != std::string::npos, top.title.c_str());
        QVERIFY(top.tailShare > 0.3);
        QCOMPARE(int(top.fix.kind), int(FixKind::ThreadAffinity));
        // Tried: moving it helped, p99 fell in every phase pair.
        QCOMPARE(QString(verdictName(top.trial.verdict)), QString("helped"));
        QCOMPARE(top.trial.phases.size(), size_t(14));
        QVERIFY(top.trial.after.p99Us < top.trial.before.p99Us);
        QVERIFY(top.trial.restored);
        QVERIFY2(report->restore.empty(), report->restore.empty() ? "" : report->restore.front().c_str());
        // Put back: the thread's CPUs and priority, every knob, no journal.
        QCOMPARE(test::threadCpus(culprit.tid()), cpusBefore);
        int prioAfter = 0;
        QCOMPARE(policyOf(culprit.tid(), prioAfter), policyBefore);
        QCOMPARE(prioAfter, prioBefore);
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
        QVERIFY(!QFile::exists(QString::fromStdString(JournalPaths{}.journal())));
        // The events: the baseline, then 14 phases started and finished in turn (A B A B …) with the figures the
        // report has, the verdict, the end.
        const std::vector<DoctorEvent> seen = events.events();
        QCOMPARE(seen.size(), size_t(1 + 2 * 14 + 2));
        QCOMPARE(int(seen.front().kind), int(DoctorEvent::Kind::BaselineDone));
        for (int i = 0; i < 14; ++i) {
            const DoctorEvent& started = seen[size_t(1 + 2 * i)];
            const DoctorEvent& finished = seen[size_t(2 + 2 * i)];
            QCOMPARE(int(started.kind), int(DoctorEvent::Kind::PhaseStarted));
            QCOMPARE(int(finished.kind), int(DoctorEvent::Kind::PhaseFinished));
            QCOMPARE(started.finding, id);
            QCOMPARE(started.phase, i);
            QCOMPARE(finished.phase, i);
            QCOMPARE(finished.phases, 14);
            QCOMPARE(finished.figures.withFix, i % 2 == 1);
            QCOMPARE(finished.figures.figures.p99Us, top.trial.phases[size_t(i)].figures.p99Us);
        }
        QCOMPARE(int(seen[29].kind), int(DoctorEvent::Kind::TrialJudged));
        QCOMPARE(seen[29].finding, id);
        QCOMPARE(int(seen[29].verdict), int(top.trial.verdict));
        QCOMPARE(seen[29].why, top.trial.why);
        QCOMPARE(int(seen.back().kind), int(DoctorEvent::Kind::Finished));
        QCOMPARE(int(seen.back().stage), int(DoctorStage::Done));
        // Only what was asked for was tried.
        for (const Finding& f : report->findings)
            if (f.id != id)
                QCOMPARE(int(f.trial.verdict), int(Verdict::NotTried));
    }

    // hold: the fix that helped stays applied in a session the caller takes; a second doctor is refused meanwhile;
    // revertAll() puts it back and ends the journal. Plans that cannot hold are refused with the field named.
    void holdLeavesWhatHelpedToTheCallerUntilReverted()
    {
        DoctorPlan bad = shortPlan(0);
        bad.hold = true;
        bad.tryFixes = false;
        std::vector<std::string> problems = bad.validate(CpuTopology::current());
        QVERIFY(!problems.empty() && problems.front().find("hold needs the trials") != std::string::npos);
        bad.tryFixes = true;
        bad.keep = true;
        problems = bad.validate(CpuTopology::current());
        QVERIFY(!problems.empty() && problems.front().find("keep and hold exclude each other") != std::string::npos);

        const int cpu = CpuTopology::current().lastUsable();
        RTSCOPE_CLEAN_MACHINE(machine);
        // The planted culprit (5 ms of every 11.3 ms at FIFO 90): its move shows in every phase pair.
        RTSCOPE_PLANTED_CULPRIT(culprit, cpu);
        const std::vector<int> cpusBefore = test::threadCpus(culprit.tid());
        DoctorPlan plan = shortPlan(cpu);
        const std::string id = "thread-" + std::to_string(culprit.tid());
        plan.only = {id};
        plan.hold = true;
        DoctorRun run;
        QVERIFY(!run.start(plan));
        QVERIFY(run.wait(120000));
        const auto report = run.report();
        QVERIFY(report && report->error.empty());
        const auto it = std::find_if(report->findings.begin(), report->findings.end(),
                                     [&](const Finding& f) { return f.id == id; });
        QVERIFY(it != report->findings.end());
        qInfo("%s", it->trial.why.c_str());
        for (const PhaseFigures& ph : it->trial.phases)
            qInfo("phase %s: p50 %.1f p99 %.1f max %.1f us, %llu wake-ups", ph.withFix ? "B" : "A", ph.figures.p50Us,
                  ph.figures.p99Us, ph.figures.maxUs, (unsigned long long)ph.figures.samples);
        QCOMPARE(QString(verdictName(it->trial.verdict)), QString("helped"));
        std::unique_ptr<HeldFixes> held = run.takeHeld();
        QVERIFY(held);
        QVERIFY(!run.takeHeld()); // taken once
        QVERIFY(held->active());
        QCOMPARE(held->findings(), std::vector<std::string>{id});
        const std::vector<std::string> changes = held->changes();
        QCOMPARE(changes.size(), size_t(1));
        QVERIFY2(changes.front().find(culprit.name()) != std::string::npos, changes.front().c_str());
        const std::vector<int> cpusHeld = test::threadCpus(culprit.tid());
        QVERIFY(std::find(cpusHeld.begin(), cpusHeld.end(), cpu) == cpusHeld.end());
        QVERIFY(QFile::exists(QString::fromStdString(JournalPaths{}.journal())));
        // Held, the machine is not as it was: another doctor refuses before it measures.
        DoctorRun second;
        const Error refused = second.start(shortPlan(cpu));
        QVERIFY(refused);
        QVERIFY2(!refused.message.empty(), "the refusal says why");
        QVERIFY(!held->revertAll());
        QVERIFY(!held->active());
        QVERIFY(held->changes().empty());
        QCOMPARE(test::threadCpus(culprit.tid()), cpusBefore);
        QVERIFY(!QFile::exists(QString::fromStdString(JournalPaths{}.journal())));
        culprit.stop();
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }

    void stopInATrialPutsEverythingBack()
    {
        const int cpu = CpuTopology::current().lastUsable();
        RTSCOPE_CLEAN_MACHINE(machine);
        DoctorPlan plan = shortPlan(cpu);
        plan.phases.baselineNs = 1'000'000'000;
        plan.phases.phaseNs = 2'000'000'000;
        plan.only = {"timer-migration"};
        if (machine.before("/proc/sys/kernel/timer_migration") != "1")
            RTSCOPE_SKIP(Kernel, "timer migration is off here: the finding this stop test tries does not arise");
        DoctorRun run;
        EventLog events;
        run.setEvents(events.sink());
        QVERIFY(!run.start(plan));
        // Until the fix is applied (a B phase): the journal says so and the machine has it.
        QElapsedTimer t;
        t.start();
        while (test::realValue("/proc/sys/kernel/timer_migration") != "0" && t.elapsed() < 30000 && run.running())
            QThread::msleep(5);
        QCOMPARE(test::realValue("/proc/sys/kernel/timer_migration"), std::string("0"));
        QElapsedTimer stopping;
        stopping.start();
        // A GUI's Cancel: returns at once, the loop ends by itself.
        run.requestStop();
        QVERIFY2(stopping.elapsed() < 50, qPrintable(QString::number(stopping.elapsed())));
        // The measurement is joined within 100 ms; the revert and the guardian's release come on top.
        QVERIFY(run.wait(1000));
        QVERIFY2(stopping.elapsed() < 1000, qPrintable(QString::number(stopping.elapsed())));
        QVERIFY(!run.running());
        run.stop();
        const std::vector<DoctorEvent> seen = events.events();
        QVERIFY(!seen.empty());
        QCOMPARE(int(seen.back().kind), int(DoctorEvent::Kind::Finished));
        QCOMPARE(int(seen.back().stage), int(DoctorStage::Stopped));
        QVERIFY(std::none_of(seen.begin(), seen.end(),
                             [](const DoctorEvent& e) { return e.kind == DoctorEvent::Kind::TrialJudged; }));
        QCOMPARE(test::realValue("/proc/sys/kernel/timer_migration"), std::string("1"));
        const auto report = run.report();
        QVERIFY(report->stopped);
        QVERIFY(report->restore.empty());
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorRun)
#include "tst_doctor_run.moc"
