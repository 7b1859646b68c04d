// The desktop app watching a remote target (docs/remote.md, Desktop app): the agent is this build's own
// `rtscope agent --stdio` started as the target command. Connected, the Latency page's Start runs there and the
// received recording stream fills its snapshot; the System panel, the title and the banner name the target; killing
// the agent mid-run says "connection lost at …", keeps every sample received and leaves no thread behind.
#include "engine/rt/system_probe.h"
#include "tests/common/thread_census.h"
#include "ui/common/latency_source.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/remote/target_banner.h"
#include "ui/remote/target_connection.h"
#include "ui/system_panel.h"
#include "ui/workbench/threads/threads_page.h"

#include "tests/common/test_main.h"
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTabBar>
#include <QTemporaryDir>

#include <QtTest>

#include <csignal>

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

} // namespace

class TestRemoteTarget : public QObject {
    Q_OBJECT
    SystemProbe m_probe = probeSystem();
    QTemporaryDir m_dir;

    /// The window with the Latency page and one page the target does not run yet.
    MainWindow* makeWindow(LatencyPage** latency)
    {
        *latency = new LatencyPage(std::make_unique<LiveLatencySource>(), m_probe);
        return new MainWindow({*latency, new ThreadsPage(m_probe)}, m_probe, nullptr);
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
        if (remoteTargetBinary().isEmpty())
            QSKIP("RTSCOPE_BINARY is not set (run through ctest)");
        QVERIFY(m_dir.isValid());
    }

    void runsOnTheTargetAndShowsItsProbe()
    {
        const int before = test::threadsAlive();
        LatencyPage* latency = nullptr;
        std::unique_ptr<MainWindow> window(makeWindow(&latency));
        const QString command = "exec '" + remoteTargetBinary() + "' agent --stdio";
        QString error;
        QVERIFY2(window->connectTarget(command, &error), qPrintable(error));
        QVERIFY(window->targetConnected());

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
        auto* dock = window->findChild<QDockWidget*>("systemDock");
        QVERIFY(dock);
        QCOMPARE(dock->windowTitle(), "System: " + window->target()->machine());
        auto* panel = qobject_cast<SystemPanel*>(dock->widget());
        QVERIFY(panel);
        bool kernelShown = false;
        for (QLabel* l : panel->findChildren<QLabel*>())
            kernelShown = kernelShown || l->text() == kernel;
        QVERIFY2(kernelShown, qPrintable(kernel));
        // The page the target does not run yet is disabled, with its sentence.
        auto* tabs = window->findChild<QTabBar*>("pageTabs");
        QVERIFY(!tabs->isTabEnabled(1));
        QVERIFY(tabs->tabToolTip(1).startsWith("Not on a remote target yet"));
        window->setCurrentPage(1);
        QCOMPARE(window->currentIndex(), 0);

        // A 1 s run of the page's config, measured by the agent: it ends by itself and its samples are drawn.
        LatencyConfig c = latency->config();
        c.policy = Policy::Other;
        c.priority = 0;
        c.hogs = 0;
        c.durationNs = 1'000'000'000;
        QCOMPARE(latency->applyConfig(c), QStringList());
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

        // Hold it as the reference, disconnect, and the reference stays over the local page.
        QVERIFY(latency->holdAsReference());
        window->disconnectTarget();
        QVERIFY(!window->targetConnected());
        QVERIFY(window->targetBanner()->isHidden());
        QCOMPARE(window->windowTitle(), QString("rtscope — scheduling latency, live"));
        QVERIFY(tabs->isTabEnabled(1));
        QVERIFY(latency->hasReference());
        QVERIFY(dynamic_cast<LiveLatencySource*>(&latency->source()));
        window.reset();
        QTRY_COMPARE_WITH_TIMEOUT(test::threadsAlive(), before, 2000); // the agent link's reader joined too
    }

    void aDroppedLinkKeepsWhatWasReceived()
    {
        const int before = test::threadsAlive();
        LatencyPage* latency = nullptr;
        std::unique_ptr<MainWindow> window(makeWindow(&latency));
        const QString pidFile = m_dir.filePath("agent.pid");
        const QString command = "echo $$ > '" + pidFile + "'; exec '" + remoteTargetBinary() + "' agent --stdio";
        QString error;
        QVERIFY2(window->connectTarget(command, &error), qPrintable(error));
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const pid_t agent = pid_t(f.readAll().trimmed().toInt());
        QVERIFY(agent > 0);

        LatencyConfig c = latency->config();
        c.policy = Policy::Other;
        c.priority = 0;
        c.hogs = 0;
        c.durationNs = 0; // until stopped: only the kill ends it
        QCOMPARE(latency->applyConfig(c), QStringList());
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

        window->disconnectTarget();
        window.reset();
        QTRY_COMPARE_WITH_TIMEOUT(test::threadsAlive(), before, 2000); // the agent link's reader joined too
    }
};

RTSCOPE_TEST_MAIN(TestRemoteTarget)
#include "tst_remote_target.moc"
