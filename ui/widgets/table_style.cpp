#include "ui/widgets/table_style.h"

#include "ui/plot/chart_style.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QTableView>

namespace rtscope {

int styleTableFont(QTableView* table, const QFont& base, double scale, int padding)
{
    const QFont font = plot::chartFont(base, scale);
    table->setFont(font);
    QFont header = font;
    header.setBold(true);
    table->horizontalHeader()->setFont(header);
    const int rowHeight = QFontMetrics(font).height() + padding;
    table->verticalHeader()->setDefaultSectionSize(rowHeight);
    return rowHeight;
}

} // namespace rtscope
