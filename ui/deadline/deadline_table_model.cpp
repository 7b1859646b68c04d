#include "ui/deadline/deadline_table_model.h"

#include "ui/common/colors.h"

namespace rtscope {

DeadlineTableModel::DeadlineTableModel(QObject* parent)
    : RowTableModel({}, parent)
{}

void DeadlineTableModel::setRows(const QStringList& headers, std::vector<Row> rows)
{
    if (headers != this->headers()) {
        beginResetModel();
        setHeaders(headers);
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    const bool sameCount = rows.size() == m_rows.size();
    assignRows(std::move(rows), sameCount);
}

QVariant DeadlineTableModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const Row& r = rowAt(index);
    switch (role) {
    case Qt::DisplayRole:
        return r.cells.value(index.column());
    case Qt::ForegroundRole:
        if (r.mark == Mark::Bad)
            return QColor(colors::kRed700);
        if (r.mark == Mark::Good)
            return QColor(colors::kGreen800);
        if (r.mark == Mark::Reference)
            return QColor(colors::kGrey600);
        return {};
    default:
        return {};
    }
}

} // namespace rtscope

#include "moc_deadline_table_model.cpp"
