#pragma once
// The drift page's table: one row per timing method with the figures the lesson quotes — drift after N ticks,
// its slope per tick, the effective rate against the nominal one, missed ticks and lateness percentiles.
#include "engine/experiments/timers/drift_experiment.h"

#include "ui/common/column_table_model.h"

#include <vector>

namespace rtscope {

class DriftTableModel : public ColumnTableModel {
    Q_OBJECT
public:
    /// Unformatted values (ns as qlonglong, slope and rates as double, counts as qulonglong).
    static constexpr int RawValueRole = Qt::UserRole + 1;
    enum Column { Method, Ticks, Drift, Slope, RateHz, RatePercent, Missed, LatenessP50, LatenessP99, Dropped, Count };

    explicit DriftTableModel(QObject* parent = nullptr);

    /// Rows are updated in place while the method list stays the same, replaced otherwise.
    void setSnapshot(const DriftSnapshot& snapshot);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    /// The rate column names the nominal rate once a snapshot gave it.
    QVariant headerText(int column) const override;

private:
    struct Row {
        WaiterKind method = WaiterKind::Absolute;
        int64_t lastTick = 0;
        int64_t driftNs = 0;
        double slopeNs = 0;
        double rateHz = 0;
        double ratePercent = 0;
        uint64_t missed = 0;
        int64_t p50Ns = 0;
        int64_t p99Ns = 0;
        uint64_t drops = 0;
        uint64_t wakes = 0;
        std::string error;
    };
    std::vector<Row> m_rows;
    double m_nominalHz = 0;
};

} // namespace rtscope
