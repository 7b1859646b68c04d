#include "ui/plot/chart_canvas.h"

#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QLayout>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPaintEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include <algorithm>
#include <cmath>
#include <vector>

namespace rtscope::plot {

void drawColumns(QPainter& painter, const QPen& pen, const std::vector<QPointF>& pixels)
{
    const size_t n = pixels.size() / 2;
    const double half = std::max(1.0, pen.widthF()) / 2;
    // The first pixel whose centre lies at or past @p edge: an aliased fill's rule, in whole pixels for the engine's
    // fast fill (far off-screen values are clamped first: the painter clips them anyway).
    auto first = [](double edge) {
        return int(std::ceil(std::clamp(edge, -1e7, 1e7) - 0.5));
    };
    const QColor color = pen.color();
    for (size_t i = 0; i < n; ++i) {
        const QPointF low = pixels[2 * i], high = pixels[2 * i + 1];
        double top = std::min(low.y(), high.y()), bottom = std::max(low.y(), high.y());
        auto reach = [&](double y) {
            top = std::min(top, y);
            bottom = std::max(bottom, y);
        };
        // The zigzag joins this column's second point to the next one's first and its first to the previous one's
        // second: each column takes the half of that join nearer to it.
        if (i + 1 < n)
            reach((high.y() + pixels[2 * i + 2].y()) / 2);
        if (i > 0)
            reach((low.y() + pixels[2 * i - 1].y()) / 2);
        const int left = first(low.x() - half), right = first(low.x() + half);
        const int y0 = first(top - half), y1 = first(bottom + half);
        if (right > left && y1 > y0)
            painter.fillRect(QRect(left, y0, right - left, y1 - y0), color);
    }
}

ChartCanvas::ChartCanvas(QChartView* view, QWidget* parent)
    : QWidget(parent)
    , m_chart(view->chart())
{
    // Every pixel is painted here (the frame covers the widget): nothing beneath needs painting first.
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(view->minimumSize());
    view->hide();
    parent->layout()->addWidget(this); // the one plot::fillWithChartView() made for the view
    // The chart's own changes (axes, labels, legend, title, style, layout) arrive here a pass of the event loop after
    // they were made; the data layer never touches the chart, so a live frame does not come this way.
    connect(m_chart->scene(), &QGraphicsScene::changed, this, [this] {
        m_frameDirty = true;
        update();
    });
}

void ChartCanvas::setAxes(const CanvasAxis& x, const CanvasAxis& y)
{
    m_x = x;
    m_y = y;
    m_markers.setAxis(x.lo, x.hi, x.log);
}

CanvasCurve& ChartCanvas::curve(size_t i)
{
    if (m_curves.size() <= i)
        m_curves.resize(i + 1);
    return m_curves[i];
}

void ChartCanvas::refresh()
{
    m_markers.relayout(plotArea());
    // Only the plot area changes with the data (the marker labels sit inside it too): the axes, title and legend are
    // neither painted nor flushed again, which is most of a large chart's pixels.
    update(plotArea().toAlignedRect().adjusted(-2, -2, 2, 2));
}

QRectF ChartCanvas::plotArea() const
{
    return m_chart->plotArea(); // the chart sits at the canvas's origin, pictured one to one
}

double ChartCanvas::mapX(double v, const QRectF& area) const
{
    if (m_x.log)
        return v <= 0 || m_x.lo <= 0 ? area.left() - 1e6
                                     : area.left() + (std::log10(v) - std::log10(m_x.lo)) /
                                                         (std::log10(m_x.hi) - std::log10(m_x.lo)) * area.width();
    return area.left() + (v - m_x.lo) / (m_x.hi - m_x.lo) * area.width();
}

double ChartCanvas::mapY(double v, const QRectF& area) const
{
    if (m_y.log)
        return v <= 0 || m_y.lo <= 0 ? area.bottom() + 1e6
                                     : area.bottom() - (std::log10(v) - std::log10(m_y.lo)) /
                                                           (std::log10(m_y.hi) - std::log10(m_y.lo)) * area.height();
    return area.bottom() - (v - m_y.lo) / (m_y.hi - m_y.lo) * area.height();
}

QPointF ChartCanvas::toPixel(QPointF value) const
{
    const QRectF area = plotArea();
    return {mapX(value.x(), area), mapY(value.y(), area)};
}

QPointF ChartCanvas::toValue(QPointF pixel) const
{
    const QRectF area = plotArea();
    const double fx = area.width() > 0 ? (pixel.x() - area.left()) / area.width() : 0;
    const double fy = area.height() > 0 ? (area.bottom() - pixel.y()) / area.height() : 0;
    const auto along = [](const CanvasAxis& a, double f) {
        return a.log && a.lo > 0 ? std::pow(10.0, std::log10(a.lo) + f * (std::log10(a.hi) - std::log10(a.lo)))
                                 : a.lo + f * (a.hi - a.lo);
    };
    return {along(m_x, fx), along(m_y, fy)};
}

void ChartCanvas::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    m_chart->resize(event->size());
    m_frameDirty = true;
}

void ChartCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_onClick && event->button() == Qt::LeftButton && plotArea().contains(event->position()))
        m_onClick(toValue(event->position()));
    QWidget::mouseReleaseEvent(event); // ignored: the chart widget and its parents see the release as before
}

void ChartCanvas::paintEvent(QPaintEvent* event)
{
    // The chart lays itself out a pass after a change, and a widget never shown may not have had its resize event yet;
    // a picture taken then (the first paint, an export of a window never shown) must not show it half done.
    if (m_chart->size() != QSizeF(size()))
        m_chart->resize(size());
    if (QGraphicsLayout* layout = m_chart->layout())
        layout->activate();
    QPainter p(this);
    const QRectF whole(QPointF(0, 0), QSizeF(size()));
    if (p.paintEngine() && p.paintEngine()->type() != QPaintEngine::Raster) {
        // Rendered into a vector file (File > Export view as SVG): the frame as the chart's own lines and text.
        p.fillRect(whole, palette().color(QPalette::Window));
        m_chart->scene()->render(&p, whole, m_chart->sceneBoundingRect());
    } else if (m_frameDirty || m_frame.size() != size() * devicePixelRatioF()) {
        m_frame = QPixmap(size() * devicePixelRatioF());
        m_frame.setDevicePixelRatio(devicePixelRatioF());
        m_frame.fill(palette().color(QPalette::Window));
        QPainter frame(&m_frame);
        m_chart->scene()->render(&frame, whole, m_chart->sceneBoundingRect());
        m_frameDirty = false;
    }
    if (p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster) {
        const QRect dirty = event->rect();
        const qreal dpr = m_frame.devicePixelRatio();
        p.drawPixmap(dirty, m_frame,
                     QRectF(dirty.x() * dpr, dirty.y() * dpr, dirty.width() * dpr, dirty.height() * dpr).toRect());
    }
    const QRectF area = plotArea();
    if (area.width() <= 0 || area.height() <= 0)
        return;
    m_markers.relayout(area);
    p.setClipRect(area.adjusted(-1, -1, 1, 1));
    // Segments, not a polyline: with the thicker pens of presentation mode the rasteriser joins every corner of a
    // polyline, and an envelope of a thousand columns has two thousand (measured: 15 ms a paint instead of 0.3).
    std::vector<QLineF> segments;
    std::vector<QPointF> pixels;
    for (const CanvasCurve& c : m_curves) {
        if (!c.visible || c.points.size() < 2)
            continue;
        if (c.columns) {
            pixels.clear();
            pixels.reserve(size_t(c.points.size()));
            for (const QPointF& v : c.points)
                pixels.emplace_back(mapX(v.x(), area), mapY(v.y(), area));
            drawColumns(p, c.pen, pixels);
            continue;
        }
        segments.clear();
        segments.reserve(size_t(c.points.size()));
        QPointF from(mapX(c.points[0].x(), area), mapY(c.points[0].y(), area));
        for (qsizetype i = 1; i < c.points.size(); ++i) {
            const QPointF to(mapX(c.points[i].x(), area), mapY(c.points[i].y(), area));
            segments.emplace_back(from, to);
            from = to;
        }
        p.setPen(c.pen);
        p.drawLines(segments.data(), int(segments.size()));
    }
    p.setClipping(false);
    m_markers.paint(p);
}

} // namespace rtscope::plot
