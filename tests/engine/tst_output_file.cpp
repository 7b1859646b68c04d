// ctest: parallel. Output-path checks in temp dirs.
#include "engine/formats/output_file.h"

#include "tests/common/data_rows.h"
#include "tests/common/forked_child.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::test;

namespace {

const QByteArray kOld = "the good old file\n";

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QStringList filesIn(const QTemporaryDir& dir)
{
    return QDir(dir.path()).entryList(QDir::Files | QDir::System | QDir::Hidden, QDir::Name);
}

std::string str(const QString& s)
{
    return s.toStdString();
}

} // namespace

class TestOutputFile : public QObject {
    Q_OBJECT

private slots:
    void aCommittedWriteReplacesTheFileAndLeavesNothingElse()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("out.hist");
        QVERIFY(writeBytes(out, kOld));
        const Error e = writeFileAtomically(str(out), "new\n");
        QVERIFY2(!e, e.message.c_str());
        QCOMPARE(readAll(out), QByteArray("new\n"));
        QCOMPARE(filesIn(dir), QStringList{"out.hist"});
    }

    void anInterruptedWriteLeavesTheOldFileIntact()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("out.csv");
        QVERIFY(writeBytes(out, kOld));
        {
            AtomicOutputFile file;
            QVERIFY(!file.open(str(out)));
            QVERIFY(!file.write("half of a new"));
            file.stream() << std::string(200'000, 'x'); // past the stream's buffer: bytes reach the temporary
            // While it is being written the old file is there, whole, and the new bytes are elsewhere.
            QCOMPARE(readAll(out), kOld);
            QCOMPARE(filesIn(dir).size(), 2);
            QVERIFY(QFileInfo(QString::fromStdString(file.temporaryPath())).size() > 0);
            // Going away without commit() is what a failure before the end does.
        }
        QCOMPARE(readAll(out), kOld);
        QCOMPARE(filesIn(dir), QStringList{"out.csv"});
    }

    void theStreamWritesEveryByte()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("big.csv");
        std::string expected;
        AtomicOutputFile file;
        QVERIFY(!file.open(str(out)));
        for (int i = 0; i < 50'000; ++i) {
            const std::string line = std::to_string(i) + ",some,row\n";
            expected += line;
            file.stream() << line;
        }
        QVERIFY(!file.commit());
        QCOMPARE(readAll(out), QByteArray::fromStdString(expected));
    }

    void aPathThatBecameALinkIsLeftAlone()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("run.hist");
        const QString victim = dir.filePath("victim");
        QVERIFY(writeBytes(victim, kOld));
        AtomicOutputFile file;
        QVERIFY(!file.open(str(out)));
        QVERIFY(!file.write("new"));
        QVERIFY(QFile::link(victim, out)); // planted while the file was written
        const Error e = file.commit();
        QVERIFY(e);
        QVERIFY2(QString::fromStdString(e.message).contains("became a symbolic link"), e.message.c_str());
        QCOMPARE(readAll(victim), kOld);
        QVERIFY(QFileInfo(out).isSymLink());
        QCOMPARE(filesIn(dir), (QStringList{"run.hist", "victim"}));
    }

    void aLinkIsNeverOpened()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("run.hist");
        const QString victim = dir.filePath("victim");
        QVERIFY(writeBytes(victim, kOld));
        QVERIFY(QFile::link(victim, out));
        const Error e = writeFileAtomically(str(out), "new");
        QVERIFY(e);
        QVERIFY2(QString::fromStdString(e.message).contains("is a symbolic link"), e.message.c_str());
        QCOMPARE(readAll(victim), kOld);
    }

    void theModeIsTheUmasksOrTheReplacedFiles()
    {
        QTemporaryDir dir;
        const mode_t old = ::umask(022);
        const QString fresh = dir.filePath("fresh");
        const QString secret = dir.filePath("secret");
        QVERIFY(writeBytes(secret, kOld));
        QVERIFY(::chmod(secret.toLocal8Bit().constData(), 0600) == 0);
        const bool written = !writeFileAtomically(str(fresh), "a") && !writeFileAtomically(str(secret), "b");
        ::umask(old);
        QVERIFY(written);
        struct stat st {};
        QVERIFY(::stat(fresh.toLocal8Bit().constData(), &st) == 0);
        QCOMPARE(int(st.st_mode & 0777), 0644);
        QVERIFY(::stat(secret.toLocal8Bit().constData(), &st) == 0);
        QCOMPARE(int(st.st_mode & 0777), 0600);
    }

    void checkOutputsNamesEachProblem()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("sub"));
        const QString input = dir.filePath("in.rtrec");
        QVERIFY(writeBytes(input, kOld));
        QVERIFY(QFile::link(input, dir.filePath("link")));
        QVERIFY(::link(input.toLocal8Bit().constData(), dir.filePath("hard").toLocal8Bit().constData()) == 0);

        OutputPlan plan;
        plan.addInput("the recording FILE", str(input));
        plan.addOutput("--histfile", str(dir.filePath("none/x")));
        plan.addOutput("--json", str(dir.filePath("sub")));
        plan.addOutput("--csv", str(dir.filePath("link")));
        plan.addOutput("--record", str(dir.filePath("hard")));
        plan.addOutput("--a", str(dir.filePath("same")));
        plan.addOutput("--b", str(dir.filePath("sub/../same")));
        plan.addOutput("--unused", "");
        plan.addOutput("--fine", str(dir.filePath("fine")));
        const QString all = joined(checkOutputs(plan));
        const QStringList expected{
            "--histfile: the directory '" + dir.filePath("none") + "' does not exist; create it first",
            "--json: '" + dir.filePath("sub") + "' is a directory",
            "--csv: '" + dir.filePath("link") + "' is a symbolic link",
            "--record: '" + dir.filePath("hard") + "' is the same file as the recording FILE ('" + input + "')",
            "--b: '" + dir.filePath("sub/../same") + "' is the same file as --a ('" + dir.filePath("same") + "')",
        };
        for (const QString& e : expected)
            QVERIFY2(all.contains(e), qPrintable("missing: " + e + "\ngot:\n" + all));
        QVERIFY2(!all.contains("--fine") && !all.contains("--unused"), qPrintable(all));
        QVERIFY2(!all.contains("--a:"), qPrintable(all)); // a pair is named once, at its second output
    }

    void checkOutputsAcceptsWhatCanBeWritten()
    {
        QTemporaryDir dir;
        QVERIFY(writeBytes(dir.filePath("old.json"), kOld));
        QVERIFY(checkOutput("--json", str(dir.filePath("old.json"))).empty());
        QVERIFY(checkOutput("--csv", str(dir.filePath("new.csv")), {{"--preset", "fifo-vs-other"}}).empty());
    }

    // A directory reached through a link (sharedlink -> elsewhere) is refused, by openat2 and by the walk alike:
    // the file in the other directory is not replaced.
    void aLinkedDirectoryIsNotFollowed_data()
    {
        test::addRows<int>("how", {{"openat2", int(DirectoryResolve::Kernel)}, {"walk", int(DirectoryResolve::Walk)}});
    }
    void aLinkedDirectoryIsNotFollowed()
    {
        QFETCH(int, how);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("elsewhere/sub"));
        QVERIFY(writeBytes(dir.filePath("elsewhere/target.csv"), kOld));
        QVERIFY(QFile::link(dir.filePath("elsewhere"), dir.filePath("sharedlink")));
        std::string why;
        int fd = openOutputDirectory(str(dir.filePath("elsewhere/sub")), why, DirectoryResolve(how));
        QVERIFY2(fd >= 0, why.c_str());
        ::close(fd);
        fd = openOutputDirectory(str(dir.filePath("sharedlink")), why, DirectoryResolve(how));
        QCOMPARE(fd, -1);
        QCOMPARE(errno, ELOOP);
        QVERIFY2(QString::fromStdString(why).contains("'" + dir.filePath("sharedlink") + "' is a symbolic link"),
                 why.c_str());
        fd = openOutputDirectory(str(dir.filePath("sharedlink/sub")), why, DirectoryResolve(how));
        QCOMPARE(fd, -1);
        QVERIFY2(QString::fromStdString(why).contains("is reached through the symbolic link '" +
                                                      dir.filePath("sharedlink") + "'"),
                 why.c_str());
        // A relative path is walked from the working directory, which is taken as it is.
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.path()));
        fd = openOutputDirectory("sharedlink/sub", why, DirectoryResolve(how));
        const int relativeErrno = errno;
        const int fine = openOutputDirectory("elsewhere/./sub/..", why, DirectoryResolve(how));
        QVERIFY(QDir::setCurrent(cwd));
        QCOMPARE(fd, -1);
        QCOMPARE(relativeErrno, ELOOP);
        QVERIFY2(fine >= 0, why.c_str());
        ::close(fine);

        const Error e = writeFileAtomically(str(dir.filePath("sharedlink/target.csv")), "new");
        QVERIFY(e);
        QCOMPARE(int(e.kind), int(ErrorKind::InvalidConfig));
        QCOMPARE(readAll(dir.filePath("elsewhere/target.csv")), kOld);
        QCOMPARE(QDir(dir.filePath("elsewhere")).entryList(QDir::Files | QDir::Hidden), QStringList{"target.csv"});
        const QString all = joined(checkOutput("--csv", str(dir.filePath("sharedlink/target.csv"))));
        QVERIFY2(all.contains("--csv: the directory '" + dir.filePath("sharedlink") + "' is a symbolic link"),
                 qPrintable(all));
    }

    void kernelFilesystemsAreRefused_data()
    {
        test::addRows<QString, QString>({"path", "filesystem"},
                                        {{"proc", "/proc/x.json", "proc"},
                                         {"sysfs", "/sys/x.rtrec", "sysfs"},
                                         {"tracefs", "/sys/kernel/tracing/t.dat", "tracefs"},
                                         {"cgroup2", "/sys/fs/cgroup/unified/x.csv", "cgroup2"}});
    }
    void kernelFilesystemsAreRefused()
    {
        QFETCH(QString, path);
        QFETCH(QString, filesystem);
        const QString all = joined(checkOutput("--json", str(path)));
        QVERIFY2(all.contains("--json: '" + path + "' is on " + filesystem + ", a filesystem of the kernel's"),
                 qPrintable(all));
    }
    void aDiskOrTmpfsIsNoKernelFilesystem()
    {
        QTemporaryDir dir;
        std::string why;
        const int fd = openOutputDirectory(str(dir.path()), why);
        QVERIFY2(fd >= 0, why.c_str());
        QCOMPARE(kernelFilesystemOf(fd), nullptr);
        ::close(fd);
        const int shm = openOutputDirectory("/dev/shm", why);
        QVERIFY2(shm >= 0, why.c_str());
        QCOMPARE(kernelFilesystemOf(shm), nullptr);
        ::close(shm);
    }

    // Root may write in any directory (access(2) answers for root with every capability it may have), so as root
    // the check runs in a child that became nobody, in a directory nobody may enter and not write.
    void checkOutputsRefusesAnUnwritableDirectory()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("ro"));
        QVERIFY(::chmod(dir.path().toLocal8Bit().constData(), 0755) == 0);
        QVERIFY(::chmod(dir.filePath("ro").toLocal8Bit().constData(), 0555) == 0);
        const std::string path = str(dir.filePath("ro/x.json"));
        QString all;
        if (::geteuid() != 0) {
            all = joined(checkOutput("--json", path));
        } else {
            QByteArray out;
            rtscope::test::answerOfForkedChild(
                [&path]() -> QByteArray {
                    const bool nobody = ::setresgid(65534, 65534, 65534) == 0 && ::setresuid(65534, 65534, 65534) == 0;
                    return nobody ? joined(checkOutput("--json", path)).toUtf8() : "could not become nobody";
                },
                out);
            if (QTest::currentTestFailed())
                return;
            all = QString::fromUtf8(out);
        }
        QVERIFY2(all.contains("--json: cannot create files in the directory"), qPrintable(all));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestOutputFile)
#include "tst_output_file.moc"
