#pragma once
// The figures tables' look, in one place: the pages call it once built and again when their font changes
// (presentation mode enlarges the window's font, and an explicitly set table font would not follow it).
#include <QFont>

class QTableView;

namespace rtscope {

/// Sets @p table's font to @p base × @p scale with a bold header, and its rows to the text height + @p padding
/// pixels; returns that row height (and the height of a header line in @p headerLineHeight, if given).
int styleTableFont(QTableView* table, const QFont& base, double scale, int padding, int* headerLineHeight = nullptr);

/// A table of figures to be read, not edited: no selection or focus, alternating rows, no wrapping, no row numbers,
/// columns as wide as their contents.
void setUpFiguresTable(QTableView* table);
/// setUpFiguresTable() with the last column stretched, and styleTableFont() from the table's own font.
int styleFiguresTable(QTableView* table, double scale, int padding, int* headerLineHeight = nullptr);

} // namespace rtscope
