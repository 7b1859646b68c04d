#include "ui/workbench/workbench_common.h"

#include "engine/rt/system_probe.h"
#include "ui/app/gui_thread_affinity.h"
#include "ui/plot/chart_style.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QPalette>
#include <QTableView>

#include <algorithm>
#include <array>

namespace rtscope::workbench {

QStringList toQt(const std::vector<std::string>& sentences)
{
    QStringList out;
    for (const std::string& s : sentences)
        out << QString::fromStdString(s);
    return out;
}

CpuTopology usableCpus()
{
    const GuiThreadAffinity::Unpinned unpinned;
    return CpuTopology::current();
}

QColor curveColor(int index, const QPalette& palette)
{
    // Ten hues a projector keeps apart, dark shades on light backgrounds and light ones on dark backgrounds; the
    // first two are the latency page's live and reference colours.
    static constexpr std::array<QRgb, 10> kLight = {0x1565c0, 0xe65100, 0x2e7d32, 0xc62828, 0x6a1b9a,
                                                    0x00838f, 0xad1457, 0x5d4037, 0x546e7a, 0x9e9d24};
    static constexpr std::array<QRgb, 10> kDark = {0x64b5f6, 0xffa726, 0x81c784, 0xef5350, 0xce93d8,
                                                   0x4dd0e1, 0xf48fb1, 0xbcaaa4, 0xb0bec5, 0xdce775};
    const auto& colors = plot::isDarkPalette(palette) ? kDark : kLight;
    return QColor(colors[size_t(std::max(index, 0)) % colors.size()]);
}

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

void styleLossWarning(QLabel* label)
{
    label->setObjectName("dataLossWarning");
    label->setWordWrap(true);
    label->setStyleSheet("QLabel { color: white; background: #c62828; padding: 8px; font-weight: bold; "
                         "border-radius: 4px; }");
    label->hide();
}

void setLossWarning(QLabel* label, const QString& text)
{
    if (label->text() != text)
        label->setText(text);
    label->setVisible(!text.isEmpty());
}

void styleStatsTable(QTableView* table)
{
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setFocusPolicy(Qt::NoFocus);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    const QFont font = plot::chartFont(table->font(), 1.15);
    table->setFont(font);
    QFont header = font;
    header.setBold(true);
    table->horizontalHeader()->setFont(header);
    table->verticalHeader()->setDefaultSectionSize(QFontMetrics(font).height() + 8);
}

void fitTableHeight(QTableView* table, int rows, int maxRows)
{
    rows = std::clamp(rows, 1, maxRows);
    const int height = table->horizontalHeader()->sizeHint().height() +
                       rows * table->verticalHeader()->defaultSectionSize() + 2 * table->frameWidth() + 2;
    table->setFixedHeight(height);
}

} // namespace rtscope::workbench
