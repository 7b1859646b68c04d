// `rtscope doctor` end to end on this machine (docs/doctor.md): the planted culprit (a SCHED_FIFO thread of this test
// process with a random name, bursting on the measured CPU above the measuring thread) found, moved, proven and put
// back by the CLI, with its --json, --report and --recipe; a second doctor refused while the first has a change
// applied; SIGKILL of the doctor in the middle of a trial, the guardian putting everything back within 2 s; the same
// with the guardian killed too, then --undo; --keep leaving the move that helped until --undo; --load CMD running
// during the measurement and stopped at the end; the run without privilege (diagnosis, exit 3); and bad flags (exit 2).
#include "engine/doctor/journal.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/cli_process.h"
#include "tests/common/doctor_test_util.h"
#include "tests/common/planted_culprit.h"
#include "tests/common/test_main.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <csignal>
#include <nlohmann/json.hpp>

using namespace rtscope;

namespace {

// The shortened phases the hidden flags allow: a whole doctor in seconds.
const QStringList kShort{"--baseline-length", "2s", "--phase-length", "1s", "--pairs", "2"};

std::string timerMigration()
{
    return test::realValue("/proc/sys/kernel/timer_migration");
}

// Waits up to @p ms for @p done; false when it did not come.
template <class F> bool waitFor(F&& done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms)
            return false;
        QThread::msleep(5);
    }
    return true;
}

// A doctor trying timer migration (a knob that outlives the process), started in the background; returns once the fix
// is applied (a B phase, after the first A phase). The B phase lasts 2 s, and what the callers do in it takes
// milliseconds.
bool startTimerTrial(QProcess& doctor)
{
    doctor.start(test::binary(), QStringList{"doctor", "--only", "timer-migration", "-q", "--baseline-length", "1s",
                                             "--phase-length", "2s", "--pairs", "2"});
    return doctor.waitForStarted() && waitFor([] { return timerMigration() == "0"; }, 30000);
}

} // namespace

// The start of the tests that kill a doctor in its timer-migration trial: root, the machine as it is with no doctor
// (declared as @p record), and timer migration on (else the finding they try does not arise).
#define TIMER_TRIAL_MACHINE(record)                                                                                    \
    if (geteuid() != 0)                                                                                                \
        RTSCOPE_SKIP(Root, "the doctor's trials need root (this machine's test runs have it)");                        \
    RTSCOPE_CLEAN_MACHINE(record);                                                                                     \
    if (record.before("/proc/sys/kernel/timer_migration") != "1")                                                      \
    RTSCOPE_SKIP(Kernel, "timer migration is off here: the finding these trials try does not arise")

class TestDoctorCli : public QObject {
    Q_OBJECT
private slots:
    void badFlagsAreRefusedWithASentence()
    {
        const QString a = test::refusalProblem({"doctor", "--cpu", "99"}, "rtscope doctor: cpu must be one of the "
                                                                          "usable CPUs");
        QVERIFY2(a.isEmpty(), qPrintable(a));
        const QString b =
            test::refusalProblem({"doctor", "--keep", "--no-trials"}, "rtscope doctor: keep needs the trials");
        QVERIFY2(b.isEmpty(), qPrintable(b));
        const QString c = test::refusalProblem({"doctor", "-p", "99"}, "rtscope doctor: priority must be 1..98");
        QVERIFY2(c.isEmpty(), qPrintable(c));
        const QString d = test::refusalProblem({"doctor", "--recipe", "/nonexistent-rtscope/recipe"},
                                               "rtscope doctor: recipe: the directory '/nonexistent-rtscope' for");
        QVERIFY2(d.isEmpty(), qPrintable(d));
        const test::Run e = test::run({"doctor", "--quick", "--thorough"});
        QCOMPARE(e.exitCode, 2);
    }

    void plantedCulpritByTheCli()
    {
        if (geteuid() != 0)
            RTSCOPE_SKIP(Root, "the doctor's trials need root (this machine's test runs have it)");
        RTSCOPE_CLEAN_MACHINE(machine);
        const int cpu = CpuTopology::current().lastUsable();
        RTSCOPE_PLANTED_CULPRIT(culprit, cpu);
        const std::vector<int> cpusBefore = test::threadCpus(culprit.tid());
        QTemporaryDir dir;
        const QString id = QString("thread-%1").arg(culprit.tid());
        const test::Run r = test::run({"doctor", "--only", id, "--baseline-length", "2s", "--phase-length", "250ms",
                                       "--pairs", "7", "--json", dir.filePath("d.json"), "--report",
                                       dir.filePath("d.html"), "--recipe", dir.filePath("recipe")},
                                      120000);
        qInfo("%s", qPrintable(r.out));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QString::fromStdString(culprit.name())), qPrintable(r.out));
        const nlohmann::json j = nlohmann::json::parse(test::readAll(dir.filePath("d.json")).toStdString());
        // First, unless another real-time thread (another program's, on this shared machine) outranks it.
        const nlohmann::json* found = nullptr;
        for (const nlohmann::json& f : j.at("findings")) {
            if (f.at("id").get<std::string>() == id.toStdString()) {
                found = &f;
                break;
            }
            const std::string title = f.at("title").get<std::string>();
            QVERIFY2(title.find("a real-time thread above the measuring thread") == 0, title.c_str());
        }
        QVERIFY2(found, qPrintable(r.out));
        const nlohmann::json& top = *found;
        QCOMPARE(top.at("fix").at("kind").get<std::string>(), std::string("thread-affinity"));
        QCOMPARE(top.at("trial").at("verdict").get<std::string>(), std::string("helped"));
        QVERIFY(top.at("trial").at("after").at("p99_us").get<double>() <
                top.at("trial").at("before").at("p99_us").get<double>());
        QVERIFY(test::readAll(dir.filePath("d.html")).contains(QByteArray::fromStdString(culprit.name())));
        QVERIFY(QFile::exists(dir.filePath("recipe/README.txt")));
        QCOMPARE(test::threadCpus(culprit.tid()), cpusBefore);
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }

    void secondDoctorRefusedThenSigkillRestoredByTheGuardian()
    {
        TIMER_TRIAL_MACHINE(machine);
        QProcess first;
        QVERIFY2(startTimerTrial(first), "the first doctor never applied its fix");
        // A second doctor: refused at once, nothing measured, nothing changed.
        QElapsedTimer t;
        t.start();
        const test::Run second = test::run(QStringList{"doctor", "--quick"});
        QCOMPARE(second.exitCode, 1);
        QVERIFY2(second.err.contains(QString("a doctor (PID %1").arg(first.processId())), qPrintable(second.err));
        QVERIFY2(second.err.contains("change(s) applied"), qPrintable(second.err));
        QVERIFY(t.elapsed() < 5000);
        QCOMPARE(timerMigration(), std::string("0"));
        // SIGKILL in the trial: the guardian restores and removes the journal within 2 s.
        t.restart();
        first.kill();
        first.waitForFinished();
        QVERIFY(waitFor(
            [&] {
                return machine.changed().isEmpty() &&
                       !QFile::exists(QString::fromStdString(doctor::JournalPaths{}.journal()));
            },
            2000));
        qInfo("restored by the guardian %lld ms after SIGKILL", t.elapsed());
    }

    void guardianKilledTooThenUndo()
    {
        TIMER_TRIAL_MACHINE(machine);
        QProcess first;
        QVERIFY2(startTimerTrial(first), "the doctor never applied its fix");
        const nlohmann::json journal = nlohmann::json::parse(
            test::readAll(QString::fromStdString(doctor::JournalPaths{}.journal())).toStdString());
        const pid_t guardian = journal.at("guardian").at("pid").get<pid_t>();
        QVERIFY(guardian > 0);
        QCOMPARE(::kill(guardian, SIGKILL), 0);
        first.kill();
        first.waitForFinished();
        QVERIFY(waitFor([&] { return ::kill(guardian, 0) != 0; }, 2000));
        QThread::msleep(300);
        QCOMPARE(timerMigration(), std::string("0")); // nobody left to put it back
        const test::Run undo = test::run({"doctor", "--undo"});
        QVERIFY2(undo.exitCode == 0, qPrintable(undo.err + undo.out));
        QVERIFY2(undo.out.contains("kernel.timer_migration: 0 -> 1"), qPrintable(undo.out));
        QCOMPARE(timerMigration(), std::string("1"));
        QVERIFY(machine.changed().isEmpty());
    }

    void keepLeavesWhatHelpedUntilUndo()
    {
        if (geteuid() != 0)
            RTSCOPE_SKIP(Root, "the doctor's trials need root (this machine's test runs have it)");
        RTSCOPE_CLEAN_MACHINE(machine);
        const QString journal = QString::fromStdString(doctor::JournalPaths{}.journal());
        // Whatever fails below, nothing kept outlives the test.
        auto undoLeftovers = qScopeGuard([&] {
            if (QFile::exists(journal))
                (void)test::run({"doctor", "--undo"});
        });
        const int cpu = CpuTopology::current().lastUsable();
        RTSCOPE_PLANTED_CULPRIT(culprit, cpu);
        const std::vector<int> cpusBefore = test::threadCpus(culprit.tid());
        QVERIFY(std::find(cpusBefore.begin(), cpusBefore.end(), cpu) != cpusBefore.end());
        const QString id = QString("thread-%1").arg(culprit.tid());
        const test::Run r = test::run({"doctor", "--only", id, "--keep", "-q", "--baseline-length", "2s",
                                       "--phase-length", "250ms", "--pairs", "7"},
                                      120000);
        qInfo("%s", qPrintable(r.out));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("Kept until reboot (rtscope doctor --undo puts them back):"), qPrintable(r.out));
        // Kept: the culprit stays off the measured CPU after the doctor is gone, and the journal says so.
        const std::vector<int> cpusKept = test::threadCpus(culprit.tid());
        QVERIFY(!cpusKept.empty());
        QVERIFY(std::find(cpusKept.begin(), cpusKept.end(), cpu) == cpusKept.end());
        QVERIFY(QFile::exists(journal));
        // A second doctor refuses while it is kept; --undo puts it back.
        const test::Run second = test::run(QStringList{"doctor", "--quick"} + kShort);
        QCOMPARE(second.exitCode, 1);
        QCOMPARE(test::threadCpus(culprit.tid()), cpusKept);
        const test::Run undo = test::run({"doctor", "--undo"});
        QVERIFY2(undo.exitCode == 0, qPrintable(undo.err + undo.out));
        QCOMPARE(test::threadCpus(culprit.tid()), cpusBefore);
        QVERIFY(!QFile::exists(journal));
        const QStringList changed = machine.changedWhenNoDoctor();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }

    void loadCommandRunsAndIsStopped()
    {
        QTemporaryDir dir;
        const QString pidFile = dir.filePath("load.pid");
        const test::Run r =
            test::run({"doctor", "--no-trials", "-q", "--baseline-length", "2s", "--json", dir.filePath("d.json"),
                       "--load", QString("echo $$ > %1; exec sleep 600").arg(pidFile)},
                      60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        // It ran during the measurement, and it is gone with the doctor.
        const pid_t load = test::readAll(pidFile).trimmed().toInt();
        QVERIFY2(load > 0, qPrintable(test::readAll(pidFile)));
        QVERIFY(waitFor([&] { return ::kill(load, 0) != 0; }, 2000));
        const nlohmann::json j = nlohmann::json::parse(test::readAll(dir.filePath("d.json")).toStdString());
        QVERIFY2(j.at("load").get<std::string>().find("command: echo") == 0, j.dump().c_str());
        // A named load, recorded as such.
        const test::Run hogs = test::run({"doctor", "--no-trials", "-q", "--baseline-length", "1s", "--json",
                                          dir.filePath("h.json"), "--load", "hogs"},
                                         60000);
        QVERIFY2(hogs.exitCode == 0, qPrintable(hogs.err + hogs.out));
        const nlohmann::json h = nlohmann::json::parse(test::readAll(dir.filePath("h.json")).toStdString());
        QVERIFY2(h.at("load").get<std::string>().find("hogs") == 0, h.dump().c_str());
    }

    void withoutPrivilegeItDiagnosesAndExits3()
    {
        test::MaybeSkip skip;
        const test::Run r = test::runWithoutRtPrivilege(QStringList{"doctor", "--quick"} + kShort, skip);
        RTSCOPE_SKIP_IF(skip);
        QVERIFY2(r.exitCode == 3, qPrintable(QString("exit %1: %2 %3").arg(r.exitCode).arg(r.err, r.out)));
        QVERIFY2(r.out.contains("Trials not run: the trials change /proc, /sys"), qPrintable(r.out));
        QVERIFY2(r.out.contains("not tried: the trials change"), qPrintable(r.out));
        QVERIFY2(r.out.contains("Baseline: p50"), qPrintable(r.out));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDoctorCli)
#include "tst_doctor_cli.moc"
