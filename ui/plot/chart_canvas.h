#pragma once
// A chart drawn in two layers: the frame (title, axes, grid, legend) is a QChart rendered into a picture only when it
// changes; the data (curves, vertical markers) is painted over it with QPainter on every frame. A live page's frame
// is then one repaint of this widget in the same pass as its tables, instead of a scene that reports its changes a
// pass later and repaints the window again (docs/BENCHMARKS.md, "Where a frame's time goes").
#include "ui/plot/marker_overlay.h"

#include <QList>
#include <QPen>
#include <QPixmap>
#include <QPointF>
#include <QWidget>

#include <functional>
#include <vector>

class QChart;
class QChartView;
class QPainter;

namespace rtscope::plot {

/// One axis of the data layer: its range and scale, the same the chart's axis shows.
struct CanvasAxis {
    double lo = 0;
    double hi = 1;
    bool log = false;
};

/// One curve of the data layer, in axis units, drawn as a polyline clipped to the plot area.
struct CanvasCurve {
    QList<QPointF> points;
    QPen pen;
    bool visible = true;
    /// The points are a min/max envelope, two a pixel column in zigzag order (plot::envelopePoints): drawn as one
    /// filled span a column (drawColumns) instead of a line a point.
    bool columns = false;
};

/// @brief Draws the envelope @p pixels (two points a column, in zigzag order, already in pixels) as one rectangle a
/// column, @p pen's width wide, reaching from the column's low to its high and halfway to each neighbour's nearer end,
/// where the zigzag's line to it would run; half the pen's width past both ends, as its square cap. The pixels are
/// those of the zigzag stroked as lines, to within a pixel at the joins (tests/ui/tst_plot.cpp), at a fraction of the
/// cost: the raster engine fills a whole-pixel rectangle span by span, where it strokes a wide line into a polygon
/// first (the timeline's curves in presentation mode: 0.64 → 0.23 ms a paint; docs/BENCHMARKS.md).
void drawColumns(QPainter& painter, const QPen& pen, const std::vector<QPointF>& pixels);

class ChartCanvas : public QWidget {
public:
    /// Pictures @p view's chart (the view is kept, hidden, as the chart's owner; its series carry the legend's
    /// entries and pens but no points). Takes the view's place in @p parent's layout (plot::fillWithChartView).
    ChartCanvas(QChartView* view, QWidget* parent);

    void setAxes(const CanvasAxis& x, const CanvasAxis& y);
    /// The curves, drawn in this order (later ones on top).
    std::vector<CanvasCurve>& curves() { return m_curves; }
    /// Curve @p i, the list grown to hold it.
    CanvasCurve& curve(size_t i);
    MarkerOverlay& markers() { return m_markers; }
    /// Asks for a paint of the data layer (the frame is pictured again only when the chart changed).
    void refresh();

    /// The plot area in this widget's coordinates.
    QRectF plotArea() const;
    QPointF toPixel(QPointF value) const;
    QPointF toValue(QPointF pixel) const;
    /// Called with the value under a left click inside the plot area.
    void setClickHandler(std::function<void(QPointF value)> handler) { m_onClick = std::move(handler); }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    double mapX(double v, const QRectF& area) const;
    double mapY(double v, const QRectF& area) const;

    QChart* m_chart;
    QPixmap m_frame;
    bool m_frameDirty = true;
    CanvasAxis m_x, m_y;
    std::vector<CanvasCurve> m_curves;
    MarkerOverlay m_markers;
    std::function<void(QPointF)> m_onClick;
};

} // namespace rtscope::plot
