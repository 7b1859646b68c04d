#include "ui/common/column_table_model.h"

namespace rtscope {

ColumnTableModel::ColumnTableModel(QStringList headers, QObject* parent)
    : QAbstractTableModel(parent)
    , m_headers(std::move(headers))
{}

int ColumnTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant ColumnTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return headerText(section);
}

QVariant ColumnTableModel::headerText(int column) const
{
    if (column < 0 || column >= m_headers.size())
        return {};
    return m_headers[column];
}

void ColumnTableModel::allCellsChanged()
{
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

QFont ColumnTableModel::boldFont()
{
    QFont f;
    f.setBold(true);
    return f;
}

} // namespace rtscope
