#pragma once
// What the result tables share: a fixed list of column headers that drives columnCount() and headerData() (with a
// tooltip where a column has one), the role for unformatted values, and the one way their rows are replaced — in place
// while the table keeps its shape, with a model reset when it does not. RowTableModel adds the vector of rows that
// most of them are.
#include <QAbstractTableModel>
#include <QFont>
#include <QStringList>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rtscope {

class ColumnTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// The unformatted value of a cell (ns as qlonglong, counts as qulonglong, ratios as double), for sorting and
    /// tests; what each column gives is said by its model.
    static constexpr int RawValueRole = Qt::UserRole + 1;

    int columnCount(const QModelIndex& parent = {}) const override;
    /// The horizontal headers (headerText(), headerToolTip()); nothing for the vertical ones or other roles.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// The text shown in row @p row under the header @p header; empty when there is no such cell (tests and the
    /// screenshot checks).
    QString cell(int row, const QString& header) const;

protected:
    /// @p headers in column order: their count is the column count.
    ColumnTableModel(QStringList headers, QObject* parent);

    /// The header of @p column: the one given, or nothing past the last column. A table whose header says more
    /// than a fixed text (the drift table's nominal rate) overrides it.
    virtual QVariant headerText(int column) const;
    /// The tooltip of @p column's header: none unless the table says one.
    virtual QVariant headerToolTip(int /*column*/) const { return {}; }
    /// Whether @p index names a cell of the table (a row below rowCount(), a column below columnCount()).
    bool isCell(const QModelIndex& index) const
    {
        return index.isValid() && index.row() < rowCount() && index.column() < columnCount();
    }
    /// The headers, as given.
    const QStringList& headers() const { return m_headers; }
    /// New headers, and so a new column count: only between beginResetModel() and endResetModel().
    void setHeaders(QStringList headers) { m_headers = std::move(headers); }
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

/// A field as its cell's RawValueRole gives it: ns and other signed 64-bit figures as qlonglong, 64-bit counts as
/// qulonglong, an enumerator as its int; ints, ratios and text as they are.
inline QVariant rawValue(int64_t v)
{
    return qlonglong(v);
}
inline QVariant rawValue(uint64_t v)
{
    return qulonglong(v);
}
inline QVariant rawValue(int v)
{
    return v;
}
inline QVariant rawValue(double v)
{
    return v;
}
inline QVariant rawValue(const QString& v)
{
    return v;
}
inline QVariant rawValue(const std::string& v)
{
    return QString::fromStdString(v);
}
inline QVariant rawValue(const QVariantList& v)
{
    return v;
}
template <class E>
requires std::is_enum_v<E> QVariant rawValue(E v)
{
    return int(v);
}

/// The RawValueRole of column @p column of @p row: @p fields are the columns in order, each a member of the row or a
/// function of it, given to rawValue(); nothing past the last.
template <class Row, class... Fields> QVariant rawColumn(const Row& row, int column, const Fields&... fields)
{
    QVariant value;
    int i = 0;
    ((i++ == column ? void(value = rawValue(std::invoke(fields, row))) : void()), ...);
    return value;
}

/// A ColumnTableModel whose rows are a vector of @p Row: rowCount() is their count.
template <class Row> class RowTableModel : public ColumnTableModel {
public:
    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    /// No rows (before a run, or when a new one starts), with a model reset.
    void clear() { clearRows(m_rows); }

protected:
    using ColumnTableModel::ColumnTableModel;

    /// The row @p index is in; only for an index that isCell().
    const Row& rowAt(const QModelIndex& index) const { return m_rows[size_t(index.row())]; }
    /// replaceRows() on this table's rows.
    void assignRows(std::vector<Row> rows, bool sameShape) { replaceRows(m_rows, std::move(rows), sameShape); }
    /// assignRows(), in place when @p rows have the same @p key (a member or a function of a row), in the same order.
    template <class Key> void assignRowsBy(std::vector<Row> rows, Key key)
    {
        const bool same =
            std::equal(rows.begin(), rows.end(), m_rows.begin(), m_rows.end(),
                       [&](const Row& a, const Row& b) { return std::invoke(key, a) == std::invoke(key, b); });
        assignRows(std::move(rows), same);
    }
    std::vector<Row> m_rows;
};

} // namespace rtscope
