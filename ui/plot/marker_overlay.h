#pragma once
// Labelled vertical lines drawn over a chart's plot area (percentiles, configuration changes). They are plain
// graphics items positioned from the axis range, so a hundred markers cost no series and no legend entries.
#include "ui/plot/plot_data.h"

#include <QFont>
#include <QPalette>

#include <vector>

class QChart;
class QGraphicsLineItem;
class QGraphicsRectItem;
class QGraphicsSimpleTextItem;

namespace rtscope::plot {

class MarkerOverlay {
public:
    static constexpr int kMaxLabelRows = 4;

    explicit MarkerOverlay(QChart* chart);

    void setMarkers(const std::vector<VerticalMarker>& markers);
    void setAxis(double lo, double hi, bool log);
    void setStyle(const QPalette& palette, const QFont& font);
    /// Places the items for the current plot area; call after any change of data, axis or size.
    void relayout();

    int visibleCount() const { return m_visible; }
    const std::vector<VerticalMarker>& markers() const { return m_markers; }

private:
    struct Item {
        QGraphicsLineItem* line = nullptr;
        QGraphicsRectItem* box = nullptr;
        QGraphicsSimpleTextItem* text = nullptr;
    };
    double toPixel(double x, double left, double width) const;
    void ensureItems(size_t n);

    QChart* m_chart;
    std::vector<VerticalMarker> m_markers;
    std::vector<Item> m_items;
    double m_lo = 0;
    double m_hi = 1;
    bool m_log = false;
    QPalette m_palette;
    QFont m_font;
    int m_visible = 0;
};

} // namespace rtscope::plot
