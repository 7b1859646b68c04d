#pragma once
// The figures tables' look, in one place: the pages call it once built and again when their font changes
// (presentation mode enlarges the window's font, and an explicitly set table font would not follow it).
#include <QFont>
#include <QString>

class QAbstractItemModel;
class QModelIndex;
class QTableView;

namespace rtscope {

/// Sets @p table's font to @p base × @p scale with a bold header, and its rows to the text height + @p padding
/// pixels; returns that row height (and the height of a header line in @p headerLineHeight, if given). Also fits
/// the columns to the table's width and gives every elided cell and header its whole text as a tooltip (see
/// fitColumnsAndTipElided()).
int styleTableFont(QTableView* table, const QFont& base, double scale, int padding, int* headerLineHeight = nullptr);

/// Rows to read: alternating colours, no wrapping, no row numbers, columns as wide as their contents.
void styleTableRows(QTableView* table);
/// A table of figures to be read, not edited: no selection or focus, and styleTableRows().
void setUpFiguresTable(QTableView* table);
/// setUpFiguresTable() of @p table showing @p model, named @p name (tests find it by that name).
void setUpFiguresTable(QTableView* table, QAbstractItemModel* model, const char* name);
/// Gives @p table a header that new figures in its model do not repaint (only a column sized to its contents that
/// changes width does): a live table's model reports new data with every frame. Call before configuring the header.
void useFiguresHeader(QTableView* table);
/// setUpFiguresTable() with the last column stretched, and styleTableFont() from the table's own font.
int styleFiguresTable(QTableView* table, double scale, int padding, int* headerLineHeight = nullptr);

/// Makes @p table readable at any width (once per table; styleTableFont() calls it). While the columns' contents fit,
/// the header's own resize modes stay; when they do not (a 1366-pixel screen), the widest columns are narrowed to a
/// common width so that every column stays on screen rather than behind a horizontal scroll bar, their text elided
/// ("naive loo…"). A cell or header whose text does not fit then shows the whole text as its tooltip.
void fitColumnsAndTipElided(QTableView* table);

/// The whole text of @p index when the cell is too narrow for it (what its tooltip shows), else empty.
QString elidedCellText(const QTableView* table, const QModelIndex& index);
/// The whole text of the horizontal header's @p section when it is too narrow for it, else empty.
QString elidedHeaderText(const QTableView* table, int section);

} // namespace rtscope
