#include "ui/plot/deadline_chart.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_setup.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QLabel>
#include <QStackedLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>

namespace rtscope {

namespace {
const char* const kBarSets[] = {"declared before", "admitted", "refused"};

QColor deadlineRoleColor(DeadlineRole role, const QPalette& palette)
{
    const bool dark = plot::isDarkPalette(palette);
    switch (role) {
    case DeadlineRole::Runaway:
        return QColor(dark ? colors::kOrange300 : colors::kOkabeVermillion);
    case DeadlineRole::Good:
        return QColor(dark ? colors::kOkabeSkyBlue : colors::kOkabeBlue);
    case DeadlineRole::Throttled:
        return QColor(dark ? colors::kPurple200 : colors::kPurple700);
    case DeadlineRole::Met:
        return QColor(dark ? colors::kOkabeGreenLight : colors::kOkabeGreen);
    case DeadlineRole::Missed:
        return QColor(dark ? colors::kRedA100 : colors::kRed700);
    case DeadlineRole::Limit:
        return plot::chartColors(palette).text;
    case DeadlineRole::Reference:
        return plot::chartColors(palette).reference;
    case DeadlineRole::Phase:
        return QColor(dark ? colors::kGrey500 : colors::kGrey600);
    }
    return plot::chartColors(palette).text;
}
} // namespace

struct DeadlineChart::Impl : plot::ChartAndView {
    QLabel* empty = nullptr;
    QStackedLayout* stack = nullptr;
    DeadlineChartData data;
    QPalette palette;
    QFont font;

    void rebuild()
    {
        chart->removeAllSeries();
        for (QAbstractAxis* a : chart->axes())
            chart->removeAxis(a), delete a;
        chart->setTitle(data.title);
        if (data.kind == DeadlineChartData::Kind::Empty) {
            empty->setText(data.emptyText);
            stack->setCurrentWidget(empty);
            return;
        }
        stack->setCurrentWidget(view);
        if (data.kind == DeadlineChartData::Kind::Bars)
            buildBars();
        else
            buildTime();
        plot::styleChart(chart, palette, font);
        chart->legend()->setVisible(true);
        chart->legend()->setAlignment(Qt::AlignBottom);
    }

    void buildBars()
    {
        auto* series = new QStackedBarSeries;
        QBarSet* sets[3];
        const QColor colours[] = {deadlineRoleColor(DeadlineRole::Phase, palette),
                                  deadlineRoleColor(DeadlineRole::Met, palette),
                                  deadlineRoleColor(DeadlineRole::Missed, palette)};
        for (int i = 0; i < 3; ++i) {
            sets[i] = new QBarSet(QObject::tr(kBarSets[i]));
            sets[i]->setColor(colours[i]);
            sets[i]->setBorderColor(colours[i]);
        }
        QStringList cats;
        double top = data.limit.value_or(0);
        for (const DeadlineBar& b : data.bars) {
            cats << b.category;
            *sets[0] << b.before * 100;
            *sets[1] << b.admitted * 100;
            *sets[2] << b.refused * 100;
            top = std::max(top, b.before + b.admitted + b.refused);
        }
        for (QBarSet* s : sets)
            series->append(s);
        series->setBarWidth(0.6);
        chart->addSeries(series);
        auto* x = new QBarCategoryAxis;
        x->append(cats);
        x->setTitleText(data.xTitle);
        auto* y = new QValueAxis;
        const double upper = std::max(10.0, top * 100 * 1.1);
        plot::setTickedRange(y, 0, upper, plot::niceTickInterval(upper, 6), "%.0f %%");
        y->setTitleText(data.yTitle);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        if (data.limit && !data.bars.empty()) {
            // Across the whole category axis: the bars' centres are at 0 … n-1.
            auto* line = new QLineSeries;
            line->setName(data.limitName);
            line->append(-0.5, *data.limit * 100);
            line->append(double(data.bars.size()) - 0.5, *data.limit * 100);
            QPen pen(deadlineRoleColor(DeadlineRole::Limit, palette), plot::lineWidth(3));
            pen.setStyle(Qt::DashLine);
            line->setPen(pen);
            plot::addSeries(chart, line);
        }
    }

    void buildTime()
    {
        auto* x = new QValueAxis;
        const double xInterval = plot::niceTickInterval(std::max(1e-3, data.xMax - data.xMin), 8);
        plot::setTickedRange(x, data.xMin, data.xMax, xInterval, xInterval < 1 ? "%.1f" : "%.0f");
        x->setTitleText(data.xTitle);
        chart->addAxis(x, Qt::AlignBottom);
        QAbstractAxis* yAxis = nullptr;
        if (!data.rows.isEmpty()) {
            auto* y = new QCategoryAxis;
            y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
            for (int i = 0; i < data.rows.size(); ++i)
                y->append(data.rows[i], i);
            y->setRange(-0.6, double(data.rows.size()) - 0.4);
            y->setStartValue(-0.6);
            yAxis = y;
        } else {
            auto* y = new QValueAxis;
            const double yMax = std::max(1e-3, data.yMax);
            const double yInterval = plot::niceTickInterval(yMax, 6);
            plot::setTickedRange(y, 0, yMax, yInterval, yInterval < 1 ? "%.1f" : "%.0f");
            yAxis = y;
        }
        yAxis->setTitleText(data.yTitle);
        chart->addAxis(yAxis, Qt::AlignLeft);
        for (const DeadlineSeries& s : data.series) {
            const QColor c = deadlineRoleColor(s.role, palette);
            QXYSeries* series = nullptr;
            if (s.style == DeadlineSeries::Style::Dots || s.style == DeadlineSeries::Style::Crosses) {
                auto* sc = new QScatterSeries;
                const bool cross = s.style == DeadlineSeries::Style::Crosses;
                sc->setMarkerShape(cross ? QScatterSeries::MarkerShapeTriangle : QScatterSeries::MarkerShapeCircle);
                sc->setMarkerSize(cross ? 13 * plot::lineWidthScale() : 7 * plot::lineWidthScale());
                sc->setColor(c);
                sc->setBorderColor(cross ? plot::chartColors(palette).text : c);
                series = sc;
            } else {
                auto* line = new QLineSeries;
                line->setPen(plot::chartPen(c, s.role == DeadlineRole::Limit ? 2 : 2.6,
                                            s.style == DeadlineSeries::Style::Dashed ? Qt::DashLine : Qt::SolidLine));
                series = line;
            }
            series->setName(s.name);
            series->replace(s.points);
            plot::addSeries(chart, series);
        }
    }

    QXYSeries* xy(const QString& name) const
    {
        for (QAbstractSeries* s : chart->series())
            if (s->name() == name)
                if (auto* x = qobject_cast<QXYSeries*>(s))
                    return x;
        return nullptr;
    }
};

DeadlineChart::DeadlineChart(QWidget* parent)
    : QWidget(parent)
    , d(std::make_unique<Impl>())
{
    setObjectName("deadlineChart");
    d->chart = new QChart;
    d->view = new QChartView(d->chart, this);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->empty = new QLabel(this);
    d->empty->setAlignment(Qt::AlignCenter);
    d->empty->setWordWrap(true);
    d->stack = new QStackedLayout(this);
    d->stack->setContentsMargins(0, 0, 0, 0);
    d->stack->addWidget(d->view);
    d->stack->addWidget(d->empty);
    d->palette = palette();
    d->font = font();
    d->empty->setFont(plot::chartFont(font(), 1.3));
    d->rebuild();
}

DeadlineChart::~DeadlineChart() = default;

void DeadlineChart::setData(const DeadlineChartData& data)
{
    d->data = data;
    d->rebuild();
}

const DeadlineChartData& DeadlineChart::data() const
{
    return d->data;
}

QString DeadlineChart::title() const
{
    return d->chart->title();
}

QStringList DeadlineChart::seriesNames() const
{
    QStringList out;
    for (QAbstractSeries* s : d->chart->series()) {
        if (auto* bars = qobject_cast<QStackedBarSeries*>(s)) {
            for (QBarSet* set : bars->barSets())
                out << set->label();
        } else {
            out << s->name();
        }
    }
    return out;
}

QList<QPointF> DeadlineChart::points(const QString& name) const
{
    QXYSeries* s = d->xy(name);
    return s ? s->points() : QList<QPointF>();
}

QStringList DeadlineChart::categories() const
{
    for (QAbstractAxis* a : d->chart->axes(Qt::Horizontal))
        if (auto* c = qobject_cast<QBarCategoryAxis*>(a))
            return c->categories();
    return {};
}

std::vector<double> DeadlineChart::barValues(const QString& set) const
{
    std::vector<double> out;
    for (QAbstractSeries* s : d->chart->series())
        if (auto* bars = qobject_cast<QStackedBarSeries*>(s))
            for (QBarSet* b : bars->barSets())
                if (b->label() == set)
                    for (int i = 0; i < b->count(); ++i)
                        out.push_back(b->at(i) / 100);
    return out;
}

QString DeadlineChart::emptyText() const
{
    return d->stack->currentWidget() == d->empty ? d->empty->text() : QString();
}

void DeadlineChart::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        d->palette = palette();
        d->font = font();
        d->empty->setFont(plot::chartFont(font(), 1.3));
        d->rebuild();
    }
}

} // namespace rtscope

#include "moc_deadline_chart.cpp"
