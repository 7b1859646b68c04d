#pragma once
// The contention page's table: one row per lock kind, fastest first, with every figure `rtscope locks` reports —
// throughput and its ratio to the plain mutex, wait p50/p99/max, context switches per 1000 acquisitions, CPU
// time per acquisition, fairness, and how acquisitions went (uncontended, spun and won, slept).
#include "ui/locks/contention/contention_view_data.h"

#include "ui/common/column_table_model.h"

#include <vector>

namespace rtscope {

class ContentionTableModel : public RowTableModel<ContentionKindSummary> {
    Q_OBJECT
public:
    // RawValueRole: rates and ratios as double, ns as qlonglong, counts as qulonglong.
    enum Column {
        Kind,
        State,
        Throughput,
        VsMutex,
        WaitP50,
        WaitP99,
        WaitMax,
        Switches,
        CpuPerAcquisition,
        Fairness,
        Paths,
        Dropped,
        Count
    };

    explicit ContentionTableModel(QObject* parent = nullptr);

    /// @p kinds in run order; the rows follow throughputRanking(). Rows are updated in place while the order
    /// stays the same, reset otherwise.
    void setKinds(const std::vector<ContentionKindSummary>& kinds);
    const ContentionKindSummary& row(int r) const { return m_rows[size_t(r)]; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const ContentionKindSummary& k, int column) const;
    QVariant raw(const ContentionKindSummary& k, int column) const;
};

/// "rtscope adaptive slept because: owner on this CPU 494 · spin limit 173 · owner blocked 0 (703 futex sleeps)";
/// empty for the other kinds.
QString sleepReasonsText(const ContentionKindSummary& kind);

} // namespace rtscope
