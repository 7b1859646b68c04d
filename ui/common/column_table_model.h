#pragma once
// What the result tables (contention, inversion, drift, sleep floor, run summary) share: a fixed list of column
// headers that drives columnCount() and headerData(), and the one way their rows are replaced — in place while the
// table keeps its shape, with a model reset when it does not.
#include <QAbstractTableModel>
#include <QFont>
#include <QStringList>

#include <utility>

namespace rtscope {

class ColumnTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    int columnCount(const QModelIndex& parent = {}) const override;
    /// The horizontal headers (headerText()); nothing for the vertical ones or other roles.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    /// @p headers in column order: their count is the column count.
    ColumnTableModel(QStringList headers, QObject* parent);

    /// The header of @p column: the one given, or nothing past the last column. A table whose header says more
    /// than a fixed text (the drift table's nominal rate) overrides it.
    virtual QVariant headerText(int column) const;
    /// Whether @p index names a cell of the table (a row below rowCount(), a column below columnCount()).
    bool isCell(const QModelIndex& index) const
    {
        return index.isValid() && index.row() < rowCount() && index.column() < columnCount();
    }
    /// dataChanged() over every cell, when there is a row.
    void allCellsChanged();
    /// @p rows becomes @p newRows: in place, with allCellsChanged(), while @p sameShape; else with a model reset.
    template <class Rows> void replaceRows(Rows& rows, Rows newRows, bool sameShape)
    {
        if (!sameShape) {
            beginResetModel();
            rows = std::move(newRows);
            endResetModel();
            return;
        }
        rows = std::move(newRows);
        allCellsChanged();
    }
    /// Empties @p rows, with a model reset.
    template <class Rows> void clearRows(Rows& rows)
    {
        beginResetModel();
        rows.clear();
        endResetModel();
    }
    /// The font of the figures a table sets in bold.
    static QFont boldFont();

private:
    QStringList m_headers;
};

} // namespace rtscope
