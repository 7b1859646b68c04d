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
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole)
        return headerText(section);
    if (role == Qt::ToolTipRole)
        return headerToolTip(section);
    return {};
}

QVariant ColumnTableModel::headerText(int column) const
{
    if (column < 0 || column >= m_headers.size())
        return {};
    return m_headers[column];
}

QString ColumnTableModel::cell(int row, const QString& header) const
{
    const qsizetype column = m_headers.indexOf(header);
    return column < 0 ? QString() : data(index(row, int(column))).toString();
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

#include "moc_column_table_model.cpp"
