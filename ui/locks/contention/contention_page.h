#pragma once
// The lock-contention lab (docs/experiments/locks.md): T workers take one lock over and over, each lock kind in
// turn with the same settings. Throughput per kind as sorted bars, context switches per acquisition, the wait
// histograms overlaid, and a table with every figure (wait percentiles, CPU per acquisition, fairness, spun
// and won vs slept).
#include "engine/experiments/locks/contention_experiment.h"
#include "ui/common/fact_tile.h"
#include "ui/locks/contention/contention_controls.h"
#include "ui/polled_page.h"

class QLabel;
class QTableView;

namespace rtscope {

class ContentionChart;
class ContentionTableModel;

class ContentionPage : public RegisteredExperimentPage<ContentionConfig, ContentionControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 40;

    explicit ContentionPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~ContentionPage() override;

    QString shortTitle() const override { return tr("Locks"); }
    QString explanation() const override;
    QWidget* snapshotWidget() override { return m_view; }

    /// Draws @p snapshot in every view (the refresh's work; tests feed known snapshots through it).
    void showSnapshot(const ContentionSnapshot& snapshot);

    ContentionControls* contentionControls() const { return m_controls; }
    ContentionTableModel* tableModel() const { return m_model; }
    ContentionChart* chart() const { return m_chart; }
    QString progressText() const { return m_progress->text(); }
    QString fastestText() const { return m_fastest->text(); }
    QString setupText() const { return m_setup->text(); }
    QString noteText() const;

protected:
    void runStarting(const ContentionConfig& config) override;
    QString finishedMessage() const override { return tr("Every lock kind ran"); }
    /// Before a run: every kind of @p config as pending.
    void configChanged(const ContentionConfig& config) override;
    void draw(const ContentionSnapshot& snapshot) override { showSnapshot(snapshot); }

private:
    void drawSetup(const ContentionConfig& config, const std::vector<int>& workerCpus);

    QWidget* m_view;
    QLabel* m_warning;
    FactTile* m_progress;
    FactTile* m_fastest;
    FactTile* m_setup;
    ContentionChart* m_chart;
    ContentionTableModel* m_model;
    QTableView* m_table;
    QLabel* m_note;
};

} // namespace rtscope
