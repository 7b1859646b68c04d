#pragma once
// The sleep-floor lab (docs/experiments/sleep-floor.md): clock_getres says how finely the clock is read, not how
// precisely a thread is woken. The chart puts requested against actual duration on log-log axes; the table gives every
// request × method; clock_getres, the measured floor, the slack and the policy in force are shown in large text.
#include "engine/experiments/timers/sleep_floor_experiment.h"
#include "ui/common/fact_tile.h"
#include "ui/polled_page.h"
#include "ui/timers/sleep_floor_controls.h"

class QLabel;
class QTableView;

namespace rtscope {

class SleepFloorChart;
class SleepFloorTableModel;

class SleepFloorPage : public RegisteredExperimentPage<SleepFloorConfig, SleepFloorControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 25;

    explicit SleepFloorPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~SleepFloorPage() override;

    QString shortTitle() const override { return tr("Sleep floor"); }
    /// The reference is the floor of a finished (or stopped) sweep, kept next to the next sweep's floor: the
    /// comparison the slack lesson is about, in the tile read from the back of the room.
    bool supportsReference() const override { return true; }
    bool holdAsReference() override;
    void clearReference() override;
    bool hasReference() const override { return !m_reference.isEmpty(); }
    QString explanation() const override;

    SleepFloorControls* sleepFloorControls() const { return m_controls; }
    SleepFloorTableModel* tableModel() const { return m_model; }
    SleepFloorChart* chart() const { return m_chart; }
    QString resolutionText() const { return m_resolution->value(); }
    QString floorText() const { return m_floor->value(); }
    QString slackText() const { return m_slack->text(); }
    QString policyText() const { return m_policy->value(); }

protected:
    void restyle() override;

    /// Every problem with the controls' config: unreadable request text first, then validate()'s sentences.
    QStringList configProblems(const SleepFloorConfig& config, const CpuTopology& topo) const override;
    void runStarting(const SleepFloorConfig& config) override;
    QString finishedMessage() const override { return tr("Sleep-floor sweep finished"); }
    void configChanged(const SleepFloorConfig& config) override;
    void draw(const SleepFloorSnapshot& snapshot) override;

private:
    void drawFacts(const SleepFloorConfig& config, const SleepFloorSnapshot* snapshot);

    QLabel* m_lossWarning;
    FactTile* m_resolution;
    FactTile* m_floor;
    FactTile* m_slack;
    FactTile* m_policy;
    FactTile* m_progress;
    SleepFloorChart* m_chart;
    SleepFloorTableModel* m_model;
    QTableView* m_table;
    QString m_reference; ///< "55.0 us with 50.0 us slack (OTHER)": the held sweep's floor, or empty
};

} // namespace rtscope
