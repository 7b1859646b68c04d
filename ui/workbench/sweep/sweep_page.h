#pragma once
// The priority sweep (the tuning workbench, docs/workbench.md): the latency experiment over a list of settings (OTHER,
// FIFO 1, 10, 50, 80, 98 …) for a fixed time each, under built-in hogs or your own command as background load, which is
// stopped and reaped afterwards whatever happens. The result is p50/p99/p99.9/max against the setting as a chart and
// a table, with each setting's histogram kept for an overlay. Progress says which setting runs and how long is left;
// Stop cancels within 100 ms; a setting that could not run (EPERM) is shown as failed, never as zeros.
#include "engine/experiments/sweep_experiment.h"
#include "ui/polled_page.h"

#include <memory>
#include <optional>

class QLabel;
class QProgressBar;
class QTableView;

namespace rtscope {

class FactTile;
class HistogramChart;
class RunSummaryModel;
class SweepChart;
class SweepControls;

class SweepPage : public PolledPage {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 100;

    explicit SweepPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~SweepPage() override;

    QString name() const override { return QStringLiteral("sweep"); }
    QString shortTitle() const override { return tr("Sweep"); }
    bool start() override;
    /// Cancels the sweep: the running setting stops, the load command is stopped and reaped, all joined.
    void stop() override;
    bool isRunning() const override { return m_active; }
    QString explanation() const override;
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    std::vector<int> busyCpus() const override;

    /// The config the controls describe.
    SweepConfig config() const;
    /// Shows @p config in the controls; returns the problems (validate()'s sentences, values the controls cannot
    /// show), and with problems nothing changes. Not while a sweep runs.
    QStringList applyConfig(const SweepConfig& config);
    QStringList problems() const override;

    /// Polls the sweep and redraws (the refresh timer's slot; tests call it directly). Joins a sweep that ended.
    void refreshNow() override;
    /// Draws @p snapshot of a sweep over @p config (what refreshNow does with the experiment's snapshot).
    void showSnapshot(const SweepSnapshot& snapshot, const SweepConfig& config);
    /// "Setting 2 of 4: FIFO 1 · 1.2 s left": the progress line.
    QString progressText() const;

    SweepExperiment& experiment() { return *m_sweep; }
    SweepControls* sweepControls() const;
    RunSummaryModel* tableModel() const { return m_model; }
    SweepChart* chart() const { return m_chart; }
    HistogramChart* histogramChart() const { return m_histogram; }

protected:
    void showProblems(const QStringList& problems) override;
    void showRunning(bool running, const QString& status) override;

private:
    void controlsEdited();
    /// The problems that keep @p config from running: unreadable text first, then validate()'s sentences.
    QStringList configProblems(const SweepConfig& config) const;
    void finish(bool userStopped);
    void drawFacts(const SweepSnapshot* snapshot, const SweepConfig& config);

    std::unique_ptr<SweepExperiment> m_sweep;
    SweepConfig m_base;    ///< the last valid config of the controls
    SweepConfig m_running; ///< the config of the sweep shown
    QPointer<SweepControls> m_controls;
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
    bool m_active = false;
    bool m_userStopped = false;
};

} // namespace rtscope
