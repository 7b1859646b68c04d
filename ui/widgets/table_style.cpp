#include "ui/widgets/table_style.h"

#include "ui/plot/chart_style.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QTableView>

namespace rtscope {

int styleTableFont(QTableView* table, const QFont& base, double scale, int padding, int* headerLineHeight)
{
    const QFont font = plot::chartFont(base, scale);
    table->setFont(font);
    QFont header = font;
    header.setBold(true);
    table->horizontalHeader()->setFont(header);
    const int rowHeight = QFontMetrics(font).height() + padding;
    table->verticalHeader()->setDefaultSectionSize(rowHeight);
    if (headerLineHeight)
        *headerLineHeight = QFontMetrics(header).height();
    return rowHeight;
}

void setUpFiguresTable(QTableView* table)
{
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setFocusPolicy(Qt::NoFocus);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

int styleFiguresTable(QTableView* table, double scale, int padding, int* headerLineHeight)
{
    setUpFiguresTable(table);
    table->horizontalHeader()->setStretchLastSection(true);
    return styleTableFont(table, table->font(), scale, padding, headerLineHeight);
}

} // namespace rtscope
