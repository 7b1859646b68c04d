#pragma once
// How the chart widgets build their chart, axes and view alike (ui/plot/ only: these are Qt Charts types).
#include <QMargins>
#include <QString>
#include <Qt>

class QAbstractAxis;
class QAbstractSeries;
class QChart;
class QChartView;
class QLogValueAxis;
class QObject;
class QValueAxis;
class QWidget;

namespace rtscope::plot {

/// What the private part of a widget that shows one chart starts from: the chart, and the view that shows it.
struct ChartAndView {
    QChart* chart = nullptr;
    QChartView* view = nullptr;
};

/// A chart without animation, titled @p title, with @p margins round the plot.
QChart* newChart(const QString& title, const QMargins& margins = QMargins(4, 4, 8, 4));
/// A base-10 log axis titled @p title, labelled with @p labelFormat, with @p minorTicks minor ticks a decade.
QLogValueAxis* newLogAxis(const QString& title, const char* labelFormat = "%.7g", int minorTicks = 8);
/// A value axis with dynamic ticks (the chart sets their interval), titled @p title.
QValueAxis* newDynamicAxis(const QString& title);
/// Puts @p axis on [lo, hi] with ticks @p interval apart from 0, labelled with @p labelFormat ("%.1f").
void setTickedRange(QValueAxis* axis, double lo, double hi, double interval, const char* labelFormat);
/// A view of @p chart filling @p host edge to edge, at least @p widthChars average characters wide and
/// @p heightLines lines high in @p host's font.
QChartView* fillWithChartView(QWidget* host, QChart* chart, int widthChars, int heightLines);
/// Adds @p series to @p chart, attached to every axis the chart has.
void addSeries(QChart* chart, QAbstractSeries* series);
/// Shows @p shown at @p alignment instead of @p hidden, its linear or log twin, for every series of @p chart. The
/// axis taken off is given to @p keeper (removeAxis gives up ownership).
void swapAxis(QChart* chart, QAbstractAxis* hidden, QAbstractAxis* shown, Qt::Alignment alignment, QObject* keeper);
/// Shows the legend entry of each series of @p chart only while the series is visible.
void hideLegendOfHiddenSeries(QChart* chart);

} // namespace rtscope::plot
