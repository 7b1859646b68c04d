// The Sweep page on a remote target (docs/remote.md, Desktop app): the agent is this build's own
// `rtscope agent --stdio` started as the target command. Connected, the page measures the target: a short sweep runs
// there to its end, drawn from the target's snapshots (every setting's row with the figures the target measured, the
// histogram overlay), with no problem and the target named in the status; the page's own experiment never runs and
// nothing of this computer is busy. Stop mid-sweep ends the run on the target, its load command included, and keeps
// what was measured; a dropped link ends the sweep with the sentence and keeps the settings measured so far.
#include "engine/rt/system_probe.h"
#include "tests/common/short_experiment_configs.h"
#include "tests/common/thread_census.h"
#include "ui/common/fact_tile.h"
#include "ui/experiment_pages.h"
#include "ui/main_window.h"
#include "ui/plot/histogram_chart.h"
#include "ui/remote/target_banner.h"
#include "ui/remote/target_connection.h"
#include "ui/workbench/run_summary_model.h"
#include "ui/workbench/sweep/sweep_page.h"

#include "tests/common/test_main.h"
#include <QRegularExpression>
#include <QSignalSpy>

#include <QtTest>

#include <cerrno>
#include <csignal>
#include <memory>

using namespace rtscope;

namespace {

QString remoteSweepBinary()
{
    return qEnvironmentVariable("RTSCOPE_BINARY");
}

// connectTarget() and its answer (it returns at once; the hello comes later).
bool remoteSweepConnect(MainWindow& window, QString& error)
{
    QSignalSpy finished(&window, &MainWindow::targetConnectFinished);
    // --allow-commands: one of the sweeps runs a load command on the target.
    if (!window.connectTarget("exec '" + remoteSweepBinary() + "' agent --stdio --allow-commands", &error))
        return false;
    if (finished.isEmpty() && !finished.wait(10'000)) {
        error = "no answer within 10 s";
        return false;
    }
    error = finished.first().at(1).toString();
    return finished.first().at(0).toBool();
}

// Refreshes @p page as its timer would until @p done or @p ms pass.
template <class Done> bool remoteSweepPoll(SweepPage* page, Done done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < ms) {
        QTest::qWait(20);
        page->refreshNow();
    }
    return done();
}

} // namespace

class TestRemoteSweep : public QObject {
    Q_OBJECT
    SystemProbe m_probe = probeSystem();
    int m_threadsBefore = 0; ///< rtscope threads alive when the test began

    /// A window of every page connected to this build's agent, and its Sweep page; null (and @p error) when the link
    /// could not be made.
    SweepPage* sweepOnTarget(std::unique_ptr<MainWindow>& window, QString& error)
    {
        window.reset(new MainWindow(createExperimentPages(m_probe), m_probe, nullptr));
        if (!remoteSweepConnect(*window, error))
            return nullptr;
        return qobject_cast<SweepPage*>(window->page(window->pageIndex("sweep")));
    }

private slots:
    void initTestCase() { QVERIFY2(QFile::exists(remoteSweepBinary()), "RTSCOPE_BINARY must point at rtscope"); }
    // Every test's window is gone when it returns: its threads (the link's included) must be gone too.
    void init() { m_threadsBefore = test::threadsAlive(); }
    void cleanup() { QTRY_VERIFY_WITH_TIMEOUT(test::threadsAlive() <= m_threadsBefore, 2000); }

    void aShortSweepRunsOnTheTarget()
    {
        std::unique_ptr<MainWindow> window;
        QString error;
        SweepPage* page = sweepOnTarget(window, error);
        QVERIFY2(page, qPrintable(error));
        const QString machine = window->target()->machine();
        QCOMPARE(page->measuredMachine(), machine);
        window->setCurrentPage(window->pageIndex("sweep"));
        QVERIFY2(window->targetBanner()->text().startsWith("Measuring on " + machine),
                 qPrintable(window->targetBanner()->text()));

        const SweepConfig c = test::shortSweepConfig();
        QCOMPARE(page->applyConfigJson(toJson(c)), QStringList());
        QSignalSpy status(page, &ExperimentPage::statusMessage);
        const uint64_t framesBefore = page->framesDrawn();
        QVERIFY2(page->start(), qPrintable(page->problems().join("; ")));
        QVERIFY(page->isRunning());
        QVERIFY(page->busyCpus().empty()); // nothing of this computer is loaded
        // While it runs, a setting's live figures arrive from the target.
        QVERIFY(remoteSweepPoll(
            page, [&] { return page->tableModel()->rows().front().summary.has_value() || !page->isRunning(); },
            10'000));
        QVERIFY(remoteSweepPoll(
            page, [&] { return !page->isRunning(); }, 15'000));

        // It ran there to its end: drawn from the target's snapshots, every setting measured, no problem.
        QVERIFY(page->framesDrawn() > framesBefore);
        QVERIFY2(page->problems().isEmpty(), qPrintable(page->problems().join("; ")));
        const RunSummaryModel& m = *page->tableModel();
        QCOMPARE(m.rowCount(), int(c.settings.size()));
        for (int i = 0; i < m.rowCount(); ++i) {
            const SummaryRow& row = m.rows()[size_t(i)];
            QCOMPARE(row.name, QString::fromStdString(c.settings[size_t(i)].label()));
            QVERIFY2(!row.failed, qPrintable(row.note));
            QVERIFY2(row.summary && row.summary->samples > 50, qPrintable(row.name));
            QVERIFY2(row.note.startsWith("ran "), qPrintable(row.note));
        }
        QCOMPARE(page->histogramChart()->overlayCount(), int(c.settings.size()));
        QVERIFY2(page->progressText().contains("2 of 2 done"), qPrintable(page->progressText()));
        QStringList said;
        for (const QList<QVariant>& s : status)
            said << s.at(0).toString();
        QVERIFY2(said.join("\n").contains("Sweep finished on " + machine), qPrintable(said.join(" | ")));
        // The page's own experiment never ran: what it drew came over the link.
        QVERIFY(!page->experiment().snapshot());
    }

    void stopMidSweepEndsTheRunOnTheTarget()
    {
        std::unique_ptr<MainWindow> window;
        QString error;
        SweepPage* page = sweepOnTarget(window, error);
        QVERIFY2(page, qPrintable(error));
        SweepConfig c = test::shortSweepConfig();
        c.eachNs = 30'000'000'000; // only the Stop ends it
        c.loadCmd = "exec sleep 60";
        QCOMPARE(page->applyConfigJson(toJson(c)), QStringList());
        QVERIFY(page->start());
        QVERIFY(remoteSweepPoll(
            page, [&] { return page->tableModel()->rows().front().summary.has_value(); }, 10'000));
        QVERIFY2(page->progressText().contains("1 of 2"), qPrintable(page->progressText()));
        // The load runs on the target, which is this machine here: the tile names its pid there.
        auto* loadTile = page->findChild<FactTile*>("loadTile");
        QVERIFY(loadTile);
        const QRegularExpressionMatch pid = QRegularExpression("pid (\\d+)").match(loadTile->detail());
        QVERIFY2(pid.hasMatch(), qPrintable(loadTile->detail()));
        const pid_t load = pid_t(pid.captured(1).toInt());
        QCOMPARE(::kill(load, 0), 0);
        page->stop();
        QVERIFY(!page->isRunning());
        // Stopped and reaped there (no such process, not even a zombie), with the sweep.
        QTRY_VERIFY_WITH_TIMEOUT(::kill(load, 0) == -1 && errno == ESRCH, 2000);
        QVERIFY(page->progressText().contains("stopped by you"));
        const RunSummaryModel& m = *page->tableModel();
        QVERIFY(m.rows()[0].summary && m.rows()[0].summary->samples > 0);
        QVERIFY2(m.rows()[0].note.startsWith("stopped after"), qPrintable(m.rows()[0].note));
        QCOMPARE(m.rows()[1].note, QString("not run: stopped"));
        QVERIFY2(page->problems().isEmpty(), qPrintable(page->problems().join("; ")));
    }

    // A dropped link ends the sweep with the sentence; the settings measured so far stay drawn.
    void aDroppedLinkEndsTheSweepAndKeepsItsRows()
    {
        std::unique_ptr<MainWindow> window;
        QString error;
        SweepPage* page = sweepOnTarget(window, error);
        QVERIFY2(page, qPrintable(error));
        SweepConfig c = test::shortSweepConfig();
        c.settings.push_back(SweepSetting{Policy::Batch, 0});
        c.eachNs = 2'000'000'000; // the link drops during the second setting
        QCOMPARE(page->applyConfigJson(toJson(c)), QStringList());
        QVERIFY(page->start());
        // The first setting done, the second running: then the agent dies.
        QVERIFY(remoteSweepPoll(
            page, [&] { return page->tableModel()->rows()[1].summary.has_value(); }, 10'000));
        const pid_t agent = window->target()->agentPid();
        QVERIFY(agent > 0);
        QCOMPARE(::kill(agent, SIGKILL), 0);
        QVERIFY(remoteSweepPoll(
            page, [&] { return !page->isRunning(); }, 10'000));
        QVERIFY2(page->problems().join(" ").contains("connection lost"), qPrintable(page->problems().join(" ")));
        const RunSummaryModel& m = *page->tableModel();
        QVERIFY(m.rows()[0].summary && m.rows()[0].summary->samples > 50);
        QVERIFY2(m.rows()[0].note.startsWith("ran "), qPrintable(m.rows()[0].note));
        QCOMPARE(m.rows()[2].note, QString("not run: the sweep ended"));
        QVERIFY2(page->progressText().contains("ended: connection lost"), qPrintable(page->progressText()));
    }
};

RTSCOPE_TEST_MAIN(TestRemoteSweep)
#include "tst_remote_sweep.moc"
