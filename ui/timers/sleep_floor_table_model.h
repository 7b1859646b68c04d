#pragma once
// The sleep-floor page's table: one row per requested length × method with the median, p99 and max actual
// duration, the overshoot (and how many times the request that is) and the CPU time each wait cost.
#include "engine/experiments/timers/sleep_floor_experiment.h"

#include "ui/common/column_table_model.h"

#include <vector>

namespace rtscope {

class SleepFloorTableModel : public RowTableModel<SleepFloorCell> {
    Q_OBJECT
public:
    // RawValueRole: ns as qlonglong, ratios as double, counts as qulonglong.
    enum Column { Request, Method, Samples, Median, P99, Max, Overshoot, Ratio, CpuPerWait, CpuShare, Count };

    explicit SleepFloorTableModel(QObject* parent = nullptr);

    void setSnapshot(const SleepFloorSnapshot& snapshot);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    size_t m_methods = 1;
};

} // namespace rtscope
