// `rtscope locks` and `rtscope inversion` end to end: exit codes, validation sentences, the JSON and CSV exports,
// Ctrl-C writing partial results, and exit 3 without real-time privilege. Runs the real binary.
#include "tests/common/cli_process.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QFile>
#include <QTemporaryDir>

#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace rtscope::test;

class TestLocksCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope"); }

    void helpListsBothCommands()
    {
        Run h = run({"--help"});
        QCOMPARE(h.exitCode, 0);
        QVERIFY(h.out.contains("locks"));
        QVERIFY(h.out.contains("inversion"));
        const QStringList locks =
            missingFromHelp({"locks"}, {"--kinds", "--threads", "--hold", "--work", "--duration", "--spin-limit",
                                        "--no-steal", "--json", "--csv", "--placement"});
        QVERIFY2(locks.isEmpty(), qPrintable(locks.join(' ')));
        const QStringList inversion =
            missingFromHelp({"inversion"}, {"--lock", "--medium-burst", "--hold", "--period", "--duration", "--json"});
        QVERIFY2(inversion.isEmpty(), qPrintable(inversion.join(' ')));
    }

    void badInputExitsTwoNamingTheField_data()
    {
        addRefusalColumns();
        QTest::newRow("threads") << QStringList{"locks", "--threads", "1"}
                                 << "threads must be between 2 and 32 (got 1)";
        QTest::newRow("threads text") << QStringList{"locks", "--threads", "many"} << "--threads";
        QTest::newRow("hold") << QStringList{"locks", "--hold", "2ms"}
                              << "hold must be between 0 ns and 1.00 ms (got 2.00 ms)";
        QTest::newRow("hold garbage") << QStringList{"locks", "--hold", "short"} << "hold: 'short' is not a duration";
        QTest::newRow("work") << QStringList{"locks", "--work", "5ms"} << "work must be between 0 ns and 1.00 ms";
        QTest::newRow("kind") << QStringList{"locks", "--kinds", "mutex,ticket"}
                              << "kinds: 'ticket' is not a lock kind";
        QTest::newRow("ceiling") << QStringList{"locks", "--kinds", "ceiling"}
                                 << "kinds: ceiling is not a contention kind";
        QTest::newRow("duration") << QStringList{"locks", "-D", "1ms"}
                                  << "duration must be between 10.00 ms and 3600.000 s per kind";
        QTest::newRow("placement") << QStringList{"locks", "--placement", "everywhere"}
                                   << "placement must be spread or one-cpu";
        QTest::newRow("fifo spread") << QStringList{"locks", "--policy", "fifo", "-p", "10", "--kinds", "mutex"}
                                     << "placement must be one-cpu with policy fifo";
        QTest::newRow("fifo spin") << QStringList{"locks", "--policy", "fifo", "-p", "10", "--placement", "one-cpu"}
                                   << "kinds: spin cannot run with policy fifo";
        QTest::newRow("spin limit") << QStringList{"locks", "--spin-limit", "-1"}
                                    << "spin-limit must be between 0 and 10000000 (got -1)";
        QTest::newRow("lock") << QStringList{"inversion", "--lock", "spin"}
                              << "lock must be mutex, pi or ceiling (got spin)";
        QTest::newRow("lock garbage") << QStringList{"inversion", "--lock", "semaphore"}
                                      << "lock must be mutex, pi or ceiling (got 'semaphore')";
        QTest::newRow("burst") << QStringList{"inversion", "--medium-burst", "2s"}
                               << "medium-burst must be between 100.0 us and 1.000 s (got 2.000 s)";
        QTest::newRow("hold vs period") << QStringList{"inversion", "--hold", "60ms"}
                                        << "hold must be at most half the period (got 60.00 ms with period 100.00 ms)";
        QTest::newRow("period") << QStringList{"inversion", "--period", "1ms"}
                                << "period must be between 10.00 ms and 10.000 s (got 1.00 ms)";
        QTest::newRow("priorities") << QStringList{"inversion", "--low-priority", "40"}
                                    << "priorities must rise from low to medium to high";
        QTest::newRow("inversion cpu 0") << QStringList{"inversion", "--cpu", "0"} << "cpu must not be 0";
        QTest::newRow("inversion duration")
            << QStringList{"inversion", "-D", "soon"} << "duration: 'soon' is not a duration";
    }
    void badInputExitsTwoNamingTheField() { checkRefusalRow(); }

    void locksWritesJsonAndCsv()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("locks.json"), csv = dir.filePath("locks.csv");
        Run r = run({"locks", "--kinds", "mutex,adaptive", "--threads", "2", "--hold", "500ns", "--work", "1us", "-D",
                     "200ms", "--json", json, "--csv", csv, "-q"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Summary:"), qPrintable(r.out));
        QVERIFY(r.out.contains("acquisition paths"));
        QVERIFY(r.out.contains("dropped samples 0"));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QCOMPARE(j["experiment"].get<std::string>(), std::string("locks"));
        QCOMPARE(j["config"]["threads"].get<int>(), 2);
        QCOMPARE(j["config"]["hold_ns"].get<int64_t>(), int64_t(500));
        QCOMPARE(j["kinds"].size(), size_t(2));
        for (const auto& k : j["kinds"]) {
            QCOMPARE(k["state"].get<std::string>(), std::string("done"));
            QVERIFY(k["acquisitions"].get<uint64_t>() > 0);
            for (const char* key : {"acquisitions_per_s", "ratio_vs_mutex", "wait", "voluntary_switches",
                                    "involuntary_switches", "cpu_ns_per_acquisition", "fairness", "paths", "threads"})
                QVERIFY2(k.contains(key), key);
            QCOMPARE(k["threads"].size(), size_t(2));
        }
        QCOMPARE(j["kinds"][0]["ratio_vs_mutex"].get<double>(), 1.0);
        QVERIFY(j["probe"].contains("kernel_release"));
        const QStringList lines = QString::fromUtf8(readAll(csv)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[0].startsWith("kind,state,threads,hold_ns,work_ns,elapsed_s,acquisitions,acquisitions_per_s,"
                                    "ratio_vs_mutex"));
        QVERIFY(lines[1].startsWith("mutex,done,2,500,1000,"));
        QVERIFY(lines[2].startsWith("adaptive,done,2,500,1000,"));
    }

    void locksInterruptWritesPartialResults()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("partial.json");
        const Run r = runAndInterrupt({"locks", "--kinds", "mutex,spin", "-D", "20s", "--json", json}, 700, SIGINT);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("partial results"), qPrintable(r.out));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QCOMPARE(j["kinds"][0]["state"].get<std::string>(), std::string("stopped"));
        QVERIFY(j["kinds"][0]["acquisitions"].get<uint64_t>() > 0);
        QCOMPARE(j["kinds"][1]["state"].get<std::string>(), std::string("pending"));
    }

    void inversionWritesJsonAndTimeline()
    {
        RTSCOPE_SKIP_IF(withoutFifo(rtscope::probeSystem())); // the inversion lab's three threads are FIFO
        QTemporaryDir dir;
        const QString json = dir.filePath("inv.json"), csv = dir.filePath("timeline.csv");
        Run r = run({"inversion", "--lock", "mutex", "--medium-burst", "20ms", "--hold", "1ms", "--period", "40ms",
                     "-D", "400ms", "--json", json, "--csv", csv, "-q"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Summary: mutex"), qPrintable(r.out));
        QVERIFY(r.out.contains("worst period"));
        QVERIFY2(r.out.contains("medium |"), qPrintable(r.out)); // the text timeline
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QCOMPARE(j["experiment"].get<std::string>(), std::string("inversion"));
        QCOMPARE(j["config"]["lock"].get<std::string>(), std::string("mutex"));
        QVERIFY(j["high"]["periods"].get<uint64_t>() >= 5);
        QVERIFY(j["high"]["wait"]["max_ns"].get<int64_t>() >= 18'000'000); // reached the 20 ms burst
        QVERIFY(j["timeline"].size() > 10);
        QCOMPARE(j["periods"].size(), size_t(j["high"]["periods"].get<uint64_t>()));
        const QStringList lines = QString::fromUtf8(readAll(csv)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QString("lane,state,start_s,end_s,duration_us"));
        QCOMPARE(lines.size() - 1, int(j["timeline"].size()));
    }

    void inversionInterruptWritesPartialResults()
    {
        RTSCOPE_SKIP_IF(withoutFifo(rtscope::probeSystem())); // the inversion lab's three threads are FIFO
        QTemporaryDir dir;
        const QString json = dir.filePath("partial.json");
        const Run r = runAndInterrupt({"inversion", "--lock", "pi", "-D", "30s", "--period", "50ms", "--json", json},
                                      600, SIGTERM);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("partial results"), qPrintable(r.out));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QVERIFY(j["high"]["periods"].get<uint64_t>() >= 3);
    }

    void missingRtPrivilegeExitsThree_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("inversion") << QStringList{"inversion", "-D", "200ms"};
        QTest::newRow("locks fifo") << QStringList{"locks", "--kinds",     "mutex",   "--policy", "fifo", "-p",
                                                   "10",    "--placement", "one-cpu", "-D",       "100ms"};
    }
    void missingRtPrivilegeExitsThree()
    {
        QFETCH(QStringList, args);
        MaybeSkip skip;
        const Run r = runWithoutRtPrivilege(args, skip);
        RTSCOPE_SKIP_IF(skip);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("RLIMIT_RTPRIO") || r.err.contains("rtprio"), qPrintable(r.err));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestLocksCli)
#include "tst_locks_cli.moc"
