#pragma once
// The deadline lab (docs/experiments/deadline.md): SCHED_DEADLINE's contract in three lessons, one page.
// - admission: the declared bandwidth filling against the kernel's limit, step by step, the refused task in red
//   with the kernel's own answer;
// - isolation: the runaway's CPU time per period held at its runtime, the time it is throttled, the good task's
//   misses (none), and the SCHED_OTHER counter that keeps counting; a finished run can be held as the reference
//   (H) and its runaway is drawn under the next one's;
// - edf: every job of both tasks on a timeline, one row per task and phase, the misses marked.
// Tiles in large type, the chart, a table with every figure; what was lost or did not run is said at the top.
#include "engine/experiments/deadline/deadline_experiment.h"
#include "ui/deadline/deadline_controls.h"
#include "ui/polled_page.h"

#include <memory>
#include <vector>

class QLabel;
class QTableView;

namespace rtscope {

class DeadlineChart;
class DeadlineTableModel;
class FactTile;

class DeadlinePage : public RegisteredExperimentPage<DeadlineConfig, DeadlineControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 100;
    static constexpr int kTiles = 4;

    explicit DeadlinePage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~DeadlinePage() override;

    QString shortTitle() const override { return tr("Deadline"); }
    QString explanation() const override;
    bool supportsReference() const override { return true; }
    bool holdAsReference() override;

    DeadlineControls* deadlineControls() const { return m_controls; }
    DeadlineChart* chart() const { return m_chart; }
    DeadlineTableModel* tableModel() const { return m_model; }
    FactTile* tile(int i) const { return m_tiles[size_t(i)]; }
    /// The lines at the top: errors, watchdog trips, lost data, a phase that did not run.
    QString alertText() const;
    /// Admission: the kernel's answer to the refused task, as shown.
    QString answerText() const;
    std::shared_ptr<const DeadlineSnapshot> reference() const { return m_reference; }

protected:
    void restyle() override;
    QStringList configProblems(const DeadlineConfig& c, const CpuTopology& topo) const override;
    void runStarting(const DeadlineConfig& config) override;
    void configChanged(const DeadlineConfig& config) override;
    void draw(const DeadlineSnapshot& snapshot) override;
    void releaseReference() override;

private:
    void drawIdle(const DeadlineConfig& config);
    void drawAlerts(const DeadlineSnapshot& s);
    void drawAdmission(const DeadlineSnapshot& s);
    void drawIsolation(const DeadlineSnapshot& s);
    void drawEdf(const DeadlineSnapshot& s);

    QLabel* m_alerts;
    QLabel* m_answer;
    std::vector<FactTile*> m_tiles;
    DeadlineChart* m_chart;
    DeadlineTableModel* m_model;
    QTableView* m_table;
    std::shared_ptr<const DeadlineSnapshot> m_reference; ///< a finished isolation run held as the reference
};

} // namespace rtscope
