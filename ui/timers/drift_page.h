#pragma once
// The drift lab (SCIENCE.md §3): relative sleeps drift, absolute deadlines do not. Every timing method runs side
// by side on one CPU; the chart shows each one's cumulative drift against the tick, the table the figures
// (drift after N ticks, slope, effective rate, missed ticks, lateness), and the slack and policy in force are
// shown in large text above them.
#include "engine/experiments/timers/drift_config.h"
#include "engine/rt/system_probe.h"
#include "ui/experiment_page.h"

#include <QPointer>

#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTableView;
class QTimer;

namespace rtscope {

class DriftChart;
class DriftControls;
class DriftExperiment;
class DriftTableModel;
class FactTile;
struct DriftSnapshot;

class DriftPage : public ExperimentPage {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 25;

    explicit DriftPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~DriftPage() override;

    QString name() const override { return QStringLiteral("drift"); }
    QString shortTitle() const override { return tr("Drift"); }
    QWidget* controls() override;
    bool start() override;
    void stop() override;
    bool isRunning() const override;
    void setDisplayPaused(bool paused) override;
    bool displayPaused() const override { return m_paused; }
    void resetStatistics() override {}
    QString explanation() const override;
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    std::vector<int> busyCpus() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    /// The config the controls describe.
    DriftConfig config() const;
    /// Shows @p config in the controls; returns the problems (validate()'s sentences, or values the controls
    /// cannot show), and with problems nothing changes. Not while running.
    QStringList applyConfig(const DriftConfig& config);
    QStringList problems() const;

    void setLogDriftAxis(bool log);
    bool logDriftAxis() const;

    /// Pulls a snapshot and redraws if it is new (the refresh timer's slot; tests call it directly).
    void refreshNow();
    uint64_t framesDrawn() const { return m_frames; }

    DriftExperiment& experiment() { return *m_experiment; }
    DriftControls* driftControls() const;
    DriftTableModel* tableModel() const { return m_model; }
    DriftChart* chart() const { return m_chart; }
    /// The large facts line: slack in force, policy, period.
    QString slackText() const;
    QString policyText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void controlsEdited();
    void draw(const DriftSnapshot& snapshot);
    void drawFacts(const DriftConfig& config, const DriftSnapshot* snapshot);
    void showError(const QString& message);
    void restyle();

    SystemProbe m_probe;
    std::unique_ptr<DriftExperiment> m_experiment;
    DriftConfig m_base; ///< fields without a control (the stall) and the last valid config
    QPointer<DriftControls> m_controls;
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
    QSplitter* m_splitter;
    QTimer* m_timer;

    std::vector<int> m_busy;
    std::shared_ptr<const DriftSnapshot> m_lastDrawn;
    uint64_t m_lastGeneration = 0;
    uint64_t m_frames = 0;
    bool m_paused = false;
};

} // namespace rtscope
