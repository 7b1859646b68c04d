#include "ui/plot/timeline_chart.h"

#include "ui/plot/axis_auto_range.h"
#include "ui/plot/chart_canvas.h"
#include "ui/plot/chart_setup.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

namespace rtscope {

struct TimelineChart::Impl : plot::ChartAndView {
    QObject* owner = nullptr;
    QLineSeries* series = nullptr;     ///< the first curve
    std::vector<QLineSeries*> more;    ///< the others, made on demand and kept
    std::vector<TimelineCurve> curves; ///< at least one
    QValueAxis* x = nullptr;
    QValueAxis* yLinear = nullptr;
    QLogValueAxis* yLog = nullptr;
    bool logY = true;
    double window = 10;
    plot::AxisAutoRange yRange{plot::AxisAutoRange::Scale::Log};
    plot::ChartCanvas* canvas = nullptr; ///< draws the chart's frame and, over it, the envelopes and markers
    int columns = 0;
    int axisUpdates = 0;

    void attachY()
    {
        if (logY)
            plot::swapAxis(chart, yLinear, yLog, Qt::AlignLeft, owner);
        else
            plot::swapAxis(chart, yLog, yLinear, Qt::AlignLeft, owner);
        yRange.setScale(logY ? plot::AxisAutoRange::Scale::Log : plot::AxisAutoRange::Scale::Linear);
        yRange.setMinimumUpper(10);
        yRange.setLowestLower(0.1);
    }

    std::vector<QLineSeries*> all() const
    {
        std::vector<QLineSeries*> out{series};
        out.insert(out.end(), more.begin(), more.end());
        return out;
    }

    QLineSeries* seriesOf(size_t i)
    {
        if (i == 0)
            return series;
        while (more.size() < i) {
            auto* s = new QLineSeries;
            plot::addSeries(chart, s);
            more.push_back(s);
        }
        return more[i - 1];
    }

    void restyleCurves(const QPalette& pal)
    {
        for (size_t i = 0; i < all().size(); ++i) {
            const QColor c =
                i < curves.size() && curves[i].color.isValid() ? curves[i].color : plot::chartColors(pal).live;
            // One pixel: the envelope is dense enough to read as a band, and a 1-px cosmetic pen takes the fast path.
            const QPen pen = plot::chartPen(c, 1.0);
            seriesOf(i)->setPen(pen);
            canvas->curve(i).pen = pen;
        }
    }

    /// Whole seconds up to 10 s, then 5 and 10 s; a replay's whole recording may span an hour, so beyond two minutes
    /// the ticks come from the span. Fewer when the plot is narrow (the half-width chart at 1366×768): Qt elides a
    /// label that does not fit its tick's spacing ("-..."), so each label gets room for "−10" and a gap.
    double xTickInterval() const
    {
        double interval = window <= 10 ? 1 : window <= 30 ? 5 : window <= 120 ? 10 : plot::niceTickInterval(window, 8);
        const double px = chart->plotArea().width();
        const double labelPx = 2.0 * QFontMetricsF(x->labelsFont()).horizontalAdvance(QStringLiteral("-10"));
        if (px > 0 && labelPx > 0) {
            const int fit = std::max(2, int(px / labelPx));
            if (window / interval > fit)
                interval = std::max(interval, plot::niceTickInterval(window, fit));
        }
        return interval;
    }

    void applyX()
    {
        plot::setTickedRange(x, -window, 0, xTickInterval(), "%.0f");
        ++axisUpdates;
    }

    /// After a resize: only the tick spacing may change, and only when it has to.
    void fitXTicks()
    {
        const double interval = xTickInterval();
        if (interval != x->tickInterval())
            x->setTickInterval(interval);
    }

    void applyY()
    {
        if (logY) {
            yLog->setRange(yRange.lower(), yRange.upper());
        } else {
            plot::setTickedRange(yLinear, yRange.lower(), yRange.upper(), plot::niceTickInterval(yRange.upper(), 6),
                                 yRange.upper() >= 20 ? "%.0f" : "%.1f");
        }
        ++axisUpdates;
    }

    /// A view setting: @p field becomes @p value, @p apply puts it on the axes and the chart is drawn again; nothing
    /// when the setting is already so.
    template <class T> void setView(T& field, T value, void (Impl::*apply)())
    {
        if (field == value)
            return;
        field = value;
        (this->*apply)();
        redraw(true);
    }

    void redraw(bool forceAxes)
    {
        double lo = 0, hi = 0;
        bool any = false;
        for (const TimelineCurve& c : curves)
            for (const TimelinePoint& p : c.points) {
                if (p.tSec < -window || p.tSec > 0)
                    continue;
                lo = any ? std::min(lo, p.minUs) : p.minUs;
                hi = any ? std::max(hi, p.maxUs) : p.maxUs;
                any = true;
            }
        if (!any) {
            lo = 1;
            hi = 100;
        }
        // An axis change can lay the chart out again at once (and call back here); the columns are counted
        // only afterwards, from the plot area as it now is.
        if (yRange.update(std::max(lo, 0.0), hi) || forceAxes)
            applyY();
        columns = std::max(50, int(chart->plotArea().width()));
        for (size_t i = 0; i < all().size(); ++i) {
            if (i >= curves.size()) {
                canvas->curve(i).points.clear();
                continue;
            }
            const std::vector<TimelinePoint> cols = plot::decimateColumns(curves[i].points, -window, 0, columns);
            canvas->curve(i).points = plot::envelopePoints(cols, logY ? yRange.lower() : -1e300);
            canvas->curve(i).columns = true;
        }
        canvas->setAxes({-window, 0, false}, {yRange.lower(), yRange.upper(), logY});
        canvas->refresh();
    }
};

TimelineChart::TimelineChart(QWidget* parent)
    : plot::RestyledWidget(parent)
    , d(std::make_unique<Impl>())
{
    d->owner = this;
    // Short enough for the half-width chart at 1366×768; how it is drawn is in the tooltip.
    d->chart = plot::newChart(tr("Latency timeline"));
    setToolTip(tr("Each pixel column draws the minimum and the maximum of the samples it covers, so a single spike "
                  "is never averaged away."));
    d->chart->legend()->hide();
    d->chart->legend()->setAlignment(Qt::AlignBottom);
    d->series = new QLineSeries;
    d->series->setName(tr("latency"));
    d->chart->addSeries(d->series);
    d->curves.resize(1);

    d->x = plot::newDynamicAxis(tr("time (s, 0 = now)"));
    d->x->setLabelFormat("%.0f");
    d->chart->addAxis(d->x, Qt::AlignBottom);
    d->series->attachAxis(d->x);

    d->yLinear = plot::newDynamicAxis(tr("latency (µs)"));
    d->yLog = plot::newLogAxis(tr("latency (µs, log scale)"));
    d->yLinear->setParent(this);
    d->yLog->setParent(this);
    d->attachY();

    d->view = plot::fillWithChartView(this, d->chart, 40, 14);
    // Every line here is horizontal or vertical (the envelope, the markers) and drawn without antialiasing, which
    // would only blur them and is the most expensive part of a software-rendered frame.
    d->canvas = new plot::ChartCanvas(d->view, this);
    connect(d->chart, &QChart::plotAreaChanged, this, [this] {
        d->fitXTicks();
        d->redraw(false);
    });
    d->canvas->setClickHandler([this](QPointF value) { emit clicked(value.x(), value.y()); });

    setRestyle([this] {
        const QPalette pal = palette();
        plot::styleChart(d->chart, pal, font(), {d->yLinear, d->yLog});
        d->restyleCurves(pal);
        d->canvas->markers().setStyle(pal, plot::chartFont(font(), 1.0));
        d->canvas->refresh();
    });
    d->applyX();
    d->redraw(true);
}

TimelineChart::~TimelineChart() = default;

void TimelineChart::setWindowSeconds(double seconds)
{
    d->setView(d->window, std::clamp(seconds, 1.0, 7.0 * 24 * 3600), &Impl::applyX);
}

double TimelineChart::windowSeconds() const
{
    return d->window;
}

void TimelineChart::setLogLatencyAxis(bool log)
{
    d->setView(d->logY, log, &Impl::attachY);
}

bool TimelineChart::logLatencyAxis() const
{
    return d->logY;
}

void TimelineChart::setData(const std::vector<TimelinePoint>& points, const std::vector<VerticalMarker>& markers)
{
    if (d->curves.size() == 1 && !d->curves.front().color.isValid()) {
        d->curves.front().points = points; // 40 times a second: no copy of the curve's name and colour
        d->canvas->markers().setMarkers(markers);
        d->redraw(false);
        return;
    }
    setCurves({{tr("latency"), QColor(), points}}, markers);
}

void TimelineChart::setCurves(const std::vector<TimelineCurve>& curves, const std::vector<VerticalMarker>& markers)
{
    d->curves = curves.empty() ? std::vector<TimelineCurve>(1) : curves;
    for (size_t i = 0; i < d->curves.size(); ++i)
        d->seriesOf(i)->setName(d->curves[i].name);
    d->restyleCurves(palette());
    // The first curve's legend entry only names it when there are others to tell it from.
    const auto seriesList = d->all();
    for (size_t i = 0; i < seriesList.size(); ++i)
        for (QLegendMarker* m : d->chart->legend()->markers(seriesList[i]))
            m->setVisible(i < d->curves.size());
    d->chart->legend()->setVisible(d->curves.size() > 1);
    d->canvas->markers().setMarkers(markers);
    d->redraw(false);
}

void TimelineChart::setTimeAxisTitle(const QString& title)
{
    d->x->setTitleText(title);
}

void TimelineChart::clear()
{
    d->curves.assign(1, TimelineCurve{});
    d->chart->legend()->hide();
    d->canvas->markers().setMarkers({});
    d->yRange.reset();
    d->redraw(true);
}

QList<QPointF> TimelineChart::envelope() const
{
    return d->canvas->curve(0).points;
}
int TimelineChart::curveCount() const
{
    return int(d->curves.size());
}
QList<QPointF> TimelineChart::curveEnvelope(int index) const
{
    return index >= 0 && index < curveCount() ? d->canvas->curve(size_t(index)).points : QList<QPointF>();
}
QString TimelineChart::curveName(int index) const
{
    return index >= 0 && index < curveCount() ? d->curves[size_t(index)].name : QString();
}
int TimelineChart::columns() const
{
    return d->columns;
}
double TimelineChart::latencyAxisMax() const
{
    return d->yRange.upper();
}
int TimelineChart::axisUpdates() const
{
    return d->axisUpdates;
}
int TimelineChart::visibleMarkers() const
{
    return d->canvas->markers().visibleCount();
}
QWidget* TimelineChart::plotSurface() const
{
    return d->canvas;
}

double TimelineChart::secondsPerColumn() const
{
    return d->window / std::max(1.0, d->chart->plotArea().width());
}

QPoint TimelineChart::viewPosition(double tSec, double latencyUs) const
{
    return d->canvas->toPixel(QPointF(tSec, latencyUs)).toPoint();
}

} // namespace rtscope

#include "moc_timeline_chart.cpp"
