#pragma once
// The latency anatomy (docs/experiments/anatomy.md): "Why late?", under the charts of the latency and per-CPU pages
// (both run the latency experiment, so it lives here, shared): the view of one wake-up (swimlane, bar, verdict) and
// the panel with the tracing status, the worst wake-ups, that view and the culprit table of the whole run. What they
// show is made by anatomy_view_data.h.
#include "engine/experiments/latency/latency_run.h"
#include "ui/plot/anatomy_breakdown_bar.h"
#include "ui/plot/anatomy_swimlane.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QSplitter;
class QTableView;

namespace rtscope {

class CulpritsModel;
class WorstWakeupsModel;

/// One wake-up explained: a title, the swimlane with the breakdown bar beside it, the verdict below.
class AnatomyView : public QWidget {
    Q_OBJECT
public:
    explicit AnatomyView(QWidget* parent = nullptr);
    ~AnatomyView() override;

    /// Shows @p wakeup (copied: it stays when the list moves on); @p startNs (the run's start) places it in the run.
    void setWakeup(const TracedWakeup& wakeup, int64_t startNs);
    /// Shows no wake-up but @p text.
    void clearWakeup(const QString& text);
    /// The wake-up shown, if any.
    const std::optional<TracedWakeup>& wakeup() const { return m_wakeup; }

    AnatomySwimlane* swimlane() const { return m_swimlane; }
    AnatomyBreakdownBar* breakdown() const { return m_breakdown; }
    QString title() const;
    QString verdict() const;

private:
    AnatomySwimlane* m_swimlane;
    AnatomyBreakdownBar* m_breakdown;
    QLabel* m_title;
    QLabel* m_verdict;
    std::optional<TracedWakeup> m_wakeup;
};

/// "Why late?": the tracing status, the worst wake-ups (a row selected shows its anatomy), the anatomy view and the
/// culprits of the whole run. Follows the worst wake-up until the user picks another.
class AnatomyPanel : public QWidget {
    Q_OBJECT
public:
    explicit AnatomyPanel(QWidget* parent = nullptr);
    ~AnatomyPanel() override;

    /// Takes @p snapshot's tracing (null: the run does not trace; @p asked: the config asks for it).
    void setRun(const LatencySnapshot& snapshot);
    /// Nothing to show: no run yet, or tracing not asked for (@p text says what to do).
    void clearRun(const QString& text);

    /// Selects the traced wake-up that woke nearest to @p tNs (CLOCK_MONOTONIC) within @p toleranceNs; false (and
    /// the selection unchanged) when there is none.
    bool showNearestTime(int64_t tNs, int64_t toleranceNs);
    /// Selects the traced wake-up whose latency is nearest to @p latencyUs on a log scale, within a factor of
    /// @p factor; false when there is none.
    bool showNearestLatency(double latencyUs, double factor = 1.25);
    /// Selects row @p row of the worst wake-ups (the user's choice: following the worst stops).
    void selectRow(int row);
    /// Whether the view follows the worst wake-up (nothing picked yet).
    bool followsWorst() const { return m_followWorst; }
    /// How many wake-ups the list holds.
    int tracedCount() const;
    QString statusText() const;

    WorstWakeupsModel* worstModel() const { return m_worst; }
    CulpritsModel* culpritsModel() const { return m_culprits; }
    QTableView* worstTable() const { return m_worstTable; }
    QTableView* culpritsTable() const { return m_culpritsTable; }
    AnatomyView* view() const { return m_view; }
    /// The lists' splitter (side by side) and the one between them and the view, for the page to keep.
    QSplitter* tablesSplitter() const { return m_tablesSplitter; }
    QSplitter* viewSplitter() const { return m_viewSplitter; }

signals:
    void statusMessage(const QString& text);

protected:
    void changeEvent(QEvent* event) override;

private:
    void rowSelected(int row, bool byUser);
    void styleTables();

    QLabel* m_status;
    WorstWakeupsModel* m_worst;
    CulpritsModel* m_culprits;
    QTableView* m_worstTable;
    QTableView* m_culpritsTable;
    QLabel* m_culpritsTitle;
    AnatomyView* m_view;
    QSplitter* m_tablesSplitter;
    QSplitter* m_viewSplitter;
    bool m_followWorst = true;
    bool m_selecting = false; ///< a selection made here, not by the user
    int64_t m_startNs = 0;
    int64_t m_nowNs = 0;
    std::shared_ptr<const LatencyTracing> m_tracing;
};

} // namespace rtscope
