#pragma once
// One row of latency figures per CPU (per-CPU page) or per setting (sweep): the same columns, units and warnings in
// both tables. A row without figures — a failed setting, one still pending — shows dashes and says why in its note,
// never zeros.
#include "ui/common/latency_view_data.h"

#include "ui/common/column_table_model.h"
#include <QColor>

#include <optional>
#include <vector>

namespace rtscope {

struct SummaryRow {
    QString name;                             ///< "CPU 1", "FIFO 80"
    QColor color;                             ///< the swatch of the row's curve; invalid = none
    std::optional<LatencyRunSummary> summary; ///< none: no figures (failed, pending)
    QString note;                             ///< "2 hogs here · isolated", "failed: …", "running"
    bool failed = false;                      ///< the note is an error (drawn in red)
};

class RunSummaryModel : public RowTableModel<SummaryRow> {
    Q_OBJECT
public:
    enum Column { Name, Samples, Min, Avg, P50, P99, P999, Max, Skipped, Dropped, Gaps, Note, ColumnCount };
    // RawValueRole: nanoseconds (qlonglong, double for Avg), counts (qulonglong), text; null without figures.

    explicit RunSummaryModel(const QString& nameHeader, QObject* parent = nullptr);

    /// Replaces the rows; rows keep their check state by name.
    void setRows(std::vector<SummaryRow> rows);
    const std::vector<SummaryRow>& rows() const { return m_rows; }
    /// Rows with a check box in the name column (the curves shown in an overlay); all checked at first.
    void setCheckable(bool on);
    bool isChecked(int row) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// The user ticked or unticked a row's check box.
    void checkedChanged();

private:
    QVariant raw(const SummaryRow& row, int column) const;
    QVariant display(const SummaryRow& row, int column) const;

    std::vector<QString> m_unchecked; ///< names of unticked rows, so a refresh keeps the user's choice
    bool m_checkable = false;
};

} // namespace rtscope
