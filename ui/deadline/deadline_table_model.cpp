#include "ui/deadline/deadline_table_model.h"

#include "ui/common/colors.h"

namespace rtscope {

DeadlineTableModel::DeadlineTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

void DeadlineTableModel::setRows(const QStringList& headers, std::vector<Row> rows)
{
    if (headers != m_headers) {
        beginResetModel();
        m_headers = headers;
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    if (rows.size() != m_rows.size()) {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
        return;
    }
    m_rows = std::move(rows);
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

QString DeadlineTableModel::cell(int row, const QString& header) const
{
    const int col = m_headers.indexOf(header);
    if (row < 0 || size_t(row) >= m_rows.size() || col < 0)
        return {};
    return m_rows[size_t(row)].cells.value(col);
}

int DeadlineTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DeadlineTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant DeadlineTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_rows.size())
        return {};
    const Row& r = m_rows[size_t(index.row())];
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

QVariant DeadlineTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole)
        return m_headers.value(section);
    return {};
}

} // namespace rtscope
