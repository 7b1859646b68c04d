#include "ui/plot/marker_overlay.h"

#include "ui/plot/chart_style.h"

#include <QBrush>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QPen>
#include <QtCharts/QChart>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace rtscope::plot {

namespace {
// Above the series (Qt Charts keeps those well below 100), so a marker is never hidden by the curve.
constexpr double kMarkerZ = 100;
} // namespace

MarkerOverlay::MarkerOverlay(QChart* chart)
    : m_chart(chart)
{}

void MarkerOverlay::setMarkers(const std::vector<VerticalMarker>& markers)
{
    m_markers = markers;
}

void MarkerOverlay::setAxis(double lo, double hi, bool log)
{
    m_lo = lo;
    m_hi = hi;
    m_log = log;
}

void MarkerOverlay::setStyle(const QPalette& palette, const QFont& font)
{
    m_palette = palette;
    m_font = font;
}

double MarkerOverlay::toPixel(double x, double left, double width) const
{
    if (m_log) {
        if (x <= 0 || m_lo <= 0)
            return left - 1;
        return left + (std::log10(x) - std::log10(m_lo)) / (std::log10(m_hi) - std::log10(m_lo)) * width;
    }
    return left + (x - m_lo) / (m_hi - m_lo) * width;
}

void MarkerOverlay::ensureItems(size_t n)
{
    while (m_items.size() < n) {
        Item item;
        item.line = new QGraphicsLineItem(m_chart);
        item.box = new QGraphicsRectItem(m_chart);
        item.text = new QGraphicsSimpleTextItem(item.box);
        item.line->setZValue(kMarkerZ);
        item.box->setZValue(kMarkerZ + 1);
        m_items.push_back(item);
    }
}

void MarkerOverlay::relayout()
{
    ensureItems(m_markers.size());
    const QRectF area = m_chart->plotArea();
    const ChartColors colors = chartColors(m_palette);
    const QFontMetricsF fm(m_font);
    const double rowHeight = fm.height() + 4;

    // Sorted by position so the label rows fill left to right.
    std::vector<size_t> order(m_markers.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_markers[a].x < m_markers[b].x; });
    std::array<double, kMaxLabelRows> rowEnd;
    rowEnd.fill(-1e9);

    m_visible = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        const VerticalMarker& m = m_markers[order[k]];
        Item& item = m_items[k];
        const double px = toPixel(m.x, area.left(), area.width());
        const bool inside = area.width() > 0 && px >= area.left() - 0.5 && px <= area.right() + 0.5;
        item.line->setVisible(inside);
        item.box->setVisible(inside);
        if (!inside)
            continue;
        ++m_visible;
        const QColor color = markerColor(m.role, m_palette);
        const bool solid = m.role == MarkerRole::Max || m.role == MarkerRole::Reference;
        QPen pen(color, lineWidth(solid ? 2.0 : 1.8));
        pen.setCosmetic(true);
        if (m.role == MarkerRole::Change || m.role == MarkerRole::Reset)
            pen.setStyle(Qt::DashLine);
        else if (!solid)
            pen.setStyle(Qt::DashDotLine);
        // Every setter below repaints its item and the text ones lay the text out again: 40 or 60 times a second
        // only what changed is set.
        if (item.line->pen() != pen)
            item.line->setPen(pen);
        const QLineF line(px, area.top(), px, area.bottom());
        if (item.line->line() != line)
            item.line->setLine(line);

        if (item.text->font() != m_font)
            item.text->setFont(m_font);
        if (item.text->brush() != QBrush(color))
            item.text->setBrush(color);
        if (item.text->text() != m.label)
            item.text->setText(m.label);
        const double w = fm.horizontalAdvance(m.label) + 8;
        // Right of the line unless that runs off the plot area.
        double left = px + 3;
        if (left + w > area.right())
            left = px - 3 - w;
        // Never over the axis labels: a label wider than the room beside its line slides along the top.
        left = std::max(area.left() + 1, std::min(left, area.right() - w));
        int row = 0;
        for (; row < kMaxLabelRows; ++row)
            if (rowEnd[size_t(row)] < left)
                break;
        if (row == kMaxLabelRows)
            row = int(std::min_element(rowEnd.begin(), rowEnd.end()) - rowEnd.begin());
        rowEnd[size_t(row)] = std::max(left + w, px) + 4;
        const QRectF box(0, 0, w, rowHeight - 2);
        if (item.box->rect() != box)
            item.box->setRect(box);
        const QPointF at(left, area.top() + 2 + row * rowHeight);
        if (item.box->pos() != at)
            item.box->setPos(at);
        if (item.box->brush() != QBrush(colors.markerBackground))
            item.box->setBrush(colors.markerBackground);
        if (item.box->pen().style() != Qt::NoPen)
            item.box->setPen(Qt::NoPen);
        if (item.text->pos() != QPointF(4, 1))
            item.text->setPos(4, 1);
    }
    for (size_t k = m_markers.size(); k < m_items.size(); ++k) {
        m_items[k].line->setVisible(false);
        m_items[k].box->setVisible(false);
    }
}

} // namespace rtscope::plot
