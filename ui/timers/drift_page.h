#pragma once
// The drift lab (docs/experiments/drift.md): relative sleeps drift, absolute deadlines do not. Every timing method runs
// side by side on one CPU; the chart shows each one's cumulative drift against the tick, the table the figures
// (drift after N ticks, slope, effective rate, missed ticks, lateness), and the slack and policy in force are
// shown in large text above them.
#include "engine/experiments/timers/drift_experiment.h"
#include "ui/common/fact_tile.h"
#include "ui/polled_page.h"
#include "ui/timers/drift_controls.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QTableView;

namespace rtscope {

class DriftChart;
class DriftTableModel;

class DriftPage : public RegisteredExperimentPage<DriftConfig, DriftControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 25;

    explicit DriftPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~DriftPage() override;

    QString shortTitle() const override { return tr("Drift"); }
    QString explanation() const override;

    void setLogDriftAxis(bool log);
    bool logDriftAxis() const;

    DriftControls* driftControls() const { return m_controls; }
    DriftTableModel* tableModel() const { return m_model; }
    DriftChart* chart() const { return m_chart; }
    /// The large facts line: slack in force, policy, period.
    QString slackText() const { return m_slack->text(); }
    QString policyText() const { return m_policy->value(); }

protected:
    void restyle() override;

    void runStarting(const DriftConfig& config) override;
    QString finishedMessage() const override { return tr("Drift run finished"); }
    void configChanged(const DriftConfig& config) override;
    void draw(const DriftSnapshot& snapshot) override;
    void saveViewSettings(QSettings& settings) const override;
    QStringList restoreViewSettings(QSettings& settings) override;

private:
    void drawFacts(const DriftConfig& config, const DriftSnapshot* snapshot);

    QLabel* m_lossWarning;
    FactTile* m_slack;
    FactTile* m_policy;
    FactTile* m_period;
    FactTile* m_progress;
    QCheckBox* m_logAxis;
    QPushButton* m_resetZoom;
    DriftChart* m_chart;
    DriftTableModel* m_model;
    QTableView* m_table;
};

} // namespace rtscope
