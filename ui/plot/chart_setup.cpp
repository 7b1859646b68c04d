#include "ui/plot/chart_setup.h"

#include <QVBoxLayout>
#include <QWidget>
#include <QtCharts/QAbstractSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

namespace rtscope::plot {

QChart* newChart(const QString& title, const QMargins& margins)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(title);
    chart->setMargins(margins);
    return chart;
}

QLogValueAxis* newLogAxis(const QString& title, const char* labelFormat, int minorTicks)
{
    auto* axis = new QLogValueAxis;
    axis->setBase(10);
    axis->setLabelFormat(QString::fromLatin1(labelFormat));
    axis->setMinorTickCount(minorTicks);
    axis->setTitleText(title);
    return axis;
}

QValueAxis* newDynamicAxis(const QString& title)
{
    auto* axis = new QValueAxis;
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTitleText(title);
    return axis;
}

void setTickedRange(QValueAxis* axis, double lo, double hi, double interval, const char* labelFormat)
{
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(interval);
    axis->setLabelFormat(QString::fromLatin1(labelFormat));
    if (axis->min() != lo || axis->max() != hi)
        axis->setRange(lo, hi);
}

QChartView* fillWithChartView(QWidget* host, QChart* chart, int widthChars, int heightLines)
{
    auto* view = new QChartView(chart, host);
    view->setMinimumSize(host->fontMetrics().averageCharWidth() * widthChars,
                         host->fontMetrics().height() * heightLines);
    auto* layout = new QVBoxLayout(host);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view);
    return view;
}

void addSeries(QChart* chart, QAbstractSeries* series)
{
    chart->addSeries(series);
    for (QAbstractAxis* axis : chart->axes())
        series->attachAxis(axis);
}

void swapAxis(QChart* chart, QAbstractAxis* hidden, QAbstractAxis* shown, Qt::Alignment alignment, QObject* keeper)
{
    const Qt::Orientation orientation = alignment & (Qt::AlignLeft | Qt::AlignRight) ? Qt::Vertical : Qt::Horizontal;
    if (chart->axes(orientation).contains(hidden)) {
        for (QAbstractSeries* s : chart->series())
            s->detachAxis(hidden);
        chart->removeAxis(hidden);
        hidden->setParent(keeper);
    }
    if (!chart->axes(orientation).contains(shown)) {
        chart->addAxis(shown, alignment);
        for (QAbstractSeries* s : chart->series())
            s->attachAxis(shown);
    }
}

void hideLegendOfHiddenSeries(QChart* chart)
{
    const QList<QLegendMarker*> markers = chart->legend()->markers();
    for (QLegendMarker* m : markers)
        m->setVisible(m->series()->isVisible());
}

} // namespace rtscope::plot
