// ctest: parallel. CPU-choice mapping; stdio agent connected, nothing measured.
// The controls' CPU choices follow the measured machine (docs/remote.md, Desktop app): every panel's setCpus() offers
// another machine's CPUs, keeps a choice that is still offered, and falls back to auto (telling the page, once) when
// the chosen CPU is gone. A target with more CPUs than this 2-CPU machine is not at hand, so the panels are given a
// 4-CPU list directly; the page hooks are checked with this build's own agent as the target (the same CPUs as here):
// a choice the target lacks falls back when it connects.
#include "engine/rt/cpu_topology.h"
#include "ui/common/latency_source.h"
#include "ui/common/unpinned_topology.h"
#include "ui/deadline/deadline_controls.h"
#include "ui/latency/latency_page.h"
#include "ui/locks/contention/contention_controls.h"
#include "ui/locks/inversion/inversion_controls.h"
#include "ui/noise/noise_controls.h"
#include "ui/noise/noise_page.h"
#include "ui/remote/target_connection.h"
#include "ui/starvation/starvation_controls.h"
#include "ui/timers/drift_controls.h"
#include "ui/timers/drift_page.h"
#include "ui/timers/sleep_floor_controls.h"
#include "ui/widgets/latency_controls.h"
#include "ui/workbench/cpus/cpu_list_edit.h"
#include "ui/workbench/cpus/cpus_page.h"
#include "ui/workbench/sweep/sweep_controls.h"

#include "tests/common/test_main.h"
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QToolButton>

#include <QtTest>

using namespace rtscope;

namespace {
const std::vector<int> kRemoteCpusFour = {0, 1, 2, 3};
const std::vector<int> kRemoteCpusTwo = {0, 1};

QList<int> remoteCpusChoices(const QComboBox* box)
{
    QList<int> cpus;
    for (int i = 0; i < box->count(); ++i)
        if (box->itemData(i).toInt() >= 0)
            cpus << box->itemData(i).toInt();
    return cpus;
}
} // namespace

class TestRemoteCpus : public QObject {
    Q_OBJECT
    SystemProbe m_probe = probeSystem();

    /// The round trip every panel must make, for the box @p boxName and the config field @p setCpu / @p getCpu.
    template <class Controls, class Config>
    void roundTrip(Controls& controls, const char* boxName, void (*setCpu)(Config&, int), int (*getCpu)(const Config&))
    {
        auto* box = controls.template findChild<QComboBox*>(boxName);
        QVERIFY2(box, boxName);
        auto& mapper = controls.mapper(); // the panel itself when it maps its own widgets
        QSignalSpy edited(&controls, &Controls::edited);
        QCOMPARE(remoteCpusChoices(box), QList<int>({0, 1}));

        // A 4-CPU target: CPU 3 is offered, and a config naming it is shown and read back.
        controls.setCpus(kRemoteCpusFour);
        QCOMPARE(edited.count(), 0); // auto stayed auto
        QCOMPARE(remoteCpusChoices(box), QList<int>({0, 1, 2, 3}));
        QCOMPARE(box->itemText(box->findData(3)), QString("CPU 3"));
        Config c = mapper.config(Config{});
        setCpu(c, 3);
        QVERIFY2(mapper.unrepresentable(c).isEmpty(), qPrintable(mapper.unrepresentable(c).join("; ")));
        mapper.setConfig(c);
        QCOMPARE(getCpu(mapper.config(Config{})), 3);
        QCOMPARE(edited.count(), 0); // showing a config is not an edit

        // Still offered: kept, nothing to tell.
        controls.setCpus({1, 2, 3});
        QCOMPARE(edited.count(), 0);
        QCOMPARE(getCpu(mapper.config(Config{})), 3);

        // Back to a 2-CPU machine: CPU 3 is gone, the box shows auto, and the page hears it once.
        controls.setCpus(kRemoteCpusTwo);
        QCOMPARE(edited.count(), 1);
        QCOMPARE(remoteCpusChoices(box), QList<int>({0, 1}));
        QCOMPARE(box->currentData().toInt(), -1);
        QCOMPARE(getCpu(mapper.config(Config{})), -1);
        QVERIFY(!mapper.unrepresentable(c).isEmpty()); // CPU 3 cannot be shown any more
    }

    static std::optional<TargetSpec> ownAgent()
    {
        const QString binary = qEnvironmentVariable("RTSCOPE_BINARY");
        if (binary.isEmpty())
            return std::nullopt;
        QString problem;
        return parseTargetText("exec '" + binary + "' agent --stdio", "target", problem);
    }

private slots:
    void initTestCase()
    {
        if (unpinnedTopology().online != kRemoteCpusTwo)
            RTSCOPE_SKIP(Cpus, "these checks are written for a machine with CPUs 0 and 1 online");
    }

    void latencyMeasuringAndHogCpu()
    {
        LatencyControls controls(kRemoteCpusTwo);
        roundTrip<LatencyControls, LatencyConfig>(
            controls, "cpu", [](LatencyConfig& c, int cpu) { c.cpu = cpu; },
            [](const LatencyConfig& c) { return c.cpu; });
        LatencyControls both(kRemoteCpusTwo);
        roundTrip<LatencyControls, LatencyConfig>(
            both, "hogCpu", [](LatencyConfig& c, int cpu) { c.hogCpu = cpu; },
            [](const LatencyConfig& c) { return c.hogCpu; });
        // The auto choice names where auto lands on the new machine; the hog box's first choice keeps its text.
        both.setCpus(kRemoteCpusFour);
        QCOMPARE(both.widgets().cpu->itemText(0), QString("auto (CPU 3)"));
        QCOMPARE(both.widgets().hogCpu->itemText(0), QString("same as measuring"));
        // Both boxes falling back is one change of the config, told once.
        LatencyConfig c = both.mapper().config(LatencyConfig{});
        c.cpu = 3;
        c.hogCpu = 2;
        both.mapper().setConfig(c);
        QSignalSpy edited(&both, &LatencyControls::edited);
        both.setCpus(kRemoteCpusTwo);
        QCOMPARE(edited.count(), 1);
        QCOMPARE(both.mapper().config(LatencyConfig{}).cpu, -1);
        QCOMPARE(both.mapper().config(LatencyConfig{}).hogCpu, -1);
        QCOMPARE(both.widgets().cpu->itemText(0), QString("auto (CPU 1)"));
    }

    void starvationCpu()
    {
        StarvationControls controls(kRemoteCpusTwo);
        roundTrip<StarvationControls, StarvationConfig>(
            controls, "cpu", [](StarvationConfig& c, int cpu) { c.cpu = cpu; },
            [](const StarvationConfig& c) { return c.cpu; });
    }

    void driftCpu()
    {
        DriftControls controls(kRemoteCpusTwo);
        roundTrip<DriftControls, DriftConfig>(
            controls, "cpu", [](DriftConfig& c, int cpu) { c.cpu = cpu; }, [](const DriftConfig& c) { return c.cpu; });
    }

    void sleepFloorCpu()
    {
        SleepFloorControls controls(kRemoteCpusTwo);
        roundTrip<SleepFloorControls, SleepFloorConfig>(
            controls, "cpu", [](SleepFloorConfig& c, int cpu) { c.cpu = cpu; },
            [](const SleepFloorConfig& c) { return c.cpu; });
    }

    void inversionCpu()
    {
        InversionControls controls(kRemoteCpusTwo);
        roundTrip<InversionControls, InversionConfig>(
            controls, "cpu", [](InversionConfig& c, int cpu) { c.cpu = cpu; },
            [](const InversionConfig& c) { return c.cpu; });
    }

    void contentionCpu()
    {
        ContentionControls controls(kRemoteCpusTwo);
        roundTrip<ContentionControls, ContentionConfig>(
            controls, "cpu",
            [](ContentionConfig& c, int cpu) {
                c.placement = Placement::OneCpu; // the CPU choice belongs to "all on one CPU"
                c.cpu = cpu;
            },
            [](const ContentionConfig& c) { return c.cpu; });
    }

    void deadlineCounterAndFifoCpu()
    {
        DeadlineControls counter(kRemoteCpusTwo);
        roundTrip<DeadlineControls, DeadlineConfig>(
            counter, "counterCpu", [](DeadlineConfig& c, int cpu) { c.counterCpu = cpu; },
            [](const DeadlineConfig& c) { return c.counterCpu; });
        DeadlineControls fifo(kRemoteCpusTwo);
        roundTrip<DeadlineControls, DeadlineConfig>(
            fifo, "cpu", [](DeadlineConfig& c, int cpu) { c.cpu = cpu; },
            [](const DeadlineConfig& c) { return c.cpu; });
    }

    void sweepCpu()
    {
        SweepControls controls(kRemoteCpusTwo);
        roundTrip<SweepControls, SweepConfig>(
            controls, "cpu", [](SweepConfig& c, int cpu) { c.base.cpu = cpu; },
            [](const SweepConfig& c) { return c.base.cpu; });
    }

    void noiseCpuButtons()
    {
        // One button per CPU: a ticked CPU still offered stays ticked, one that is gone is dropped, edited() once.
        NoiseControls controls(kRemoteCpusTwo);
        controls.setCpus(kRemoteCpusFour);
        QVERIFY(controls.cpuButton(3));
        NoiseConfig c = controls.mapper().config(NoiseConfig{});
        c.cpus = {1, 3};
        QVERIFY(controls.unrepresentable(c).isEmpty());
        controls.setConfig(c);
        QSignalSpy edited(&controls, &NoiseControls::edited);
        controls.setCpus({0, 1, 3}); // everything ticked is still offered
        QCOMPARE(edited.count(), 0);
        QCOMPARE(controls.mapper().config(NoiseConfig{}).cpus, std::vector<int>({1, 3}));
        controls.setCpus(kRemoteCpusTwo);
        QCOMPARE(edited.count(), 1);
        QVERIFY(!controls.cpuButton(3));
        QVERIFY(!controls.cpuButton(2));
        QCOMPARE(controls.mapper().config(NoiseConfig{}).cpus, std::vector<int>({1}));
        controls.cpuButton(0)->click(); // the new buttons are wired to edited()
        QCOMPARE(edited.count(), 2);
        QCOMPARE(controls.mapper().config(NoiseConfig{}).cpus, std::vector<int>({0, 1}));
    }

    void cpuListFollowsTheAllowedCpus()
    {
        SystemProbe probe = m_probe;
        CpuListEdit list(kRemoteCpusTwo, probe);
        QSignalSpy edited(&list, &CpuListEdit::edited);
        QCOMPARE(list.cpus(), std::optional(kRemoteCpusTwo)); // "all"
        probe.isolatedCpus = {3};
        QVERIFY(list.setAllowed(kRemoteCpusFour, probe)); // "all" now stands for four CPUs
        QCOMPARE(list.text(), QString("all"));
        QCOMPARE(list.cpus(), std::optional(kRemoteCpusFour));
        QVERIFY2(list.findChild<QLabel*>("cpuInfo")->text().startsWith("all = 0-3 · isolated: 3"),
                 qPrintable(list.findChild<QLabel*>("cpuInfo")->text()));
        list.setCpus({1, 3});
        QCOMPARE(list.text(), QString("1,3"));
        QVERIFY(!list.setAllowed({1, 2, 3}, probe)); // still offered: the same CPUs
        QCOMPARE(list.text(), QString("1,3"));
        QVERIFY(list.setAllowed(kRemoteCpusTwo, m_probe)); // CPU 3 is gone: back to "all"
        QCOMPARE(list.text(), QString("all"));
        QCOMPARE(list.cpus(), std::optional(kRemoteCpusTwo));
        QVERIFY(!list.setAllowed(kRemoteCpusTwo, m_probe));
        QCOMPARE(edited.count(), 0); // the page is told by its caller, once (CpusPage::setTarget)
    }

    void latencyPageOffersTheReplacedSourcesCpus()
    {
        LatencyPage page(std::make_unique<ReplayLatencySource>(), m_probe);
        QSignalSpy edited(page.latencyControls(), &LatencyControls::edited);
        CpuTopology four;
        four.online = four.allowed = kRemoteCpusFour;
        std::unique_ptr<LatencySource> local = page.replaceSource(std::make_unique<ReplayLatencySource>(), four, true);
        QCOMPARE(remoteCpusChoices(page.latencyControls()->widgets().cpu), QList<int>({0, 1, 2, 3}));
        LatencyConfig c = page.config();
        c.cpu = 3;
        const QStringList problems = page.applyConfig(c); // checked against the replaced source's CPUs
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
        QCOMPARE(page.config().cpu, 3);
        QCOMPARE(edited.count(), 0);
        (void)page.replaceSource(std::move(local), unpinnedTopology(), false);
        QCOMPARE(remoteCpusChoices(page.latencyControls()->widgets().cpu), QList<int>({0, 1}));
        QCOMPARE(edited.count(), 1);
        QCOMPARE(page.config().cpu, -1);
    }

    void pagesOfferTheTargetsCpus()
    {
        const std::optional<TargetSpec> spec = ownAgent();
        if (!spec)
            RTSCOPE_SKIP(Tool, "RTSCOPE_BINARY is not set (run through ctest)");
        TargetConnection target;
        QSignalSpy opened(&target, &TargetConnection::opened);
        QVERIFY2(target.begin(*spec).isEmpty(), "the agent could not be started");
        QVERIFY(opened.wait(10'000));
        const std::vector<int> targetCpus = target.topology().online;
        QVERIFY(!targetCpus.empty());
        QList<int> expected(targetCpus.begin(), targetCpus.end());

        // A polled page (PolledExperimentPage::setTarget): its panel had another machine's CPUs, CPU 3 chosen.
        DriftPage drift(m_probe);
        DriftControls* controls = drift.driftControls();
        controls->setCpus(kRemoteCpusFour);
        DriftConfig c = controls->mapper().config(DriftConfig{});
        c.cpu = 3;
        controls->mapper().setConfig(c);
        QSignalSpy edited(controls, &DriftControls::edited);
        QVERIFY(drift.setTarget(&target));
        QCOMPARE(remoteCpusChoices(controls->widgets().cpu), expected);
        QCOMPARE(edited.count(), 1);
        QCOMPARE(drift.config().cpu, -1);
        QVERIFY(drift.setTarget(nullptr));
        QCOMPARE(remoteCpusChoices(controls->widgets().cpu), QList<int>({0, 1}));

        // The noise page's CPU buttons are the target's too (a panel without a mapper object of its own).
        NoisePage noise(m_probe);
        noise.noiseControls()->setCpus(kRemoteCpusFour);
        QVERIFY(noise.noiseControls()->cpuButton(3));
        QVERIFY(noise.setTarget(&target));
        for (int cpu : targetCpus)
            QVERIFY(noise.noiseControls()->cpuButton(cpu));
        if (std::find(targetCpus.begin(), targetCpus.end(), 3) == targetCpus.end())
            QVERIFY(!noise.noiseControls()->cpuButton(3));
        QVERIFY(noise.setTarget(nullptr));

        // The per-CPU page: the list's "all" and the hog CPU are the target's; a listed CPU it lacks goes.
        CpusPage cpus(std::make_unique<LiveLatencySource>(), m_probe);
        cpus.cpuListEdit()->setAllowed(kRemoteCpusFour, m_probe);
        cpus.cpuListEdit()->setCpus({0, 3});
        QCOMPARE(cpus.config().cpus, std::vector<int>({0, 3}));
        QVERIFY(cpus.setTarget(&target));
        QCOMPARE(cpus.cpuListEdit()->text(), QString("all"));
        QCOMPARE(cpus.cpuListEdit()->allowed(), targetCpus);
        QCOMPARE(cpus.config().cpus, targetCpus);
        QCOMPARE(remoteCpusChoices(cpus.latencyControls()->widgets().hogCpu), expected);
        QCOMPARE(cpus.latencyControls()->widgets().hogCpu->itemText(0), QString("every measured CPU"));
        QVERIFY(cpus.problems().isEmpty()); // the page took the config now shown (controlsEdited)
        QVERIFY(cpus.setTarget(nullptr));
    }
};

RTSCOPE_TEST_MAIN(TestRemoteCpus)
#include "tst_remote_cpus.moc"
