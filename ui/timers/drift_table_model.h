#pragma once
// The drift page's table: one row per timing method with the figures the lesson quotes — drift after N ticks,
// its slope per tick, the effective rate against the nominal one, missed ticks and lateness percentiles.
#include "engine/experiments/timers/drift_experiment.h"

#include "ui/common/column_table_model.h"

#include <vector>

namespace rtscope {

/// One row per method: its DriftMethodStats.
class DriftTableModel : public RowTableModel<DriftMethodStats> {
    Q_OBJECT
public:
    // RawValueRole: ns as qlonglong, slope and rates as double, counts as qulonglong.
    enum Column { Method, Ticks, Drift, Slope, RateHz, RatePercent, Missed, LatenessP50, LatenessP99, Dropped, Count };

    explicit DriftTableModel(QObject* parent = nullptr);

    /// Rows are updated in place while the method list stays the same, replaced otherwise.
    void setSnapshot(const DriftSnapshot& snapshot);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    /// The rate column names the nominal rate once a snapshot gave it.
    QVariant headerText(int column) const override;

private:
    double m_nominalHz = 0;
};

} // namespace rtscope
