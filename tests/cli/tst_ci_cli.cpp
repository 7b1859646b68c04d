// rtscope in a CI harness (docs/ci.md), with the real binary: --fail-above's exit code 4 and its one PASS/FAIL line,
// the JSON's "limit", "identity" and return_code, every key cyclictest's --json writes (compared with a run of the
// real cyclictest where it is installed), a reimplementation of what Linaro's test-definitions read from that JSON,
// and the documented CI script run locally with a limit that holds and one that is broken.
#include "tests/common/cli_process.h"

#include "tests/common/test_main.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <set>

using namespace rtscope::test;

namespace {

nlohmann::json ciReadJson(const QString& path)
{
    const QByteArray bytes = readAll(path);
    return nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
}

// Every key path of @p j ("thread.0.min"), without the bins of a histogram (which differ from run to run).
void ciKeyPaths(const nlohmann::json& j, const std::string& prefix, std::set<std::string>& out)
{
    if (!j.is_object())
        return;
    for (const auto& [key, value] : j.items()) {
        const std::string path = prefix.empty() ? key : prefix + "." + key;
        out.insert(path);
        if (key != "histogram")
            ciKeyPaths(value, path, out);
    }
}

// What Linaro's test-definitions do with an rt-tests JSON file (their parse-rt-tests-results.py, reimplemented from
// its documented keys): one "t<i>-<min|avg|max>-latency pass <value> us" line per thread for num_threads threads,
// then "<name> pass" when return_code is 0, else "<name> fail". Returns an empty list when a key it reads is missing.
QStringList linaroParse(const nlohmann::json& raw, const QString& name)
{
    QStringList out;
    if (!raw.is_object() || !raw.contains("return_code") || !raw["return_code"].is_number_integer())
        return {};
    if (raw.contains("num_threads")) {
        if (!raw["num_threads"].is_number_integer() || !raw.contains("thread"))
            return {};
        const int n = raw["num_threads"].get<int>();
        for (int i = 0; i < n; ++i) {
            const std::string id = std::to_string(i);
            if (!raw["thread"].contains(id))
                return {};
            const nlohmann::json& t = raw["thread"][id];
            for (const char* k : {"min", "avg", "max"}) {
                if (!t.contains(k) || !t[k].is_number())
                    return {};
                out << QString("t%1-%2-latency pass %3 us").arg(i).arg(k).arg(t[k].get<double>());
            }
        }
    }
    out << name + (raw["return_code"].get<int>() == 0 ? " pass" : " fail");
    return out;
}

QString ciSourcePath(const QString& relative)
{
    return qEnvironmentVariable("RTSCOPE_SOURCE_DIR") + "/" + relative;
}

const QRegularExpression kPassLine("^rtscope: PASS: max over cpus max [0-9.]+ us <= [0-9.]+ us$",
                                   QRegularExpression::MultilineOption);
const QRegularExpression kFailLine("^rtscope: FAIL: cpu [0-9]+ max [0-9.]+ us > 0\\.001 us$",
                                   QRegularExpression::MultilineOption);

} // namespace

class TestCiCli : public rtscope::test::CliTest {
    Q_OBJECT
private slots:
    void initTestCase() { setUp(); }

    void limitFlagsAreChecked_data()
    {
        addRefusalColumns();
        QTest::newRow("not a duration") << QStringList{"latency", "--fail-above", "fast"}
                                        << "fail-above: 'fast' is not a duration";
        QTest::newRow("zero") << QStringList{"latency", "--fail-above", "0"} << "fail-above must be more than 0";
        QTest::newRow("too long") << QStringList{"latency", "--fail-above", "11s"}
                                  << "fail-above must be more than 0 and at most 10.000 s";
        // Just above the limit: the value as given, not rounded back to the limit ("got 10.000 s").
        QTest::newRow("a nanosecond too long")
            << QStringList{"latency", "--fail-above", "10.000000001s"} << "(got 10.000000001 s)";
        QTest::newRow("percentile alone")
            << QStringList{"latency", "--fail-percentile", "99.9"} << "fail-percentile needs --fail-above";
        QTest::newRow("percentile text") << QStringList{"latency", "--fail-above", "1ms", "--fail-percentile", "most"}
                                         << "fail-percentile: 'most' is not a percentile";
        QTest::newRow("percentile range") << QStringList{"latency", "--fail-above", "1ms", "--fail-percentile", "101"}
                                          << "fail-percentile must be more than 0 and at most 100, or max (got p101)";
    }
    void limitFlagsAreChecked() { checkRefusalRow(); }

    void passAndFailLinesAndExitCodes()
    {
        const QString passJson = m_dir.filePath("pass.json"), failJson = m_dir.filePath("fail.json");
        const QString hist = m_dir.filePath("pass.hist");
        const Run pass =
            run({"latency", "-D", "200ms", "-q", "--fail-above", "10s", "--json", passJson, "--histfile", hist});
        QVERIFY2(pass.exitCode == 0, qPrintable(pass.err + pass.out));
        QCOMPARE(pass.out.count(QRegularExpression("^rtscope: (PASS|FAIL)", QRegularExpression::MultilineOption)), 1);
        QVERIFY2(kPassLine.match(pass.out).hasMatch(), qPrintable(pass.out));
        QVERIFY2(pass.out.trimmed().endsWith("us <= 10000000 us"), qPrintable(pass.out)); // the last line

        // 1 ns: no wake-up is that fast, so the limit is broken on every CPU.
        const Run fail = run({"latency", "-D", "200ms", "-q", "--fail-above", "1ns", "--json", failJson});
        QVERIFY2(fail.exitCode == 4, qPrintable(QString::number(fail.exitCode) + fail.err + fail.out));
        QVERIFY2(kFailLine.match(fail.out).hasMatch(), qPrintable(fail.out));

        const nlohmann::json p = ciReadJson(passJson), f = ciReadJson(failJson);
        QCOMPARE(p["return_code"].get<int>(), 0);
        QCOMPARE(f["return_code"].get<int>(), 4);
        QCOMPARE(p["limit"]["verdict"].get<std::string>(), std::string("pass"));
        QCOMPARE(f["limit"]["verdict"].get<std::string>(), std::string("fail"));
        QCOMPARE(f["limit"]["limit_ns"].get<int64_t>(), int64_t(1));
        QCOMPARE(f["limit"]["percentile_name"].get<std::string>(), std::string("max"));
        QCOMPARE(QString::fromStdString(f["limit"]["line"].get<std::string>()), kFailLine.match(fail.out).captured(0));
        QVERIFY(f["limit"]["cpus"].size() >= 1);
        // The maximum the verdict holds to is the one the cyclictest keys report (truncated to µs there).
        const int64_t maxNs = f["limit"]["cpus"][0]["value_ns"].get<int64_t>();
        QCOMPARE(maxNs / 1000, f["thread"]["0"]["max"].get<int64_t>());

        // The machine identity: in the JSON, and after the footer of the histfile.
        for (const char* key :
             {"host", "kernel_release", "kernel_version", "kernel_cmdline", "preempt_model", "cpu_model",
              "isolated_cpus", "nohz_full_cpus", "measured_cpus", "load", "load_command", "command", "date"})
            QVERIFY2(p["identity"].contains(key), key);
        const QString text = QString::fromUtf8(readAll(hist));
        const qsizetype footer = text.indexOf("# Thread 0:");
        const qsizetype kernel = text.indexOf("# Kernel: ");
        QVERIFY(footer > 0 && kernel > footer);
        QVERIFY(text.contains("# Preempt model: ") && text.contains("# Date: ") && text.contains("# Load: none"));
    }

    void jsonKeepsEveryCyclictestKey()
    {
        const QString ours = m_dir.filePath("keys.json");
        const Run r = run({"latency", "-l", "100", "-q", "--json", ours});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        std::set<std::string> ourKeys;
        ciKeyPaths(ciReadJson(ours), "", ourKeys);

        // The keys cyclictest 2.x writes for one thread (docs/cli.md, --json), with the colons of two of them.
        const std::set<std::string> documented = {
            "file_version",    "cmdline:",        "rt_test_version:",   "start_time",       "end_time",
            "return_code",     "sysinfo",         "sysinfo.sysname",    "sysinfo.nodename", "sysinfo.release",
            "sysinfo.version", "sysinfo.machine", "sysinfo.realtime",   "num_threads",      "resolution_in_ns",
            "thread",          "thread.0",        "thread.0.histogram", "thread.0.cycles",  "thread.0.min",
            "thread.0.max",    "thread.0.avg",    "thread.0.cpu",       "thread.0.node"};
        for (const auto& k : documented)
            QVERIFY2(ourKeys.count(k), k.c_str());

        // And those of the real cyclictest, where rt-tests is installed: every one of its keys is in ours.
        const QString cyclictest = QStandardPaths::findExecutable("cyclictest");
        if (cyclictest.isEmpty())
            RTSCOPE_SKIP(Tool, "cyclictest (rt-tests) is not installed: compared with the documented keys only");
        const QString theirs = m_dir.filePath("cyclictest.json");
        const Run c = run({"-q", "-l", "100", "-i", "1000", "-t1", "-m", "--json=" + theirs}, 20000, cyclictest);
        QVERIFY2(c.exitCode == 0, qPrintable(c.err));
        std::set<std::string> theirKeys;
        ciKeyPaths(ciReadJson(theirs), "", theirKeys);
        QVERIFY(theirKeys.count("cmdline:") && theirKeys.count("thread.0.max"));
        for (const auto& k : theirKeys)
            QVERIFY2(ourKeys.count(k), ("cyclictest writes " + k + ", rtscope does not").c_str());
    }

    void linaroParserReadsOurJson()
    {
        const QString passJson = m_dir.filePath("linaro-pass.json"), failJson = m_dir.filePath("linaro-fail.json");
        QCOMPARE(
            run({"latency", "--cpus", "all", "-l", "100", "-q", "--fail-above", "10s", "--json", passJson}).exitCode,
            0);
        QCOMPARE(run({"latency", "-l", "100", "-q", "--fail-above", "1ns", "--json", failJson}).exitCode, 4);
        const nlohmann::json p = ciReadJson(passJson);
        const QStringList lines = linaroParse(p, "cyclictest");
        const int threads = p["num_threads"].get<int>();
        QVERIFY(threads >= 1);
        QCOMPARE(lines.size(), threads * 3 + 1);
        QCOMPARE(lines.last(), QString("cyclictest pass"));
        QCOMPARE(lines.first(), QString("t0-min-latency pass %1 us").arg(p["thread"]["0"]["min"].get<double>()));
        QCOMPARE(linaroParse(ciReadJson(failJson), "cyclictest").last(), QString("cyclictest fail"));
    }

    void ciScriptRunsLocally()
    {
        const QString script = ciSourcePath("docs/ci/rtscope-ci.sh");
        QVERIFY2(QFile::exists(script), qPrintable(script));
        // docs/ci.md shows the script as it is: the text a reader copies is the text this test runs.
        const QString doc = QString::fromUtf8(readAll(ciSourcePath("docs/ci.md")));
        QVERIFY2(doc.contains(QString::fromUtf8(readAll(script))),
                 "docs/ci.md must include docs/ci/rtscope-ci.sh verbatim");

        // A stand-in for LAVA's lava-test-case on PATH, which writes down how it was called.
        QTemporaryDir stubs;
        const QString calls = stubs.filePath("calls");
        QFile stub(stubs.filePath("lava-test-case"));
        QVERIFY(stub.open(QIODevice::WriteOnly));
        stub.write(QString("#!/bin/sh\necho \"$*\" >> '%1'\n").arg(calls).toUtf8());
        stub.close();
        QVERIFY(stub.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));

        auto runScript = [&](const QString& limit, const QString& outDir) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("RTSCOPE_BIN", binary());
            env.insert("RTSCOPE_DURATION", "300ms");
            env.insert("RTSCOPE_LIMIT", limit);
            env.insert("RTSCOPE_OUT", outDir);
            env.insert("PATH", stubs.path() + ":" + env.value("PATH"));
            return run({script}, 40000, "/bin/sh", env);
        };
        const QString passDir = m_dir.filePath("ci-pass"), failDir = m_dir.filePath("ci-fail");
        const Run pass = runScript("10s", passDir);
        QVERIFY2(pass.exitCode == 0, qPrintable(QString::number(pass.exitCode) + pass.out + pass.err));
        QVERIFY2(kPassLine.match(pass.out).hasMatch(), qPrintable(pass.out));
        const Run fail = runScript("1ns", failDir);
        QVERIFY2(fail.exitCode == 4, qPrintable(QString::number(fail.exitCode) + fail.out + fail.err));
        QVERIFY2(kFailLine.match(fail.out).hasMatch(), qPrintable(fail.out));

        // The results the job keeps, and what LAVA was told.
        for (const QString& dir : {passDir, failDir})
            for (const char* name : {"latency.json", "latency.hist", "summary.txt"})
                QVERIFY2(QFile::exists(dir + "/" + name), qPrintable(dir + "/" + name));
        QCOMPARE(ciReadJson(failDir + "/latency.json")["return_code"].get<int>(), 4);
        QCOMPARE(QString::fromUtf8(readAll(calls)),
                 QString("rtscope-latency --result pass\nrtscope-latency --result fail\n"));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestCiCli)
#include "tst_ci_cli.moc"
