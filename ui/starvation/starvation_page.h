#pragma once
// The starvation lab (docs/experiments/starvation.md): a SCHED_FIFO/RR spinner that never blocks leaves the SCHED_OTHER
// counters on its CPU with zero progress, except in the kernel's short safety-net windows. Big live rates per counter,
// the progress lines with the bursts shaded and the windows marked, a table of progress per burst, and the
// kernel's throttling settings next to what was measured.
#include "engine/experiments/starvation/starvation_experiment.h"
#include "engine/rt/throttle_settings.h"
#include "ui/polled_page.h"
#include "ui/starvation/starvation_controls.h"

#include <vector>

class QFrame;
class QHBoxLayout;
class QLabel;
class QTableView;

namespace rtscope {

class BurstTableModel;
class StarvationChart;

class StarvationPage : public RegisteredExperimentPage<StarvationConfig, StarvationControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 25;
    /// A longer run scrolls: the chart shows the last this many seconds.
    static constexpr double kChartSeconds = 30;

    explicit StarvationPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~StarvationPage() override;

    QString shortTitle() const override { return tr("Starvation"); }
    QString explanation() const override;

    StarvationControls* starvationControls() const { return m_controls; }
    BurstTableModel* burstModel() const { return m_model; }
    StarvationChart* chart() const { return m_chart; }
    /// The big numbers, one per counter thread, as shown.
    QStringList liveCounterTexts() const;
    QString kernelLine() const;
    QString watchdogText() const;

protected:
    void restyle() override;

    /// The lab's threads are pinned by attribute: the cpuset bounds them, not the GUI thread's affinity.
    CpuTopology topology() const override { return StarvationConfig::placementTopology(); }
    /// The reserved CPUs belong to this session's process (where the window runs), never to a preset's author.
    StarvationConfig adopt(StarvationConfig c) const override;
    void runStarting(const StarvationConfig& config) override;
    void configChanged(const StarvationConfig& config) override;
    void draw(const StarvationSnapshot& snapshot) override;

private:
    void drawCounters(const StarvationSnapshot& snapshot);
    void drawChart(const StarvationSnapshot& snapshot);
    void drawKernelLine(const StarvationSnapshot& snapshot);
    void drawAlerts(const StarvationSnapshot& snapshot);

    struct Tile {
        QFrame* frame = nullptr;
        QLabel* title = nullptr;
        QLabel* value = nullptr;
        QLabel* detail = nullptr;
    };
    Tile makeTile();

    ThrottleSettings m_kernel;
    QLabel* m_watchdogBanner;
    QLabel* m_lossWarning;
    Tile m_spinnerTile;
    std::vector<Tile> m_tiles;
    QHBoxLayout* m_tileLayout;
    QLabel* m_kernelLine;
    StarvationChart* m_chart;
    BurstTableModel* m_model;
    QTableView* m_table;
};

} // namespace rtscope
