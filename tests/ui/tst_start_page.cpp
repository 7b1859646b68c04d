// The start page: one card per lesson in the Presets menu's order, each saying what it needs as the system probe
// found it (with and without real-time priority, with and without tracefs), the one-line verdict, a click on a card
// plays its lesson, Escape and a page tab go to the scope with the docks back, and "Show at start" is remembered
// (unticked, the window opens on the page it showed last).
#include "engine/presets/preset.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/trace/trace_session.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/app/preset_runner.h"
#include "ui/experiment_pages.h"
#include "ui/main_window.h"
#include "ui/start/start_page.h"

#include "tests/common/test_main.h"
#include <QAbstractButton>
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QTabBar>
#include <QTemporaryDir>
#include <QToolBar>

#include <QtTest>

using namespace rtscope;

namespace {

SystemProbe startPageFakeProbe(bool rt)
{
    SystemProbe p;
    p.kernelRelease = "6.18.0-1-amd64";
    p.preemptModel = "PREEMPT_DYNAMIC (full)";
    p.onlineCpus = {0, 1};
    p.rtAvailable = rt;
    p.rtUnavailableReason = rt ? "" : "RLIMIT_RTPRIO is 0: see docs/rt-privileges.md.";
    return p;
}

int startPageCardOf(const StartPage& page, const QString& id)
{
    for (int i = 0; i < page.cardCount(); ++i)
        if (page.card(i)->objectName() == "lesson-" + id)
            return i;
    return -1;
}

} // namespace

class TestStartPage : public rtscope::test::ProbedTest {
    Q_OBJECT

private slots:
    void initTestCase() { setUp(); }

    void oneCardPerLessonInMenuOrder()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        QVERIFY(!window.startPage());
        window.showStartPage();
        StartPage* start = window.startPage();
        QVERIFY(start);
        QVERIFY(window.isStartPageShown());
        const std::vector<Preset> lessons = builtinPresets();
        QCOMPARE(lessons.size(), size_t(7)); // every built-in validates on the test machines (tst_preset)
        QCOMPARE(start->cardCount(), int(lessons.size()));
        for (int i = 0; i < start->cardCount(); ++i) {
            QCOMPARE(start->card(i)->objectName(), "lesson-" + QString::fromStdString(lessons[size_t(i)].id));
            auto* title = start->card(i)->findChild<QLabel*>("title");
            QVERIFY(title);
            QCOMPARE(title->text(), QString::fromStdString(lessons[size_t(i)].title));
            // A built-in lesson has a question of its own, not the description's first sentence.
            const QString question = start->card(i)->findChild<QLabel*>("question")->text();
            QVERIFY2(question.endsWith('?'), qPrintable(question));
            QVERIFY(!start->card(i)->findChild<QLabel*>("thumbnail")->pixmap().isNull());
        }
        // "Open a result…" offers File › Open recording… and Open cyclictest results….
        QVERIFY(start->openButton()->isEnabled());
        QVERIFY(start->openButton()->menu());
        QCOMPARE(start->openButton()->menu()->actions().size(), 2);
        // "Connect to a target…" is File › Connect to target…: clicking it triggers that action, whose dialog is
        // dismissed here (cancelled: nothing connects).
        auto* connectTarget = window.findChild<QAction*>("connectTarget");
        QVERIFY(connectTarget);
        QVERIFY(start->connectButton()->isEnabled());
        QSignalSpy triggered(connectTarget, &QAction::triggered);
        QTimer::singleShot(100, [] {
            if (QWidget* modal = QApplication::activeModalWidget())
                modal->close();
        });
        start->connectButton()->click();
        QCOMPARE(triggered.count(), 1);
    }

    void needsFollowTheProbe()
    {
        const std::vector<Preset> lessons = builtinPresets();
        const TraceProbe trace;
        StartPage withRt(lessons, startPageFakeProbe(true), trace);
        StartPage withoutRt(lessons, startPageFakeProbe(false), trace);
        const int fifo = startPageCardOf(withRt, "fifo-vs-other");
        const int inversion = startPageCardOf(withRt, "priority-inversion");
        const int floor = startPageCardOf(withRt, "sleep-floor-slack");
        QVERIFY(fifo >= 0 && inversion >= 0 && floor >= 0);
        QCOMPARE(withRt.cardDetails(fifo), QString("up to 16 s · needs real-time priority: available"));
        QCOMPARE(withoutRt.cardDetails(fifo), QString("up to 16 s · needs real-time priority: not available here"));
        // The inversion lab names no policy: its priorities alone make it real-time.
        QVERIFY(withoutRt.cardDetails(inversion).endsWith("needs real-time priority: not available here"));
        QCOMPARE(withoutRt.cardDetails(floor), QString("up to 12 s · needs no privilege"));
        QVERIFY(withoutRt.card(fifo)->toolTip().contains("RLIMIT_RTPRIO is 0"));

        // tracefs, from a lesson that traces: the probe's answer and its reason.
        const PresetParseResult traced = parsePreset(
            R"({"title": "t", "description": "d", "experiment": "latency", "phases": [{"trace": true}]})", "t.json");
        QVERIFY2(traced.preset, traced.errors.empty() ? "" : traced.errors.front().c_str());
        TraceProbe noTrace;
        noTrace.reason = "the kernel has no tracefs (CONFIG_TRACING is off)";
        std::vector<LessonNeed> needs = StartPage::lessonNeeds(*traced.preset, startPageFakeProbe(true), noTrace);
        QCOMPARE(needs.size(), size_t(1));
        QCOMPARE(needs[0].text(), QString("needs tracefs: not available here"));
        QCOMPARE(needs[0].why, QString::fromStdString(noTrace.reason));
        TraceProbe usable;
        usable.usable = true;
        needs = StartPage::lessonNeeds(*traced.preset, startPageFakeProbe(true), usable);
        QCOMPARE(needs[0].text(), QString("needs tracefs: available"));
    }

    void verdictInOneLine()
    {
        QCOMPARE(StartPage::systemVerdict(startPageFakeProbe(true)),
                 QString("Real-time priority: available · kernel 6.18 PREEMPT_DYNAMIC (full) · 2 CPUs, none isolated"));
        // The way it is available, when the probe (or rtkit) says it.
        SystemProbe viaRtkit = startPageFakeProbe(true);
        viaRtkit.rtPath = "rtkit, priority ≤ 20";
        QVERIFY2(
            StartPage::systemVerdict(viaRtkit).startsWith("Real-time priority: available (rtkit, priority ≤ 20) · "),
            qPrintable(StartPage::systemVerdict(viaRtkit)));
        SystemProbe p = startPageFakeProbe(false);
        p.isolatedCpus = {1};
        p.virtualMachine = true;
        p.hypervisor = "KVM";
        QCOMPARE(StartPage::systemVerdict(p), QString("Real-time priority: not available · kernel 6.18 "
                                                      "PREEMPT_DYNAMIC (full) · 2 CPUs, CPU 1 isolated · virtual "
                                                      "machine (KVM)"));
        p.isolatedCpus = {2, 3};
        QVERIFY(StartPage::systemVerdict(p).contains(" · 2 CPUs, CPUs 2-3 isolated · "));
        StartPage page(builtinPresets(), p, TraceProbe{});
        QCOMPARE(page.verdictLabel()->text(), StartPage::systemVerdict(p));
    }

    void clickingACardPlaysItsLesson()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showStartPage();
        // The sleep-floor lesson needs no privilege, so it runs on every test machine.
        const int i = startPageCardOf(*window.startPage(), "sleep-floor-slack");
        QVERIFY(i >= 0);
        QTest::mouseClick(window.startPage()->card(i), Qt::LeftButton);
        QVERIFY(!window.isStartPageShown());
        QCOMPARE(window.currentPage()->name(), QString("sleep-floor"));
        QVERIFY(window.presetRunner()->preset());
        QCOMPARE(window.presetRunner()->preset()->id, std::string("sleep-floor-slack"));
        QVERIFY(window.presetRunner()->isActive());
        QVERIFY(window.currentPage()->isRunning());
        window.stopAll();
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void escapeAndTabsLeaveWithTheDocksBack()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.setCurrentPage(2);
        auto* controls = window.findChild<QDockWidget*>("controlsDock");
        auto* toolbar = window.findChild<QToolBar*>("experimentToolbar");
        QVERIFY(controls && toolbar && !controls->isHidden() && !toolbar->isHidden());
        window.showStartPage();
        QVERIFY(controls->isHidden() && toolbar->isHidden());
        QTest::keyClick(&window, Qt::Key_Escape);
        QVERIFY(!window.isStartPageShown());
        QCOMPARE(window.currentIndex(), 2); // the scope as it was
        QVERIFY(!controls->isHidden() && !toolbar->isHidden());
        QTest::keyClick(&window, Qt::Key_Escape); // not on the start page: nothing happens
        QVERIFY(!window.isStartPageShown());

        // A click on a tab, the current one included, goes to that page.
        auto* tabs = window.findChild<QTabBar*>("pageTabs");
        for (int tab : {2, 1}) {
            window.showStartPage();
            QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(tab).center());
            QVERIFY(!window.isStartPageShown());
            QCOMPARE(window.currentIndex(), tab);
        }
    }

    void showAtStartIsRemembered()
    {
        const QString file = m_dir.filePath("start.ini");
        {
            QSettings settings(file, QSettings::IniFormat);
            MainWindow window(createExperimentPages(m_probe), m_probe, &settings);
            QVERIFY(window.showStartAtLaunch()); // shown by default
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.setCurrentPage(3);
            window.showStartPage();
            QCheckBox* box = window.startPage()->showAtStartBox();
            QVERIFY(box->isChecked());
            QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(box->height() / 2, box->height() / 2));
            QVERIFY(!box->isChecked());
            QVERIFY(!window.showStartAtLaunch());
            QVERIFY(window.close()); // saved while the start page shows
        }
        QSettings settings(file, QSettings::IniFormat);
        QCOMPARE(settings.value("start/show").toBool(), false);
        MainWindow window(createExperimentPages(m_probe), m_probe, &settings);
        QVERIFY(!window.showStartAtLaunch());
        QCOMPARE(window.currentIndex(), 3); // the last page
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The docks the start page hid were saved as the user had them.
        QVERIFY(!window.findChild<QDockWidget*>("controlsDock")->isHidden());
        QVERIFY(!window.findChild<QToolBar*>("experimentToolbar")->isHidden());
        window.showStartPage();
        QVERIFY(!window.startPage()->showAtStartBox()->isChecked());
    }
};

RTSCOPE_TEST_MAIN(TestStartPage)
#include "tst_start_page.moc"
