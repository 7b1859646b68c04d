// ctest: parallel. Keys, palette and settings in temp INI files; nothing measured.
// Presentation mode and the keys of a talk: F11 enlarges the fonts, thickens every chart line, switches to a
// high-contrast palette, hides the controls and goes full screen, and F11 again restores each of those exactly;
// C shows and hides the controls; Space pauses the display unless a focused button or check box wants it; S
// saves the current page as a PNG and says where; the explanation pane follows the page, reads the probe and
// is remembered in the settings.
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/units.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/app/app_style.h"
#include "ui/app/presentation_mode.h"
#include "ui/common/latency_source.h"
#include "ui/common/text_format.h"
#include "ui/experiment_pages.h"
#include "ui/explanation_pane.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/histogram_chart.h"
#include "ui/starvation/starvation_page.h"
#include "ui/timers/drift_page.h"
#include "ui/timers/sleep_floor_page.h"

#include "tests/common/test_main.h"
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QImage>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>

#include <QtTest>

using namespace rtscope;

namespace {

// The pen width of every line series in @p w's charts, in a fixed order.
QList<double> lineWidths(QWidget* w)
{
    QList<double> out;
    for (QChartView* view : w->findChildren<QChartView*>())
        for (QAbstractSeries* s : view->chart()->series())
            if (auto* line = qobject_cast<QLineSeries*>(s))
                out << line->pen().widthF();
    return out;
}

QDockWidget* dock(MainWindow& w, const char* name)
{
    return w.findChild<QDockWidget*>(name);
}

SystemProbe fakeProbe(bool eevdf, bool vm, int64_t slackNs)
{
    SystemProbe p;
    p.kernelRelease = "9.9.9-test";
    p.scheduler = eevdf ? "EEVDF" : "CFS";
    p.preemptModel = "voluntary";
    p.virtualMachine = vm;
    p.hypervisor = vm ? "TestVisor" : "";
    p.timerSlackNs = slackNs;
    p.clockResolutionNs = 1;
    p.clocksource = "testclock";
    p.rtAvailable = true;
    p.onlineCpus = {0, 1};
    return p;
}

// A main window that keeps its layout in the settings file @p ini, shown.
struct SavedWindow {
    SavedWindow(const QString& ini, const SystemProbe& probe)
        : settings(ini, QSettings::IniFormat)
        , window(createExperimentPages(probe), probe, &settings)
    {
        window.show();
    }
    QSettings settings;
    MainWindow window;
};

} // namespace

class TestPresentationMode : public rtscope::test::ProbedTest {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        setUp();
        applyTheme(*qApp, "light");
    }

    void f11EntersAndLeavesExactly()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        window.resize(1400, 900); // with its frame inside the screen: Qt 6.8 brings a window back inside on leaving
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PresentationMode* mode = window.presentationMode();
        QVERIFY(mode);
        auto* page = window.findPage<LatencyPage>();
        window.setCurrentPage(window.pageIndex(page->name()));

        const QPalette palette = QApplication::palette();
        const QFont font = QApplication::font();
        const QList<double> widths = lineWidths(page);
        QVERIFY(!widths.isEmpty());
        const QRect geometry = window.geometry();
        QVERIFY(dock(window, "controlsDock")->isVisible());
        QVERIFY(dock(window, "systemDock")->isVisible());
        QVERIFY(!window.isFullScreen());
        QCOMPARE(page->refreshIntervalMs(), LatencyPage::kRefreshMs);

        QSignalSpy changed(mode, &PresentationMode::activeChanged);
        QTest::keyClick(&window, Qt::Key_F11);
        QVERIFY(mode->isActive());
        QCOMPARE(changed.count(), 1);
        QTRY_VERIFY(window.windowState() & Qt::WindowFullScreen);
        QCOMPARE(QApplication::font().pointSizeF(), font.pointSizeF() * PresentationMode::kFontScale);
        QCOMPARE(plot::lineWidthScale(), PresentationMode::kLineScale);
        // Pure black on white: the light theme's high-contrast form.
        QCOMPARE(QApplication::palette().color(QPalette::Base), QColor(Qt::white));
        QCOMPARE(QApplication::palette().color(QPalette::Text), QColor(Qt::black));
        QVERIFY(!dock(window, "controlsDock")->isVisible());
        QVERIFY(!mode->controlsAction()->isChecked());
        QCOMPARE(page->font().pointSizeF(), font.pointSizeF() * PresentationMode::kFontScale);
        QVERIFY(!dock(window, "systemDock")->isVisible());
        // One frame per refresh of a 60 Hz projector (docs/BENCHMARKS.md).
        QCOMPARE(page->refreshIntervalMs(), LatencyPage::kPresentationRefreshMs);
        QVERIFY(LatencyPage::kPresentationRefreshMs <= 1000 / 60);
        // Every chart line of the page is drawn thicker.
        const QList<double> thick = lineWidths(page);
        QCOMPARE(thick.size(), widths.size());
        for (int i = 0; i < widths.size(); ++i)
            QCOMPARE(thick[i], widths[i] * PresentationMode::kLineScale);

        // C brings the controls back within presentation mode, and they go again.
        QTest::keyClick(&window, Qt::Key_C);
        QVERIFY(dock(window, "controlsDock")->isVisible());
        QTest::keyClick(&window, Qt::Key_C);
        QVERIFY(!dock(window, "controlsDock")->isVisible());

        QTest::keyClick(&window, Qt::Key_F11);
        QVERIFY(!mode->isActive());
        QCOMPARE(changed.count(), 2);
        QTRY_VERIFY(!(window.windowState() & Qt::WindowFullScreen));
        QCOMPARE(QApplication::palette(), palette);
        QCOMPARE(QApplication::font(), font);
        QCOMPARE(page->font(), font);
        QVERIFY(!window.testAttribute(Qt::WA_SetFont));
        QVERIFY(!window.testAttribute(Qt::WA_SetPalette));
        QCOMPARE(plot::lineWidthScale(), 1.0);
        QCOMPARE(lineWidths(page), widths);
        QCOMPARE(page->refreshIntervalMs(), LatencyPage::kRefreshMs);
        QVERIFY(dock(window, "controlsDock")->isVisible());
        QVERIFY(dock(window, "systemDock")->isVisible());
        QVERIFY(mode->controlsAction()->isChecked());
        QTRY_COMPARE(window.size(), geometry.size()); // the position may move by the frame on some platforms
    }

    void controlsHiddenBeforeStayHiddenAfter()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PresentationMode* mode = window.presentationMode();
        mode->controlsAction()->trigger(); // hide by the View menu's item
        QVERIFY(!dock(window, "controlsDock")->isVisible());
        mode->toggleAction()->trigger();
        QVERIFY(mode->isActive());
        mode->toggleAction()->trigger();
        QVERIFY(!dock(window, "controlsDock")->isVisible());
        QVERIFY(!mode->controlsAction()->isChecked());
    }

    void closingInPresentationModeSavesTheNormalWindow()
    {
        const QString ini = m_dir.filePath("close.ini");
        {
            SavedWindow saved(ini, m_probe);
            MainWindow& window = saved.window;
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.presentationMode()->setActive(true);
            const double big = QApplication::font().pointSizeF();
            window.close();
            QVERIFY(QApplication::font().pointSizeF() < big);
            QVERIFY(!window.presentationMode()->isActive());
        }
        SavedWindow saved(ini, m_probe);
        MainWindow& again = saved.window;
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(dock(again, "controlsDock")->isVisible());
        QVERIFY(!again.isFullScreen());
    }

    void spacePausesUnlessAFocusedControlWantsIt()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        auto* page = window.findPage<LatencyPage>();
        window.setCurrentPage(window.pageIndex(page->name()));
        window.setFocus();
        QVERIFY(!page->displayPaused());
        QTest::keyClick(&window, Qt::Key_Space);
        QVERIFY(page->displayPaused());
        QVERIFY(window.pauseAction()->isChecked());
        QTest::keyClick(&window, Qt::Key_Space);
        QVERIFY(!page->displayPaused());

        // A focused check box keeps its Space: it toggles, the display does not pause.
        auto* box = page->findChild<QCheckBox*>();
        QVERIFY(box);
        box->setFocus();
        QTRY_VERIFY(box->hasFocus());
        const bool checked = box->isChecked();
        QTest::keyClick(box, Qt::Key_Space);
        QCOMPARE(box->isChecked(), !checked);
        QVERIFY(!page->displayPaused());
    }

    void sSavesTheCurrentPage()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PresentationMode* mode = window.presentationMode();
        QCOMPARE(mode->snapshotFolder(),
                 QDir(QStandardPaths::writableLocation(QStandardPaths::PicturesLocation)).filePath("rtscope"));
        const QString folder = m_dir.filePath("snapshots");
        mode->setSnapshotFolder(folder);
        auto* page = window.findPage<DriftPage>();
        window.setCurrentPage(window.pageIndex("drift"));
        window.setFocus();
        QTest::keyClick(&window, Qt::Key_S);
        const QStringList files = QDir(folder).entryList({"drift-*.png"}, QDir::Files);
        QCOMPARE(files.size(), 1);
        const QImage image(QDir(folder).filePath(files.first()));
        QCOMPARE(image.size(), page->snapshotWidget()->grab().size());
        QVERIFY(window.statusBar()->currentMessage().startsWith("Snapshot saved to " + folder + "/drift-"));
        // A second snapshot in the same second gets its own name.
        QVERIFY(!mode->saveSnapshot().isEmpty());
        QVERIFY(!mode->saveSnapshot().isEmpty());
        QCOMPARE(QDir(folder).entryList({"drift-*.png"}, QDir::Files).size(), 3);

        mode->setSnapshotFolder("/proc/no-such-folder");
        QVERIFY(mode->saveSnapshot().isEmpty());
        QVERIFY(window.statusBar()->currentMessage().startsWith("Snapshot not saved: cannot create the folder"));
    }

    void theExplanationPaneFollowsThePageAndIsRemembered()
    {
        const QString ini = m_dir.filePath("pane.ini");
        {
            SavedWindow saved(ini, m_probe);
            MainWindow& window = saved.window;
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            ExplanationPane* pane = window.explanationPane();
            QVERIFY(pane && !pane->isVisible());
            window.setCurrentPage(window.pageIndex("latency"));
            window.setFocus();
            QTest::keyClick(&window, Qt::Key_F1);
            QVERIFY(pane->isVisible());
            QVERIFY(window.explainAction()->isChecked());
            QVERIFY(pane->text().startsWith("Real-time means on time, not faster"));
            QCOMPARE(pane->pageTitle(), QString("Latency"));
            window.setCurrentPage(window.pageIndex("starvation"));
            QVERIFY(pane->text().startsWith("The trap: a SCHED_FIFO thread that never blocks starves its CPU"));
            window.close();
        }
        {
            SavedWindow saved(ini, m_probe);
            MainWindow& window = saved.window;
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(window.explanationPane()->isVisible());
            QVERIFY(window.explainAction()->isChecked());
            QVERIFY(window.explanationPane()->text().startsWith("The trap")); // the page it was left on
            window.explainAction()->trigger();
            QVERIFY(!window.explanationPane()->isVisible());
            window.close();
        }
        SavedWindow saved(ini, m_probe);
        MainWindow& window = saved.window;
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!window.explanationPane()->isVisible());
    }

    // What this kernel does differently comes from the probe, never from figures measured elsewhere.
    void explanationsReadTheProbe()
    {
        const SystemProbe cfs = fakeProbe(false, true, 1234);
        const SystemProbe eevdf = fakeProbe(true, false, 50000);
        LatencyPage a(std::make_unique<ReplayLatencySource>(), cfs), b(std::make_unique<ReplayLatencySource>(), eevdf);
        QVERIFY(a.explanation().contains("CFS makes a waking SCHED_OTHER thread wait"));
        QVERIFY(b.explanation().contains("EEVDF lets a thread that slept run again soon"));
        QVERIFY(a.explanation().contains("A <b>virtual machine</b> (TestVisor)"));
        QVERIFY(b.explanation().contains("No hypervisor detected."));
        DriftPage drift(cfs);
        SleepFloorPage floor(cfs);
        StarvationPage starve(cfs);
        for (const QString& text : {a.explanation(), drift.explanation(), floor.explanation(), starve.explanation()}) {
            QVERIFY(text.contains("Linux 9.9.9-test, <b>CFS</b> scheduler, preemption <b>voluntary</b>."));
            QVERIFY(text.contains("What you are looking at.") && text.contains("What to expect.") &&
                    text.contains("Why.") && text.contains("On this machine:"));
        }
        const QString slack = durationQt(1234);
        QVERIFY(drift.explanation().contains("<b>Timer slack</b> of this process: <b>" + slack));
        QVERIFY(floor.explanation().contains("<b>Timer slack</b> of this process: <b>" + slack));
        QVERIFY(floor.explanation().contains("clock source <b>testclock</b>"));
        QVERIFY(starve.explanation().contains("RT throttling") || starve.explanation().contains("could not be read"));
    }

    void theKeyboardTableNamesEveryKey()
    {
        const QString html = PresentationMode::keyboardHelpHtml();
        for (const char* key : {"F5", "Space", "R", "H", "S", "1 … 5", "F1", "F11", "C"})
            QVERIFY2(html.contains(QString("<b>%1").arg(key)), key);
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }
};

RTSCOPE_TEST_MAIN(TestPresentationMode)
#include "tst_presentation_mode.moc"
