// A doctor's session on a fake machine, with the real guardian (RTSCOPE_BINARY doctor guardian): every change is in
// the synced journal, with its value before, before the knob writes (write-ahead); finish() puts every knob back in
// reverse order, removes the journal and lets the guardian go; the cpuset partitions (v1 and v2) are made and removed
// again; a partition the kernel calls invalid is reverted at once; keep() leaves the changes for --undo; without its
// guardian a session changes nothing more; a second session is refused while one is active.
#include "engine/doctor/cpuset_partition.h"
#include "engine/doctor/session.h"

#include "tests/common/doctor_test_util.h"
#include "tests/common/test_main.h"

#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>

using namespace rtscope;
using namespace rtscope::doctor;
using rtscope::test::FakeMachine;

namespace {

struct SessionFixture : test::FakeDoctorDirs {
    DoctorSession::Options options = test::doctorOptions(journalDir.path());
    QString journalFile() const { return QString::fromStdString(options.paths.journal()); }
    /// The journal's changes as the file holds them now (a copy: the file is replaced whole on every change).
    nlohmann::json changes() const { return journal()["changes"]; }
    nlohmann::json journal() const
    {
        QFile f(journalFile());
        return f.open(QIODevice::ReadOnly) ? nlohmann::json::parse(f.readAll().toStdString(), nullptr, false)
                                           : nlohmann::json();
    }
};

bool waitUntilGone(const ProcessIdentity& p, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (p.alive() && t.elapsed() < timeoutMs)
        QThread::msleep(5);
    return !p.alive();
}

} // namespace

class TestDoctorSession : public QObject {
    Q_OBJECT
private slots:
    void everyChangeIsJournaledBeforeItIsMade()
    {
        SessionFixture f;
        QStringList seen;
        QStringList problems;
        f.machine.beforeWrite = [&](const std::string& path) {
            for (const auto& c : f.changes())
                if (c["path"] == path) {
                    seen << QString::fromStdString(path + " " + c["state"].get<std::string>() + " from " +
                                                   c["from"].get<std::string>());
                    return;
                }
            problems << QString::fromStdString(path + " written before it was journaled");
        };
        auto s = DoctorSession::begin(f.machine, f.options);
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        DoctorSession& session = **s;
        QVERIFY(session.guardian().alive());
        QCOMPARE(f.journal()["guardian"]["pid"].get<int>(), session.guardian().identity().pid);
        QVERIFY(!session.apply(test::knobOrNull(sysctlKnob(f.machine, "kernel.timer_migration", "0"))));
        QVERIFY(!session.apply(test::knobOrNull(irqAffinityKnob(f.machine, 24, {0}))));
        QVERIFY(!session.apply(test::knobOrNull(thpKnob(f.machine, "enabled", "never"))));
        QCOMPARE(session.applied().size(), size_t(3));
        QCOMPARE(f.changes().size(), size_t(3));
        for (const auto& c : f.changes())
            QCOMPARE(QString::fromStdString(c["state"].get<std::string>()), QString("applied"));
        QCOMPARE(f.machine.get("/proc/sys/kernel/timer_migration"), std::string("0\n"));
        const QStringList writes = seen;
        QCOMPARE(writes, QStringList({"/proc/sys/kernel/timer_migration applying from 1",
                                      "/proc/irq/24/smp_affinity_list applying from 0-1",
                                      "/sys/kernel/mm/transparent_hugepage/enabled applying from madvise"}));
        seen.clear();
        const ProcessIdentity guardian = session.guardian().identity();
        QVERIFY(!session.finish());
        // Reverted last first, each while its entry still said "applied".
        QCOMPARE(seen, QStringList({"/sys/kernel/mm/transparent_hugepage/enabled applied from madvise",
                                    "/proc/irq/24/smp_affinity_list applied from 0-1",
                                    "/proc/sys/kernel/timer_migration applied from 1"}));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QCOMPARE(f.machine.get("/proc/sys/kernel/timer_migration"), std::string("1\n"));
        QCOMPARE(f.machine.get("/proc/irq/24/smp_affinity_list"), std::string("0-1\n"));
        QCOMPARE(f.machine.get("/sys/kernel/mm/transparent_hugepage/enabled"), std::string("always [madvise] never\n"));
        QVERIFY(!QFile::exists(f.journalFile()));
        QVERIFY(waitUntilGone(guardian, 2000)); // released: it left without touching anything
        QCOMPARE(int(journalStatus(f.machine, f.options.paths).state), int(JournalState::None));
    }

    void cpusetV1Partition()
    {
        SessionFixture f;
        const CpusetHierarchies h = findCpusetHierarchies(f.machine);
        QCOMPARE(QString::fromStdString(h.v1), QString("/sys/fs/cgroup/cpuset"));
        auto knobs = doctor::cpusetV1Partition(f.machine, h.v1, 1);
        QVERIFY2(knobs, knobs ? "" : knobs.error().message.c_str());
        QCOMPARE(knobs->size(), size_t(9));
        auto s = DoctorSession::begin(f.machine, f.options);
        QVERIFY(s);
        const Error e = (*s)->applyAll(std::move(knobs).value());
        QVERIFY2(!e, e.message.c_str());
        const std::string iso = h.v1 + "/rtscope-doctor-isolated", hk = h.v1 + "/rtscope-doctor-housekeeping";
        QCOMPARE(f.machine.get(iso + "/cpuset.cpus"), std::string("1\n"));
        QCOMPARE(f.machine.get(iso + "/cpuset.mems"), std::string("0\n"));
        QCOMPARE(f.machine.get(iso + "/cpuset.cpu_exclusive"), std::string("1\n"));
        QCOMPARE(f.machine.get(iso + "/cpuset.sched_load_balance"), std::string("0\n"));
        QCOMPARE(f.machine.get(hk + "/cpuset.cpus"), std::string("0\n"));
        QCOMPARE(f.machine.get(h.v1 + "/cpuset.sched_load_balance"), std::string("0\n"));
        QVERIFY(!(*s)->finish());
        QVERIFY(!f.machine.has(iso));
        QVERIFY(!f.machine.has(hk));
        QCOMPARE(f.machine.get(h.v1 + "/cpuset.sched_load_balance"), std::string("1\n"));

        auto outside = doctor::cpusetV1Partition(f.machine, h.v1, 5);
        QVERIFY(!outside);
        QVERIFY2(test::textOf(outside.error()).contains("CPU 5 is not in the cpuset root's CPUs (0-1)"),
                 outside.error().message.c_str());
        f.machine.put(h.v1 + "/cpuset.cpus", "1\n");
        auto only = doctor::cpusetV1Partition(f.machine, h.v1, 1);
        QVERIFY(!only);
        QVERIFY(test::textOf(only.error()).contains("is the only CPU"));
    }

    void cpusetV2Partition()
    {
        SessionFixture f;
        const CpusetHierarchies h = findCpusetHierarchies(f.machine);
        QCOMPARE(QString::fromStdString(h.v2), QString("/sys/fs/cgroup/unified"));
        auto s = DoctorSession::begin(f.machine, f.options);
        QVERIFY(s);
        auto knobs = doctor::cpusetV2Partition(f.machine, h.v2, 1);
        QVERIFY(knobs);
        const Error e = (*s)->applyAll(std::move(knobs).value());
        QVERIFY2(!e, e.message.c_str());
        const std::string iso = h.v2 + "/rtscope-doctor-isolated";
        QCOMPARE(f.machine.get(h.v2 + "/cgroup.subtree_control"), std::string("cpuset memory\n"));
        QCOMPARE(f.machine.get(iso + "/cpuset.cpus"), std::string("1\n"));
        QCOMPARE(f.machine.get(iso + "/cpuset.cpus.partition"), std::string("isolated\n"));
        QVERIFY(!(*s)->finish());
        QVERIFY(!f.machine.has(iso));
        QCOMPARE(f.machine.get(h.v2 + "/cgroup.subtree_control"), std::string("memory\n"));
    }

    // The kernel accepts "isolated" and reads back "isolated invalid (reason)": the fix is undone at once, and the
    // sentence carries the kernel's reason.
    void invalidPartitionIsRevertedAtOnce()
    {
        SessionFixture f;
        f.machine.partitionsInvalid(true);
        auto s = DoctorSession::begin(f.machine, f.options);
        QVERIFY(s);
        auto knobs = doctor::cpusetV2Partition(f.machine, "/sys/fs/cgroup/unified", 1);
        QVERIFY(knobs);
        const Error e = (*s)->applyAll(std::move(knobs).value());
        QVERIFY(e);
        QVERIFY2(test::textOf(e).contains("reads back 'isolated invalid (Cpu list in cpuset.cpus not exclusive)'"),
                 e.message.c_str());
        QVERIFY((*s)->applied().empty());
        QVERIFY(!f.machine.has("/sys/fs/cgroup/unified/rtscope-doctor-isolated"));
        QCOMPARE(f.machine.get("/sys/fs/cgroup/unified/cgroup.subtree_control"), std::string("memory\n"));
        for (const auto& c : f.changes())
            QCOMPARE(QString::fromStdString(c["state"].get<std::string>()), QString("reverted"));
        QVERIFY(!(*s)->finish());
    }

    // As on this machine: cgroup2 without the cpuset controller, which v1 holds.
    void cpusetV2UnavailableSaysWhy()
    {
        SessionFixture f;
        f.machine.put("/sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
        const CpusetHierarchies h = findCpusetHierarchies(f.machine);
        QVERIFY(h.v2.empty());
        QCOMPARE(QString::fromStdString(h.v2Note),
                 QString("cgroup2 at /sys/fs/cgroup/unified offers no cpuset controller (it offers: hugetlb); cpuset "
                         "is bound to the v1 hierarchy at /sys/fs/cgroup/cpuset"));
        auto knobs = doctor::cpusetV2Partition(f.machine, "/sys/fs/cgroup/unified", 1);
        QVERIFY(!knobs);
        QCOMPARE(int(knobs.error().kind), int(ErrorKind::Unavailable));
    }

    void keepLeavesTheChangesForUndo()
    {
        SessionFixture f;
        auto s = DoctorSession::begin(f.machine, f.options);
        QVERIFY(s);
        QVERIFY(!(*s)->apply(test::knobOrNull(workqueueCpumaskKnob(f.machine, {0}))));
        QVERIFY(!(*s)->apply(test::knobOrNull(cpuDmaLatencyKnob(f.machine, 0))));
        const Error refused = (*s)->keep();
        QVERIFY(refused);
        QVERIFY2(test::textOf(refused).contains("ends with this process"), refused.message.c_str());
        QVERIFY(!(*s)->revert("cpu-dma-latency:held"));
        const ProcessIdentity guardian = (*s)->guardian().identity();
        QVERIFY(!(*s)->keep());
        QVERIFY(waitUntilGone(guardian, 2000));
        QCOMPARE(f.machine.get("/sys/devices/virtual/workqueue/cpumask"), std::string("1\n"));
        s->reset(); // kept: the destructor reverts nothing
        QCOMPARE(f.machine.get("/sys/devices/virtual/workqueue/cpumask"), std::string("1\n"));
        const JournalStatus status = journalStatus(f.machine, f.options.paths);
        QCOMPARE(int(status.state), int(JournalState::LeftBehind));
        QVERIFY2(QString::fromStdString(status.sentence).contains("kept on purpose"), status.sentence.c_str());
        const UndoReport r = undoJournal(f.machine, f.options.paths);
        QCOMPARE(int(r.outcome), int(UndoReport::Outcome::Restored));
        QCOMPARE(f.machine.get("/sys/devices/virtual/workqueue/cpumask"), std::string("3\n"));
    }

    void withoutItsGuardianNothingMoreIsChanged()
    {
        SessionFixture f;
        auto s = DoctorSession::begin(f.machine, f.options);
        QVERIFY(s);
        QVERIFY(!(*s)->apply(test::knobOrNull(sysctlKnob(f.machine, "kernel.timer_migration", "0"))));
        const ProcessIdentity guardian = (*s)->guardian().identity();
        QCOMPARE(::kill(guardian.pid, SIGKILL), 0);
        QVERIFY(waitUntilGone(guardian, 2000));
        const Error e = (*s)->apply(test::knobOrNull(thpKnob(f.machine, "enabled", "never")));
        QVERIFY(e);
        QVERIFY2(test::textOf(e).contains("has exited: nothing more is changed without it"), e.message.c_str());
        QCOMPARE(f.machine.get("/sys/kernel/mm/transparent_hugepage/enabled"), std::string("always [madvise] never\n"));
        const Error finished = (*s)->finish(); // still puts back what it changed; only the release fails
        QCOMPARE(f.machine.get("/proc/sys/kernel/timer_migration"), std::string("1\n"));
        QVERIFY(finished);
        QVERIFY(!QFile::exists(f.journalFile()));
    }

    void secondSessionIsRefusedWhileOneIsActive()
    {
        SessionFixture f;
        auto first = DoctorSession::begin(f.machine, f.options);
        QVERIFY(first);
        QVERIFY(!(*first)->apply(test::knobOrNull(sysctlKnob(f.machine, "kernel.watchdog", "0"))));
        const auto before = f.machine.snapshot();
        auto second = DoctorSession::begin(f.machine, test::doctorOptions(f.journalDir.path(), "second"));
        QVERIFY(!second);
        QCOMPARE(int(second.error().kind), int(ErrorKind::Unavailable));
        QCOMPARE(QString::fromStdString(second.error().message),
                 QString("a doctor (PID %1 (test)) has 1 change(s) applied; it, or its guardian, puts them back when "
                         "it ends")
                     .arg(::getpid()));
        QVERIFY(f.machine.snapshot() == before);
        QVERIFY(!(*first)->finish());
        auto third = DoctorSession::begin(f.machine, f.options);
        QVERIFY(third);
        QVERIFY(!(*third)->finish());
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorSession)
#include "tst_doctor_session.moc"
