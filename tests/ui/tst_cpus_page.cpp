// The per-CPU page driven two ways: by one replay per CPU (the live experiment's aggregator, no threads) with known
// samples, for exact rows, curves and heat cells per CPU; and live on every online CPU, where the table must carry
// the counts of the snapshot and Stop must join every thread.
#include "engine/experiments/latency/latency_replay.h"
#include "engine/pipeline/histogram.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/model_cell.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/common/latency_source.h"
#include "ui/plot/heat_strip.h"
#include "ui/plot/histogram_chart.h"
#include "ui/widgets/latency_controls.h"
#include "ui/workbench/cpus/cpu_list_edit.h"
#include "ui/workbench/cpus/cpus_page.h"
#include "ui/workbench/cpus/heat_history.h"
#include "ui/workbench/run_summary_model.h"

#include "tests/common/test_main.h"
#include <QAbstractItemModelTester>
#include <QLineEdit>
#include <QSettings>
#include <QTemporaryDir>

#include <QtTest>

#include <nlohmann/json.hpp>

#include <map>

using namespace rtscope;

namespace {

// One replay per CPU, merged into one snapshot the way the live experiment reports its measuring threads: the
// known-input twin of LatencyExperiment with config.cpus.
class PerCpuReplaySource : public LatencySource {
public:
    Error start(const LatencyConfig& config, const CpuTopology& cpus) override
    {
        if (auto problems = config.validate(cpus); !problems.empty())
            return {ErrorKind::InvalidConfig, problems.front()};
        m_config = config;
        m_replays.clear();
        for (int cpu : config.cpus) {
            LatencyConfig one = config;
            one.cpus.clear();
            one.cpu = cpu;
            m_replays[cpu].start(one, nowNs());
        }
        m_running = true;
        publish(nowNs());
        return {};
    }
    void stop() override
    {
        m_running = false;
        publish(nowNs());
    }
    Error reconfigure(const LatencyConfig& config) override
    {
        m_config = config;
        return {};
    }
    void resetStatistics() override
    {
        for (auto& [cpu, r] : m_replays)
            r.resetStatistics(nowNs());
    }
    bool running() const override { return m_running; }
    LatencyConfig config() const override { return m_config; }
    void setSeriesWindow(int64_t ns) override
    {
        m_windowNs = ns;
        for (auto& [cpu, r] : m_replays)
            r.setSeriesWindow(ns);
    }
    std::shared_ptr<const LatencySnapshot> snapshot() const override { return m_snapshot; }
    std::vector<int> busyCpus() const override { return {}; }

    LatencyReplay& replay(int cpu) { return m_replays.at(cpu); }
    void publish(int64_t now)
    {
        auto snap = std::make_shared<LatencySnapshot>();
        for (auto& [cpu, r] : m_replays) {
            r.setSeriesWindow(m_windowNs);
            const auto one = r.publish(now);
            if (snap->threads.empty()) {
                *snap = *one;
                snap->threads.clear();
            }
            snap->threads.push_back(one->threads.front());
        }
        snap->config = m_config;
        snap->running = m_running;
        snap->generation = ++m_generation;
        m_snapshot = snap;
    }

private:
    LatencyConfig m_config;
    std::map<int, LatencyReplay> m_replays;
    std::shared_ptr<const LatencySnapshot> m_snapshot;
    int64_t m_windowNs = CpusPage::kSeriesWindowNs;
    uint64_t m_generation = 0;
    bool m_running = false;
};

std::vector<int> allowedCpus()
{
    return CpuTopology::current().allowed;
}

} // namespace

class TestCpusPage : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::probeWithWakeSignal(); }

    void oneRowCurveAndHeatRowPerCpuWithTheSnapshotsFigures()
    {
        auto owned = std::make_unique<PerCpuReplaySource>();
        PerCpuReplaySource& src = *owned;
        CpusPage page(std::move(owned), m_probe);
        QVERIFY(test::showExposed(page, 1400, 900));
        QAbstractItemModelTester tester(page.statsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        const std::vector<int> cpus = allowedCpus();
        LatencyConfig c = page.config();
        c.cpus = cpus;
        c.hogs = 2;
        c.hogCpu = cpus.back();
        QCOMPARE(page.applyConfig(c), QStringList());
        QCOMPARE(page.cpuListEdit()->text(), QString("all"));
        QVERIFY(page.start());

        // CPU k: 100·(k+1) wake-ups at 10 µs, then one of (k+1) ms, 1 ms apart, from now on.
        const int64_t t0 = nowNs();
        std::map<int, Histogram> expected;
        for (size_t k = 0; k < cpus.size(); ++k) {
            LatencyReplay& r = src.replay(cpus[k]);
            const int n = 100 * int(k + 1);
            for (int i = 0; i <= n; ++i) {
                const int64_t latency = i == n ? int64_t(k + 1) * kNsPerMs : 10'000;
                const int64_t wake = t0 + int64_t(i) * kNsPerMs;
                r.add(LatencySample{uint64_t(i), wake - latency, wake, latency, 0, 0});
                expected[cpus[k]].record(latency);
            }
        }
        src.publish(t0 + 500 * kNsPerMs);
        page.refreshNow();

        const RunSummaryModel& m = *page.statsModel();
        QCOMPARE(m.rowCount(), int(cpus.size()));
        QCOMPARE(page.histogramChart()->overlayCount(), int(cpus.size()));
        QCOMPARE(int(page.heatStrip()->data().rows.size()), int(cpus.size()));
        const auto snap = src.snapshot();
        for (size_t k = 0; k < cpus.size(); ++k) {
            const int row = int(k);
            const Histogram& h = expected[cpus[k]];
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::Name).toString(), QString("CPU %1").arg(cpus[k]));
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::Samples).toULongLong(), snap->threads[k].samples);
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::Samples).toULongLong(), qulonglong(h.count()));
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::Max).toLongLong(), qlonglong(k + 1) * kNsPerMs);
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::P50).toLongLong(), h.percentile(50));
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::P999).toLongLong(), h.percentile(99.9));
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::Dropped).toULongLong(), 0ULL);
            QVERIFY(page.histogramChart()->overlayName(row).startsWith(QString("CPU %1").arg(cpus[k])));
            QVERIFY(!page.histogramChart()->overlayPoints(row).isEmpty());
            // The hog CPU is named in the table and on the strip.
            const bool hogs = cpus[k] == cpus.back();
            QCOMPARE(test::rawCell(m, row, RunSummaryModel::Note).toString().contains("2 hogs"), hogs);
            const HeatRow& heat = page.heatStrip()->data().rows[k];
            QCOMPARE(heat.label, QString("CPU %1").arg(cpus[k]));
            QCOMPARE(heat.note.contains("2 hogs"), hogs);
            // The spike is the largest maximum of the row, and every wake-up is counted once.
            double maxUs = 0;
            uint64_t samples = 0;
            for (const HeatCell& hc : heat.cells) {
                maxUs = std::max(maxUs, hc.samples ? hc.maxUs : 0.0);
                samples += hc.samples;
            }
            QCOMPARE(maxUs, double(k + 1) * 1000.0);
            QCOMPARE(samples, h.count());
        }
        QVERIFY(page.dataLossWarning().isEmpty());

        // Unticking a CPU takes its curve out of the overlay, not its row out of the table.
        QVERIFY(page.statsModel()->setData(m.index(0, RunSummaryModel::Name), Qt::Unchecked, Qt::CheckStateRole));
        QCOMPARE(page.histogramChart()->overlayCount(), int(cpus.size()) - 1);
        QCOMPARE(m.rowCount(), int(cpus.size()));

        // Lost samples are shown per CPU, in the banner and on the strip.
        src.replay(cpus.front()).setDrops(5);
        src.publish(t0 + 600 * kNsPerMs);
        page.refreshNow();
        QVERIFY(page.dataLossWarning().contains(QString("CPU %1: 5 dropped").arg(cpus.front())));
        uint64_t lost = 0;
        for (const HeatCell& hc : page.heatStrip()->data().rows.front().cells)
            lost += hc.lost;
        QCOMPARE(lost, uint64_t(5));
        page.stop();
        QVERIFY(!page.isRunning());
    }

    void liveOnEveryOnlineCpuAndStopJoins()
    {
        CpusPage page(std::make_unique<LiveLatencySource>(), m_probe);
        QVERIFY(test::showExposed(page, 1400, 900));
        const std::vector<int> cpus = allowedCpus();
        LatencyConfig c = page.config();
        c.cpus = cpus;
        c.hogs = 0;
        c.policy = Policy::Other;
        c.priority = 0;
        QCOMPARE(page.applyConfig(c), QStringList());
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QVERIFY(page.start());
        QTRY_COMPARE(rtscope::test::threadsAlive("rtscope-measure"), int(cpus.size()));
        QTRY_VERIFY(page.framesDrawn() > 3 && page.statsModel()->rowCount() == int(cpus.size()) &&
                    test::rawCell(*page.statsModel(), int(cpus.size()) - 1, RunSummaryModel::Samples).toULongLong() >
                        20);
        page.stop();
        QCOMPARE(rtscope::test::threadsAlive(), 0);
        QCOMPARE(running.count(), 2);

        // After Stop the page shows the final snapshot: the same counts, CPU by CPU.
        const auto snap = page.source().snapshot();
        QVERIFY(snap);
        QCOMPARE(snap->threads.size(), cpus.size());
        for (const LatencyThreadStats& t : snap->threads) {
            const auto it = std::find(cpus.begin(), cpus.end(), t.cpu);
            QVERIFY(it != cpus.end());
            const int row = int(it - cpus.begin());
            QCOMPARE(test::rawCell(*page.statsModel(), row, RunSummaryModel::Samples).toULongLong(),
                     qulonglong(t.samples));
            QCOMPARE(test::rawCell(*page.statsModel(), row, RunSummaryModel::Max).toLongLong(),
                     qlonglong(t.histogram.max()));
            QVERIFY(t.samples > 0);
        }
        QCOMPARE(page.heatStrip()->data().rows.size(), cpus.size());
    }

    void busyCpusKeepTheWindowOffTheHogs()
    {
        const std::vector<int> cpus = allowedCpus();
        CpusPage page(std::make_unique<PerCpuReplaySource>(), m_probe);
        LatencyConfig c = page.config();
        c.cpus = {cpus.front()};
        c.hogs = 1;
        c.hogCpu = cpus.back();
        QCOMPARE(page.applyConfig(c), QStringList());
        QVERIFY(page.busyCpus().empty());
        QVERIFY(page.start());
        // The measured and the hog CPU, unless that is every CPU: then the window keeps off the hogs only.
        std::vector<int> expected{cpus.front(), cpus.back()};
        expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
        if (expected.size() == cpus.size())
            expected = {cpus.back()};
        QCOMPARE(page.busyCpus(), expected);
        page.stop();
        if (cpus.size() < 2)
            return;
        // Every CPU measured: the window can avoid only the hogs' CPU.
        c.cpus = cpus;
        QCOMPARE(page.applyConfig(c), QStringList());
        QVERIFY(page.start());
        QCOMPARE(page.busyCpus(), std::vector<int>{cpus.back()});
        page.stop();
    }

    void badInputIsASentenceAndChangesNothing()
    {
        CpusPage page(std::make_unique<PerCpuReplaySource>(), m_probe);
        const nlohmann::json before = page.configJson();

        page.cpuListEdit()->lineEdit()->setText("3-1");
        emit page.cpuListEdit()->edited();
        QVERIFY(!page.start());
        QVERIFY(page.problems().join(" ").contains("cpus: '3-1' is not a CPU list"));
        QVERIFY(!page.isRunning());
        page.cpuListEdit()->setCpus(allowedCpus());

        nlohmann::json j = before;
        j["cpus"] = nlohmann::json::array({4095});
        const QStringList problems = page.applyConfigJson(j);
        QVERIFY2(problems.join(" ").contains("cpus must list online CPUs"), qPrintable(problems.join(" | ")));
        QVERIFY(page.configJson() == before);
        j = before;
        j["period_ns"] = "fast";
        QVERIFY(page.applyConfigJson(j).join(" ").contains("period_ns must be an integer"));
        QVERIFY(page.configJson() == before);
    }

    void configSurvivesJsonAndSettings()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath("cpus.ini"), QSettings::IniFormat);
        const std::vector<int> cpus = allowedCpus();
        nlohmann::json saved;
        {
            CpusPage page(std::make_unique<PerCpuReplaySource>(), m_probe);
            nlohmann::json j = page.configJson();
            j["cpus"] = nlohmann::json::array({cpus.front()});
            j["hogs"] = 3;
            j["period_ns"] = 500'000;
            QCOMPARE(page.applyConfigJson(j), QStringList());
            saved = page.configJson();
            QVERIFY(saved["cpus"] == nlohmann::json::array({cpus.front()}));
            QCOMPARE(saved["hogs"].get<int>(), 3);
            page.saveSettings(settings);
        }
        CpusPage restored(std::make_unique<PerCpuReplaySource>(), m_probe);
        restored.restoreSettings(settings);
        QVERIFY(restored.configJson() == saved);
        QCOMPARE(restored.cpuListEdit()->text(), QString::number(cpus.front()));
        // A config naming a single CPU the latency way is taken as the list of that CPU.
        nlohmann::json single = saved;
        single["cpus"] = nlohmann::json::array();
        single["cpu"] = cpus.back();
        QCOMPARE(restored.applyConfigJson(single), QStringList());
        QCOMPARE(restored.config().cpus, std::vector<int>{cpus.back()});
        // The explanation follows the pages' layout and reads this machine from the probe.
        const QString text = restored.explanation();
        QVERIFY(text.contains("What you are looking at.") && text.contains("What to expect.") &&
                text.contains("Why.") && text.contains("On this machine:"));
        QVERIFY(text.contains(QString::fromStdString(m_probe.scheduler)));
    }
};

RTSCOPE_TEST_MAIN(TestCpusPage)
#include "tst_cpus_page.moc"
