// `rtscope drift` and `rtscope sleep-floor` end to end: validation sentences with exit code 2, the table on
// stdout, the JSON and CSV files, and Ctrl-C writing partial results. Runs the real binary (RTSCOPE_BINARY).
#include "tests/common/cli_process.h"

#include "tests/common/test_main.h"
#include <QFile>
#include <QTemporaryDir>

#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>

using namespace rtscope::test;

namespace {} // namespace

class TestTimerCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope"); }

    void helpListsTheCommandsAndFlags()
    {
        const Run h = run({"--help"});
        QCOMPARE(h.exitCode, 0);
        QVERIFY(h.out.contains("drift"));
        QVERIFY(h.out.contains("sleep-floor"));
        const QStringList drift =
            missingFromHelp({"drift"}, {"--period", "--ticks", "--work", "--methods", "--slack", "--json", "--csv"});
        QVERIFY2(drift.isEmpty(), qPrintable(drift.join(' ')));
        const QStringList sleepFloor = missingFromHelp(
            {"sleep-floor"}, {"--requests", "--samples", "--methods", "--slack", "--policy", "--load", "--margin"});
        QVERIFY2(sleepFloor.isEmpty(), qPrintable(sleepFloor.join(' ')));
    }

    void badInputExitsTwoNamingTheField_data()
    {
        addRefusalColumns();
        QTest::newRow("period 0") << QStringList{"drift", "--period", "0"}
                                  << "rtscope drift: period must be between 100.0 us and 1.000 s (got 0 ns)";
        QTest::newRow("period garbage") << QStringList{"drift", "--period", "soon"}
                                        << "period: 'soon' is not a duration";
        QTest::newRow("negative work") << QStringList{"drift", "--work", "-100us"}
                                       << "work must be between 0 ns and 90 % of the period (900.0 us) (got -100.0 us)";
        QTest::newRow("work = period") << QStringList{"drift", "--period", "1ms", "--work", "1ms"}
                                       << "work must be between 0 ns and 90 % of the period (900.0 us) (got 1.00 ms)";
        QTest::newRow("work > period") << QStringList{"drift", "--period", "1ms", "--work", "2ms"}
                                       << "work must be between 0 ns and 90 % of the period";
        QTest::newRow("empty methods") << QStringList{"drift", "--methods", ""}
                                       << "--methods: an empty value is not allowed";
        QTest::newRow("empty methods, commas")
            << QStringList{"drift", "--methods", ",,"} << "methods must name at least one of";
        QTest::newRow("unknown method")
            << QStringList{"drift", "--methods", "naive,sundial"}
            << "methods: unknown method 'sundial'; choose from naive, abs, timerfd, itimer, "
               "posix";
        QTest::newRow("busy in drift") << QStringList{"drift", "--methods", "busy"} << "methods: unknown method 'busy'";
        QTest::newRow("ticks 0") << QStringList{"drift", "--ticks", "0"}
                                 << "ticks must be between 2 and 200000 (got 0)";
        QTest::newRow("ticks negative") << QStringList{"drift", "--ticks", "-3"}
                                        << "ticks must be between 2 and 200000 (got -3)";
        QTest::newRow("drift slack") << QStringList{"drift", "--slack", "-1ns"}
                                     << "slack must be between 0 (the default) and 1.000 s (got -1 ns)";
        QTest::newRow("drift priority") << QStringList{"drift", "--policy", "fifo", "-p", "0"}
                                        << "priority must be between 1 and 99 for fifo (got 0)";
        QTest::newRow("drift cpu") << QStringList{"drift", "--cpu", "4096"} << "cpu must be one of the online CPUs";
        QTest::newRow("ticks and duration") << QStringList{"drift", "--ticks", "5", "-D", "1s"} << "excludes";

        QTest::newRow("samples 0") << QStringList{"sleep-floor", "--samples", "0"}
                                   << "rtscope sleep-floor: samples must be between 1 and 100000 (got 0)";
        QTest::newRow("samples negative")
            << QStringList{"sleep-floor", "--samples", "-4"} << "samples must be between 1 and 100000 (got -4)";
        QTest::newRow("request negative") << QStringList{"sleep-floor", "--requests", "0,-1us"}
                                          << "requests must each be between 0 ns and 100.00 ms (got -1.0 us)";
        QTest::newRow("request too long") << QStringList{"sleep-floor", "--requests", "1s"}
                                          << "requests must each be between 0 ns and 100.00 ms (got 1.000 s)";
        QTest::newRow("request garbage") << QStringList{"sleep-floor", "--requests", "0,abit"}
                                         << "requests: 'abit' is not a duration";
        QTest::newRow("no requests") << QStringList{"sleep-floor", "--requests", ""}
                                     << "--requests: an empty value is not allowed";
        QTest::newRow("sleep empty methods")
            << QStringList{"sleep-floor", "--methods", ""} << "--methods: an empty value is not allowed";
        QTest::newRow("sleep unknown method") << QStringList{"sleep-floor", "--methods", "busy,naptime"}
                                              << "methods: unknown method 'naptime'; choose from nanosleep, rel, abs, "
                                                 "busy, hybrid";
        QTest::newRow("sleep slack") << QStringList{"sleep-floor", "--slack", "1s"}
                                     << "slack must be between 0 (the default) and 10.00 ms (got 1.000 s)";
        QTest::newRow("sleep policy") << QStringList{"sleep-floor", "--policy", "fast"} << "policy must be one of";
        QTest::newRow("margin") << QStringList{"sleep-floor", "--margin", "-1us"}
                                << "margin must be between 0 ns and 10.00 ms (got -1.0 us)";
    }
    void badInputExitsTwoNamingTheField() { checkRefusalRow(); }

    void everyProblemIsListed()
    {
        const Run r = run({"drift", "--period", "0", "--work", "-1us", "--methods", ",,"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("period must be between"));
        QVERIFY(r.err.contains("work must be between"));
        QVERIFY(r.err.contains("methods must name at least one"));
    }

    void driftWritesTableJsonAndCsv()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("drift.json"), csv = dir.filePath("drift.csv");
        const Run r = run({"drift", "--period", "1ms", "--ticks", "200", "--work", "100us", "--methods",
                           "naive,abs,timerfd,itimer,posix", "--slack", "1ns", "--json", json, "--csv", csv});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("drift (us)") && r.out.contains("rate (Hz)") && r.out.contains("missed"),
                 qPrintable(r.out));
        for (const char* m : {"\nnaive ", "\nabs ", "\ntimerfd ", "\nitimer ", "\nposix "})
            QVERIFY2(r.out.contains(m), m);
        QVERIFY(r.out.contains("timer slack in force: 1 ns"));
        QVERIFY(r.out.contains("dropped samples: 0"));

        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        const auto& rt = j["rtscope"];
        QCOMPARE(rt["experiment"].get<std::string>(), std::string("drift"));
        QCOMPARE(rt["config"]["period_ns"].get<int64_t>(), int64_t(1'000'000));
        QCOMPARE(rt["config"]["timer_slack_ns"].get<int64_t>(), int64_t(1));
        QVERIFY(rt["probe"].contains("kernel_release"));
        QCOMPARE(rt["methods"].size(), size_t(5));
        int64_t naiveDrift = 0, csvRowsExpected = 0;
        for (const auto& m : rt["methods"]) {
            for (const char* key : {"ticks", "missed_ticks", "drift_ns", "slope_ns_per_tick", "rate_hz", "rate_percent",
                                    "lateness_p50_ns", "lateness_p99_ns", "timer_slack_ns"})
                QVERIFY2(m.contains(key), key);
            // At least 200: a method that missed the final ticks answers the first one due after them.
            QVERIFY(m["ticks"].get<int64_t>() >= 200);
            QCOMPARE(m["wakes"].get<int64_t>() + m["missed_ticks"].get<int64_t>(), m["ticks"].get<int64_t>());
            csvRowsExpected += m["wakes"].get<int64_t>();
            if (m["method"] == "naive")
                naiveDrift = m["drift_ns"].get<int64_t>();
        }
        QVERIFY(naiveDrift >= 199 * 100'000);

        const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
        QCOMPARE(lines.front(), QByteArray("method,tick,wake_ns,drift_ns,lateness_ns,missed_before"));
        QCOMPARE(lines.size() - 1, csvRowsExpected); // one row per tick per method
        std::set<QByteArray> methods;
        for (int i = 1; i < lines.size(); ++i) {
            const QList<QByteArray> f = lines[i].split(',');
            QCOMPARE(f.size(), 6);
            methods.insert(f[0]);
        }
        QCOMPARE(methods.size(), size_t(5));
    }

    void sleepFloorWritesTableJsonAndCsv()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("floor.json"), csv = dir.filePath("floor.csv");
        const Run r = run({"sleep-floor", "--requests", "0,1ns,1us,100us", "--samples", "50", "--methods",
                           "nanosleep,rel,abs,busy,hybrid", "--json", json, "--csv", csv});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("median (us)") && r.out.contains("cpu/wait (us)"), qPrintable(r.out));
        QVERIFY(r.out.contains("clock_getres(CLOCK_MONOTONIC): "));
        QVERIFY(r.out.contains("measured floor (median for a 0 ns request): nanosleep"));
        QVERIFY(r.out.contains("timer slack in force: "));
        QVERIFY(r.out.contains("samples: 1000 of 1000"));

        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        const auto& rt = j["rtscope"];
        QCOMPARE(rt["experiment"].get<std::string>(), std::string("sleep-floor"));
        QVERIFY(rt["clock_resolution_ns"].get<int64_t>() > 0);
        QVERIFY(rt["timer_slack_ns"].get<int64_t>() >= 0);
        QCOMPARE(rt["cells"].size(), size_t(4 * 5));
        QVERIFY(rt["floor_ns"].contains("nanosleep") && rt["floor_ns"].contains("hybrid"));
        for (const auto& c : rt["cells"]) {
            for (const char* key : {"request_ns", "method", "samples", "p50_ns", "p99_ns", "max_ns", "overshoot_ns",
                                    "overshoot_ratio", "cpu_per_wait_ns", "cpu_share"})
                QVERIFY2(c.contains(key), key);
            QCOMPARE(c["samples"].get<int>(), 50);
            QCOMPARE(c["overshoot_ratio"].is_null(), c["request_ns"].get<int64_t>() == 0);
        }

        const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
        QCOMPARE(lines.front(), QByteArray("request_ns,method,sample,actual_ns,overshoot_ns,cpu_ns"));
        QCOMPARE(lines.size() - 1, 4 * 5 * 50); // one row per sample
    }

    void interruptWritesPartialResults_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("signal");
        QTest::newRow("drift SIGINT") << QStringList{"drift", "--period", "1ms", "--ticks", "100000"} << SIGINT;
        QTest::newRow("sleep-floor SIGTERM")
            << QStringList{"sleep-floor", "--requests", "10ms", "--samples", "5000"} << SIGTERM;
    }
    void interruptWritesPartialResults()
    {
        QFETCH(QStringList, args);
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString json = dir.filePath("partial.json");
        const Run r = runAndInterrupt(args + QStringList{"--json", json}, 600, signal);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("partial results"), qPrintable(r.out));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        QCOMPARE(j["rtscope"]["finished"].get<bool>(), false);
        if (j["rtscope"]["experiment"] == "drift")
            QVERIFY(j["rtscope"]["methods"][0]["wakes"].get<int64_t>() > 50);
        else
            QVERIFY(j["rtscope"]["samples_done"].get<int64_t>() > 5);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestTimerCli)
#include "tst_timer_cli.moc"
