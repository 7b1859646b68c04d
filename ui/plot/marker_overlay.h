#pragma once
// Labelled vertical lines drawn over a chart's plot area (percentiles, configuration changes), painted with the data
// layer of a ChartCanvas: a hundred markers cost no series, no legend entries and no scene items.
#include "ui/plot/plot_data.h"

#include <QFont>
#include <QHash>
#include <QPalette>
#include <QPen>
#include <QRectF>
#include <QStaticText>
#include <QString>

#include <vector>

class QPainter;

namespace rtscope::plot {

class MarkerOverlay {
public:
    static constexpr int kMaxLabelRows = 4;

    void setMarkers(const std::vector<VerticalMarker>& markers);
    void setAxis(double lo, double hi, bool log);
    void setStyle(const QPalette& palette, const QFont& font);
    /// Places the lines and labels in @p area (the plot area); call after any change of data, axis or size.
    void relayout(const QRectF& area);
    void paint(QPainter& painter) const;

    int visibleCount() const { return int(m_placed.size()); }
    const std::vector<VerticalMarker>& markers() const { return m_markers; }
    /// The labels shown, sorted, and the x pixel of each line shown (for tests).
    QStringList visibleLabels() const;
    QList<double> visibleLineX() const;

private:
    struct Placed {
        QLineF line;
        QPen pen;
        QRectF box;
        QString text;
        QColor color;
    };
    double toPixel(double x, double left, double width) const;
    /// A label laid out once for the font: its width and its glyphs. Relaid out and repainted every frame, a label
    /// cost its text shaping twice a frame (measuring, then drawing); most labels keep their text for many frames.
    struct Laid {
        double width = 0;
        QStaticText text;
    };
    const Laid& laidOut(const QString& label);

    std::vector<VerticalMarker> m_markers;
    std::vector<Placed> m_placed;
    double m_lo = 0;
    double m_hi = 1;
    bool m_log = false;
    QPalette m_palette;
    QFont m_font;
    QHash<QString, Laid> m_laid; ///< by label text, for m_font; emptied when the font changes or it grows past 64
};

} // namespace rtscope::plot
