#pragma once
// The priority sweep (the tuning workbench, docs/workbench.md): the latency experiment over a list of settings (OTHER,
// FIFO 1, 10, 50, 80, 98 …) for a fixed time each, under built-in hogs or your own command as background load, which is
// stopped and reaped afterwards whatever happens. The result is p50/p99/p99.9/max against the setting as a chart and
// a table, with each setting's histogram kept for an overlay. Progress says which setting runs and how long is left;
// Stop cancels within 100 ms; a setting that could not run (EPERM) is shown as failed, never as zeros. With a
// target connected the sweep, its load included, runs there through the agent (docs/remote.md).
#include "engine/experiments/sweep/sweep_experiment.h"
#include "ui/polled_page.h"
#include "ui/workbench/sweep/sweep_controls.h"

#include <optional>

class QLabel;
class QProgressBar;
class QTableView;

namespace rtscope {

class FactTile;
class HistogramChart;
class RunSummaryModel;
class SweepChart;

class SweepPage : public RegisteredExperimentPage<SweepConfig, SweepControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 100;

    explicit SweepPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~SweepPage() override;

    QString name() const override { return QStringLiteral("sweep"); }
    QString shortTitle() const override { return tr("Sweep"); }
    /// Cancels the sweep: the running setting stops, the load command is stopped and reaped, all joined.
    void stop() override;
    QString explanation() const override;

    /// Draws @p snapshot of a sweep over @p config (what refreshNow does with the experiment's snapshot).
    void showSnapshot(const SweepSnapshot& snapshot, const SweepConfig& config);
    /// "Setting 2 of 4: FIFO 1 · 1.2 s left": the progress line.
    QString progressText() const;

    SweepControls* sweepControls() const { return m_controls; }
    RunSummaryModel* tableModel() const { return m_model; }
    SweepChart* chart() const { return m_chart; }
    HistogramChart* histogramChart() const { return m_histogram; }

protected:
    /// The problems that keep @p config from running: unreadable text first, then validate()'s sentences.
    QStringList configProblems(const SweepConfig& config, const CpuTopology& topo) const override;
    void runStarting(const SweepConfig& config) override;
    /// Every setting ran: joined, and shown as finished rather than stopped by you.
    void runFinished() override;
    QString stoppedMessage(bool finished) const override;
    QString runningStatus(const SweepConfig& config) const override;
    QString startedMessage(const SweepConfig& config) const override;
    QString runningRefusal() const override { return tr("the configuration cannot change during a sweep: stop first"); }
    void configChanged(const SweepConfig& config) override;
    void configEdited(const SweepConfig& config) override;
    void draw(const SweepSnapshot& snapshot) override { showSnapshot(snapshot, m_running); }

private:
    /// Stops the sweep (@p userStopped: by Stop, before every setting ran) and shows its result.
    void endSweep(bool userStopped);
    void drawFacts(const SweepSnapshot* snapshot, const SweepConfig& config);
    /// How long the running setting of @p live has run: to now here, to its last publish on a target.
    int64_t liveElapsedNs(const LatencySnapshot& live) const;

    SweepConfig m_running; ///< the config of the sweep shown
    QLabel* m_lossWarning;
    FactTile* m_setting;
    FactTile* m_left;
    FactTile* m_load;
    QProgressBar* m_progress;
    SweepChart* m_chart;
    HistogramChart* m_histogram;
    RunSummaryModel* m_model;
    QTableView* m_table;

    std::optional<SweepSnapshot> m_last;
    bool m_userStopped = false;
};

} // namespace rtscope
