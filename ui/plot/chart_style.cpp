#include "ui/plot/chart_style.h"

#include "ui/common/colors.h"

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

QPen chartPen(const QColor& color, double baseWidth, Qt::PenStyle style)
{
    QPen pen(color, lineWidth(baseWidth), style);
    pen.setCosmetic(true);
    return pen;
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
    c.live = dark ? QColor(colors::kBlue300) : QColor(colors::kBlue800);
    c.reference = dark ? QColor(colors::kOrange400) : QColor(colors::kOrange900);
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
        return dark ? QColor(colors::kGreen300) : QColor(colors::kGreen800);
    case MarkerRole::P99:
        return dark ? QColor(colors::kPurple200) : QColor(colors::kPurple700);
    case MarkerRole::P999:
        return dark ? QColor(colors::kRed400) : QColor(colors::kRed800);
    case MarkerRole::Max:
        return palette.color(QPalette::Text);
    case MarkerRole::Reference:
        return chartColors(palette).reference;
    case MarkerRole::Change:
        return dark ? QColor(colors::kCyan300) : QColor(colors::kCyanDeep);
    case MarkerRole::Reset:
        return dark ? QColor(colors::kGreyMid) : QColor(colors::kGrey700);
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

QFont labelFont(const QFont& base, double scale, bool bold)
{
    QFont f = chartFont(base, scale);
    f.setBold(bold);
    return f;
}

void styleChart(QChart* chart, const QPalette& palette, const QFont& base, std::initializer_list<QAbstractAxis*> twins)
{
    const ChartColors c = chartColors(palette);
    chart->setBackgroundBrush(c.background);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setBackgroundRoundness(0);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(c.text);
    chart->setTitleFont(labelFont(base, 1.2, true));
    chart->legend()->setLabelColor(c.text);
    chart->legend()->setFont(chartFont(base, 1.05));
    for (QAbstractAxis* axis : chart->axes())
        styleAxis(axis, palette, base);
    for (QAbstractAxis* axis : twins)
        styleAxis(axis, palette, base);
}

void styleAxis(QAbstractAxis* axis, const QPalette& palette, const QFont& base)
{
    const ChartColors c = chartColors(palette);
    axis->setLabelsBrush(c.text);
    axis->setLabelsFont(chartFont(base, 1.0));
    axis->setTitleBrush(c.text);
    axis->setTitleFont(labelFont(base, 1.05, true));
    QPen line(c.text);
    line.setWidthF(lineWidth(1.2));
    axis->setLinePen(line);
    // Opaque, cosmetic one-pixel grid lines: the translucent grid colour blended over the background once here. Blended
    // per pixel on every repaint, the grid was most of a chart's software repaint (docs/BENCHMARKS.md, the UI feed).
    auto over = [&c](QColor fg) {
        const double a = fg.alphaF();
        const QColor bg = c.background;
        return QColor::fromRgbF(float(fg.redF() * a + bg.redF() * (1 - a)),
                                float(fg.greenF() * a + bg.greenF() * (1 - a)),
                                float(fg.blueF() * a + bg.blueF() * (1 - a)));
    };
    QPen grid(over(c.grid));
    grid.setWidthF(1.0);
    grid.setCosmetic(true);
    axis->setGridLinePen(grid);
    QColor minor = c.grid;
    minor.setAlphaF(minor.alphaF() * 0.5f);
    QPen minorPen(over(minor), 1.0, Qt::DotLine);
    minorPen.setCosmetic(true);
    axis->setMinorGridLinePen(minorPen);
}

} // namespace rtscope::plot
