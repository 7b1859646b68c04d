#pragma once
// The deadline page's table: the lesson's rows as the page wrote them (admission steps with the kernel's answer,
// or one row per task with its job figures), and which rows to mark (a refusal, a miss, the held reference).
#include "ui/common/column_table_model.h"
#include <QColor>
#include <QStringList>

#include <vector>

namespace rtscope {

/// A row of the deadline table: its cells' text, and how it is marked.
struct DeadlineTableRow {
    enum class Mark { None, Bad, Good, Reference };
    QStringList cells;
    Mark mark = Mark::None;
};

class DeadlineTableModel : public RowTableModel<DeadlineTableRow> {
    Q_OBJECT
public:
    using Mark = DeadlineTableRow::Mark;
    using Row = DeadlineTableRow;

    explicit DeadlineTableModel(QObject* parent = nullptr);

    void setRows(const QStringList& headers, std::vector<Row> rows);
    const std::vector<Row>& rows() const { return m_rows; }

    QVariant data(const QModelIndex& index, int role) const override;
};

} // namespace rtscope
