#include "ui/plot/marker_overlay.h"

#include "ui/plot/chart_style.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QTransform>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace rtscope::plot {

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
    if (font != m_font)
        m_laid.clear();
    m_font = font;
}

const MarkerOverlay::Laid& MarkerOverlay::laidOut(const QString& label)
{
    auto it = m_laid.find(label);
    if (it != m_laid.end())
        return *it;
    if (m_laid.size() >= 64) // the live percentiles' labels change as the figures do: keep only recent ones
        m_laid.clear();
    Laid laid;
    laid.width = QFontMetricsF(m_font).horizontalAdvance(label);
    laid.text.setText(label);
    laid.text.setTextFormat(Qt::PlainText);
    laid.text.prepare(QTransform(), m_font);
    return *m_laid.insert(label, laid);
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

void MarkerOverlay::relayout(const QRectF& area)
{
    m_placed.clear();
    const QFontMetricsF fm(m_font);
    const double rowHeight = fm.height() + 4;

    // Sorted by position so the label rows fill left to right.
    std::vector<size_t> order(m_markers.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_markers[a].x < m_markers[b].x; });
    std::array<double, kMaxLabelRows> rowEnd;
    rowEnd.fill(-1e9);

    for (size_t k = 0; k < order.size(); ++k) {
        const VerticalMarker& m = m_markers[order[k]];
        const double px = toPixel(m.x, area.left(), area.width());
        const bool inside = area.width() > 0 && px >= area.left() - 0.5 && px <= area.right() + 0.5;
        if (!inside)
            continue;
        Placed placed;
        placed.color = markerColor(m.role, m_palette);
        const bool solid = m.role == MarkerRole::Max || m.role == MarkerRole::Reference;
        const bool dashed = m.role == MarkerRole::Change || m.role == MarkerRole::Reset;
        placed.pen = chartPen(placed.color, solid ? 2.0 : 1.8,
                              dashed  ? Qt::DashLine
                              : solid ? Qt::SolidLine
                                      : Qt::DashDotLine);
        placed.line = QLineF(px, area.top(), px, area.bottom());
        placed.text = m.label;
        const double w = laidOut(m.label).width + 8;
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
        placed.box = QRectF(left, area.top() + 2 + row * rowHeight, w, rowHeight - 2);
        m_placed.push_back(std::move(placed));
    }
}

void MarkerOverlay::paint(QPainter& painter) const
{
    const QColor background = chartColors(m_palette).markerBackground;
    painter.setFont(m_font);
    for (const Placed& p : m_placed) {
        painter.setPen(p.pen);
        painter.drawLine(p.line);
    }
    // The labels over every line, so a line never crosses another marker's text.
    for (const Placed& p : m_placed) {
        painter.fillRect(p.box, background);
        painter.setPen(p.color);
        // Laid out by relayout(), which every paint follows; a label it has not seen is drawn as text.
        const auto laid = m_laid.constFind(p.text);
        if (laid != m_laid.cend())
            painter.drawStaticText(p.box.topLeft() + QPointF(4, 1), laid->text);
        else
            painter.drawText(p.box.adjusted(4, 1, 0, 0), Qt::AlignLeft | Qt::AlignTop | Qt::TextSingleLine, p.text);
    }
}

QStringList MarkerOverlay::visibleLabels() const
{
    QStringList out;
    for (const Placed& p : m_placed)
        out << p.text;
    out.sort();
    return out;
}

QList<double> MarkerOverlay::visibleLineX() const
{
    QList<double> out;
    for (const Placed& p : m_placed)
        out << p.line.x1();
    return out;
}

} // namespace rtscope::plot
