#include "ui/workbench/workbench_common.h"

#include "engine/rt/system_probe.h"
#include "ui/widgets/table_style.h"

#include <QHeaderView>
#include <QStringList>
#include <QTableView>

#include <algorithm>
#include <vector>

namespace rtscope::workbench {

QString cpuNote(const SystemProbe& probe, int cpu)
{
    auto has = [cpu](const std::vector<int>& v) {
        return std::find(v.begin(), v.end(), cpu) != v.end();
    };
    QStringList notes;
    if (has(probe.isolatedCpus))
        notes << QObject::tr("isolated");
    if (has(probe.nohzFullCpus))
        notes << QObject::tr("nohz_full");
    return notes.join(QStringLiteral(" · "));
}

void styleStatsTable(QTableView* table)
{
    styleFiguresTable(table, 1.15, 8);
}

void fitTableHeight(QTableView* table, int rows, int maxRows)
{
    rows = std::clamp(rows, 1, maxRows);
    const int height = table->horizontalHeader()->sizeHint().height() +
                       rows * table->verticalHeader()->defaultSectionSize() + 2 * table->frameWidth() + 2;
    table->setFixedHeight(height);
}

} // namespace rtscope::workbench
