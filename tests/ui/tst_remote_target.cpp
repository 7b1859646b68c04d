// The desktop app watching a remote target (docs/remote.md, Desktop app): the agent is this build's own
// `rtscope agent --stdio` started as the target command. Connected, the Latency page's Start runs there and the
// received recording stream fills its snapshot; the System panel, the title and the banner name the target; killing
// the agent mid-run says "connection lost at …", keeps every sample received (saveable as a recording, and kept
// over a Reconnect) and leaves no thread behind. Connecting never blocks the GUI thread and Cancel leaves the window
// as it was; a run held as reference keeps its machine's name. Every page that runs on a target (the six snapshot
// labs and the per-CPU page) runs a short config there to its end; a page without remote support says that it
// measures this computer.
#include "engine/recording/recording_replay.h"
#include "engine/rt/system_probe.h"
#include "tests/common/loopback_port.h"
#include "tests/common/short_experiment_configs.h"
#include "tests/common/thread_census.h"
#include "ui/app/file_menu.h"
#include "ui/common/latency_source.h"
#include "ui/experiment_pages.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/noise/noise_page.h"
#include "ui/plot/histogram_chart.h"
#include "ui/polled_page.h"
#include "ui/remote/remote_latency_source.h"
#include "ui/remote/target_banner.h"
#include "ui/remote/target_connection.h"
#include "ui/system_panel.h"
#include "ui/timers/drift_page.h"
#include "ui/workbench/cpus/cpus_page.h"

#include "tests/common/test_main.h"
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabBar>
#include <QTemporaryDir>

#include <QtTest>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace rtscope;

namespace {

QString remoteTargetBinary()
{
    return qEnvironmentVariable("RTSCOPE_BINARY");
}

uint64_t remoteTargetSamples(const LatencyPage& page)
{
    const auto run = const_cast<LatencyPage&>(page).shownRun();
    uint64_t n = 0;
    if (run)
        for (const auto& t : run->threads)
            n += t.samples;
    return n;
}

// A page that does not run on a target (ExperimentPage::setTarget's default): what a lab added later without remote
// support looks like while a target is connected.
class RemoteTargetLocalOnlyPage : public ExperimentPage {
public:
    QString name() const override { return "local-only"; }
    QString shortTitle() const override { return "Local only"; }
    QWidget* controls() override { return nullptr; }
    bool start() override { return false; }
    void stop() override {}
    bool isRunning() const override { return false; }
    void setDisplayPaused(bool paused) override { m_paused = paused; }
    bool displayPaused() const override { return m_paused; }
    void resetStatistics() override {}
    QString explanation() const override { return "A page of this computer only."; }
    void saveSettings(QSettings&) const override {}
    void restoreSettings(QSettings&) override {}

private:
    bool m_paused = false;
};

} // namespace

class TestRemoteTarget : public QObject {
    Q_OBJECT
    SystemProbe m_probe = probeSystem();
    QTemporaryDir m_dir;

    /// The window with the Latency page and a page that does not run on a target.
    MainWindow* makeWindow(LatencyPage** latency)
    {
        *latency = new LatencyPage(std::make_unique<LiveLatencySource>(), m_probe);
        return new MainWindow({*latency, new RemoteTargetLocalOnlyPage}, m_probe, nullptr);
    }

    /// A 200 ms run of the page's config on the target: it ends by itself, without error, with samples; else why not.
    bool shortRunArrives(LatencyPage* latency, QString& why)
    {
        why.clear();
        if (const QStringList problems = latency->applyConfig(shortOtherConfig(*latency, 200'000'000));
            !problems.isEmpty() || !latency->start()) {
            why = "not started: " + problems.join("; ") + latency->problems().join("; ");
            return false;
        }
        if (!pollUntil(
                latency, [&] { return !latency->isRunning(); }, 5000))
            why = "still running after 5 s";
        else if (!latency->shownRun()->error.empty())
            why = QString::fromStdString(latency->shownRun()->error);
        else if (remoteTargetSamples(*latency) == 0)
            why = "no sample arrived";
        return why.isEmpty();
    }

    /// Refreshes @p page as its timer would until it stops running or @p ms pass.
    static bool pollUntilStopped(PolledPage* page, int ms)
    {
        QElapsedTimer t;
        t.start();
        while (page->isRunning() && t.elapsed() < ms) {
            QTest::qWait(20);
            page->refreshNow();
        }
        return !page->isRunning();
    }

    /// connectTarget() and its answer (it returns at once; the hello comes later).
    static bool connectAndWait(MainWindow& window, const QString& target, QString& error, int ms = 10'000)
    {
        QSignalSpy finished(&window, &MainWindow::targetConnectFinished);
        if (!window.connectTarget(target, &error))
            return false;
        if (finished.isEmpty() && !finished.wait(ms)) {
            error = "no answer within " + QString::number(ms) + " ms";
            return false;
        }
        error = finished.first().at(1).toString();
        return finished.first().at(0).toBool();
    }

    /// A short SCHED_OTHER run of the page's config: the tests need samples, not real-time.
    static LatencyConfig shortOtherConfig(const LatencyPage& page, int64_t durationNs)
    {
        LatencyConfig c = page.config();
        c.policy = Policy::Other;
        c.priority = 0;
        c.hogs = 0;
        c.durationNs = durationNs;
        return c;
    }

    /// Polls the page as its timer would until @p done or @p ms pass.
    template <class Done> bool pollUntil(LatencyPage* page, Done done, int ms)
    {
        QElapsedTimer t;
        t.start();
        while (!done() && t.elapsed() < ms) {
            QTest::qWait(LatencyPage::kRefreshMs);
            page->refreshNow();
        }
        return done();
    }

private slots:
    void initTestCase()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutBinary(remoteTargetBinary()));
        QVERIFY(m_dir.isValid());
    }

    void runsOnTheTargetAndShowsItsProbe()
    {
        const int before = test::threadsAlive();
        LatencyPage* latency = nullptr;
        std::unique_ptr<MainWindow> window(makeWindow(&latency));
        const QString command = "exec '" + remoteTargetBinary() + "' agent --stdio";
        QString error;
        QVERIFY2(connectAndWait(*window, command, error), qPrintable(error));
        QVERIFY(window->targetConnected());
        QVERIFY(!window->targetConnecting());
        QTRY_VERIFY_WITH_TIMEOUT(!window->findChild<QProgressDialog*>("connectingTarget"), 1000);

        // Who is measured: the hello's host and probe, in the title, the banner and the System panel.
        const nlohmann::json hello = window->target()->hello();
        const QString host = QString::fromStdString(hello.value("host", std::string()));
        const QString kernel =
            QString::fromStdString(hello["probe"].value("kernel_release", std::string("no kernel_release")));
        QVERIFY(!host.isEmpty());
        QVERIFY2(window->windowTitle().contains("measuring on " + host), qPrintable(window->windowTitle()));
        QVERIFY(!window->targetBanner()->isHidden());
        QVERIFY2(window->targetBanner()->text().startsWith("Measuring on " + host),
                 qPrintable(window->targetBanner()->text()));
        QVERIFY(window->targetBanner()->text().contains("agent --stdio"));
        // Tracing is the target's to check: offered, with a note that says so.
        QVERIFY2(latency->latencyControls()->traceNote().startsWith("On the target:"),
                 qPrintable(latency->latencyControls()->traceNote()));
        auto* dock = window->findChild<QDockWidget*>("systemDock");
        QVERIFY(dock);
        QCOMPARE(dock->windowTitle(), "System: " + window->target()->machine());
        auto* panel = qobject_cast<SystemPanel*>(dock->widget());
        QVERIFY(panel);
        bool kernelShown = false;
        for (QLabel* l : panel->findChildren<QLabel*>())
            kernelShown = kernelShown || l->text() == kernel;
        QVERIFY2(kernelShown, qPrintable(kernel));
        // Another page is not run on the target: it can be used, and its banner says that it measures this computer.
        auto* tabs = window->findChild<QTabBar*>("pageTabs");
        QVERIFY(tabs->isTabEnabled(1));
        window->setCurrentPage(1);
        QCOMPARE(window->currentIndex(), 1);
        const QString localHost = QString::fromStdString(m_probe.hostname);
        const QString other = window->targetBanner()->text();
        QVERIFY2(
            other.contains("this page measures this computer (" + localHost + "), not " + window->target()->machine()),
            qPrintable(other));
        QVERIFY(!window->targetBanner()->isHidden());
        QVERIFY2(window->windowTitle().contains("on this computer (" + localHost + ")"),
                 qPrintable(window->windowTitle()));
        window->setCurrentPage(0);
        QVERIFY2(window->targetBanner()->text().startsWith("Measuring on " + host),
                 qPrintable(window->targetBanner()->text()));

        // A 1 s run of the page's config, measured by the agent: it ends by itself and its samples are drawn.
        QCOMPARE(latency->applyConfig(shortOtherConfig(*latency, 1'000'000'000)), QStringList());
        QVERIFY(latency->start());
        QVERIFY(latency->isRunning());
        QVERIFY(pollUntil(
            latency, [&] { return remoteTargetSamples(*latency) > 0; }, 5000));
        QVERIFY(pollUntil(
            latency, [&] { return !latency->isRunning(); }, 10'000));
        const uint64_t samples = remoteTargetSamples(*latency);
        // 1 kHz for 1 s: about a thousand; generous bounds for a busy machine.
        QVERIFY2(samples > 100 && samples <= 1100, qPrintable(QString::number(samples)));
        QVERIFY(latency->shownRun()->finished);
        QVERIFY2(latency->shownRun()->error.empty(), latency->shownRun()->error.c_str());

        // Hold it as the reference, disconnect, and the reference stays over a local run, with the target's name.
        QVERIFY(latency->holdAsReference());
        auto* histogram = latency->findChild<HistogramChart*>();
        QVERIFY(histogram);
        QVERIFY2(histogram->referenceName().endsWith(" on " + window->target()->machine()),
                 qPrintable(histogram->referenceName()));
        window->disconnectTarget();
        QVERIFY(!window->targetConnected());
        QVERIFY(window->targetBanner()->isHidden());
        QCOMPARE(window->windowTitle(), QString("rtscope — scheduling latency, live"));
        QVERIFY(!latency->latencyControls()->traceNote().startsWith("On the target:"));
        QVERIFY(latency->hasReference());
        QVERIFY(dynamic_cast<LiveLatencySource*>(&latency->source()));
        QCOMPARE(latency->applyConfig(shortOtherConfig(*latency, 300'000'000)), QStringList());
        QVERIFY(latency->start());
        QVERIFY(pollUntil(
            latency, [&] { return !latency->isRunning(); }, 5000));
        QVERIFY(remoteTargetSamples(*latency) > 0);
        QVERIFY(latency->hasReference());
        QVERIFY2(histogram->referenceName().contains(" on " + host), qPrintable(histogram->referenceName()));
        auto* referenceLabel = latency->findChild<QLabel*>("referenceLabel");
        QVERIFY(referenceLabel && referenceLabel->text().contains(" on " + host));
        window.reset();
        QTRY_COMPARE_WITH_TIMEOUT(test::threadsAlive(), before, 2000); // the agent link's reader joined too
    }

    void everyRegistryPageRunsOnTheTarget()
    {
        const int before = test::threadsAlive();
        std::unique_ptr<MainWindow> window(new MainWindow(createExperimentPages(m_probe), m_probe, nullptr));
        QString error;
        QVERIFY2(connectAndWait(*window, "exec '" + remoteTargetBinary() + "' agent --stdio", error),
                 qPrintable(error));
        const QString machine = window->target()->machine();
        for (const char* name :
             {"starvation", "drift", "sleep-floor", "inversion", "contention", "deadline", "noise"}) {
            auto* page = qobject_cast<PolledPage*>(window->page(window->pageIndex(name)));
            QVERIFY2(page, name);
            QCOMPARE(page->measuredMachine(), machine);
            // What the page says of "this machine" is the target's probe (its hello), not this computer's.
            QVERIFY2(&page->measuredProbe() == &window->target()->probe(), name);
            window->setCurrentPage(window->pageIndex(name));
            QVERIFY2(window->targetBanner()->text().startsWith("Measuring on " + machine),
                     qPrintable(window->targetBanner()->text()));
            QCOMPARE(page->applyConfigJson(test::shortExperimentConfig(name)), QStringList());
            QSignalSpy status(page, &ExperimentPage::statusMessage);
            const uint64_t framesBefore = page->framesDrawn();
            QVERIFY2(page->start(), qPrintable(page->problems().join("; ")));
            QVERIFY(page->isRunning());
            QVERIFY2(page->busyCpus().empty(), name); // nothing of this computer is loaded
            QVERIFY2(pollUntilStopped(page, 15'000), name);
            // It ran there and ended by itself: drawn from the target's snapshots, no error, and said where.
            QVERIFY2(page->framesDrawn() > framesBefore, name);
            QVERIFY2(page->problems().isEmpty(), qPrintable(QString(name) + ": " + page->problems().join("; ")));
            QStringList said;
            for (const QList<QVariant>& m : status)
                said << m.at(0).toString();
            QVERIFY2(said.join("\n").contains(" on " + machine), qPrintable(said.join(" | ")));
        }
        // The per-CPU page measures the target's CPUs with the latency stream.
        auto* cpus = qobject_cast<CpusPage*>(window->page(window->pageIndex("cpus")));
        QVERIFY(cpus);
        QCOMPARE(cpus->measuredMachine(), machine);
        LatencyConfig perCpu = cpus->config();
        perCpu.policy = Policy::Other;
        perCpu.priority = 0;
        perCpu.hogs = 0;
        perCpu.durationNs = 500'000'000;
        perCpu.cpus = window->target()->topology().allowed;
        QCOMPARE(cpus->applyConfig(perCpu), QStringList());
        QVERIFY(cpus->start());
        QVERIFY(cpus->busyCpus().empty());
        QVERIFY(pollUntilStopped(cpus, 10'000));
        auto* remoteCpus = dynamic_cast<RemoteLatencySource*>(&cpus->source());
        QVERIFY(remoteCpus);
        QVERIFY2(remoteCpus->samplesReceived() > 0, "no sample of the target's CPUs arrived");
        QCOMPARE(cpus->source().snapshot()->threads.size(), perCpu.cpus.size());

        // The drift page's own experiment never ran: what it drew came over the link.
        auto* drift = qobject_cast<DriftPage*>(window->page(window->pageIndex("drift")));
        QVERIFY(drift);
        QVERIFY(!drift->experiment().snapshot());
        // The noise page's demo load is this computer's threads: off while it measures the target, and said so.
        auto* noisePage = window->findPage<NoisePage>();
        QVERIFY(noisePage);
        QVERIFY2(noisePage->demoText().contains("off: the demo load runs on this computer"),
                 qPrintable(noisePage->demoText()));
        // Every page of the app measures the target now (the Sweep's run there: tst_remote_sweep), but the doctor:
        // it changes the machine it runs on, never one at the end of a link, and the banner says it stays here.
        for (int i = 0; i < window->pageCount(); ++i) {
            ExperimentPage* p = window->page(i);
            if (p->name() == "doctor")
                QVERIFY(p->measuredMachine().isEmpty());
            else
                QVERIFY2(p == window->findPage<LatencyPage>() || p->measuredMachine() == machine,
                         qPrintable(p->name()));
        }

        // A dropped link ends a page's run on the target with the sentence, and keeps what was drawn.
        window->setCurrentPage(window->pageIndex("drift"));
        DriftConfig longRun = test::shortDriftConfig();
        longRun.ticks = 100'000; // 100 s: it only ends by the link
        QCOMPARE(drift->applyConfigJson(toJson(longRun)), QStringList());
        QVERIFY(drift->start());
        const uint64_t frames = drift->framesDrawn();
        QElapsedTimer t;
        t.start();
        while (drift->framesDrawn() < frames + 2 && t.elapsed() < 10'000) {
            QTest::qWait(20);
            drift->refreshNow();
        }
        QVERIFY(drift->framesDrawn() >= frames + 2);
        const pid_t agent = window->target()->agentPid();
        QVERIFY(agent > 0);
        QCOMPARE(::kill(agent, SIGKILL), 0);
        QVERIFY(pollUntilStopped(drift, 10'000));
        QVERIFY2(drift->problems().join(" ").contains("connection lost"), qPrintable(drift->problems().join(" ")));
        // The banner offers Reconnect; "Save run so far…" saves a latency recording, which a drift run is not.
        QTRY_VERIFY_WITH_TIMEOUT(window->targetBanner()->text().contains("connection lost"), 3000);
        QPushButton* save = nullptr;
        QPushButton* reconnect = nullptr;
        for (QPushButton* b : window->targetBanner()->findChildren<QPushButton*>()) {
            if (b->text() == "Save run so far…")
                save = b;
            if (b->text() == "Reconnect")
                reconnect = b;
        }
        QVERIFY(save && reconnect);
        QVERIFY(save->isHidden());
        QVERIFY(!reconnect->isHidden());
        window.reset();
        QTRY_VERIFY_WITH_TIMEOUT(test::threadsAlive() <= before, 2000);
    }

    void aDroppedLinkKeepsWhatWasReceived()
    {
        const int before = test::threadsAlive();
        LatencyPage* latency = nullptr;
        std::unique_ptr<MainWindow> window(makeWindow(&latency));
        const QString pidFile = m_dir.filePath("agent.pid");
        const QString command = "echo $$ > '" + pidFile + "'; exec '" + remoteTargetBinary() + "' agent --stdio";
        QString error;
        QVERIFY2(connectAndWait(*window, command, error), qPrintable(error));
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const pid_t agent = pid_t(f.readAll().trimmed().toInt());
        QVERIFY(agent > 0);

        // Until stopped: only the kill ends it.
        QCOMPARE(latency->applyConfig(shortOtherConfig(*latency, 0)), QStringList());
        QVERIFY(latency->start());
        QVERIFY(pollUntil(
            latency, [&] { return remoteTargetSamples(*latency) > 50; }, 5000));
        // Reset statistics clears the figures shown (here, at the latest sample received); the run goes on.
        const uint64_t beforeReset = remoteTargetSamples(*latency);
        QVERIFY(window->resetAction()->isEnabled());
        window->resetAction()->trigger();
        latency->refreshNow();
        QVERIFY2(remoteTargetSamples(*latency) < beforeReset, qPrintable(QString::number(beforeReset)));
        QVERIFY(pollUntil(
            latency, [&] { return remoteTargetSamples(*latency) > 50; }, 5000));
        const uint64_t received = remoteTargetSamples(*latency);

        QCOMPARE(::kill(agent, SIGKILL), 0);
        QVERIFY(pollUntil(
            latency, [&] { return !latency->isRunning(); }, 3000));
        QTRY_VERIFY_WITH_TIMEOUT(window->targetBanner()->text().contains("connection lost at"), 2000);
        QVERIFY(!window->targetBanner()->reconnectButton()->isHidden());
        // Everything received is kept and drawn, and the run says why it ended.
        QVERIFY(remoteTargetSamples(*latency) >= received);
        const std::string why = latency->shownRun()->error;
        QVERIFY2(why.find("connection lost at") != std::string::npos, why.c_str());
        QVERIFY(!latency->start()); // no link: refused with the sentence, nothing runs
        QVERIFY(!latency->isRunning());
        QVERIFY(remoteTargetSamples(*latency) >= received);

        // Save the run so far: the received recording, which replays with every sample drawn (and no end block).
        QVERIFY(!window->targetBanner()->saveButton()->isHidden());
        const QString saved = m_dir.filePath("lost.rtrec");
        QVERIFY2(window->fileMenu()->saveRecording(saved, &error), qPrintable(error));
        const ReplayedRun replayed = replayRecordingFile(saved.toStdString());
        QVERIFY2(replayed.snapshot, replayed.read.error.c_str());
        QVERIFY(replayed.read.samples >= received);
        QVERIFY2(replayed.read.truncated || !replayed.read.ok, "a lost run's recording has no end block");

        // Reconnect: the same target again; the run received before stays on screen and saveable until Start.
        const uint64_t shown = remoteTargetSamples(*latency);
        QVERIFY2(connectAndWait(*window, window->target()->command(), error), qPrintable(error));
        QVERIFY(window->targetBanner()->text().startsWith("Measuring on "));
        QVERIFY(window->targetBanner()->saveButton()->isHidden());
        latency->refreshNow();
        QCOMPARE(remoteTargetSamples(*latency), shown);
        const QString again = m_dir.filePath("lost-again.rtrec");
        QVERIFY2(window->fileMenu()->saveRecording(again, &error), qPrintable(error));
        QCOMPARE(replayRecordingFile(again.toStdString()).read.samples, replayed.read.samples);
        // And the new link measures: a short run there.
        QVERIFY2(shortRunArrives(latency, error), qPrintable(error));

        window->disconnectTarget();
        window.reset();
        QTRY_COMPARE_WITH_TIMEOUT(test::threadsAlive(), before, 2000); // the agent link's reader joined too
    }

    // The agent's command takes its time (an ssh login, here `sleep 3`): the GUI thread keeps running, the dialog
    // says where it connects, and Cancel returns at once and changes nothing.
    void connectingNeverBlocksAndCancelLeavesTheWindowAsItWas()
    {
        const int before = test::threadsAlive();
        LatencyPage* latency = nullptr;
        std::unique_ptr<MainWindow> window(makeWindow(&latency));
        window->show();
        const QString title = window->windowTitle();
        QSignalSpy finished(window.get(), &MainWindow::targetConnectFinished);
        int ticks = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, [&] { ++ticks; });
        tick.start(10);
        QElapsedTimer t;
        t.start();
        QString error;
        QVERIFY2(window->connectTarget("sleep 3", &error), qPrintable(error));
        QVERIFY2(t.elapsed() < 200, qPrintable(QString::number(t.elapsed())));
        QVERIFY(window->targetConnecting());
        auto* dialog = window->findChild<QProgressDialog*>("connectingTarget");
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        QCOMPARE(dialog->labelText(), QString("Connecting to sleep 3…"));
        QTest::qWait(400);
        QVERIFY2(ticks >= 10, qPrintable(QString::number(ticks))); // 40 if the GUI thread were never held
        QVERIFY(finished.isEmpty());

        auto* cancel = dialog->findChild<QPushButton*>();
        QVERIFY(cancel);
        QCOMPARE(cancel->text(), QString("Cancel"));
        t.restart();
        cancel->click();
        QVERIFY2(t.elapsed() < 200, qPrintable(QString::number(t.elapsed())));
        QVERIFY(!window->targetConnecting());
        QVERIFY(!window->targetConnected());
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.first().at(0).toBool(), false);
        QCOMPARE(window->windowTitle(), title);
        QVERIFY(window->targetBanner()->isHidden());
        QVERIFY(dynamic_cast<LiveLatencySource*>(&latency->source()));
        QTRY_VERIFY_WITH_TIMEOUT(!window->findChild<QProgressDialog*>("connectingTarget"), 1000);

        // Connected, a cancelled attempt at another target keeps the link in use.
        const QString command = "exec '" + remoteTargetBinary() + "' agent --stdio";
        QVERIFY2(connectAndWait(*window, command, error), qPrintable(error));
        const QString connectedTitle = window->windowTitle();
        QVERIFY(window->connectTarget("sleep 3", &error));
        window->cancelConnectTarget();
        QVERIFY(window->targetConnected());
        QVERIFY(window->target()->isOpen());
        QCOMPARE(window->target()->command(), command);
        QCOMPARE(window->windowTitle(), connectedTitle);
        window.reset();
        QTRY_COMPARE_WITH_TIMEOUT(test::threadsAlive(), before, 2000);
    }

    // The three forms the CLI takes; anything else gets one sentence naming the field and the forms.
    void badTargetsSayWhy()
    {
        LatencyPage* latency = nullptr;
        std::unique_ptr<MainWindow> window(makeWindow(&latency));
        QString error;
        QVERIFY(!window->connectTarget("  ", &error));
        QVERIFY2(error.startsWith(
                     "target is empty; give tcp://HOST:PORT, unix:PATH or ssh://[USER@]HOST[:PORT], or a command"),
                 qPrintable(error));
        QVERIFY(!window->connectTarget("http://board", &error));
        QVERIFY2(
            error.startsWith("target 'http://board' is not a target: the scheme is none of tcp://, unix: and ssh://; "
                             "give tcp://HOST:PORT"),
            qPrintable(error));
        QVERIFY(!window->connectTarget("tcp://127.0.0.1", &error));
        QVERIFY2(error.startsWith("target 'tcp://127.0.0.1' is not a target: "), qPrintable(error));
        QVERIFY(!window->connectTarget("ssh://@board", &error));
        QVERIFY2(error.contains("the user before '@' is empty"), qPrintable(error));
        QVERIFY(!window->targetConnecting());

        // A command that is not there, and a port nobody listens on: the attempt fails with the reason.
        QVERIFY(!connectAndWait(*window, "exec rtscope-no-such-agent-command", error));
        QVERIFY2(error.contains("the command was not found (exit status 127)"), qPrintable(error));
        const int port = rtscope::test::freeLoopbackPort();
        QVERIFY(port > 0);
        QVERIFY(!connectAndWait(*window, QString("tcp://127.0.0.1:%1").arg(port), error));
        QVERIFY2(error.contains(QString("cannot connect to 127.0.0.1:%1").arg(port)), qPrintable(error));
        QVERIFY(!window->targetConnected());
        QVERIFY(window->targetBanner()->isHidden());
    }

    // tcp://: an agent listening on loopback, reached directly with the token it wrote at start.
    void connectsOverTcp()
    {
        const int before = test::threadsAlive();
        QProcess agent;
        agent.start(remoteTargetBinary(), {"agent", "--listen", "127.0.0.1:0"});
        QVERIFY(agent.waitForStarted());
        QByteArray err;
        int port = -1;
        const QRegularExpression re("listening on [^ ]*:(\\d+)");
        QElapsedTimer t;
        t.start();
        while (port < 0 && t.elapsed() < 10'000 && agent.state() == QProcess::Running) {
            agent.waitForReadyRead(100);
            err += agent.readAllStandardError();
            if (const QRegularExpressionMatch m = re.match(QString::fromUtf8(err)); m.hasMatch())
                port = m.captured(1).toInt();
        }
        QVERIFY2(port > 0, err.constData());
        const QRegularExpressionMatch tokenFile = QRegularExpression("shows the token in (\\S+) \\(").match(err);
        QVERIFY2(tokenFile.hasMatch(), err.constData());
        {
            LatencyPage* latency = nullptr;
            std::unique_ptr<MainWindow> window(makeWindow(&latency));
            QString error;
            // Without the agent's token: its one sentence, and no link.
            QVERIFY(!connectAndWait(*window, QString("tcp://127.0.0.1:%1").arg(port), error));
            QVERIFY2(error.contains("authentication failed"), qPrintable(error));
            window->target()->setTokenFile(tokenFile.captured(1));
            QVERIFY2(connectAndWait(*window, QString("tcp://127.0.0.1:%1").arg(port), error), qPrintable(error));
            QVERIFY(window->targetBanner()->text().contains(QString("via tcp://127.0.0.1:%1").arg(port)));
            QVERIFY2(shortRunArrives(latency, error), qPrintable(error));
        }
        ::kill(pid_t(agent.processId()), SIGTERM);
        QVERIFY(agent.waitForFinished(3000));
        QTRY_COMPARE_WITH_TIMEOUT(test::threadsAlive(), before, 2000);
    }
};

RTSCOPE_TEST_MAIN(TestRemoteTarget)
#include "tst_remote_target.moc"
