// ctest: parallel. Output-path refusals; 1 s bound where a refusal takes ms; runs are fixed-count.
// Every output of the CLI is checked before anything runs, never written through a symbolic link, never over a file
// the command reads or another output, and put in place by a rename: with the real binary.
#include "tests/common/cli_process.h"

#include "tests/common/test_main.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace rtscope::test;

namespace {

constexpr int kFastMs = 1000; // a refusal comes before any measuring: well within a second
const QByteArray kPrecious = "precious bytes, not to be touched\n";

bool writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

} // namespace

class TestOutputPathsCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

    // Runs @p args, which would measure for 30 s, and checks the refusal: exit code 2 within a second, @p expected
    // on stderr, nothing measured.
    void checkFastRefusal(const QStringList& args, const QString& expected)
    {
        QElapsedTimer timer;
        timer.start();
        const Run r = run(args, 5000);
        const qint64 ms = timer.elapsed();
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit code %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(ms < kFastMs, qPrintable(QString("refused after %1 ms").arg(ms)));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY2(!r.out.contains("Summary"), qPrintable(r.out));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir(m_dir.path()).mkdir("adir"));
        const Run r = run({"latency", "--period", "500us", "--samples", "200", "-q", "--record", path("run.rtrec")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    void aBadOutputIsRefusedBeforeMeasuring_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QStringList latency{"latency", "-D", "30s", "-q"};
        for (const char* flag : {"--histfile", "--json", "--csv", "--record"}) {
            QTest::addRow("latency %s, no directory", flag)
                << latency + QStringList{flag, "/nonexistent/x"}
                << QString("%1: the directory '/nonexistent' does not exist").arg(flag);
            QTest::addRow("latency %s, a directory", flag)
                << latency + QStringList{flag, path("adir")}
                << QString("%1: '%2' is a directory").arg(flag, path("adir"));
        }
        QTest::newRow("sweep --json") << QStringList{"sweep",  "--settings",         "other", "--each", "30s",
                                                     "--json", "/nonexistent/x.json"}
                                      << "--json: the directory '/nonexistent' does not exist";
        QTest::newRow("starve --csv") << QStringList{"starve", "--bursts", "0", "--csv", "/nonexistent/x.csv"}
                                      << "--csv: the directory '/nonexistent' does not exist";
        QTest::newRow("run --json") << QStringList{"run", "--preset", "fifo-vs-other", "--json", "/nonexistent/x"}
                                    << "--json: the directory '/nonexistent' does not exist";
        QTest::newRow("replay --histfile") << QStringList{"replay", path("run.rtrec"), "--histfile", "/nonexistent/x"}
                                           << "--histfile: the directory '/nonexistent' does not exist";
    }
    void aBadOutputIsRefusedBeforeMeasuring()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        checkFastRefusal(args, expected);
    }

    void replayNeverWritesOverItsRecording_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("spelling");
        for (const char* flag : {"--csv", "--histfile", "--json"}) {
            QTest::addRow("%s, same path", flag) << flag << path("run.rtrec");
            QTest::addRow("%s, another spelling", flag) << flag << path("adir/../run.rtrec");
        }
    }
    void replayNeverWritesOverItsRecording()
    {
        QFETCH(QString, flag);
        QFETCH(QString, spelling);
        const QByteArray before = readAll(path("run.rtrec"));
        QVERIFY(!before.isEmpty());
        const Run r = run({"replay", path("run.rtrec"), flag, spelling});
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit code %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains(flag + ": '" + spelling + "' is the same file as the recording FILE"),
                 qPrintable(r.err));
        QCOMPARE(readAll(path("run.rtrec")), before);
    }

    void twoOutputsNamingOneFileAreRefused_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<bool>("exists");
        QTest::newRow("--csv w --record w") << QStringList{"--csv", "w", "--record", "w"} << false;
        QTest::newRow("--histfile F --json F") << QStringList{"--histfile", "F", "--json", "F"} << true;
        QTest::newRow("--json F --csv ./F") << QStringList{"--json", "F", "--csv", "./F"} << true;
    }
    void twoOutputsNamingOneFileAreRefused()
    {
        QFETCH(QStringList, flags);
        QFETCH(bool, exists);
        QTemporaryDir dir;
        const QString target = dir.filePath(flags[1]);
        if (exists)
            QVERIFY(writeBytes(target, kPrecious));
        QStringList args{"latency", "-D", "30s", "-q"};
        for (int i = 0; i < flags.size(); i += 2)
            args << flags[i] << dir.filePath(flags[i + 1]);
        checkFastRefusal(args, flags[2] + ": '" + dir.filePath(flags[3]) + "' is the same file as " + flags[0]);
        if (exists)
            QCOMPARE(readAll(target), kPrecious);
        else
            QVERIFY(!QFileInfo::exists(target));
    }

    void aSymbolicLinkIsNotWrittenThrough_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("flag");
        QTest::newRow("latency --histfile") << QStringList{"latency", "--samples", "50", "-q"} << "--histfile";
        QTest::newRow("latency --record") << QStringList{"latency", "--samples", "50", "-q"} << "--record";
        QTest::newRow("replay --csv") << QStringList{"replay", path("run.rtrec")} << "--csv";
        QTest::newRow("drift --json") << QStringList{"drift", "--ticks", "5"} << "--json";
    }
    void aSymbolicLinkIsNotWrittenThrough()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, flag);
        QTemporaryDir dir;
        const QString victim = dir.filePath("victim");
        const QString link = dir.filePath("run.out");
        QVERIFY(writeBytes(victim, kPrecious));
        QVERIFY(QFile::link(victim, link));
        const Run r = run(args + QStringList{flag, link});
        QVERIFY2(r.exitCode == 2, qPrintable(QString("exit code %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains(flag + ": '" + link + "' is a symbolic link"), qPrintable(r.err));
        QCOMPARE(readAll(victim), kPrecious);
        QVERIFY(QFileInfo(link).isSymLink());
    }

    void theRecordingAppearsOnlyWhenTheRunEnds()
    {
        // The run streams into a temporary next to the recording; Ctrl-C still puts the partial recording in place.
        QTemporaryDir dir;
        const QString rec = dir.filePath("w.rtrec");
        QVERIFY(writeBytes(rec, kPrecious));
        QProcess p;
        p.start(binary(), {"latency", "-i", "1ms", "-q", "--record", rec});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QDir(dir.path()).entryList({"w.rtrec.partial-*"}, QDir::Files).size() == 1, 5000);
        QTest::qWait(300);
        QCOMPARE(readAll(rec), kPrecious); // the old file, whole, while the run goes on
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(5000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(readAll(rec).startsWith("RTSCREC\n"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"w.rtrec"});
        const Run replay = run({"replay", rec, "-q"});
        QVERIFY2(replay.exitCode == 0, qPrintable(replay.err));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestOutputPathsCli)
#include "tst_output_paths_cli.moc"
