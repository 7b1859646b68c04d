// The noise page (issue 30, part 4): saved settings go through NoiseConfig::validate() and a bad one is refused with
// its sentence; a hand-built snapshot fills the bars, the culprit table, the histogram, the heat strip and the status
// lines with exactly its figures (and says what is missing: no trace, steal time, the SMI counter, the osnoise
// tracer, drops); the start page's "Where does my CPU go?" card opens the page; a real run with the RT demo load
// names the demo thread, the disk I/O load swaps in, and the page's stop joins the run and the load within 100 ms;
// closing the window, or destroying it, stops both as well.
#include "engine/experiments/noise/noise_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/trace/trace_session.h"
#include "engine/util/units.h"
#include "tests/common/page_test_util.h"
#include "ui/common/text_format.h"
#include "ui/main_window.h"
#include "ui/noise/noise_controls.h"
#include "ui/noise/noise_culprit_model.h"
#include "ui/noise/noise_page.h"
#include "ui/plot/heat_strip.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/noise_cpu_bars.h"
#include "ui/start/start_page.h"
#include "ui/widgets/duration_spin_box.h"

#include "tests/common/test_main.h"
#include "tests/common/thread_census.h"
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolButton>

#include <QtTest>

#include <unistd.h>

using namespace rtscope;
using rtscope::test::measuringCpu;

namespace {

constexpr int64_t kRunNs = 2'000'000'000; // the hand-built run: 2 s on CPU 1

/// A run of 2 s on CPU 1 that lost 4 ms: IRQ 2 ms, softirq 0.4 ms, thread 1.2 ms, unexplained 0.4 ms.
NoiseSnapshot handBuiltSnapshot(bool traced)
{
    NoiseSnapshot s;
    s.generation = 7;
    s.running = true;
    s.config.cpus = {1};
    s.config.thresholdNs = 1'000;
    s.config.durationNs = 0;
    s.elapsedNs = kRunNs;
    NoiseCpuStats c;
    c.cpu = 1;
    c.tid = 4242;
    c.runtimeNs = kRunNs;
    c.noiseNs = 4'000'000;
    c.availablePercent = 99.8;
    c.maxSingleNs = 310'000;
    c.loops = 40'000'000;
    c.gaps = 1'234;
    c.meanLoopNs = 50;
    c.minLoopNs = 30;
    c.maxLoopNs = 310'000;
    if (traced) {
        c.kindNs[size_t(NoiseKind::Irq)] = 2'000'000;
        c.kindNs[size_t(NoiseKind::Softirq)] = 400'000;
        c.kindNs[size_t(NoiseKind::Thread)] = 1'200'000;
        c.kindNs[size_t(NoiseKind::Unexplained)] = 400'000;
    } else {
        c.kindNs[size_t(NoiseKind::Untraced)] = 4'000'000;
    }
    c.histogram.assign(kNoiseHistogramBuckets, 0);
    c.histogram[0] = 39'990'000;
    c.histogram[1] = 8'766;
    c.histogram[4] = 1'230;
    c.histogram[310] = 4;
    c.heat = {0.001f, 0.002f, 0.05f, 0.0f};
    c.stealNs = -1;
    c.smiCount = -1;
    s.cpus.push_back(c);
    s.traced = traced;
    s.traceNote = traced ? "" : "tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing";
    s.stealNote = "not a virtual machine: /proc/stat has no steal time to report";
    s.smiNote = "/dev/cpu/1/msr does not exist: load the msr module (modprobe msr)";
    s.osnoiseNote = "this kernel has no osnoise tracer, so only this method is shown";
    if (traced) {
        s.culprits.push_back(
            {NoiseKind::Irq, "irq 36 virtio1-req.0", 1, 0, 36, false, -2, "", 812, 2'000'000, 21'000, 0.1});
        s.culprits.push_back({NoiseKind::Thread, "rtscope-rtdemo", 1, 777, 777, false, 49, "RT 50 (FIFO/RR)", 4,
                              1'200'000, 300'000, 0.06});
        s.culprits.push_back({NoiseKind::Softirq, "softirq BLOCK", 1, 0, 4, false, -2, "", 300, 400'000, 3'000, 0.02});
    }
    return s;
}

} // namespace

class TestNoisePage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpPageTest(); }

    void savedBadSettingsAreRefusedWithTheValidateSentence_data()
    {
        QTest::addColumn<qlonglong>("thresholdNs");
        QTest::addColumn<int>("cpu");
        QTest::newRow("threshold 0") << qlonglong(0) << -1;
        QTest::newRow("threshold -5 us") << qlonglong(-5'000) << -1;
        QTest::newRow("threshold above 10 ms") << qlonglong(NoiseConfig::kMaxThresholdNs + 1) << -1;
        QTest::newRow("a CPU that does not exist") << qlonglong(1'000) << 4'095;
    }
    void savedBadSettingsAreRefusedWithTheValidateSentence()
    {
        QFETCH(qlonglong, thresholdNs);
        QFETCH(int, cpu);
        NoisePage page(m_probe);
        const NoiseConfig before = page.config();
        NoiseConfig bad = before;
        bad.thresholdNs = thresholdNs;
        if (cpu >= 0)
            bad.cpus = {cpu};
        const std::vector<std::string> expected = bad.validate(unpinnedTopology());
        QVERIFY(!expected.empty());

        QTemporaryDir dir;
        QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
        settings.beginGroup(page.name());
        settings.setValue("config", QString::fromStdString(toJson(bad).dump()));
        page.restoreSettings(settings); // must not crash, must not take it
        settings.endGroup();
        const QString shown = page.problems().join("\n");
        for (const std::string& sentence : expected)
            QVERIFY2(shown.contains(screenText(sentence)), qPrintable(shown));
        QCOMPARE(page.config(), before); // the controls keep what they showed
    }

    void controlsMapEveryFieldThroughTheConfig()
    {
        NoisePage page(m_probe);
        NoiseControls* controls = page.noiseControls();
        NoiseConfig c;
        c.cpus = {CpuTopology::current().lastUsable()};
        c.policy = Policy::Fifo;
        c.priority = 42;
        c.thresholdNs = 5'000;
        c.durationNs = 3 * kNsPerSec;
        c.trace = false;
        QVERIFY2(page.applyConfig(c).isEmpty(), qPrintable(page.problems().join("; ")));
        QCOMPARE(page.config(), c);
        QVERIFY(controls->cpuButton(c.cpus.front())->isChecked());
        QCOMPARE(controls->priorityBox()->value(), 42);
        QCOMPARE(controls->thresholdBox()->valueNs(), int64_t(5'000));
        QVERIFY(!controls->traceBox()->isChecked());
        // An edit that validate() refuses shows its sentence next to the controls.
        controls->thresholdBox()->setValueNs(NoiseConfig::kMinThresholdNs);
        QCOMPARE(page.config().thresholdNs, NoiseConfig::kMinThresholdNs);
        // Until stopped: duration 0, the GUI's live mode.
        rtscope::test::setControl(controls->lengthBox(), 0);
        QCOMPARE(page.config().durationNs, int64_t(0));
    }

    void handBuiltSnapshotFillsBarsTableAndStatus()
    {
        NoisePage page(m_probe);
        page.resize(1400, 900);
        page.show();
        QAbstractItemModelTester tester(page.culpritModel());
        const NoiseSnapshot s = handBuiltSnapshot(true);
        page.showSnapshot(s);

        // The bars: one row, 99.80 % available, the lost 0.2 % split by kind with each kind's share of the CPU.
        const NoiseBarsData& bars = page.bars()->data();
        QCOMPARE(bars.rows.size(), size_t(1));
        QCOMPARE(bars.rows[0].label, QString("CPU 1"));
        QCOMPARE(bars.rows[0].headline, QString("99.80 % available"));
        QCOMPARE(bars.rows[0].detail, QString("lost 0.200 % (%1 of %2) · 1 234 gaps · longest %3")
                                          .arg(durationQt(4'000'000), durationQt(kRunNs), durationQt(310'000)));
        QCOMPARE(bars.rows[0].lost.size(), size_t(4));
        QCOMPARE(bars.rows[0].lost[0].part, NoisePart::Irq);
        QCOMPARE(bars.rows[0].lost[0].percent, 0.1);
        QCOMPARE(page.bars()->lostLabel(0, NoisePart::Irq), QString("IRQ 0.100 %"));
        QCOMPARE(page.bars()->lostLabel(0, NoisePart::Thread), QString("thread 0.060 %"));
        QVERIFY(page.bars()->lostBlock(0, NoisePart::Nmi).isEmpty()); // no NMI: no block
        // The IRQ block is half the lost bar: 2 of the 4 ms.
        const double lostWidth = page.bars()->lostBlock(0, NoisePart::Irq).width() +
                                 page.bars()->lostBlock(0, NoisePart::Softirq).width() +
                                 page.bars()->lostBlock(0, NoisePart::Thread).width() +
                                 page.bars()->lostBlock(0, NoisePart::Unexplained).width();
        QVERIFY(qAbs(page.bars()->lostBlock(0, NoisePart::Irq).width() / lostWidth - 0.5) < 1e-6);

        // The culprit table: the snapshot's rows, longest first, with units.
        NoiseCulpritModel* m = page.culpritModel();
        QCOMPARE(m->rowCount(), 3);
        QCOMPARE(m->cell(0, "Kind"), QString("IRQ"));
        QCOMPARE(m->cell(0, "Name"), QString("irq 36 virtio1-req.0"));
        QCOMPARE(m->cell(0, "CPU"), QString("1"));
        QCOMPARE(m->cell(0, "PID · sched"), QString("–"));
        QCOMPARE(m->cell(0, "Count"), QString("812"));
        QCOMPARE(noiseCountText(1'234'567), QString("1 234 567"));
        QCOMPARE(m->cell(0, "Total"), durationQt(2'000'000));
        QCOMPARE(m->cell(0, "% of CPU"), QString("0.100 %"));
        QCOMPARE(m->cell(0, "Max single"), durationQt(21'000));
        QCOMPARE(m->cell(1, "PID · sched"), QString("777 · RT 50"));
        QCOMPARE(m->data(m->index(1, NoiseCulpritModel::Kind), Qt::DecorationRole).value<QColor>(),
                 NoiseCpuBars::partColor(NoisePart::Thread, false));

        // The histogram: one curve for CPU 1, buckets in µs, the first from the shortest loop.
        QCOMPARE(page.histogram()->overlayCount(), 1);
        QVERIFY2(page.histogram()->overlayName(0).startsWith("CPU 1 (40 000 000 loops)"),
                 qPrintable(page.histogram()->overlayName(0)));
        QCOMPARE(page.histogram()->valueAxisTitle(), QString("loop length (µs, log scale)"));

        // The heat strip: the share lost per 100 ms window as µs of the window (5 % = 5000 µs).
        const HeatStripData& heat = page.heatStrip()->data();
        QCOMPARE(heat.rows.size(), size_t(1));
        QCOMPARE(heat.rows[0].cells.size(), size_t(4));
        QVERIFY(qAbs(heat.rows[0].cells[2].maxUs - 5000.0) < 0.01);
        QVERIFY2(page.heatStrip()->legendTitle().startsWith("Colour = µs lost per 100 ms"),
                 qPrintable(page.heatStrip()->legendTitle()));

        // The status lines: the counts the figures rest on, and what could not be measured, with the reasons.
        const QString status = page.statusText();
        // Rich text turns the counts' thin spaces into plain ones.
        const QString counts = QString("CPU 1: 40 000 000 loops over %1 (one every 50 ns on average), 1 234 gaps ≥ %2")
                                   .arg(durationQt(kRunNs), durationQt(1'000))
                                   .replace(QChar(0x2009), ' ');
        QVERIFY2(status.contains(counts), qPrintable(status));
        QVERIFY2(status.contains("Traced: every gap is charged to the IRQ"), qPrintable(status));
        QVERIFY2(status.contains("Steal time unreadable: not a virtual machine"), qPrintable(status));
        QVERIFY2(status.contains("SMI counter unreadable: /dev/cpu/1/msr does not exist: load the msr module"),
                 qPrintable(status));
        QVERIFY2(status.contains("this kernel has no osnoise tracer"), qPrintable(status));
        QVERIFY(!page.findChild<QLabel*>("dataLossWarning")->isVisible());
    }

    void untracedRunSaysWhyAndShowsUntraced()
    {
        NoisePage page(m_probe);
        page.resize(1400, 900);
        page.show();
        NoiseSnapshot s = handBuiltSnapshot(false);
        s.cpus[0].drops = 3;
        s.cpus[0].stealNs = 12'000'000;
        s.stealTickNs = 10'000'000;
        s.cpus[0].smiCount = 2;
        s.smiNote = "read from /dev/cpu/1/msr";
        page.showSnapshot(s);
        const NoiseBarsData& bars = page.bars()->data();
        QCOMPARE(bars.rows[0].lost.size(), size_t(1));
        QCOMPARE(bars.rows[0].lost[0].part, NoisePart::Untraced);
        QCOMPARE(page.bars()->lostLabel(0, NoisePart::Untraced), QString("untraced 0.200 %"));
        QCOMPARE(page.culpritModel()->rowCount(), 0);
        const QString status = page.statusText();
        QVERIFY2(status.contains("Not traced: tracefs is not mounted: mount -t tracefs"), qPrintable(status));
        QVERIFY2(status.contains(QString("Steal time (the hypervisor took the CPU): CPU 1 %1 "
                                         "(resolution %2)")
                                     .arg(durationQt(12'000'000), durationQt(10'000'000))),
                 qPrintable(status));
        QVERIFY2(status.contains("SMIs (firmware interrupts, MSR 0x34): CPU 1: 2 — read from /dev/cpu/1/msr"),
                 qPrintable(status));
        auto* loss = page.findChild<QLabel*>("dataLossWarning");
        QVERIFY(loss->isVisible());
        QVERIFY2(loss->text().contains("3 gaps were refused"), qPrintable(loss->text()));
    }

    void demoLoadChoiceIsKeptAndABadOneRefused()
    {
        NoisePage from(m_probe);
        from.setDemoKind(NoiseDemoKind::TimerStorm);
        NoisePage to(m_probe);
        rtscope::test::saveAndRestore(from, to);
        QCOMPARE(to.demoKind(), NoiseDemoKind::TimerStorm);
        QVERIFY(!to.demoLoad().running()); // chosen, not started: it starts with a run
        QVERIFY2(to.demoText().contains("starts with the run"), qPrintable(to.demoText()));

        QTemporaryDir dir;
        QSettings settings(dir.filePath("settings.ini"), QSettings::IniFormat);
        settings.beginGroup(to.name());
        settings.setValue("demoLoad", "fork-bomb");
        to.restoreSettings(settings);
        settings.endGroup();
        QVERIFY2(to.problems().join(" ").contains("demo load: 'fork-bomb' is not one of none, disk-io"),
                 qPrintable(to.problems().join(" ")));
        QCOMPARE(to.demoKind(), NoiseDemoKind::TimerStorm);
    }

    void startPageCardOpensTheNoisePage()
    {
        StartPage start({}, m_probe, TraceSession::probe());
        QVERIFY(start.noiseCard()->isHidden());
        start.setNoiseAvailable(true);
        QVERIFY(!start.noiseCard()->isHidden());
        QCOMPARE(start.noiseCard()->accessibleName(), QString("Where does my CPU go?"));
        QSignalSpy spy(&start, &StartPage::noiseRequested);
        QTest::mouseClick(start.noiseCard(), Qt::LeftButton);
        QCOMPARE(spy.count(), 1);
    }

    void realRunWithTheRtDemoNamesItAndStopsWithin100ms()
    {
        NoisePage* page = new NoisePage(m_probe);
        MainWindow window({page}, m_probe, nullptr);
        window.resize(1600, 1000);
        window.show();
        NoiseConfig c;
        c.cpus = {measuringCpu()};
        c.thresholdNs = 1'000;
        c.durationNs = 0;
        c.trace = true;
        page->setDemoKind(NoiseDemoKind::RtThread);
        if (!rtscope::test::startRun(*page, c)) {
            const QString why = page->problems().join(" ");
            if (why.contains("privilege") || why.contains("EPERM") || why.contains("permission"))
                RTSCOPE_SKIP(RtPrivilege, why);
            QFAIL(qPrintable(why));
        }
        if (!page->demoLoad().running())
            RTSCOPE_SKIP(RtPrivilege, page->demoText()); // the SCHED_FIFO demo thread was refused
        // The run as run (CPUs resolved), with the window's "µs".
        const QString running = page->noiseControls()->status();
        QVERIFY2(running.startsWith("Running: "), qPrintable(running));
        QCOMPARE(running, "Running: " + screenText(page->experiment().config().label()));
        QVERIFY2(running.contains("threshold 1.0 µs"), qPrintable(running));
        // Until the demo thread is named (a few of its 20 ms periods), at most 5 s.
        const QString demoName = "rtscope-rtdemo";
        QElapsedTimer t;
        t.start();
        bool named = false;
        while (!named && t.elapsed() < 5000) {
            QTest::qWait(100);
            page->refreshNow();
            for (const NoiseCulprit& cu : page->culpritModel()->culprits())
                named = named || cu.name.find(demoName.toStdString()) != std::string::npos;
        }
        const auto s = page->experiment().snapshot();
        QVERIFY(s);
        if (!s->traced)
            RTSCOPE_SKIP(Tracefs, s->traceNote);
        QVERIFY2(named, qPrintable(page->statusText()));
        QVERIFY(page->culpritModel()->rowCount() > 0);
        QVERIFY(page->bars()->data().rows.size() == 1);
        QVERIFY2(page->demoText().contains("bursts of " + durationQt(300'000)), qPrintable(page->demoText()));
        // The disk I/O load swapped in during the run, and running when the page stops: its writes must not hold
        // the stop. scripts/noise-screenshots: 4 s more of the RT thread and 8 s of disk I/O, so the heat strip
        // shows the change and the table both loads' threads.
        const bool shot = qEnvironmentVariableIsSet("RTSCOPE_SCREENSHOT_DIR");
        const auto runFor = [page](int ms) {
            for (int i = 0; i < ms / 100; ++i) {
                QTest::qWait(100);
                page->refreshNow();
            }
        };
        runFor(shot ? 4000 : 0);
        page->setDemoKind(NoiseDemoKind::DiskIo);
        runFor(shot ? 8000 : 1000);
        QVERIFY2(page->demoLoad().running(), qPrintable(page->demoText()));
        QVERIFY2(page->demoText().contains(" writes · disk interrupts so far: "), qPrintable(page->demoText()));
        if (shot)
            rtscope::test::saveScreenshot(window, "noise-page.png");
        rtscope::test::stopJoinsWithin100ms(*page);
        QVERIFY(!page->demoLoad().running());
    }

    void windowCloseAndDestructionStopTheRunAndTheLoad()
    {
        for (const bool byClose : {true, false}) {
            auto* page = new NoisePage(m_probe);
            auto window = std::make_unique<MainWindow>(std::vector<ExperimentPage*>{page}, m_probe, nullptr);
            window->show();
            NoiseConfig c;
            c.cpus = {measuringCpu()};
            c.durationNs = 0;
            c.trace = false; // the load's threads and the pollers are what this is about
            page->setDemoKind(NoiseDemoKind::TimerStorm);
            QVERIFY(rtscope::test::startRun(*page, c));
            QVERIFY2(page->demoLoad().running(), qPrintable(page->demoText()));
            const int tid = page->demoLoad().tid();
            QTest::qWait(200);
            QElapsedTimer t;
            t.start();
            if (byClose) {
                window->close();
                QVERIFY(!page->isRunning());
                QVERIFY(!page->demoLoad().running());
            }
            window.reset(); // the page with it
            QVERIFY2(t.elapsed() < 100, qPrintable(QString("%1 ms").arg(t.elapsed())));
            // Joined: the task is gone, or past its last instruction and not yet reaped.
            QVERIFY(test::exiting(QString("/proc/self/task/%1").arg(tid)));
        }
    }
};

RTSCOPE_TEST_MAIN(TestNoisePage)
#include "tst_noise_page.moc"
