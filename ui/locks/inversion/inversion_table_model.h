#pragma once
// The inversion page's table: the held reference run (if any) above the live one, with the figures of the
// lesson side by side — the high thread's wait p50/p99/max from its release, periods with the lock held,
// missed periods, and how long the medium thread ran while high waited.
#include "ui/locks/inversion/inversion_view_data.h"

#include "ui/common/column_table_model.h"

#include <optional>

namespace rtscope {

class InversionTableModel : public ColumnTableModel {
    Q_OBJECT
public:
    // RawValueRole: ns as qlonglong, counts as qulonglong.
    enum Column { Run, Lock, Periods, Contended, Missed, WaitP50, WaitP99, WaitMax, MediumRan, Dropped, Count };

    explicit InversionTableModel(QObject* parent = nullptr);

    void setLive(const std::optional<InversionRunSummary>& live);
    void setReference(const std::optional<InversionRunSummary>& reference);
    bool hasReference() const { return m_reference.has_value(); }
    /// The row of the live run (1 with a reference, else 0); -1 when there is none.
    int liveRow() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    const InversionRunSummary* rowAt(int row, bool* reference) const;
    /// @p run (the live one or the reference) becomes @p summary.
    void setRun(std::optional<InversionRunSummary>& run, const std::optional<InversionRunSummary>& summary);
    void rowsChanged(bool countChanged);

    std::optional<InversionRunSummary> m_reference;
    std::optional<InversionRunSummary> m_live;
};

} // namespace rtscope
