#pragma once
// Per-CPU latency (the tuning workbench, docs/workbench.md): one measuring thread per chosen CPU, each with its own
// ring and histogram, so a noisy core stands out — as a hot row of the heat strip (CPU × time, colour = the largest
// latency per interval), as the curve with the long tail among the overlaid histograms, and as the row of the table
// with the large p99.9. Isolated and nohz_full CPUs are labelled. The controls are the latency page's, with a CPU list
// in place of the single measuring CPU; changes apply to the running experiment.
#include "engine/experiments/latency/latency_config.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "ui/common/latency_source.h"
#include "ui/polled_page.h"
#include "ui/widgets/latency_controls.h"
#include "ui/workbench/cpus/heat_history.h"

#include <memory>

class QLabel;
class QTabWidget;
class QTableView;

namespace rtscope {

class AnatomyPanel;
class CpuListEdit;
class HeatStrip;
class HistogramChart;
class RunSummaryModel;

/// Every control edit reaches the running experiment and restarts its statistics; Reset restarts them too.
using CpusPageBase = PolledExperimentPage<LatencyConfig, LatencySource, LatencyControls, latencyConfigFromJson,
                                          PageCapabilities{.reconfigureWhileRunning = true, .resetStatistics = true}>;

class CpusPage : public CpusPageBase {
    Q_OBJECT
public:
    /// 5 Hz: the heat strip's cells are a quarter of a second wide at the finest, and when every CPU is measured
    /// the window shares a CPU with a measuring thread: each redraw is work that CPU's row then shows.
    static constexpr int kRefreshMs = 200;
    /// Timeline each snapshot carries; the heat history keeps what scrolls out of it.
    static constexpr int64_t kSeriesWindowNs = 5'000'000'000;
    static constexpr int kMinSpanSec = 10;
    static constexpr int kMaxSpanSec = 60;

    CpusPage(std::unique_ptr<LatencySource> source, const SystemProbe& probe, QWidget* parent = nullptr);
    ~CpusPage() override;

    QString name() const override { return QStringLiteral("cpus"); }
    QString shortTitle() const override { return tr("Per-CPU"); }
    QString explanation() const override;
    /// The measured and hog CPUs; when that is every CPU, only the hogs' (the window has to share with something).
    std::vector<int> busyCpus() const override;

    /// The config the controls describe (cpus filled in, cpu = −1). applyConfig() takes a config naming one CPU
    /// (cpu, no cpus) as the list of that CPU.
    LatencyConfig config() const override;

    /// With a target, Start measures its CPUs through the agent (RemoteLatencySource, docs/remote.md); without, this
    /// computer's again. A run in progress is stopped first.
    bool setTarget(TargetConnection* target) override;
    QString measuredMachine() const override;
    /// The probe of the machine measured: the target's (its hello) or this computer's; the rows' kernel notes
    /// (isolated, nohz_full) and "What am I seeing?" describe it.
    const SystemProbe& measuredProbe() const override;

    /// The red banner's text: dropped samples and sequence gaps per CPU; empty when nothing was lost.
    QString dataLossWarning() const;

    LatencySource& source() { return experiment(); }
    LatencyControls* latencyControls() const { return m_controls; }
    CpuListEdit* cpuListEdit() const { return m_cpuList; }
    RunSummaryModel* statsModel() const { return m_model; }
    HistogramChart* histogramChart() const { return m_histogram; }
    HeatStrip* heatStrip() const { return m_heatStrip; }
    const HeatHistory& heatHistory() const { return m_heat; }
    /// "Why late?" (ui/widgets/anatomy_view.h): a tab beside the histogram while the run is traced (the controls'
    /// "Explain spikes").
    AnatomyPanel* anatomyPanel() const { return m_anatomy; }
    QTabWidget* middleTabs() const { return m_middle; }

protected:
    QString settingsName() const override { return tr("per-CPU"); }
    QStringList configProblems(const LatencyConfig& config, const CpuTopology& topo) const override;
    /// The target's CPUs while one is connected.
    CpuTopology topology() const override;
    LatencyConfig adopt(LatencyConfig config) const override;
    /// Everything but the CPU list, which the shared latency controls do not have.
    QStringList unrepresentable(const LatencyConfig& config) const override;
    void showConfig(const LatencyConfig& config) override;
    void runStarting(const LatencyConfig& config) override;
    /// A run with a duration, or a worker whose wait failed: every thread joined, and its error is the last word.
    void runFinished() override
    {
        stop();
        showLatestError();
    }
    /// The history takes every snapshot, paused or not, so the strip has no hole when the display resumes.
    void snapshotArrived(const LatencySnapshot& snapshot) override;
    void draw(const LatencySnapshot& snapshot) override;

private:
    void drawHeat(const LatencySnapshot& snapshot);
    void showAnatomyTab(bool traced);
    QString cpuRowNote(const LatencyConfig& config, int cpu) const;
    void fitTable();

    CpuTopology m_topo; ///< read at construction and at every start, not per frame
    QPointer<TargetConnection> m_target;
    std::unique_ptr<LatencySource> m_localSource; ///< this computer's, kept while a target's source measures
    CpuListEdit* m_cpuList;
    QLabel* m_lossWarning;
    HeatStrip* m_heatStrip;
    HistogramChart* m_histogram;
    RunSummaryModel* m_model;
    QTableView* m_table;
    AnatomyPanel* m_anatomy;
    QTabWidget* m_middle = nullptr;

    HeatHistory m_heat;
};

} // namespace rtscope
