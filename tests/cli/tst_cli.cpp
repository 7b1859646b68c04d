// The `rtscope` command line end to end: exit codes, validation sentences, the cyclictest histogram file
// and JSON keys, and Ctrl-C writing partial results. Runs the real binary (RTSCOPE_BINARY from ctest).
#include "tests/common/cli_process.h"

#include "engine/formats/cyclictest_format.h"

#include "tests/common/test_main.h"
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <QDir>
#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>

using namespace rtscope;

using namespace rtscope::test;

namespace {} // namespace

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir; // where a refused run's output would have gone: a fixed path such as /tmp/x may exist
private slots:
    void initTestCase() { QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope"); }

    void versionAndHelp()
    {
        Run v = run({"--version"});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.out.startsWith("rtscope " RTSCOPE_VERSION));
        Run h = run({"--help"});
        QCOMPARE(h.exitCode, 0);
        QVERIFY(h.out.contains("latency"));
        Run lh = run({"latency", "--help"});
        QCOMPARE(lh.exitCode, 0);
        QVERIFY(lh.out.contains("--histfile"));
        QVERIFY(lh.out.contains("--waiter"));
    }

    void badInputExitsTwoNamingTheField_data()
    {
        addRefusalColumns();
        QTest::newRow("period too short")
            << QStringList{"latency", "--period", "5us"} << "period must be between 10.0 us and 10.000 s";
        QTest::newRow("period garbage") << QStringList{"latency", "--period", "fast"}
                                        << "period: 'fast' is not a duration";
        QTest::newRow("period zero") << QStringList{"latency", "--period", "0"} << "period must be between";
        QTest::newRow("hogs") << QStringList{"latency", "--hogs", "999"}
                              << "hogs must be between 0 and 256 per CPU (got 999)";
        QTest::newRow("hogs negative") << QStringList{"latency", "--hogs", "-3"} << "hogs must be between 0 and 256";
        QTest::newRow("hogs text") << QStringList{"latency", "--hogs", "many"} << "--hogs";
        QTest::newRow("priority") << QStringList{"latency", "--policy", "fifo", "-p", "120"}
                                  << "priority must be between 1 and 99";
        QTest::newRow("priority for other")
            << QStringList{"latency", "--policy", "other", "-p", "50"} << "priority must be 0 for other";
        QTest::newRow("policy") << QStringList{"latency", "--policy", "fast"} << "policy must be one of";
        QTest::newRow("cpu") << QStringList{"latency", "--cpu", "4096"} << "cpu must be one of the online CPUs";
        QTest::newRow("waiter") << QStringList{"latency", "--waiter", "sleepy"} << "waiter must be one of";
        QTest::newRow("duration garbage")
            << QStringList{"latency", "--duration", "soon"} << "duration: 'soon' is not a duration";
        QTest::newRow("duration and samples") << QStringList{"latency", "-D", "1s", "-l", "5"} << "excludes";
        QTest::newRow("hog policy fifo") << QStringList{"latency", "--hog-policy", "fifo"}
                                         << "hog-policy must be other, batch or idle";
        QTest::newRow("histfile without bins")
            << QStringList{"latency", "--histogram", "0", "--histfile", m_dir.filePath("run.hist")}
            << "histfile needs histogram bins";
        QTest::newRow("unknown flag") << QStringList{"latency", "--turbo"} << "turbo";
        QTest::newRow("unknown command") << QStringList{"lantency"} << "unknown command 'lantency'";
    }
    void badInputExitsTwoNamingTheField() { checkRefusalRow(); }

    // The shortest period, 10 µs (100 kHz): the ring holds 1.3 s of it, so a run loses nothing however late the
    // collector is drained (docs/BENCHMARKS.md "100 kHz live": a minute at FIFO 80, 0 lost).
    void shortestPeriodLosesNothing()
    {
        Run r = run({"latency", "-i", "10us", "-D", "2s", "-q"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(" 10.0 us "), qPrintable(r.out));
        QVERIFY2(r.out.contains("dropped samples 0   sequence gaps 0"), qPrintable(r.out));
        const QRegularExpressionMatch m = QRegularExpression(R"(, (\d+) samples in )").match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QVERIFY2(m.captured(1).toLongLong() > 1000, qPrintable(r.out)); // a loaded 2-CPU VM still wakes it 10k times
    }

    void histfileAndJsonAreCyclictestCompatible()
    {
        QTemporaryDir dir;
        const QString hist = dir.filePath("run.hist"), json = dir.filePath("run.json");
        Run r =
            run({"latency", "-i", "1ms", "-l", "300", "--histogram", "100", "--histfile", hist, "--json", json, "-q"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Summary:"), qPrintable(r.out));
        QVERIFY(r.out.contains("p99.9"));
        QVERIFY(r.out.contains("dropped samples 0"));

        const QByteArray text = readAll(hist);
        CyclictestData data;
        std::string error;
        QVERIFY2(parseCyclictestHistogram(text.toStdString(), data, error), error.c_str());
        QCOMPARE(data.threads.size(), size_t(1));
        QCOMPARE(data.threads[0].bins.size(), size_t(100));
        uint64_t total = data.threads[0].overflows;
        for (uint64_t b : data.threads[0].bins)
            total += b;
        QCOMPARE(total, uint64_t(300));
        QVERIFY(text.startsWith("# Histogram\n000000 ") || text.contains("\n# Histogram\n000000 "));
        QVERIFY(text.contains("\n# Total: "));
        QVERIFY(text.endsWith("\n\n"));

        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        for (const char* key :
             {"file_version", "cmdline:", "rt_test_version:", "sysinfo", "num_threads", "resolution_in_ns", "thread"})
            QVERIFY2(j.contains(key), key);
        const auto& t0 = j["thread"]["0"];
        for (const char* key : {"histogram", "cycles", "min", "max", "avg", "cpu"})
            QVERIFY2(t0.contains(key), key);
        QCOMPARE(t0["cycles"].get<uint64_t>(), uint64_t(300));
        QVERIFY(j["rtscope"]["config"]["period_ns"] == 1'000'000);
        QVERIFY(j["rtscope"]["threads"][0].contains("p99_9_ns"));
        QVERIFY(j["rtscope"]["probe"].contains("kernel_release"));
    }

    void interruptWritesPartialResults_data()
    {
        QTest::addColumn<int>("signal");
        // Every stop signal (kStopSignals, docs/cli.md): SIGQUIT and SIGUSR1/2 were blocked and never taken, so the run
        // went on to the end of -D.
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2})
            QTest::newRow(sigabbrev_np(sig)) << sig;
    }
    void interruptWritesPartialResults()
    {
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString json = dir.filePath("partial.json");
        qint64 afterMs = -1;
        const Run r = runAndInterrupt({"latency", "-i", "1ms", "--hogs", "2", "-D", "60s", "--json", json}, 700, signal,
                                      5000, &afterMs);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(afterMs < 2000, qPrintable(QString("exited %1 ms after the signal").arg(afterMs)));
        QVERIFY2(r.out.contains(QString("stopped by %1: partial results").arg(strsignal(signal))), qPrintable(r.out));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QVERIFY(j["thread"]["0"]["cycles"].get<uint64_t>() > 50);
        // The JSON is in place, and no temporary of it is left beside it.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"partial.json"});
    }

    void missingRtPrivilegeExitsThreeWithTheFix()
    {
        // An unprivileged user (nobody) with RLIMIT_RTPRIO 0 and no CAP_SYS_NICE cannot use SCHED_FIFO.
        MaybeSkip skip;
        const Run r = runWithoutRtPrivilege({"latency", "--policy", "fifo", "-p", "80", "-l", "10"}, skip);
        RTSCOPE_SKIP_IF(skip);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("RLIMIT_RTPRIO") || r.err.contains("rtprio"), qPrintable(r.err));
        QVERIFY2(r.err.contains("limits.d"), qPrintable(r.err));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
