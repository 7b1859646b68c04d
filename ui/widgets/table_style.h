#pragma once
// The figures tables' larger type, in one place: the pages call it once built and again when their font changes
// (presentation mode enlarges the window's font, and an explicitly set table font would not follow it).
#include <QFont>

class QTableView;

namespace rtscope {

/// Sets @p table's font to @p base × @p scale with a bold header, and its rows to the text height + @p padding
/// pixels; returns that row height.
int styleTableFont(QTableView* table, const QFont& base, double scale, int padding);

} // namespace rtscope
