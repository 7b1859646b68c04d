// The sweep page: a short real sweep shows its settings in order with the counts the engine measured; Stop in the
// middle joins every thread at once and stops and reaps the load command; a setting that cannot run (EPERM) is
// shown as failed — in the table, on the chart — and never as zeros.
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/model_cell.h"
#include "tests/common/page_test_util.h"
#include "tests/common/privilege_drop.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/sweep_chart.h"
#include "ui/workbench/run_summary_model.h"
#include "ui/workbench/sweep/sweep_controls.h"
#include "ui/workbench/sweep/sweep_page.h"

#include "tests/common/test_main.h"
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <unistd.h>

using namespace rtscope;

namespace {

SweepConfig sweepOf(const char* settings, int64_t eachNs)
{
    SweepConfig c;
    std::string error;
    if (!parseSweepSettings(settings, c.settings, error))
        qFatal("%s", error.c_str());
    c.eachNs = eachNs;
    c.base.periodNs = kNsPerMs;
    return c;
}

// Processes of group @p pgid that still run (a zombie waiting for init to reap it does not).
int liveMembersOfGroup(pid_t pgid)
{
    int n = 0;
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat("/proc/" + pid + "/stat");
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        // "pid (comm) state ppid pgrp …": the comm may hold spaces, so split after its last ')'.
        const QList<QByteArray> f = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (f.size() > 2 && f[2].toInt() == pgid && f[0] != "Z")
            ++n;
    }
    return n;
}

void checkFailedRow(const SweepPage& page, int row)
{
    const RunSummaryModel& m = *page.tableModel();
    QVERIFY(m.rows()[size_t(row)].failed);
    QVERIFY(!m.rows()[size_t(row)].summary);
    QVERIFY2(test::rawCell(m, row, RunSummaryModel::Note).toString().startsWith("failed: "),
             qPrintable(test::rawCell(m, row, RunSummaryModel::Note).toString()));
    // Dashes, not zeros.
    QVERIFY(!test::rawCell(m, row, RunSummaryModel::Samples).isValid());
    QCOMPARE(test::rawCell(m, row, RunSummaryModel::Max, Qt::DisplayRole).toString(), QString("–"));
    QVERIFY(page.chart()->categoryLabels()[row].contains(QString::fromUtf8("\u2717")));
    for (const QPointF& p : page.chart()->points(MarkerRole::Max))
        QVERIFY(p.x() != row);
}

} // namespace

class TestSweepPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpPageTest(); }

    void aShortSweepShowsTheSettingsInOrderWithTheirCounts()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        SweepPage page(m_probe);
        QVERIFY(test::showExposed(page, 1400, 900));
        QAbstractItemModelTester tester(page.tableModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        SweepConfig c = sweepOf("other,fifo:1,fifo:80", 300 * kNsPerMs);
        c.base.hogs = 1;
        QCOMPARE(page.applyConfig(c), QStringList());
        const QStringList order{"OTHER", "FIFO 1", "FIFO 80"};
        QCOMPARE(page.chart()->categoryLabels(), order); // named before they run

        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QVERIFY(page.start());
        QVERIFY(page.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(page.progressText().contains("of 3"), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 20000);
        QCOMPARE(running.count(), 2);
        QCOMPARE(rtscope::test::threadsAlive(), 0);

        const SweepSnapshot s = *page.experiment().snapshot();
        QCOMPARE(s.results.size(), size_t(3));
        const RunSummaryModel& m = *page.tableModel();
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(page.chart()->categoryLabels(), order);
        const QList<QPointF> maxima = page.chart()->points(MarkerRole::Max);
        QCOMPARE(maxima.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const SweepResult& r = s.results[size_t(i)];
            QCOMPARE(test::rawCell(m, i, RunSummaryModel::Name).toString(), order[i]);
            QVERIFY2(r.error.empty(), r.error.c_str());
            QVERIFY(r.stats.samples > 0);
            QCOMPARE(test::rawCell(m, i, RunSummaryModel::Samples).toULongLong(), qulonglong(r.stats.samples));
            QCOMPARE(test::rawCell(m, i, RunSummaryModel::P99).toLongLong(),
                     qlonglong(r.stats.histogram.percentile(99)));
            QCOMPARE(test::rawCell(m, i, RunSummaryModel::Max).toLongLong(), qlonglong(r.stats.histogram.max()));
            QVERIFY(test::rawCell(m, i, RunSummaryModel::Note).toString().startsWith("ran "));
            QCOMPARE(maxima[i].x(), double(i));
            QCOMPARE(maxima[i].y(), std::max(double(r.stats.histogram.max()) / 1e3, 0.1));
        }
        // Each setting's histogram is kept for the overlay.
        QCOMPARE(page.histogramChart()->overlayCount(), 3);
        QCOMPARE(page.histogramChart()->overlayName(1), QString("FIFO 1"));
        QVERIFY(page.progressText().contains("3 of 3 done"));
    }

    void stopMidSweepJoinsAtOnceAndReapsTheLoad()
    {
        SweepPage page(m_probe);
        SweepConfig c = sweepOf("other,batch", 30 * kNsPerSec);
        c.loadCmd = "yes > /dev/null";
        QCOMPARE(page.applyConfig(c), QStringList());
        QVERIFY(page.start());
        QTRY_VERIFY(page.experiment().loadPid() > 0);
        const pid_t load = page.experiment().loadPid();
        QTRY_VERIFY(rtscope::test::threadsAlive("rtscope-measure") == 1);
        QTRY_VERIFY(page.tableModel()->rows().front().summary.has_value());
        QVERIFY(page.busyCpus().size() == 1);

        const int64_t t0 = nowNs();
        page.stop();
        const double tookMs = double(nowNs() - t0) / 1e6;
        qInfo("Stop joined the sweep and reaped the load in %.1f ms", tookMs);
        // Everything is joined when stop() returns — long before the 30 s setting would have ended.
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY(tookMs < 30'000);
        QVERIFY(!page.isRunning());
        QVERIFY(page.busyCpus().empty());
        // The load command is gone and reaped (no such process), and what it started was killed with its group
        // (SIGKILL lands asynchronously; the orphans are init's to reap).
        QCOMPARE(::kill(load, 0), -1);
        QCOMPARE(errno, ESRCH);
        QTRY_COMPARE(liveMembersOfGroup(load), 0);
        QCOMPARE(page.experiment().loadPid(), pid_t(-1));

        const RunSummaryModel& m = *page.tableModel();
        QCOMPARE(m.rowCount(), 2);
        QVERIFY(m.rows()[0].summary && m.rows()[0].summary->samples > 0);
        QVERIFY(test::rawCell(m, 0, RunSummaryModel::Note).toString().startsWith("stopped after"));
        QCOMPARE(test::rawCell(m, 1, RunSummaryModel::Note).toString(), QString("not run: stopped"));
        QVERIFY(!m.rows()[1].failed);
        QVERIFY(page.progressText().contains("stopped by you"));
    }

    void aRefusedSettingIsShownAsFailedNotAsZeros()
    {
        // With the privilege (root here), CAP_SYS_NICE and RLIMIT_RTPRIO are taken away while the sweep starts, so
        // that the kernel refuses its FIFO setting with EPERM.
        std::optional<rtscope::test::WithoutRealtimePrivilege> lowered;
        if (m_probe.rtAvailable) {
            lowered.emplace();
            if (!lowered->ok())
                RTSCOPE_SKIP(Privileged, "cannot take CAP_SYS_NICE and RLIMIT_RTPRIO away to have SCHED_FIFO refused");
        }
        SweepPage page(m_probe);
        QCOMPARE(page.applyConfig(sweepOf("other,fifo:50", 200 * kNsPerMs)), QStringList());
        QVERIFY(page.start());
        lowered.reset(); // the sweep's threads keep what they inherited
        QTRY_VERIFY_WITH_TIMEOUT(!page.isRunning(), 10000);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        const SweepSnapshot s = *page.experiment().snapshot();
        QCOMPARE(s.results.size(), size_t(2));
        QVERIFY(s.results[0].error.empty());
        QVERIFY(!s.results[1].error.empty());
        checkFailedRow(page, 1);
        QVERIFY(test::rawCell(*page.tableModel(), 1, RunSummaryModel::Note).toString().contains("EPERM"));
        QCOMPARE(page.chart()->failedLabels(), 1);
        QCOMPARE(page.chart()->points(MarkerRole::Max).size(), 1);
        QCOMPARE(page.histogramChart()->overlayCount(), 1);
    }

    void failedRowsFromAKnownSnapshot()
    {
        // The same display rules, fed a known snapshot: works without any privilege question.
        SweepPage page(m_probe);
        const SweepConfig c = sweepOf("other,fifo:1,fifo:80", kNsPerSec);
        SweepSnapshot s;
        s.total = 3;
        SweepResult ok;
        ok.setting = c.settings[0];
        ok.durationNs = kNsPerSec;
        for (int i = 0; i < 1000; ++i)
            ok.stats.histogram.record(10'000 + i);
        ok.stats.samples = 1000;
        SweepResult refused;
        refused.setting = c.settings[1];
        refused.error = "Cannot run thread 'rtscope-measure' as SCHED_FIFO priority 1: RLIMIT_RTPRIO is 0 (EPERM).";
        s.results = {ok, refused};
        page.showSnapshot(s, c);
        checkFailedRow(page, 1);
        QCOMPARE(test::rawCell(*page.tableModel(), 0, RunSummaryModel::Samples).toULongLong(), 1000ULL);
        QCOMPARE(test::rawCell(*page.tableModel(), 2, RunSummaryModel::Note).toString(), QString("not run yet"));
        QCOMPARE(page.chart()->failedLabels(), 1);
        QCOMPARE(page.chart()->points(MarkerRole::Median).size(), 1);
        QCOMPARE(page.chart()->points(MarkerRole::Median).front().y(), double(ok.stats.histogram.percentile(50)) / 1e3);
    }

    void configGoesThroughTheEnginesWords()
    {
        SweepPage page(m_probe);
        SweepConfig c = sweepOf("other,fifo:10,rr:20", 2 * kNsPerSec);
        c.base.hogs = 3;
        QCOMPARE(page.applyConfig(c), QStringList());
        const nlohmann::json j = page.configJson();
        QCOMPARE(j["settings"].get<std::string>(), std::string("other,fifo:10,rr:20"));
        QCOMPARE(j["each_ns"].get<int64_t>(), 2 * kNsPerSec);
        QCOMPARE(j["base"]["hogs"].get<int>(), 3);
        QCOMPARE(page.applyConfigJson(j), QStringList());
        QVERIFY(page.configJson() == j);

        // The engine's sentences, with the field named; nothing changes.
        nlohmann::json bad = j;
        bad["settings"] = "other,fifo";
        QVERIFY(page.applyConfigJson(bad).join(" ").contains("'fifo' needs a priority"));
        bad = j;
        bad["each_ns"] = 1000;
        QVERIFY(page.applyConfigJson(bad).join(" ").contains("each must be between"));
        bad = j;
        bad["load_cmd"] = "yes";
        QVERIFY(page.applyConfigJson(bad).join(" ").contains("load-cmd and hogs are exclusive"));
        bad = j;
        bad["colour"] = "red";
        QVERIFY(page.applyConfigJson(bad).join(" ").contains("unknown field 'colour'"));
        QVERIFY(page.configJson() == j);

        SweepPage restored(m_probe);
        rtscope::test::saveAndRestore(page, restored);
        QVERIFY(restored.configJson() == j);
        QCOMPARE(restored.chart()->categoryLabels(), QStringList({"OTHER", "FIFO 10", "RR 20"}));
    }
};

RTSCOPE_TEST_MAIN(TestSweepPage)
#include "tst_sweep_page.moc"
