#include "ui/plot/chart_setup.h"

#include <QEvent>
#include <QVBoxLayout>
#include <QWidget>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
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

bool restylesFor(const QEvent* event)
{
    return !event || event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange ||
           event->type() == QEvent::StyleChange;
}

} // namespace rtscope::plot
