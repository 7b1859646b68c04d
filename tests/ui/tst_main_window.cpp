// The main window around the pages: closing it joins every worker, the GUI thread keeps off the measured CPU
// while a run goes on, keys 1–9 switch pages, the RT banner tells the fix, and settings persist.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/latency_source.h"
#include "ui/experiment_pages.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/system_panel.h"
#include "ui/workbench/threads/threads_page.h"

#include "tests/common/test_main.h"
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>

#include <QtTest>

using namespace rtscope;

namespace {

bool intersects(const std::vector<int>& a, const std::vector<int>& b)
{
    for (int x : a)
        if (std::find(b.begin(), b.end(), x) != b.end())
            return true;
    return false;
}

} // namespace

class TestMainWindow : public rtscope::test::ProbedTest {
    Q_OBJECT

private slots:
    void initTestCase() { setUp(); }

    void closingTheWindowJoinsEveryThread()
    {
        const std::vector<int> original = GuiThreadAffinity::current();
        QSettings settings(m_dir.filePath("close.ini"), QSettings::IniFormat);
        auto* window = new MainWindow(createExperimentPages(m_probe), m_probe, &settings);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window));
        auto* page = window->findPage<LatencyPage>();
        QVERIFY(page);
        LatencyConfig c = page->config();
        c.hogs = 4;
        c.periodNs = 500'000;
        QVERIFY(page->applyConfig(c).isEmpty());

        QSignalSpy running(page, &ExperimentPage::runningChanged);
        window->startStopAction()->trigger();
        QVERIFY(page->isRunning());
        QCOMPARE(window->startStopAction()->text(), QString("Stop"));
        QTRY_COMPARE(rtscope::test::threadsAlive("rtscope-hog"), 4);
        QVERIFY(rtscope::test::threadsAlive("rtscope-measure") == 1);
        QTRY_VERIFY(page->framesDrawn() > 2);

        // The GUI thread runs elsewhere than the measured and hog CPUs, when the machine has another CPU.
        const std::vector<int> busy = page->busyCpus();
        QVERIFY(!busy.empty());
        if (original.size() > busy.size()) {
            QVERIFY(GuiThreadAffinity::pinned());
            QVERIFY2(!intersects(GuiThreadAffinity::current(), busy), "GUI thread may run on a busy CPU");
        }

        const int64_t t0 = nowNs();
        QVERIFY(window->close());
        const int64_t took = nowNs() - t0;
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY2(took < 2 * kNsPerSec, qPrintable(QString("close took %1 ms").arg(double(took) / 1e6)));
        QVERIFY(!page->isRunning());
        QCOMPARE(running.count(), 2);
        QCOMPARE(GuiThreadAffinity::current(), original);
        QVERIFY(!GuiThreadAffinity::pinned());
        delete window;
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void destroyingTheWindowWhileRunningJoinsToo()
    {
        auto* window = new MainWindow(createExperimentPages(m_probe), m_probe, nullptr);
        auto* page = window->findPage<LatencyPage>();
        QVERIFY(page->start());
        QTRY_VERIFY(rtscope::test::threadsAlive("rtscope-measure") == 1);
        delete window;
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QVERIFY(!GuiThreadAffinity::pinned());
    }

    void keysSwitchPagesAndTheirControls()
    {
        // Two pages of our own, so the test does not depend on how many labs the app ships.
        std::vector<ExperimentPage*> pages = {new LatencyPage(std::make_unique<ReplayLatencySource>(), m_probe),
                                              new LatencyPage(std::make_unique<ReplayLatencySource>(), m_probe)};
        MainWindow window(pages, m_probe, nullptr);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QCOMPARE(window.pageCount(), 2);
        QCOMPARE(window.currentIndex(), 0);
        auto* controlStack = window.findChild<QDockWidget*>("controlsDock")->findChild<QStackedWidget*>();
        QVERIFY(controlStack);
        QTest::keyClick(&window, Qt::Key_2);
        QCOMPARE(window.currentIndex(), 1);
        QCOMPARE(window.currentPage(), pages[1]);
        QCOMPARE(controlStack->currentWidget(), pages[1]->controls());
        QTest::keyClick(&window, Qt::Key_5); // no fifth page: nothing happens
        QCOMPARE(window.currentIndex(), 1);
        QTest::keyClick(&window, Qt::Key_1);
        QCOMPARE(window.currentIndex(), 0);
        QCOMPARE(controlStack->currentWidget(), pages[0]->controls());
    }

    void toolbarDrivesTheCurrentPage()
    {
        auto* replayPage = new LatencyPage(std::make_unique<ReplayLatencySource>(), m_probe);
        auto& src = static_cast<ReplayLatencySource&>(replayPage->source());
        MainWindow window({replayPage}, m_probe, nullptr);
        QVERIFY(!window.resetAction()->isEnabled());
        window.startStopAction()->trigger();
        QVERIFY(replayPage->isRunning());
        QVERIFY(window.resetAction()->isEnabled());
        for (int i = 0; i < 50; ++i)
            src.replay().add(LatencySample{uint64_t(i), nowNs() - kNsPerSec + i * kNsPerMs,
                                           nowNs() - kNsPerSec + i * kNsPerMs + 7'000, 7'000, 0, 0});
        src.publish();
        replayPage->refreshNow();
        window.holdAction()->trigger();
        QVERIFY(replayPage->hasReference());
        window.pauseAction()->trigger();
        QVERIFY(replayPage->displayPaused());
        window.pauseAction()->trigger();
        QVERIFY(!replayPage->displayPaused());
        window.startStopAction()->trigger();
        QVERIFY(!replayPage->isRunning());
        QCOMPARE(window.startStopAction()->text(), QString("Start"));
    }

    void resetIsDisabledWhereThereIsNothingToReset()
    {
        auto* latency = new LatencyPage(std::make_unique<ReplayLatencySource>(), m_probe);
        auto* threads = new ThreadsPage(m_probe);
        MainWindow window({latency, threads}, m_probe, nullptr);
        QAction* reset = window.resetAction();
        QVERIFY(latency->supportsReset());
        window.startStopAction()->trigger();
        QVERIFY(latency->isRunning());
        QVERIFY(reset->isEnabled());
        QVERIFY(reset->toolTip().startsWith("Clear histogram"));
        window.startStopAction()->trigger();

        // The RT threads page runs (it re-reads /proc) but keeps no statistics: Reset is off, and says why.
        window.setCurrentPage(1);
        window.startStopAction()->trigger();
        QVERIFY(threads->isRunning());
        QVERIFY(!threads->supportsReset());
        QVERIFY(!reset->isEnabled());
        QVERIFY2(reset->toolTip().startsWith("Nothing to reset on this page"), qPrintable(reset->toolTip()));
        window.startStopAction()->trigger();
        QVERIFY(!threads->isRunning());

        // Every page whose figures belong to one run says the same; only the latency and per-CPU pages reset.
        for (ExperimentPage* p : createExperimentPages(m_probe)) {
            const std::unique_ptr<ExperimentPage> page(p);
            const bool resets = page->name() == "latency" || page->name() == "cpus";
            QVERIFY2(page->supportsReset() == resets, qPrintable(page->name()));
        }
    }

    void bannerStatesTheFixWhenRtIsUnavailable()
    {
        SystemProbe noRt = m_probe;
        noRt.rtAvailable = false;
        noRt.rtUnavailableReason = "RLIMIT_RTPRIO is 0 for this user: add '@realtime - rtprio 99' to "
                                   "/etc/security/limits.d/rtscope.conf and log in again.";
        MainWindow window({new LatencyPage(std::make_unique<ReplayLatencySource>(), noRt)}, noRt, nullptr);
        window.show();
        QVERIFY(window.rtBanner()->isVisible());
        QVERIFY(window.rtBanner()->text().contains("/etc/security/limits.d/rtscope.conf"));
        QVERIFY(window.rtBanner()->text().contains("not available"));
        const auto rows = SystemPanel::rows(noRt);
        bool found = false;
        for (const auto& [label, value] : rows)
            found = found || (label == "RT priority" && value == "NOT available");
        QVERIFY(found);

        SystemProbe rt = m_probe;
        rt.rtAvailable = true;
        MainWindow ok({new LatencyPage(std::make_unique<ReplayLatencySource>(), rt)}, rt, nullptr);
        ok.show();
        QVERIFY(!ok.rtBanner()->isVisible());
        QVERIFY(SystemPanel::rtBannerText(rt).isEmpty());
    }

    void settingsPersistConfigAndViewChoices()
    {
        const QString file = m_dir.filePath("persist.ini");
        {
            QSettings settings(file, QSettings::IniFormat);
            MainWindow window({new LatencyPage(std::make_unique<ReplayLatencySource>(), m_probe)}, m_probe, &settings);
            window.resize(1300, 850);
            auto* page = window.findPage<LatencyPage>();
            LatencyConfig c = page->config();
            c.policy = Policy::Batch;
            c.hogs = 7;
            c.periodNs = 250'000;
            c.waiter = WaiterKind::Posix;
            QVERIFY(page->applyConfig(c).isEmpty());
            page->setLogLatencyAxis(false);
            page->setTimelineSeconds(30);
            page->setResetOnChange(false);
            window.close();
        }
        QSettings settings(file, QSettings::IniFormat);
        MainWindow window({new LatencyPage(std::make_unique<ReplayLatencySource>(), m_probe)}, m_probe, &settings);
        auto* page = window.findPage<LatencyPage>();
        const LatencyConfig c = page->config();
        QCOMPARE(c.policy, Policy::Batch);
        QCOMPARE(c.hogs, 7);
        QCOMPARE(c.periodNs, int64_t(250'000));
        QCOMPARE(c.waiter, WaiterKind::Posix);
        QVERIFY(!page->logLatencyAxis());
        QCOMPARE(page->timelineSeconds(), 30);
        QVERIFY(!page->resetOnChange());
        QCOMPARE(window.size(), QSize(1300, 850));
        QVERIFY(page->problems().isEmpty());

        // A saved config this machine cannot run is reported, not silently replaced.
        QSettings broken(m_dir.filePath("broken.ini"), QSettings::IniFormat);
        broken.setValue("latency/config", R"({"hogs": 500})");
        MainWindow w2({new LatencyPage(std::make_unique<ReplayLatencySource>(), m_probe)}, m_probe, &broken);
        auto* p2 = w2.findPage<LatencyPage>();
        QVERIFY(p2->problems().join(" ").contains("hogs must be between"));
        QCOMPARE(p2->config().hogs, 0);
    }
};

RTSCOPE_TEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
