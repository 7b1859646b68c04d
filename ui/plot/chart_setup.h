#pragma once
// How the chart widgets build their chart, axes and view alike (ui/plot/ only: these are Qt Charts types).
#include <QMargins>
#include <QString>

class QChart;
class QChartView;
class QEvent;
class QLogValueAxis;
class QValueAxis;
class QWidget;

namespace rtscope::plot {

/// A chart without animation, titled @p title, with @p margins round the plot.
QChart* newChart(const QString& title, const QMargins& margins = QMargins(4, 4, 8, 4));
/// A base-10 log axis titled @p title, labelled with @p labelFormat, with @p minorTicks minor ticks a decade.
QLogValueAxis* newLogAxis(const QString& title, const char* labelFormat = "%.7g", int minorTicks = 8);
/// A value axis with dynamic ticks (the chart sets their interval), titled @p title.
QValueAxis* newDynamicAxis(const QString& title);
/// A view of @p chart filling @p host edge to edge, at least @p widthChars average characters wide and
/// @p heightLines lines high in @p host's font.
QChartView* fillWithChartView(QWidget* host, QChart* chart, int widthChars, int heightLines);
/// Whether a chart restyles for @p event: a palette, font or style change, or null (the first styling).
bool restylesFor(const QEvent* event);

} // namespace rtscope::plot
