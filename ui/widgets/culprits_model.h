#pragma once
// "Who delayed the measuring thread" over the whole traced run (docs/experiments/anatomy.md): one row per task or
// interrupt handler that held the measured CPU between a wake-up's timer and its switch-in (AnatomyFigures::culprits,
// most total time first), with how many wake-ups it delayed, its total and its worst share of one.
#include "engine/pipeline/wakeup_anatomy.h"

#include "ui/common/column_table_model.h"

#include <cstdint>
#include <vector>

namespace rtscope {

class CulpritsModel : public RowTableModel<CulpritRow> {
    Q_OBJECT
public:
    enum Column { Kind, Name, Id, Prio, Wakeups, Total, Worst, ColumnCount };
    // RawValueRole: ns (qlonglong) for Total and Worst, the count (qulonglong), the id (qlonglong), the kernel prio
    // (int, −2 unknown), the rest as shown.

    explicit CulpritsModel(QObject* parent = nullptr);

    /// @p rows as AnatomyFigures::culprits has them; @p analysed: the wake-ups they were counted over (for the share).
    /// Keeps the rows (no reset) when the same culprits are listed in the same order.
    void setCulprits(const std::vector<CulpritRow>& rows, uint64_t analysed);
    const std::vector<CulpritRow>& rows() const { return m_rows; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

protected:
    QVariant headerToolTip(int column) const override;

private:
    uint64_t m_analysed = 0;
};

} // namespace rtscope
