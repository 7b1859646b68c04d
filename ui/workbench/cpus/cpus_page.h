#pragma once
// Per-CPU latency (the tuning workbench, docs/workbench.md): one measuring thread per chosen CPU, each with its own
// ring and histogram, so a noisy core stands out — as a hot row of the heat strip (CPU × time, colour = the largest
// latency per interval), as the curve with the long tail among the overlaid histograms, and as the row of the table
// with the large p99.9. Isolated and nohz_full CPUs are labelled. The controls are the latency page's, with a CPU list
// in place of the single measuring CPU; changes apply to the running experiment.
#include "engine/experiments/latency_config.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "ui/experiment_page.h"
#include "ui/workbench/cpus/heat_history.h"

#include <QPointer>

#include <memory>

class QLabel;
class QSplitter;
class QTableView;
class QTimer;

namespace rtscope {

class CpuListEdit;
class HeatStrip;
class HistogramChart;
class LatencyControls;
class LatencySource;
class RunSummaryModel;
struct LatencySnapshot;

class CpusPage : public ExperimentPage {
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
    QWidget* controls() override;
    bool start() override;
    void stop() override;
    bool isRunning() const override;
    void setDisplayPaused(bool paused) override;
    bool displayPaused() const override { return m_paused; }
    void resetStatistics() override;
    QString explanation() const override;
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    std::vector<int> busyCpus() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    /// The config the controls describe (cpus filled in, cpu = −1).
    LatencyConfig config() const;
    /// Shows @p config in the controls and, when running, applies it; a config naming one CPU (cpu, no cpus) is
    /// taken as the list of that CPU. Returns the problems (validate()'s sentences, values the controls cannot
    /// show); with problems nothing changes.
    QStringList applyConfig(const LatencyConfig& config);
    QStringList problems() const;

    /// Pulls a snapshot and redraws if it is new (the refresh timer's slot; tests call it directly).
    void refreshNow();
    uint64_t framesDrawn() const { return m_frames; }
    /// The red banner's text: dropped samples and sequence gaps per CPU; empty when nothing was lost.
    QString dataLossWarning() const;

    LatencySource& source() { return *m_source; }
    LatencyControls* latencyControls() const;
    CpuListEdit* cpuListEdit() const { return m_cpuList; }
    RunSummaryModel* statsModel() const { return m_model; }
    HistogramChart* histogramChart() const { return m_histogram; }
    HeatStrip* heatStrip() const { return m_heatStrip; }
    const HeatHistory& heatHistory() const { return m_heat; }

private:
    void controlsEdited();
    QStringList problemsOf(const LatencyConfig& config) const;
    bool applyRunning(const LatencyConfig& config);
    void runEnded(); ///< the views and controls after the run stopped (by Stop, or by the engine itself)
    void draw(const LatencySnapshot& snapshot);
    void drawHeat(const LatencySnapshot& snapshot);
    QString cpuRowNote(const LatencyConfig& config, int cpu) const;
    void showError(const QString& message);
    void updateRunStatus();
    void fitTable();

    std::unique_ptr<LatencySource> m_source;
    SystemProbe m_probe;
    CpuTopology m_topo;   ///< read at construction and at every start, not per frame
    LatencyConfig m_base; ///< fields without a control and the last applied config
    QPointer<LatencyControls> m_controls;
    CpuListEdit* m_cpuList;
    QLabel* m_lossWarning;
    HeatStrip* m_heatStrip;
    HistogramChart* m_histogram;
    RunSummaryModel* m_model;
    QTableView* m_table;
    QSplitter* m_splitter;
    QTimer* m_timer;

    HeatHistory m_heat;
    std::shared_ptr<const LatencySnapshot> m_lastDrawn;
    uint64_t m_lastGeneration = 0;
    uint64_t m_frames = 0;
    bool m_paused = false;
};

} // namespace rtscope
