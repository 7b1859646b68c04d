#pragma once
// The "Worst wake-ups" list of the latency anatomy (docs/experiments/anatomy.md): the traced run's worst wake-ups,
// worst first, then those over the threshold that are not among them, each with its latency, CPU, when it happened,
// its main culprit and the verdict. A row is one TracedWakeup of the run's LatencyTracing, which the model keeps
// alive (shared_ptr), so wakeup(row) stays valid until the next setTracing().
#include "engine/experiments/latency/latency_run.h"

#include "ui/common/column_table_model.h"

#include <memory>
#include <vector>

namespace rtscope {

/// The largest part's cause of @p anatomy in a few words: "stress-ng-cpu (pid 4242)", "irq 24 (virtio0-input.0)",
/// "timer IRQ delay (idle exit)", "return to user", "the scheduler (from idle)"; "unknown" when the largest part,
/// or every part, is unknown.
QString mainCulprit(const WakeupAnatomy& anatomy);

/// A row of the list: a wake-up of the run's LatencyTracing.
struct WorstWakeupRow {
    const TracedWakeup* wakeup = nullptr;
    bool over = false;
    int rank = 0; ///< 1-based among the worst; 0 for one over the threshold only
};

class WorstWakeupsModel : public RowTableModel<WorstWakeupRow> {
    Q_OBJECT
public:
    enum Column { List, Latency, Cpu, When, Culprit, Verdict, ColumnCount };
    // RawValueRole: latency and "when" in ns (qlonglong), the CPU (int), the rest as shown.

    explicit WorstWakeupsModel(QObject* parent = nullptr);

    /// The rows of @p tracing (null: none); "when" is relative to @p startNs (the run's start) and @p nowNs (the
    /// snapshot's publish time). Keeps the rows (no reset) when the same wake-ups are listed again.
    void setTracing(std::shared_ptr<const LatencyTracing> tracing, int64_t startNs, int64_t nowNs);

    /// The wake-up of @p row; null outside the rows.
    const TracedWakeup* wakeup(int row) const;
    /// Whether @p row is one over the threshold that is not among the worst.
    bool overThreshold(int row) const;
    /// The row of the wake-up with @p seq of measuring thread @p thread; -1 when it is not listed.
    int rowOf(size_t thread, uint64_t seq) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    QVariant headerToolTip(int column) const override;

private:
    std::shared_ptr<const LatencyTracing> m_tracing;
    int64_t m_startNs = 0;
    int64_t m_nowNs = 0;
};

} // namespace rtscope
