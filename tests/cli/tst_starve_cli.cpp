// `rtscope starve` end to end: refusals with exit 2 and the field named, the per-burst table, --json and --csv,
// Ctrl-C during a burst writing partial results within moments, and exit 3 without RT privilege. Runs the real
// binary (RTSCOPE_BINARY from ctest); one spinner at a time, 300 ms bursts.
#include "tests/common/cli_process.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QFile>
#include <QTemporaryDir>

#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <sched.h>

using namespace rtscope;

using namespace rtscope::test;

namespace {} // namespace

class TestStarveCli : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

    rtscope::test::MaybeSkip m_missing; ///< why the real-time tests cannot run here

private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(binary()), "RTSCOPE_BINARY must point at the built rtscope");
        m_probe = probeSystem();
        // Before this thread pins itself below, while its affinity still shows every CPU the process may use.
        const CpuTopology cpus = CpuTopology::current();
        m_missing = rtscope::test::withoutFifo(m_probe);
        if (!m_missing && (!cpus.usable(0) || !cpus.usable(1)))
            m_missing = rtscope::test::Skip{rtscope::test::SkipKind::Cpus,
                                            "needs CPUs 0 and 1: the spinner on 1, the controller on 0"};
        // This process sends the signals and reads the pipes while CPU 1 is starved.
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(0, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }

    void helpListsTheCommand()
    {
        Run h = run({"--help"});
        QCOMPARE(h.exitCode, 0);
        QVERIFY(h.out.contains("starve"));
        const QStringList missing =
            missingFromHelp({"starve"}, {"--burst", "--gap", "--bursts", "--priority", "--counters", "--cpu", "--json",
                                         "--csv", "--reserve", "--control"});
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(' ')));
    }

    void badInputExitsTwoNamingTheField_data()
    {
        addRefusalColumns();
        QTest::newRow("burst over 5 s") << QStringList{"starve", "--burst", "6s"}
                                        << "burst must be between 10.00 ms and 5.000 s (got 6.000 s)";
        QTest::newRow("burst garbage") << QStringList{"starve", "--burst", "soon"} << "burst: 'soon' is not a duration";
        QTest::newRow("gap too short") << QStringList{"starve", "--gap", "1ms"} << "gap must be between 10.00 ms";
        QTest::newRow("spinner on CPU 0") << QStringList{"starve", "--cpu", "0"} << "cpu must not be a reserved CPU";
        QTest::newRow("everything reserved")
            << QStringList{"starve", "--reserve", "0-1"} << "is reserved for the controller";
        QTest::newRow("reserve garbage") << QStringList{"starve", "--reserve", "zero"} << "reserve: 'zero' is not";
        QTest::newRow("offline cpu") << QStringList{"starve", "--cpu", "4000"} << "cpu must be one of the online CPUs";
        QTest::newRow("counters") << QStringList{"starve", "--counters", "9"} << "counters must be between 1 and 8";
        QTest::newRow("priority 99") << QStringList{"starve", "-p", "99"} << "priority must be between 1 and 98";
        QTest::newRow("policy") << QStringList{"starve", "--policy", "other"} << "policy must be fifo or rr";
        QTest::newRow("bursts") << QStringList{"starve", "--bursts", "-1"} << "bursts must be between 1 and 1000";
        QTest::newRow("nice") << QStringList{"starve", "--nice", "30"} << "counter-nice must be between -20 and 19";
        QTest::newRow("sampler") << QStringList{"starve", "--sampler-priority", "90"}
                                 << "sampler-priority must be between 0 (SCHED_OTHER) and 79";
        QTest::newRow("control on the spinner")
            << QStringList{"starve", "--control-cpu", "1"} << "control-cpu must be a usable CPU other than the spinner";
    }
    void badInputExitsTwoNamingTheField()
    {
        if (CpuTopology::current().online.size() < 2)
            RTSCOPE_SKIP(Cpus, "a one-CPU machine refuses every placement first");
        Run r;
        if (!checkRefusalRow(&r))
            return;
        QVERIFY2(r.err.startsWith("rtscope starve: "), qPrintable(r.err));
    }

    void tableJsonAndCsv()
    {
        RTSCOPE_SKIP_IF(m_missing);
        QTemporaryDir dir;
        const QString json = dir.filePath("run.json"), csv = dir.filePath("run.csv");
        Run r = run({"starve", "--burst", "300ms", "--gap", "200ms", "--bursts", "1", "--control", "--json", json,
                     "--csv", csv});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("starved during"), qPrintable(r.out));
        QVERIFY(r.out.contains("# kernel "));
        QVERIFY(r.out.contains("fair server"));
        QVERIFY(r.out.contains("watchdog          never had to act"));
        // The row of burst 1: index, a spinner time, and 0 starved progress.
        const QRegularExpression row(R"(^\s+1\s+\d+\.\d+ ms\s+0\s+[\d,]+ in )", QRegularExpression::MultilineOption);
        QVERIFY2(row.match(r.out).hasMatch(), qPrintable(r.out));

        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        const auto& report = j["rtscope"];
        QCOMPARE(report["experiment"].get<std::string>(), std::string("starvation"));
        QCOMPARE(report["bursts"].size(), size_t(1));
        const auto& b = report["bursts"][0];
        QCOMPARE(b["starved_during"].get<uint64_t>(), uint64_t(0));
        QVERIFY(b["starved_after"].get<uint64_t>() > 0);
        QVERIFY(b["progress_during"][1].get<uint64_t>() > 0); // the control counter
        QVERIFY(b["windows"].empty());
        QVERIFY(report["kernel"].contains("sched_rt_period_us"));
        QVERIFY(report["kernel"]["fair_server"].contains("note"));
        QVERIFY(report["counters"][0]["rate_series"].size() > 30);
        QVERIFY(report["watchdog"]["trips"].empty());
        QVERIFY(report["probe"].contains("kernel_release"));

        const QStringList lines = QString::fromUtf8(readAll(csv)).trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + 2 + 2);
        QVERIFY(lines[0].startsWith("burst,counter,cpu,control,start_s,spinner_ms,progress_during"));
        QVERIFY2(lines[3].startsWith("1,counter 1,1,0,") && lines[3].section(',', 6, 6) == "0", qPrintable(lines[3]));
    }

    void interruptDuringABurstWritesPartialResults_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGINT") << SIGINT;
        QTest::newRow("SIGTERM") << SIGTERM;
    }
    void interruptDuringABurstWritesPartialResults()
    {
        RTSCOPE_SKIP_IF(m_missing);
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString json = dir.filePath("partial.json");
        qint64 exitedAfterMs = 0;
        // The signal comes 450 ms after the start: well inside the burst.
        const Run r = runAndInterrupt({"starve", "--burst", "1s", "--gap", "100ms", "--bursts", "1", "--json", json},
                                      450, signal, 3000, &exitedAfterMs);
        qInfo("exited %lld ms after the signal", (long long)exitedAfterMs);
        // Stopping takes < 100 ms; the rest is the probe and the JSON file.
        QVERIFY2(exitedAfterMs < 1000, qPrintable(QString::number(exitedAfterMs)));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("partial results"), qPrintable(r.out));
        const auto j = nlohmann::json::parse(readAll(json).toStdString());
        const auto& report = j["rtscope"];
        QVERIFY(report["interrupted"].get<bool>());
        QCOMPARE(report["bursts"].size(), size_t(1));
        QVERIFY(report["bursts"][0]["interrupted"].get<bool>());
        QVERIFY(report["bursts"][0]["spinner_ns"].get<int64_t>() < 1'000'000'000);
        QCOMPARE(report["bursts"][0]["starved_during"].get<uint64_t>(), uint64_t(0));
    }

    void missingRtPrivilegeExitsThree()
    {
        MaybeSkip skip;
        const Run r = runWithoutRtPrivilege({"starve", "--burst", "50ms", "--gap", "50ms", "--bursts", "1"}, skip);
        RTSCOPE_SKIP_IF(skip);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("RLIMIT_RTPRIO"), qPrintable(r.err));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestStarveCli)
#include "tst_starve_cli.moc"
