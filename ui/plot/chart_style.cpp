#include "ui/plot/chart_style.h"

#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>

namespace rtscope::plot {

namespace {
double g_lineWidthScale = 1.0; // GUI thread only, like every widget that reads it
} // namespace

void setLineWidthScale(double scale)
{
    g_lineWidthScale = scale > 0 ? scale : 1.0;
}

double lineWidthScale()
{
    return g_lineWidthScale;
}

double lineWidth(double base)
{
    return base * g_lineWidthScale;
}

bool isDarkPalette(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5;
}

ChartColors chartColors(const QPalette& palette)
{
    const bool dark = isDarkPalette(palette);
    ChartColors c;
    // Blue and orange stay distinguishable for the common colour-vision deficiencies.
    c.live = dark ? QColor(0x64, 0xb5, 0xf6) : QColor(0x15, 0x65, 0xc0);
    c.reference = dark ? QColor(0xff, 0xa7, 0x26) : QColor(0xe6, 0x51, 0x00);
    c.text = palette.color(QPalette::Text);
    c.background = palette.color(QPalette::Base);
    c.grid = palette.color(QPalette::Text);
    c.grid.setAlphaF(dark ? 0.22f : 0.16f);
    c.markerBackground = c.background;
    c.markerBackground.setAlphaF(0.85f);
    return c;
}

QColor markerColor(MarkerRole role, const QPalette& palette)
{
    const bool dark = isDarkPalette(palette);
    switch (role) {
    case MarkerRole::Median:
        return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x2e, 0x7d, 0x32);
    case MarkerRole::P99:
        return dark ? QColor(0xce, 0x93, 0xd8) : QColor(0x7b, 0x1f, 0xa2);
    case MarkerRole::P999:
        return dark ? QColor(0xef, 0x53, 0x50) : QColor(0xc6, 0x28, 0x28);
    case MarkerRole::Max:
        return palette.color(QPalette::Text);
    case MarkerRole::Reference:
        return chartColors(palette).reference;
    case MarkerRole::Change:
        return dark ? QColor(0x4d, 0xd0, 0xe1) : QColor(0x00, 0x69, 0x7a);
    case MarkerRole::Reset:
        return dark ? QColor(0xb0, 0xb0, 0xb0) : QColor(0x61, 0x61, 0x61);
    }
    return palette.color(QPalette::Text);
}

QFont chartFont(const QFont& base, double scale)
{
    QFont f = base;
    if (f.pointSizeF() > 0)
        f.setPointSizeF(f.pointSizeF() * scale);
    else
        f.setPixelSize(int(f.pixelSize() * scale));
    return f;
}

void styleChart(QChart* chart, const QPalette& palette, const QFont& base)
{
    const ChartColors c = chartColors(palette);
    chart->setBackgroundBrush(c.background);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setBackgroundRoundness(0);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(c.text);
    QFont title = chartFont(base, 1.2);
    title.setBold(true);
    chart->setTitleFont(title);
    chart->legend()->setLabelColor(c.text);
    chart->legend()->setFont(chartFont(base, 1.05));
    for (QAbstractAxis* axis : chart->axes())
        styleAxis(axis, palette, base);
}

void styleAxis(QAbstractAxis* axis, const QPalette& palette, const QFont& base)
{
    const ChartColors c = chartColors(palette);
    axis->setLabelsBrush(c.text);
    axis->setLabelsFont(chartFont(base, 1.0));
    axis->setTitleBrush(c.text);
    QFont title = chartFont(base, 1.05);
    title.setBold(true);
    axis->setTitleFont(title);
    QPen line(c.text);
    line.setWidthF(lineWidth(1.2));
    axis->setLinePen(line);
    QPen grid(c.grid);
    grid.setWidthF(1.0);
    axis->setGridLinePen(grid);
    QColor minor = c.grid;
    minor.setAlphaF(minor.alphaF() * 0.5f);
    axis->setMinorGridLinePen(QPen(minor, 1.0, Qt::DotLine));
}

} // namespace rtscope::plot
