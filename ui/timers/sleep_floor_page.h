#pragma once
// The sleep-floor lab (SCIENCE.md §4): clock_getres says how finely the clock is read, not how precisely a thread
// is woken. The chart puts requested against actual duration on log-log axes; the table gives every request ×
// method; clock_getres, the measured floor, the slack and the policy in force are shown in large text.
#include "engine/experiments/timers/sleep_floor_config.h"
#include "engine/rt/system_probe.h"
#include "ui/experiment_page.h"

#include <QPointer>

#include <memory>
#include <vector>

class QLabel;
class QSplitter;
class QTableView;
class QTimer;

namespace rtscope {

class FactTile;
class SleepFloorChart;
class SleepFloorControls;
class SleepFloorExperiment;
class SleepFloorTableModel;
struct SleepFloorSnapshot;

class SleepFloorPage : public ExperimentPage {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 25;

    explicit SleepFloorPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~SleepFloorPage() override;

    QString name() const override { return QStringLiteral("sleep-floor"); }
    QString shortTitle() const override { return tr("Sleep floor"); }
    QWidget* controls() override;
    bool start() override;
    void stop() override;
    bool isRunning() const override;
    void setDisplayPaused(bool paused) override;
    bool displayPaused() const override { return m_paused; }
    void resetStatistics() override {}
    /// The reference is the floor of a finished (or stopped) sweep, kept next to the next sweep's floor: the
    /// comparison the slack lesson is about, in the tile read from the back of the room.
    bool supportsReference() const override { return true; }
    bool holdAsReference() override;
    void clearReference() override;
    bool hasReference() const override { return !m_reference.isEmpty(); }
    QString explanation() const override;
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    std::vector<int> busyCpus() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    SleepFloorConfig config() const;
    /// Shows @p config in the controls; returns the problems, and with problems nothing changes. Not while running.
    QStringList applyConfig(const SleepFloorConfig& config);
    QStringList problems() const;

    void refreshNow();
    uint64_t framesDrawn() const { return m_frames; }

    SleepFloorExperiment& experiment() { return *m_experiment; }
    SleepFloorControls* sleepFloorControls() const;
    SleepFloorTableModel* tableModel() const { return m_model; }
    SleepFloorChart* chart() const { return m_chart; }
    QString resolutionText() const;
    QString floorText() const;
    QString slackText() const;
    QString policyText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void styleTable();
    /// Every problem with the controls' config: unreadable request text first, then validate()'s sentences.
    QStringList configProblems(const SleepFloorConfig& config) const;
    void controlsEdited();
    void draw(const SleepFloorSnapshot& snapshot);
    void drawFacts(const SleepFloorConfig& config, const SleepFloorSnapshot* snapshot);
    void showError(const QString& message);

    SystemProbe m_probe;
    std::unique_ptr<SleepFloorExperiment> m_experiment;
    SleepFloorConfig m_base;
    QPointer<SleepFloorControls> m_controls;
    QLabel* m_lossWarning;
    FactTile* m_resolution;
    FactTile* m_floor;
    FactTile* m_slack;
    FactTile* m_policy;
    FactTile* m_progress;
    SleepFloorChart* m_chart;
    SleepFloorTableModel* m_model;
    QTableView* m_table;
    QSplitter* m_splitter;
    QTimer* m_timer;

    std::vector<int> m_busy;
    std::shared_ptr<const SleepFloorSnapshot> m_lastDrawn;
    uint64_t m_lastGeneration = 0;
    uint64_t m_frames = 0;
    bool m_paused = false;
    QString m_reference; ///< "55.0 us with 50.0 us slack (OTHER)": the held sweep's floor, or empty
};

} // namespace rtscope
