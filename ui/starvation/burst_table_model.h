#pragma once
// "Progress during bursts": one row per burst of the spinner with its duration, every counter's progress during
// the burst and in the gap after it, and the windows in which a starved counter ran anyway.
#include "engine/experiments/starvation/starvation_experiment.h"

#include <QAbstractTableModel>

#include <vector>

namespace rtscope {

class BurstTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// Unformatted cell values (ops as qulonglong, times in ns as qlonglong) for tests and exports.
    static constexpr int RawValueRole = Qt::UserRole + 1;
    enum FixedColumn { Burst, Spinner, FirstCounterColumn };

    explicit BurstTableModel(QObject* parent = nullptr);

    /// Shows the bursts of @p snapshot; existing rows are updated in place, new ones appended.
    void setSnapshot(const StarvationSnapshot& snapshot);
    void clear();

    int counterCount() const { return int(m_counters.size()); }
    /// Column of counter @p counter's progress during the burst, and in the gap after it.
    int duringColumn(int counter) const { return FirstCounterColumn + counter; }
    int afterColumn(int counter) const { return FirstCounterColumn + counterCount() + counter; }
    int windowsColumn() const { return FirstCounterColumn + 2 * counterCount(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct CounterInfo {
        QString label;
        bool control = false;
    };
    std::vector<CounterInfo> m_counters;
    std::vector<BurstRecord> m_bursts;
};

/// "0", "981", "45.6 k", "312 M", "1.23 G".
QString formatCount(double value);
/// Lengths and offsets of a burst's windows: "1: 48.9 ms at +951 ms".
QString windowsText(const BurstRecord& burst);

} // namespace rtscope
