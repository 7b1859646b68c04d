// The undo journal is root-owned state an attacker may have planted: a journal that is corrupt, of another format,
// version or boot, names an unknown kind of knob, a path outside the allowed roots (or not the one its target
// derives), a sysctl off the doctor's list or a value its knob does not take, or is a link or another user's file,
// is refused by --undo with one sentence, and nothing of the (fake) machine is written. A journal that passes is
// restored, last change first, and removed.
#include "engine/doctor/journal.h"
#include "engine/doctor/session.h"

#include "tests/common/data_rows.h"
#include "tests/common/doctor_test_util.h"
#include "tests/common/test_main.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::doctor;
using rtscope::test::FakeMachine;

namespace {

// A journal as a doctor of this boot would have left it: timer_migration 1 -> 0 and IRQ 24 0-1 -> 0, both applied,
// with the fake machine set to those values.
nlohmann::json leftJournal()
{
    const auto change = [](const char* kind, const char* target, const char* path, const char* from, const char* to) {
        return nlohmann::json{{"kind", kind}, {"target", target}, {"path", path},
                              {"from", from}, {"to", to},         {"state", "applied"}};
    };
    return {{"format", "rtscope-doctor-journal"},
            {"version", 1},
            {"boot_id", currentBootId()},
            {"owner", {{"pid", 999999}, {"start_time", 1}, {"command", "rtscope doctor"}}},
            {"kept", false},
            {"changes",
             {change("sysctl", "kernel.timer_migration", "/proc/sys/kernel/timer_migration", "1", "0"),
              change("irq-affinity", "24", "/proc/irq/24/smp_affinity_list", "0-1", "0")}}};
}

void applyLeftValues(FakeMachine& m)
{
    m.put("/proc/sys/kernel/timer_migration", "0\n");
    m.put("/proc/irq/24/smp_affinity_list", "0\n");
}

bool writeJournalText(const QString& path, const std::string& text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    f.write(text.data(), qint64(text.size()));
    f.close();
    return ::chmod(path.toLocal8Bit().constData(), 0600) == 0;
}

struct JournalFixture : test::FakeDoctorDirs {
    JournalPaths paths;
    JournalFixture() { paths.dir = journalDir.path().toStdString(); }
    QString journalFile() const { return QString::fromStdString(paths.journal()); }
};

} // namespace

class TestDoctorJournal : public QObject {
    Q_OBJECT
private slots:
    void journalLeftBehindIsRestoredAndRemoved()
    {
        JournalFixture f;
        applyLeftValues(f.machine);
        QVERIFY(writeJournalText(f.journalFile(), leftJournal().dump()));
        const JournalStatus status = journalStatus(f.machine, f.paths);
        QCOMPARE(int(status.state), int(JournalState::LeftBehind));
        QVERIFY2(QString::fromStdString(status.sentence).contains("'rtscope doctor --undo' puts them back"),
                 status.sentence.c_str());
        const UndoReport r = undoJournal(f.machine, f.paths);
        QCOMPARE(int(r.outcome), int(UndoReport::Outcome::Restored));
        QCOMPARE(r.lines.size(), size_t(2));
        // Last change first.
        QCOMPARE(QString::fromStdString(r.lines[0]), QString("irq-affinity 24: 0 -> 0-1 (restored)"));
        QCOMPARE(QString::fromStdString(r.lines[1]), QString("sysctl kernel.timer_migration: 0 -> 1 (restored)"));
        QCOMPARE(f.machine.get("/proc/sys/kernel/timer_migration"), std::string("1\n"));
        QCOMPARE(f.machine.get("/proc/irq/24/smp_affinity_list"), std::string("0-1\n"));
        QVERIFY(!QFile::exists(f.journalFile()));
        QCOMPARE(int(journalStatus(f.machine, f.paths).state), int(JournalState::None));
        QCOMPARE(int(undoJournal(f.machine, f.paths).outcome), int(UndoReport::Outcome::NothingToDo));
    }

    void plantedJournalsAreRefused_data()
    {
        // field: a JSON pointer into the journal; empty: the text replaces it
        // value: JSON
        // expected: in the sentence
        test::addRows<QString, QString, QString>(
            {"field", "value", "expected"},
            {{"not JSON", "", "{\"format\": ", "it is not JSON"},
             // Nested too deep for any reader to copy or dump it (json_text.h): refused before it is parsed.
             {"nested 100 000 deep", "",
              "{\"format\":\"rtscope-doctor-journal\",\"note\":" + QString(100000, '[') + QString(100000, ']') + "}",
              "it nests lists and objects 100001 levels deep; rtscope reads at most 64"},
             {"other format", "/format", "\"something-else\"", "its format is 'something-else'"},
             {"version 2", "/version", "2", "it is of version 2, and this rtscope reads version 1"},
             {"earlier boot", "/boot_id", "\"00000000-0000-0000-0000-000000000000\"",
              "it was written during another boot"},
             {"unknown kind", "/changes/0/kind", "\"shell-command\"",
              "change 1 is of kind 'shell-command', which is no kind of knob"},
             {"path outside the roots", "/changes/0/path", "\"/etc/passwd\"",
              "path '/etc/passwd' is outside the paths the doctor may change"},
             {"path climbing out", "/changes/0/path", "\"/proc/sys/../../etc/shadow\"",
              "is outside the paths the doctor may change"},
             {"path of another knob", "/changes/0/path", "\"/proc/sys/kernel/watchdog\"",
              "is not the path of sysctl kernel.timer_migration"},
             {"sysctl off the list", "/changes/0/target", "\"kernel.core_pattern\"",
              "target 'kernel.core_pattern' is not a sysctl the doctor may change"},
             {"value it does not take", "/changes/0/from", "\"|/tmp/evil\"",
              "from '|/tmp/evil' is not a value sysctl kernel.timer_migration"},
             {"cgroup dir not the doctor's", "/changes/1",
              R"({"kind":"cpuset-dir","target":"/sys/fs/cgroup/cpuset/system","path":"/sys/fs/cgroup/cpuset/system","from":"absent","to":"present","state":"applied"})",
              "is not a directory the doctor makes"},
             {"thread target", "/changes/1",
              R"({"kind":"thread-affinity","target":"1","path":"/proc/1/task/1","from":"0-1","to":"0","state":"applied"})",
              "target '1' is not a thread as TID@STARTTIME"},
             {"unknown state", "/changes/0/state", "\"half\"", "is in state 'half'"},
             {"missing from", "/changes/0/from", "null", "changes[0].from"},
             {"unknown field", "/script", "\"rm -rf /\"", "unknown field 'script'"}});
    }
    void plantedJournalsAreRefused()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        JournalFixture f;
        applyLeftValues(f.machine);
        std::string text = value.toStdString();
        if (!field.isEmpty()) {
            nlohmann::json j = leftJournal();
            const nlohmann::json v = nlohmann::json::parse(value.toStdString());
            const nlohmann::json::json_pointer ptr(field.toStdString());
            if (v.is_null())
                j[ptr.parent_pointer()].erase(ptr.back());
            else
                j[ptr] = v;
            text = j.dump();
        }
        QVERIFY(writeJournalText(f.journalFile(), text));
        const auto before = f.machine.snapshot();
        const JournalStatus status = journalStatus(f.machine, f.paths);
        QCOMPARE(int(status.state), int(JournalState::Refused));
        const UndoReport r = undoJournal(f.machine, f.paths);
        QCOMPARE(int(r.outcome), int(UndoReport::Outcome::Refused));
        const QString sentence = QString::fromStdString(r.sentence);
        QVERIFY2(sentence.startsWith("the journal " + f.journalFile() + " is refused: "), qPrintable(sentence));
        QVERIFY2(sentence.contains(expected), qPrintable(sentence));
        QVERIFY2(sentence.endsWith("nothing was changed"), qPrintable(sentence));
        QCOMPARE(f.machine.writes, 0);
        QVERIFY(f.machine.snapshot() == before);
        QVERIFY(QFile::exists(f.journalFile())); // a person looks at it
    }

    // The file itself: a link (to a journal that would pass), another user's, writable by others.
    void journalFilesNotOursAreRefused_data()
    {
        test::addRows<int, QString>({"how", "expected"},
                                    {{"symbolic link", 0, "is a symbolic link"},
                                     {"another user's", 1, "belongs to user 65534"},
                                     {"writable by others", 2, "is writable by its group or by others"},
                                     {"a directory", 3, "is not a regular file"}});
    }
    void journalFilesNotOursAreRefused()
    {
        QFETCH(int, how);
        QFETCH(QString, expected);
        JournalFixture f;
        applyLeftValues(f.machine);
        const QString elsewhere = f.journalDir.filePath("elsewhere.json");
        QVERIFY(writeJournalText(how == 0 ? elsewhere : f.journalFile(), leftJournal().dump()));
        if (how == 0)
            QVERIFY(QFile::link(elsewhere, f.journalFile()));
        else if (how == 1)
            QCOMPARE(::chown(f.journalFile().toLocal8Bit().constData(), 65534, 65534), 0);
        else if (how == 2)
            QCOMPARE(::chmod(f.journalFile().toLocal8Bit().constData(), 0666), 0);
        else {
            QVERIFY(QFile::remove(f.journalFile()));
            QVERIFY(QDir().mkdir(f.journalFile()));
        }
        const auto before = f.machine.snapshot();
        const UndoReport r = undoJournal(f.machine, f.paths);
        QCOMPARE(int(r.outcome), int(UndoReport::Outcome::Refused));
        QVERIFY2(QString::fromStdString(r.sentence).contains(expected), r.sentence.c_str());
        QCOMPARE(f.machine.writes, 0);
        QVERIFY(f.machine.snapshot() == before);
    }

    // While the lock is held (a doctor, or its guardian), --undo leaves the machine to it; so does a second doctor.
    void activeJournalIsLeftToItsOwner()
    {
        JournalFixture f;
        applyLeftValues(f.machine);
        QVERIFY(writeJournalText(f.journalFile(), leftJournal().dump()));
        Expected<JournalLock> lock = JournalLock::tryAcquire(f.paths);
        QVERIFY(lock);
        QVERIFY(!JournalLock::tryAcquire(f.paths));
        const JournalStatus status = journalStatus(f.machine, f.paths);
        QCOMPARE(int(status.state), int(JournalState::Active));
        QVERIFY2(QString::fromStdString(status.sentence)
                     .startsWith("a doctor (PID 999999 (rtscope doctor)) has 2 "
                                 "change(s) applied"),
                 status.sentence.c_str());
        const UndoReport r = undoJournal(f.machine, f.paths);
        QCOMPARE(int(r.outcome), int(UndoReport::Outcome::Active));
        QCOMPARE(f.machine.writes, 0);
        auto second = DoctorSession::begin(f.machine, test::doctorOptions(f.journalDir.path()));
        QVERIFY(!second);
        QCOMPARE(QString::fromStdString(second.error().message), QString::fromStdString(status.sentence));
        lock->release();
        QCOMPARE(int(journalStatus(f.machine, f.paths).state), int(JournalState::LeftBehind));
    }

    // A doctor killed between writing its journal's temporary and renaming it leaves "doctor.journal.partial-XXXXXX":
    // the next holder of the lock removes it, and nothing else (another name, a directory of that name).
    void staleJournalTemporariesAreSweptUnderTheLock()
    {
        JournalFixture f;
        const QString dir = f.journalDir.path();
        QVERIFY(writeJournalText(dir + "/doctor.journal.partial-AbC123", "{"));
        QVERIFY(writeJournalText(dir + "/doctor.journal.partial-toolong1", "{"));
        QVERIFY(writeJournalText(dir + "/notes.partial-AbC123", "{"));
        QVERIFY(QDir(dir).mkdir("doctor.journal.partial-dir456"));
        Expected<JournalLock> lock = JournalLock::tryAcquire(f.paths);
        QVERIFY(lock);
        QVERIFY(!QFile::exists(dir + "/doctor.journal.partial-AbC123"));
        QVERIFY(QFile::exists(dir + "/doctor.journal.partial-toolong1"));
        QVERIFY(QFile::exists(dir + "/notes.partial-AbC123"));
        QVERIFY(QFileInfo(dir + "/doctor.journal.partial-dir456").isDir());
    }

    void journalDirectoryOfAnotherUserIsRefused()
    {
        QTemporaryDir dir;
        JournalPaths paths;
        paths.dir = dir.filePath("rtscope").toStdString();
        QVERIFY(!prepareJournalDir(paths));
        QFileInfo made(QString::fromStdString(paths.dir));
        QCOMPARE(int(made.permissions() & (QFile::WriteOther | QFile::ReadOther | QFile::WriteGroup)), 0);
        QCOMPARE(::chmod(paths.dir.c_str(), 0777), 0);
        const Error e = prepareJournalDir(paths);
        QVERIFY(e);
        QVERIFY2(test::textOf(e).contains("is writable by its group or by others"), e.message.c_str());
    }

    // What the doctor writes, the guardian and --undo read back the same (format and canonical values).
    void writtenJournalReadsBack()
    {
        JournalFixture f;
        Journal j;
        j.bootId = currentBootId();
        j.owner = ProcessIdentity::self();
        j.command = "rtscope doctor \x1b[2J";
        j.guardian = ProcessIdentity{4242, 77};
        j.entries.push_back(
            {KnobChange{KnobKind::WorkqueueCpumask, "cpumask", "/sys/devices/virtual/workqueue/cpumask", "0-1", "0"},
             EntryState::Applying});
        QVERIFY(!prepareJournalDir(f.paths));
        QVERIFY(!writeJournal(f.paths, j));
        const auto text = readJournalFile(f.paths);
        QVERIFY(text && *text);
        const Expected<Journal> back = parseJournal(f.machine, **text);
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QCOMPARE(back->owner, j.owner);
        QCOMPARE(back->guardian->pid, 4242);
        QCOMPARE(back->command, j.command);
        QCOMPARE(back->entries.size(), size_t(1));
        QVERIFY(back->entries[0].change == j.entries[0].change);
        QCOMPARE(int(back->entries[0].state), int(EntryState::Applying));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorJournal)
#include "tst_doctor_journal.moc"
