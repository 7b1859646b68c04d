// The priority sweep: settings applied in order, results kept, the user's load command reaped even when
// the sweep is cancelled midway; the per-CPU latency run yields one histogram per CPU.
#include "engine/experiments/sweep/sweep_experiment.h"
#include "engine/export/report_json.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include <nlohmann/json.hpp>

#include "tests/common/data_rows.h"
#include "tests/common/experiment_run.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"
#include <QFile>
#include <QRegularExpression>

#include <QtTest>
#include <csignal>
#include <sys/wait.h>

using namespace rtscope;

namespace {
bool processExists(pid_t pid)
{
    return pid > 0 && ::kill(pid, 0) == 0;
}
} // namespace

class TestSweepExperiment : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpExperimentTest(); }

    void parseSettings_data()
    {
        // expected: labels joined by '|', or the start of the error
        test::addRows<QString, QString>({"text", "expected"},
                                        {{"typical", "other,fifo:1,fifo:50,rr:80", "OTHER|FIFO 1|FIFO 50|RR 80"},
                                         {"spaces", " other , fifo:10 ", "OTHER|FIFO 10"},
                                         {"fifo without prio", "fifo", "settings: 'fifo' needs a priority"},
                                         {"bad prio", "fifo:x", "settings: 'fifo:x' has no valid priority"},
                                         {"bad policy", "turbo", "settings: 'turbo' is not a policy"},
                                         {"empty", ",", "settings must list at least one"}});
    }
    void parseSettings()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        std::vector<SweepSetting> out;
        std::string error;
        if (parseSweepSettings(text.toStdString(), out, error)) {
            QStringList labels;
            for (const auto& s : out)
                labels << QString::fromStdString(s.label());
            QCOMPARE(labels.join('|'), expected);
        } else {
            QVERIFY2(QString::fromStdString(error).startsWith(expected), error.c_str());
        }
    }

    void validationGoesThroughLatencyConfig()
    {
        SweepConfig c;
        c.settings = {{Policy::Fifo, 120}, {Policy::Other, 0}};
        c.eachNs = 50'000'000;
        c.base.hogs = 2;
        c.loadCmd = "true";
        const auto errors = c.validate(CpuTopology::current());
        QStringList e;
        for (const auto& x : errors)
            e << QString::fromStdString(x);
        QVERIFY2(e.filter("each must be between").size() == 1, qPrintable(e.join('\n')));
        QVERIFY2(e.filter("load-cmd and hogs are exclusive").size() == 1, qPrintable(e.join('\n')));
        QVERIFY2(e.filter("FIFO 120: priority must be between 1 and 99").size() == 1, qPrintable(e.join('\n')));
    }

    void jsonRoundTripsEveryField()
    {
        SweepConfig c;
        std::string error;
        QVERIFY(parseSweepSettings("other,fifo:10,rr:20", c.settings, error));
        c.eachNs = 2'000'000'000;
        c.base.periodNs = 500'000;
        c.base.hogs = 0;
        c.loadCmd = "yes > /dev/null";
        const nlohmann::json j = toJson(c);
        QCOMPARE(j.at("settings").get<std::string>(), std::string("other,fifo:10,rr:20"));
        QCOMPARE(j.at("each_ns").get<int64_t>(), int64_t(2'000'000'000));
        QCOMPARE(j.at("base").at("period_ns").get<int64_t>(), int64_t(500'000));
        QCOMPARE(j.at("load_cmd").get<std::string>(), c.loadCmd);
        std::vector<std::string> errors;
        const SweepConfig back = sweepConfigFromJson(j, errors);
        QVERIFY(errors.empty());
        QVERIFY(back.settings == c.settings);
        QCOMPARE(back.eachNs, c.eachNs);
        QCOMPARE(back.base.periodNs, c.base.periodNs);
        QCOMPARE(back.loadCmd, c.loadCmd);
        QVERIFY(toJson(back) == j);
        // Missing keys keep their defaults.
        const SweepConfig empty = sweepConfigFromJson(nlohmann::json::object(), errors);
        QVERIFY(errors.empty());
        QCOMPARE(empty.eachNs, SweepConfig{}.eachNs);
        QVERIFY(empty.settings.empty());
    }

    void badJsonGivesSentencesNamingTheFieldAndRange_data()
    {
        test::addRows<QString, QString>(
            {"json", "sentence"}, // the sentence from sweepConfigFromJson, or else from validate()
            {{"not an object", "[1]", "sweep config must be a JSON object"},
             {"unknown field", R"({"colour": "red"})", "unknown field 'colour'"},
             {"settings not text", R"({"settings": 5})",
              "settings must be a string of 1 to 32 settings like \"other,fifo:50,fifo:80\""},
             {"setting without priority", R"({"settings": "other,fifo"})",
              "settings: 'fifo' needs a priority, e.g. fifo:80"},
             {"each not a number", R"({"each_ns": "5s"})",
              "each_ns must be an integer number of nanoseconds between 100.00 ms and 3600.000 s"},
             {"base field", R"({"base": {"hogs": "many"}})", "base: hogs must be an integer"},
             {"load_cmd not text", R"({"load_cmd": 3})", "load_cmd must be a string of at most 4096 characters"},
             {"each out of range", R"({"settings": "other", "each_ns": 1000})",
              "each must be between 100.00 ms and 3600.000 s (got 1.0 us)"},
             {"too many settings", QString(R"({"settings": "%1other"})").arg(QString("other,").repeated(32)),
              "settings must list between 1 and 32 settings (got 33)"},
             {"base priority", R"({"settings": "fifo:120"})",
              "FIFO 120: priority must be between 1 and 99 for fifo (got 120)"},
             {"load and hogs", R"({"settings": "other", "base": {"hogs": 2}, "load_cmd": "yes"})",
              "load-cmd and hogs are exclusive"},
             {"trace", R"({"settings": "other", "base": {"trace": true}})",
              "base: trace is not a sweep option (the latency anatomy runs on the Latency page); leave it unset"}});
    }
    void badJsonGivesSentencesNamingTheFieldAndRange()
    {
        QFETCH(QString, json);
        QFETCH(QString, sentence);
        std::vector<std::string> errors;
        const SweepConfig c = sweepConfigFromJson(nlohmann::json::parse(json.toStdString()), errors);
        if (errors.empty())
            errors = c.validate(CpuTopology::current());
        QStringList e;
        for (const auto& x : errors)
            e << QString::fromStdString(x);
        QVERIFY2(e.filter(sentence).size() == 1, qPrintable(e.join('\n')));
    }

    void appliesEachSettingInOrder()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        SweepConfig c;
        std::string error;
        QVERIFY(parseSweepSettings("other,fifo:10,fifo:70", c.settings, error));
        c.eachNs = 300'000'000;
        c.base.periodNs = 1'000'000;
        c.base.hogs = 2;
        SweepExperiment sweep;
        QVERIFY(!sweep.start(c, CpuTopology::current()));
        // While it runs, the live snapshot's config is the setting being measured.
        QTRY_VERIFY(sweep.snapshot()->live != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(sweep.finished(), 10000);
        sweep.stop();
        const SweepSnapshot s = *sweep.snapshot();
        QCOMPARE(s.results.size(), size_t(3));
        QCOMPARE(s.results[0].setting, (SweepSetting{Policy::Other, 0}));
        QCOMPARE(s.results[1].setting, (SweepSetting{Policy::Fifo, 10}));
        QCOMPARE(s.results[2].setting, (SweepSetting{Policy::Fifo, 70}));
        for (const auto& r : s.results) {
            QVERIFY2(r.error.empty(), r.error.c_str());
            QVERIFY(r.stats.samples > 100); // ~300 per 300 ms
            QCOMPARE(r.stats.histogram.count(), r.stats.samples);
            QCOMPARE(r.stats.drops, uint64_t(0));
        }
    }

    void cancelReapsTheLoadCommand()
    {
        SweepConfig c;
        c.settings = {{Policy::Other, 0}, {Policy::Other, 0}, {Policy::Other, 0}};
        c.eachNs = 5'000'000'000;
        // A load that ignores SIGTERM and has a child of its own: both must still be gone after stop().
        c.loadCmd = "trap '' TERM; sleep 60 & while :; do :; done";
        SweepExperiment sweep;
        QVERIFY(!sweep.start(c, CpuTopology::current()));
        QTRY_VERIFY(sweep.loadPid() > 0);
        const pid_t pid = sweep.loadPid();
        QVERIFY(processExists(pid));
        QTest::qWait(300);
        const int64_t t0 = nowNs();
        sweep.stop();
        QVERIFY2(nowNs() - t0 < 2 * kNsPerSec, "stop must not wait for the settings to finish");
        QVERIFY(!processExists(pid)); // reaped, not a zombie
        // ... and its whole process group is gone (the orphaned child is reaped by init, hence the retry).
        QTRY_COMPARE_WITH_TIMEOUT(::kill(-pid, 0), -1, 3000);
        const SweepSnapshot s = *sweep.snapshot();
        QVERIFY(s.cancelled);
        QVERIFY2(QString::fromStdString(s.loadStatus).startsWith("killed by KILL"), s.loadStatus.c_str());
        QVERIFY(s.results.size() <= 1);
    }

    // Per-CPU measurement (cyclictest -t -a): one thread, ring and histogram per CPU, and the histogram file
    // has one column per thread laid out exactly like cyclictest's own -t 2 file.
    void perCpuRunWritesCyclictestColumns()
    {
        const CpuTopology topo = CpuTopology::current();
        if (topo.allowed.size() < 2)
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs");
        LatencyExperiment exp;
        LatencyConfig c;
        c.cpus = {topo.allowed[0], topo.allowed[1]};
        c.periodNs = 1'000'000;
        c.maxSamples = 200;
        c.histogramUs = 30;
        QVERIFY(!exp.start(c, topo));
        QTRY_VERIFY_WITH_TIMEOUT(exp.finished(), 10000);
        exp.stop();
        auto snap = exp.snapshot();
        QCOMPARE(snap->threads.size(), size_t(2));
        QCOMPARE(snap->threads[0].cpu, topo.allowed[0]);
        QCOMPARE(snap->threads[1].cpu, topo.allowed[1]);
        for (const auto& t : snap->threads) {
            QCOMPARE(t.samples, uint64_t(200));
            QCOMPARE(t.seqGaps, uint64_t(0));
        }
        const std::string ours = writeCyclictestHistogram(cyclictestDataFrom(*snap));
        QFile ref(qEnvironmentVariable("RTSCOPE_SOURCE_DIR") + "/tests/data/cyclictest_t2.hist");
        QVERIFY(ref.open(QIODevice::ReadOnly));
        const std::string theirs = ref.readAll().toStdString();
        CyclictestData a, b;
        std::string error;
        QVERIFY2(parseCyclictestHistogram(ours, a, error), error.c_str());
        QVERIFY2(parseCyclictestHistogram(theirs, b, error), error.c_str());
        QCOMPARE(a.threads.size(), b.threads.size());
        // Same shape line by line: a bin row is "%06d" then tab-separated "%06lu" columns, one per thread.
        const QRegularExpression row("^\\d{6} \\d{6}\\t\\d{6}$");
        const QStringList ourLines = QString::fromStdString(ours).split('\n');
        const QStringList theirLines = QString::fromStdString(theirs).split('\n');
        QCOMPARE(ourLines.filter(row).size(), 30);
        QVERIFY(theirLines.filter(row).size() > 0);
        for (const char* footer : {"# Total: ", "# Min Latencies: ", "# Avg Latencies: ", "# Max Latencies: ",
                                   "# Histogram Overflows: ", "# Thread 0:", "# Thread 1:"})
            QCOMPARE(ourLines.filter(QRegularExpression("^" + QRegularExpression::escape(footer))).size(), 1);
        const QRegularExpression total("^# Total: \\d{9} \\d{9}$");
        QCOMPARE(ourLines.filter(total).size(), 1);
        QCOMPARE(theirLines.filter(total).size(), 1);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestSweepExperiment)
#include "tst_sweep_experiment.moc"
