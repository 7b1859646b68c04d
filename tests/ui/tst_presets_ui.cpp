// Presets in the window: each page takes its engine JSON and gives back exactly what its controls hold (so a
// preset sets every control), the runner plays one- and two-phase presets through the ExperimentPage interface
// (hold as reference, second phase live or as a new run), a refused preset changes nothing and says which file,
// field and range, a hand-made Stop ends the script, and the desktop app's --preset/--demo options use it.
#include "engine/experiments/latency/latency_config.h"
#include "engine/experiments/starvation/starvation_config.h"
#include "engine/experiments/timers/drift_config.h"
#include "engine/experiments/timers/sleep_floor_config.h"
#include "engine/presets/preset.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "tests/common/page_test_util.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/app/preset_runner.h"
#include "ui/app/presets_menu.h"
#include "ui/common/latency_source.h"
#include "ui/experiment_pages.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/starvation/starvation_page.h"
#include "ui/timers/drift_page.h"
#include "ui/timers/sleep_floor_page.h"

#include "tests/common/test_main.h"
#include <QAction>
#include <QFile>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <QtTest>

using namespace rtscope;
using namespace rtscope::test;

namespace {

int otherCpu()
{
    const CpuTopology t = CpuTopology::current();
    return t.otherThan({measuringCpu()});
}

Preset presetFrom(const nlohmann::json& j, const std::string& name = "test.json")
{
    const PresetParseResult r = parsePreset(j.dump(), name);
    if (!r.preset)
        qFatal("test preset refused: %s", r.errors.empty() ? "" : r.errors.front().c_str());
    return *r.preset;
}

nlohmann::json withoutReserved(nlohmann::json j)
{
    j.erase("reserved_cpus");
    return j;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& text)
{
    QFile f(dir.filePath(name));
    if (f.open(QIODevice::WriteOnly))
        f.write(QByteArray::fromStdString(text));
    return f.fileName();
}

} // namespace

class TestPresetsUi : public rtscope::test::ProbedTest {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        setUp();
        if (CpuTopology::current().usable(1) == false || otherCpu() < 0)
            RTSCOPE_SKIP(Cpus, "the presets' pages need two usable CPUs");
    }

    // Every field away from its default, through applyConfigJson and back through configJson: each control (and
    // each field without one) holds what the JSON said.
    void latencyPageTakesEveryField()
    {
        LatencyPage page(std::make_unique<ReplayLatencySource>(), m_probe);
        const nlohmann::json j = {{"policy", "rr"},
                                  {"priority", 42},
                                  {"nice", 0}, // with rr it stays 0 (validate(): nice is other/batch/idle's)
                                  {"period_ns", 250000},
                                  {"cpu", measuringCpu()},
                                  {"cpus", nlohmann::json::array()},
                                  {"waiter", "timerfd"},
                                  {"hogs", 7},
                                  {"hog_policy", "batch"},
                                  {"hog_nice", 5},
                                  {"hog_cpu", otherCpu()},
                                  {"duration_ns", 5000000000},
                                  {"samples", 0},
                                  {"histogram_us", 500},
                                  {"dma_latency", true}};
        QVERIFY(page.configJson() != j);
        const QStringList problems = page.applyConfigJson(j);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QCOMPARE(page.configJson(), j);
        QCOMPARE(page.config().hogs, 7);
        QCOMPARE(page.config().waiter, WaiterKind::Timerfd);
    }

    void starvationPageTakesEveryField()
    {
        StarvationPage page(m_probe);
        const nlohmann::json j = {{"policy", "rr"},
                                  {"priority", 55},
                                  {"burst_ns", 200000000},
                                  {"gap_ns", 450000000},
                                  {"bursts", 4},
                                  {"counters", 3},
                                  {"counter_nice", 5},
                                  {"cpu", measuringCpu()},
                                  {"control_counter", true},
                                  {"control_cpu", otherCpu()},
                                  {"sampler_priority", 10}};
        const nlohmann::json reserved = page.configJson()["reserved_cpus"];
        const QStringList problems = page.applyConfigJson(j);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QCOMPARE(withoutReserved(page.configJson()), j);
        // The reserved CPUs are this process's, whatever a preset says.
        nlohmann::json hostile = j;
        hostile["reserved_cpus"] = nlohmann::json::array();
        QVERIFY(page.applyConfigJson(hostile).isEmpty());
        QCOMPARE(page.configJson()["reserved_cpus"], reserved);
    }

    void driftPageTakesEveryField()
    {
        DriftPage page(m_probe);
        const nlohmann::json j = {{"period_ns", 2000000},
                                  {"work_ns", 300000},
                                  {"ticks", 777},
                                  {"duration_ns", 0},
                                  {"methods", {"naive", "timerfd"}},
                                  {"policy", "fifo"},
                                  {"priority", 33},
                                  {"timer_slack_ns", 1},
                                  {"cpu", measuringCpu()},
                                  {"stall_tick", 100},
                                  {"stall_ns", 5000000}};
        const QStringList problems = page.applyConfigJson(j);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QCOMPARE(page.configJson(), j);
    }

    void sleepFloorPageTakesEveryField()
    {
        SleepFloorPage page(m_probe);
        QCOMPARE(page.name(), QString("sleep-floor")); // the experiment's name in presets and on the CLI
        const nlohmann::json j = {{"requests_ns", {0, 1000, 50000}},
                                  {"samples", 33},
                                  {"methods", {"nanosleep", "busy"}},
                                  {"timer_slack_ns", 1},
                                  {"policy", "other"},
                                  {"priority", 0},
                                  {"cpu", measuringCpu()},
                                  {"background_load", true},
                                  {"hybrid_margin_ns", 20000}};
        const QStringList problems = page.applyConfigJson(j);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QCOMPARE(page.configJson(), j);
    }

    void everyBuiltInPhaseSetsItsPage()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        for (const Preset& p : builtinPresets()) {
            ExperimentPage* page = window.page(window.pageIndex(QString::fromStdString(p.experiment)));
            QVERIFY2(page, p.experiment.c_str());
            for (const nlohmann::json& phase : p.phases) {
                const QStringList problems = page->applyConfigJson(phase);
                QVERIFY2(problems.isEmpty(), qPrintable(QString::fromStdString(p.id) + ": " + problems.join("; ")));
                // Every field the preset names reads back as written.
                const nlohmann::json back = page->configJson();
                for (const auto& [key, value] : phase.items())
                    QVERIFY2(back.contains(key) && back[key] == value,
                             qPrintable(QString::fromStdString(p.id + ": " + key + " = " +
                                                               back.value(key, nlohmann::json()).dump())));
            }
        }
    }

    void refusedJsonChangesNothing()
    {
        DriftPage drift(m_probe);
        const nlohmann::json before = drift.configJson();
        QStringList problems = drift.applyConfigJson({{"period_ns", "fast"}});
        QCOMPARE(problems, QStringList("period_ns must be an integer"));
        problems = drift.applyConfigJson({{"period_ns", 50}});
        QVERIFY2(problems.join(" ").contains("period must be between 100.0 µs and 1.000 s (got 50 ns)"),
                 qPrintable(problems.join("; ")));
        QVERIFY(!drift.applyConfigJson({{"tempo", 3}}).isEmpty());
        QCOMPARE(drift.configJson(), before);
    }

    void aComparisonHoldsTheFirstPhaseAndRunsTheSecondLive()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        window.setCurrentPage(window.pageIndex("drift"));
        PresetRunner* runner = window.presetRunner();
        QVERIFY(runner);
        const nlohmann::json other = {{"policy", "other"}, {"hogs", 2}, {"period_ns", 1000000}};
        nlohmann::json fifo = other;
        fifo["policy"] = "fifo";
        fifo["priority"] = 80;
        const Preset p = presetFrom({{"title", "compare"},
                                     {"experiment", "latency"},
                                     {"phase_seconds", 1},
                                     {"labels", {"OTHER", "FIFO"}},
                                     {"phases", {other, fifo}}});
        QSignalSpy progress(runner, &PresetRunner::progress);
        QSignalSpy finished(runner, &PresetRunner::finished);
        QVERIFY(runner->start(p).isEmpty());
        auto* page = window.findPage<LatencyPage>();
        QCOMPARE(window.currentPage(), page);
        QVERIFY(page->isRunning());
        QCOMPARE(runner->phase(), 0);
        QCOMPARE(page->configJson()["policy"], nlohmann::json("other"));
        QVERIFY(!page->hasReference());
        QTRY_COMPARE_WITH_TIMEOUT(runner->phase(), 1, 5000);
        if (!page->isRunning())
            RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        QVERIFY(page->hasReference());
        QCOMPARE(page->configJson()["policy"], nlohmann::json("fifo"));
        QCOMPARE(page->configJson()["priority"], nlohmann::json(80));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
        QCOMPARE(finished.first().first().toBool(), true);
        // The last phase keeps running after the script; the progress named both phases.
        QVERIFY(page->isRunning());
        QVERIFY(!runner->isActive());
        QVERIFY(progress.first().first().toString().contains("phase 1 of 2: OTHER, for 1 s, then held as reference"));
        QVERIFY(progress.last().first().toString().contains("phase 2 of 2: FIFO, over the reference (OTHER)"));
        window.stopAll();
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void aFiniteFirstPhaseMovesOnWhenItEnds()
    {
        // A sweep cannot change while it runs: the second phase is a new run, started once the first is done.
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        const nlohmann::json quick = {{"requests_ns", {0, 1000}}, {"samples", 5}, {"methods", {"nanosleep"}}};
        nlohmann::json noSlack = quick;
        noSlack["timer_slack_ns"] = 1;
        const Preset p = presetFrom(
            {{"title", "slack"}, {"experiment", "sleep-floor"}, {"phase_seconds", 30}, {"phases", {quick, noSlack}}});
        PresetRunner* runner = window.presetRunner();
        QSignalSpy finished(runner, &PresetRunner::finished);
        QVERIFY(runner->start(p).isEmpty());
        // Far sooner than the 30 s phase: the page stopping on its own is the cue.
        QTRY_COMPARE_WITH_TIMEOUT(runner->phase(), 1, 10000);
        auto* page = window.findPage<SleepFloorPage>();
        QCOMPARE(page->configJson()["timer_slack_ns"], nlohmann::json(1));
        // The first sweep's floor is held next to the second's.
        QVERIFY(page->hasReference());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QVERIFY(finished.first().first().toBool());
        QTRY_COMPARE(rtscope::test::threadsAlive(), 0);
    }

    void theMenuListsTheLessonsAndRefusesBadFiles()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        auto* menu = window.findChild<PresetsMenu*>();
        QVERIFY(menu);
        // Menu bar order: File, Presets, View, Help.
        QStringList titles;
        for (QAction* a : window.menuBar()->actions())
            titles << a->text().remove('&');
        QCOMPARE(titles, QStringList({"File", "Presets", "View", "Help"}));
        QCOMPARE(menu->presetActions().size(), 7);
        QCOMPARE(menu->presetActions().first()->text(), QString("FIFO vs OTHER under 16 hogs"));
        for (QAction* a : menu->presetActions())
            QVERIFY2(a->isEnabled(), qPrintable(a->text()));

        auto* latency = window.findPage<LatencyPage>();
        const nlohmann::json before = latency->configJson();
        nlohmann::json bad = {
            {"title", "bad"}, {"experiment", "latency"}, {"phases", {{{"policy", "fifo"}, {"priority", 120}}}}};
        const QString path = writeFile(m_dir, "bad.json", bad.dump());
        QSignalSpy refused(menu, &PresetsMenu::refused);
        const QStringList problems = menu->run(path);
        QCOMPARE(refused.count(), 1);
        QCOMPARE(problems, QStringList(path + ": phases[0].priority must be between 1 and 99 for fifo (got 120)"));
        auto* box = window.findChild<QMessageBox*>("presetRefusedBox");
        QVERIFY(box && box->isVisible());
        QVERIFY(box->informativeText().contains("phases[0].priority must be between 1 and 99"));
        QCOMPARE(latency->configJson(), before);
        QVERIFY(!latency->isRunning());

        // Valid for the engine but beyond what the window's controls show: the page refuses, nothing changes,
        // and a page that was running runs on with its own configuration.
        QVERIFY(latency->start());
        const nlohmann::json running = latency->configJson();
        bad["phases"][0] = {{"hogs", 100}};
        const QStringList windowProblems = menu->run(writeFile(m_dir, "many.json", bad.dump()));
        QCOMPARE(windowProblems.size(), 1);
        QVERIFY2(windowProblems.first().endsWith("many.json: phases[0]: hogs must be between 0 and 64 in the window "
                                                 "(got 100)"),
                 qPrintable(windowProblems.join("; ")));
        QCOMPARE(latency->configJson(), running);
        QVERIFY(latency->isRunning());
        QVERIFY(!window.presetRunner()->isActive());
        window.stopAll();

        QVERIFY(menu->run("no-such-lesson").first().startsWith("preset 'no-such-lesson' is not a built-in preset"));
    }

    void aBuiltInPresetFromTheMenuRuns()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        auto* menu = window.findChild<PresetsMenu*>();
        QAction* drift = nullptr;
        for (QAction* a : menu->presetActions())
            if (a->data().toString() == "drift-vs-absolute")
                drift = a;
        QVERIFY(drift);
        drift->trigger();
        auto* page = window.findPage<DriftPage>();
        QCOMPARE(window.currentPage(), page);
        QVERIFY(page->isRunning());
        QCOMPARE(page->configJson()["work_ns"], nlohmann::json(100000));
        QCOMPARE(page->configJson()["ticks"], nlohmann::json(3000));
        QVERIFY(window.presetRunner()->isActive());
        window.stopAll(); // also ends the script
        QVERIFY(!window.presetRunner()->isActive());
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void stoppingByHandEndsTheScript()
    {
        MainWindow window(createExperimentPages(m_probe), m_probe, nullptr);
        const nlohmann::json a = {{"hogs", 1}};
        const nlohmann::json b = {{"hogs", 2}};
        QVERIFY(window.presetRunner()
                    ->start(presetFrom(
                        {{"title", "t"}, {"experiment", "latency"}, {"phase_seconds", 1}, {"phases", {a, b}}}))
                    .isEmpty());
        auto* page = window.findPage<LatencyPage>();
        QVERIFY(page->isRunning());
        window.startStopAction()->trigger(); // Stop, by hand
        QVERIFY(!page->isRunning());
        QVERIFY(!window.presetRunner()->isActive());
        QTest::qWait(1500);
        QVERIFY2(!page->isRunning(), "a cancelled script must not start its second phase");
        QCOMPARE(page->configJson()["hogs"], nlohmann::json(1));
        QCOMPARE(rtscope::test::threadsAlive(), 0);
    }

    void theDesktopAppTakesPresetsAndTheDemo()
    {
        const QString binary = qEnvironmentVariable("RTSCOPE_BINARY");
        if (!QFile::exists(binary))
            RTSCOPE_SKIP(Tool, "RTSCOPE_BINARY is not set");
        const QString settings = m_dir.filePath("gui.ini");
        auto gui = [&](const QStringList& args, QString* err) {
            QProcess p;
            p.start(binary, QStringList{"--settings", settings} + args);
            if (!p.waitForFinished(30000)) {
                p.kill();
                p.waitForFinished();
                return -1;
            }
            *err = QString::fromUtf8(p.readAllStandardError());
            return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        };
        QString err;
        QCOMPARE(gui({"--preset", "no-such-lesson"}, &err), 2);
        QVERIFY2(err.contains("rtscope: preset 'no-such-lesson' is not a built-in preset"), qPrintable(err));
        const QString bad = writeFile(m_dir, "gui-bad.json", "{\"title\":\"t\",\"experiment\":\"drift\"}");
        QCOMPARE(gui({"--preset", bad}, &err), 2);
        QVERIFY2(err.contains(bad + ": phases is missing"), qPrintable(err));
        QCOMPARE(gui({"--preset", "fifo-vs-other", "--demo", "other-vs-fifo"}, &err), 2);

        // The old demo option is the built-in comparison with its own phase length and hog count.
        QCOMPARE(gui({"--demo", "other-vs-fifo", "--demo-seconds", "1", "--hogs", "2", "--quit-after", "3"}, &err), 0);
        QVERIFY2(err.contains("Preset \"FIFO vs OTHER under 2 hogs\", phase 1 of 2: SCHED_OTHER, 2 hogs, for 1 s"),
                 qPrintable(err));
        if (m_probe.rtAvailable)
            QVERIFY2(err.contains("phase 2 of 2: SCHED_FIFO 80, 2 hogs, over the reference"), qPrintable(err));
    }
};

RTSCOPE_TEST_MAIN(TestPresetsUi)
#include "tst_presets_ui.moc"
