// `rtscope doctor --undo` on a fake machine (the hidden --root and --journal-dir): exit 0 with nothing to undo, or
// after restoring a journal left behind (each change printed); exit 2 with one sentence, and nothing written, for a
// planted journal (a path outside the roots, with a terminal escape in it that reaches the terminal escaped); exit 1
// while a doctor holds the journal. The hidden guardian refuses to run without a doctor's descriptors, and the help
// shows neither it nor the hidden flags.
#include "engine/doctor/session.h"

#include "tests/common/cli_process.h"
#include "tests/common/doctor_test_util.h"
#include "tests/common/test_main.h"

#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

using namespace rtscope;
using namespace rtscope::doctor;
using rtscope::test::FakeMachine;

namespace {

struct UndoFixture : test::FakeDoctorDirs {
    QString journalFile() const { return journalDir.filePath("doctor.journal"); }
    QStringList undo() const
    {
        return {"doctor", "--undo", "--root", machineDir.path(), "--journal-dir", journalDir.path()};
    }
    bool plant(const nlohmann::json& changes) const
    {
        const nlohmann::json j{{"format", "rtscope-doctor-journal"},
                               {"version", 1},
                               {"boot_id", currentBootId()},
                               {"owner", {{"pid", 999999}, {"start_time", 1}}},
                               {"kept", false},
                               {"changes", changes}};
        QFile f(journalFile());
        if (!f.open(QIODevice::WriteOnly))
            return false;
        f.write(QByteArray::fromStdString(j.dump()));
        f.close();
        return ::chmod(journalFile().toLocal8Bit().constData(), 0600) == 0;
    }
};

nlohmann::json plantedChange(const std::string& kind, const std::string& target, const std::string& path,
                             const std::string& from, const std::string& to)
{
    return {{"kind", kind}, {"target", target}, {"path", path}, {"from", from}, {"to", to}, {"state", "applied"}};
}

} // namespace

class TestDoctorUndoCli : public QObject {
    Q_OBJECT
private slots:
    void nothingToUndo()
    {
        UndoFixture f;
        const test::Run r = test::run(f.undo());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Nothing to undo"), qPrintable(r.out));
    }

    void journalLeftBehindIsRestored()
    {
        UndoFixture f;
        f.machine.put("/sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
        f.machine.put("/proc/sys/kernel/timer_migration", "0\n");
        QVERIFY(f.plant(
            {plantedChange("sysctl", "kernel.timer_migration", "/proc/sys/kernel/timer_migration", "1", "0"),
             plantedChange("thp", "enabled", "/sys/kernel/mm/transparent_hugepage/enabled", "madvise", "never")}));
        const test::Run r = test::run(f.undo());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out, QString("thp enabled: never -> madvise (restored)\n"
                                "sysctl kernel.timer_migration: 0 -> 1 (restored)\n"
                                "Restored 2 setting(s); the journal %1 is removed.\n")
                            .arg(f.journalFile()));
        QCOMPARE(f.machine.get("/proc/sys/kernel/timer_migration"), std::string("1\n"));
        // The binary writes plain files here (the kernel would show "always [madvise] never").
        QCOMPARE(f.machine.get("/sys/kernel/mm/transparent_hugepage/enabled"), std::string("madvise\n"));
        QVERIFY(!QFile::exists(f.journalFile()));
    }

    void plantedJournalIsRefusedAndNothingWritten()
    {
        UndoFixture f;
        QVERIFY(
            f.plant({plantedChange("sysctl", "kernel.timer_migration", "/proc/sys/kernel/timer_migration", "1", "0"),
                     plantedChange("sysctl", "kernel.timer_migration\x1b[2J", "/etc/cron.d/x", "1", "0")}));
        const auto before = f.machine.snapshot();
        const test::Run r = test::run(f.undo());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
        QVERIFY2(r.err.startsWith("rtscope doctor: the journal " + f.journalFile() + " is refused: change 2"),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains("path '/etc/cron.d/x' is outside the paths the doctor may change"), qPrintable(r.err));
        QVERIFY2(r.err.trimmed().endsWith("nothing was changed"), qPrintable(r.err));
        QVERIFY(!r.err.contains('\x1b'));
        QVERIFY(f.machine.snapshot() == before);
        QVERIFY(QFile::exists(f.journalFile()));
    }

    void activeJournalIsLeftToItsDoctor()
    {
        UndoFixture f;
        auto s = DoctorSession::begin(f.machine, test::doctorOptions(f.journalDir.path(), "rtscope doctor"));
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        auto k = sysctlKnob(f.machine, "kernel.timer_migration", "0");
        QVERIFY(k);
        QVERIFY(!(*s)->apply(std::move(k).value()));
        const test::Run r = test::run(f.undo());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QString("a doctor (PID %1 (rtscope doctor)) has 1 change(s) applied").arg(getpid())),
                 qPrintable(r.err));
        QCOMPARE(f.machine.get("/proc/sys/kernel/timer_migration"), std::string("0\n")); // its doctor's to put back
        QVERIFY(!(*s)->finish());
        QCOMPARE(f.machine.get("/proc/sys/kernel/timer_migration"), std::string("1\n"));
    }

    void guardianNeedsADoctor()
    {
        UndoFixture f;
        const test::Run r = test::run({"doctor", "guardian", "--journal-dir", f.journalDir.path(), "--root", "/"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("this is started by a doctor"), qPrintable(r.err));
    }

    void helpHidesTheInternals()
    {
        const test::Run help = test::run({"doctor", "--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("--undo"));
        QVERIFY2(!help.out.contains("guardian") && !help.out.contains("--root") && !help.out.contains("--journal-dir"),
                 qPrintable(help.out));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestDoctorUndoCli)
#include "tst_doctor_undo_cli.moc"
