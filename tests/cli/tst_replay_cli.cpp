// ctest: parallel. Recording with a fixed sample count, replayed and compared byte for byte.
// `rtscope latency --record/--csv` and `rtscope replay` end to end with the real binary: a recorded run converts
// to the very histogram the run itself wrote, the CSV holds every sample, and a file that is not a recording,
// or is cut short, gets a sentence and its exit code.
#include "tests/common/cli_process.h"

#include "engine/formats/cyclictest_format.h"

#include "tests/common/test_main.h"
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace rtscope;

using namespace rtscope::test;

namespace {

/// Runs rtscope with TMPDIR set to @p tmpdir (where the CLI puts its temporary recording).
Run runWithTmpdir(const QStringList& args, const QString& tmpdir)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("TMPDIR", tmpdir);
    return rtscope::test::run(args, 30000, binary(), env);
}

} // namespace

class TestReplayCli : public rtscope::test::CliTest {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        setUp();
        // One recorded run for the whole test: 1000 samples at 500 µs under SCHED_OTHER (no privilege needed).
        const Run r = run({"latency", "--period", "500us", "--samples", "1000", "-q", "--record", path("run.rtrec"),
                           "--histfile", path("run.hist"), "--json", path("run.json"), "--csv", path("run.csv")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    void replayConvertsToWhatTheRunWrote()
    {
        const Run r = run({"replay", path("run.rtrec"), "--histfile", path("replay.hist"), "--json",
                           path("replay.json"), "--csv", path("replay.csv")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("# replay of " + path("run.rtrec") + ": recorded "));
        QVERIFY(r.out.contains("start: OTHER"));
        QVERIFY(r.out.contains("1000 samples in"));
        // Byte for byte the histogram the live run wrote, without the machine identity the live run adds after the
        // footer (docs/ci.md), and the same CSV.
        const QByteArray liveHist = readAll(path("run.hist"));
        const qsizetype identity = liveHist.indexOf("\n# rtscope ");
        QVERIFY(identity > 0);
        QCOMPARE(readAll(path("replay.hist")), liveHist.left(identity + 1) + "\n");
        QCOMPARE(readAll(path("replay.csv")), readAll(path("run.csv")));
        const QList<QByteArray> rows = readAll(path("run.csv")).trimmed().split('\n');
        QCOMPARE(rows.size(), 1001);
        QCOMPARE(rows.first(), QByteArray("cpu,seq,deadline_ns,wake_ns,latency_ns,skipped_periods,epoch"));
        CyclictestData data;
        std::string error;
        QVERIFY(parseCyclictestJson(readAll(path("replay.json")).toStdString(), data, error));
        QCOMPARE(data.threads.front().cycles, uint64_t(1000));
        const nlohmann::json j = nlohmann::json::parse(readAll(path("replay.json")).toStdString());
        QCOMPARE(j["rtscope"]["recording"]["samples_not_kept"].get<uint64_t>(), uint64_t(0));
        QVERIFY(j["rtscope"]["recording"]["complete"].get<bool>());
        // The command is the recorded one, not this replay's.
        QVERIFY(j["cmdline:"].get<std::string>().find("latency --period 500us") != std::string::npos);
        QVERIFY(j["cmdline:"].get<std::string>().find("--record") != std::string::npos);
        // The live run's own JSON and the replay's agree on the figures.
        const nlohmann::json live = nlohmann::json::parse(readAll(path("run.json")).toStdString());
        QCOMPARE(j["thread"]["0"]["histogram"], live["thread"]["0"]["histogram"]);
        QCOMPARE(j["rtscope"]["threads"][0]["max_ns"], live["rtscope"]["threads"][0]["max_ns"]);
    }

    void csvAloneLeavesNoTemporaryRecording()
    {
        QTemporaryDir tmp;
        const Run r = runWithTmpdir(
            {"latency", "--period", "500us", "--samples", "200", "-q", "--csv", path("alone.csv")}, tmp.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(readAll(path("alone.csv")).trimmed().split('\n').size(), 201);
        QVERIFY(QDir(tmp.path()).entryList(QDir::Files).isEmpty());
    }

    void aTruncatedRecordingSaysSoAndExitsOne()
    {
        const QByteArray full = readAll(path("run.rtrec"));
        QFile cut(path("cut.rtrec"));
        QVERIFY(cut.open(QIODevice::WriteOnly | QIODevice::Truncate));
        cut.write(full.left(full.size() / 2));
        cut.close();
        const Run r = run({"replay", path("cut.rtrec"), "--histfile", path("cut.hist")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("truncated after "), qPrintable(r.err));
        QVERIFY(readAll(path("cut.hist")).startsWith("# rtscope: incomplete: truncated after "));
    }

    void notARecordingIsBadInput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        const QString data = qEnvironmentVariable("RTSCOPE_SOURCE_DIR") + "/tests/data/";
        QTest::newRow("cyclictest json") << data + "cyclictest_t2.json"
                                         << "not an rtscope recording";
        QTest::newRow("missing") << path("missing.rtrec") << "File does not exist";
    }

    void notARecordingIsBadInput()
    {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const Run r = run({"replay", file});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void helpListsTheConversions()
    {
        const Run r = run({"replay", "--help"});
        QCOMPARE(r.exitCode, 0);
        for (const char* flag : {"--histfile", "--json", "--csv", "--histogram"})
            QVERIFY2(r.out.contains(flag), flag);
        const Run latency = run({"latency", "--help"});
        QVERIFY(latency.out.contains("--record") && latency.out.contains("--csv"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestReplayCli)
#include "tst_replay_cli.moc"
