#pragma once
// Colours and fonts of the charts, derived from the widget palette so both light and dark themes read well
// on a projector: thick lines, large axis text, one colour per meaning.
#include "ui/plot/plot_data.h"

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QPen>

#include <initializer_list>

class QChart;
class QAbstractAxis;

namespace rtscope::plot {

struct ChartColors {
    QColor live;
    QColor reference;
    QColor text;
    QColor grid;
    QColor background;
    QColor markerBackground;
};

bool isDarkPalette(const QPalette& palette);
ChartColors chartColors(const QPalette& palette);
QColor markerColor(MarkerRole role, const QPalette& palette);

/// Chart fonts: a little larger than the widget font, for a lecture hall.
QFont chartFont(const QFont& base, double scale = 1.0);
/// chartFont() bold or not as @p bold says, whatever the base's weight: titles, and the labels the QPainter widgets
/// write themselves.
QFont labelFont(const QFont& base, double scale, bool bold = false);

/// One scale for every plotted line (presentation mode thickens them all); 1 by default. Charts read it when
/// they restyle, which a font or palette change triggers.
void setLineWidthScale(double scale);
double lineWidthScale();
/// @p base pen width × the scale: the width every chart pen is built with.
double lineWidth(double base);
/// The pen of a plotted line: lineWidth(@p baseWidth) wide and cosmetic (pixels, whatever the view's transform).
QPen chartPen(const QColor& color, double baseWidth, Qt::PenStyle style = Qt::SolidLine);

/// Styles @p chart and its axes, and @p twins too: the linear or log twins of its axes, off the chart while the other
/// shows (swapAxis()), so that either is styled when it comes back.
void styleChart(QChart* chart, const QPalette& palette, const QFont& base,
                std::initializer_list<QAbstractAxis*> twins = {});
void styleAxis(QAbstractAxis* axis, const QPalette& palette, const QFont& base);

} // namespace rtscope::plot
