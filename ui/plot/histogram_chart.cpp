#include "ui/plot/histogram_chart.h"

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
#include <optional>

namespace rtscope {

namespace {
constexpr int kLinearBins = 200;
constexpr int kLogBinsPerDecade = 50;
} // namespace

struct HistogramChart::Impl : plot::ChartAndView {
    QObject* owner = nullptr;
    QLineSeries* live = nullptr;
    QLineSeries* reference = nullptr;
    QValueAxis* xLinear = nullptr;
    QLogValueAxis* xLog = nullptr;
    QLogValueAxis* yLog = nullptr;
    bool logX = true;
    plot::AxisAutoRange xRange{plot::AxisAutoRange::Scale::Log};
    plot::AxisAutoRange yRange{plot::AxisAutoRange::Scale::Log};
    plot::ChartCanvas* canvas = nullptr; ///< draws the chart's frame and, over it, the curves and markers
    static constexpr size_t kReference = 0, kLive = 1, kFirstOverlay = 2; ///< the canvas's curves, bottom to top
    HistogramCurve liveCurve;
    std::optional<HistogramCurve> refCurve;
    std::vector<uint64_t> refCounts;
    std::vector<HistogramOverlay> overlays;
    std::vector<QLineSeries*> overlaySeries; ///< grows to the most overlays ever shown; unused ones are hidden
    std::vector<std::vector<uint64_t>> overlayCounts;
    std::vector<double> edges;
    int axisUpdates = 0;

    void configureRanges()
    {
        xRange.setScale(logX ? plot::AxisAutoRange::Scale::Log : plot::AxisAutoRange::Scale::Linear);
        xRange.setMinimumUpper(logX ? 10 : 10);
        xRange.setLowestLower(0.1);
        yRange.setFixedLower(plot::kCountFloor);
        yRange.setMinimumUpper(10);
    }

    void attachX()
    {
        if (logX)
            plot::swapAxis(chart, xLinear, xLog, Qt::AlignBottom, owner);
        else
            plot::swapAxis(chart, xLog, xLinear, Qt::AlignBottom, owner);
    }

    QLineSeries* addOverlaySeries()
    {
        auto* s = new QLineSeries;
        plot::addSeries(chart, s);
        overlaySeries.push_back(s);
        return s;
    }

    void styleOverlay(QLineSeries* s, const QColor& color) const { s->setPen(plot::chartPen(color, 2.4)); }

    void rebinOverlays()
    {
        overlayCounts.resize(overlays.size());
        for (size_t i = 0; i < overlays.size(); ++i) {
            overlayCounts[i] = plot::rebin(overlays[i].curve.buckets, edges);
            const bool any = !overlays[i].curve.buckets.empty();
            canvas->curve(kFirstOverlay + i).points =
                any ? plot::stepPoints(edges, overlayCounts[i], plot::kCountFloor) : QList<QPointF>{};
        }
    }

    void applyXAxis()
    {
        const double lo = xRange.lower(), hi = xRange.upper();
        if (logX) {
            xLog->setRange(lo, hi);
        } else {
            plot::setTickedRange(xLinear, lo, hi, plot::niceTickInterval(hi - lo, 8), hi >= 20 ? "%.0f" : "%.1f");
        }
        edges = logX ? plot::logEdges(lo, hi, kLogBinsPerDecade) : plot::linearEdges(lo, hi, kLinearBins);
        refCounts = refCurve ? plot::rebin(refCurve->buckets, edges) : std::vector<uint64_t>{};
        canvas->curve(kReference).points =
            refCurve ? plot::stepPoints(edges, refCounts, plot::kCountFloor) : QList<QPointF>{};
        rebinOverlays();
        ++axisUpdates;
    }

    /// A label every decade, or every second one when the plot is too short for them all (hundreds of millions of
    /// loops in the noise lab's histogram): labels that would overlap are elided to "..." by Qt Charts.
    void fitCountLabels()
    {
        const double decades = std::log10(std::max(yRange.upper(), 10.0) / std::max(yRange.lower(), 1e-3));
        const double needed = decades * QFontMetricsF(yLog->labelsFont()).height() * 1.3;
        const qreal base = needed > chart->plotArea().height() ? 100 : 10;
        if (yLog->base() != base)
            yLog->setBase(base);
    }

    void redraw(bool forceAxes)
    {
        plot::BucketExtent e;
        e.add(liveCurve);
        if (refCurve)
            e.add(*refCurve);
        for (const HistogramOverlay& o : overlays)
            e.add(o.curve);
        const double lo = e.any ? std::max(e.min, 0.0) : (logX ? 1.0 : 0.0);
        const double hi = e.any ? e.max : 100.0;
        if (xRange.update(lo, hi) || forceAxes)
            applyXAxis();
        const std::vector<uint64_t> counts = plot::rebin(liveCurve.buckets, edges);
        uint64_t maxCount = 1;
        for (uint64_t c : counts)
            maxCount = std::max(maxCount, c);
        for (uint64_t c : refCounts)
            maxCount = std::max(maxCount, c);
        for (const std::vector<uint64_t>& counts : overlayCounts)
            for (uint64_t c : counts)
                maxCount = std::max(maxCount, c);
        if (yRange.update(plot::kCountFloor, double(maxCount)) || forceAxes) {
            yLog->setRange(yRange.lower(), yRange.upper());
            ++axisUpdates;
        }
        fitCountLabels();
        canvas->curve(kLive).points = e.any ? plot::stepPoints(edges, counts, plot::kCountFloor) : QList<QPointF>{};
        canvas->setAxes({xRange.lower(), xRange.upper(), logX}, {yRange.lower(), yRange.upper(), true});
        canvas->refresh();
    }

    /// The pens and visibility of the series (the legend's entries) on the canvas's curves.
    void copyPens()
    {
        canvas->curve(kReference).pen = reference->pen();
        canvas->curve(kReference).visible = reference->isVisible();
        canvas->curve(kLive).pen = live->pen();
        canvas->curve(kLive).visible = live->isVisible();
        for (size_t i = 0; i < overlaySeries.size(); ++i) {
            canvas->curve(kFirstOverlay + i).pen = overlaySeries[i]->pen();
            canvas->curve(kFirstOverlay + i).visible = overlaySeries[i]->isVisible();
        }
    }
};

HistogramChart::HistogramChart(QWidget* parent)
    : plot::RestyledWidget(parent)
    , d(std::make_unique<Impl>())
{
    d->owner = this;
    d->chart = plot::newChart(tr("Jitter histogram"));
    d->chart->legend()->setAlignment(Qt::AlignBottom);
    d->live = new QLineSeries;
    d->reference = new QLineSeries;
    d->reference->setName(tr("reference"));
    d->live->setName(tr("live"));
    // The reference goes in first so the live curve is drawn on top of it.
    d->chart->addSeries(d->reference);
    d->chart->addSeries(d->live);

    d->xLinear = plot::newDynamicAxis(QString());
    d->xLog = plot::newLogAxis(QString());
    setValueAxisName(tr("latency"));
    d->yLog = plot::newLogAxis(tr("count (log scale)"), "%.7g", 0);
    d->chart->addAxis(d->yLog, Qt::AlignLeft);
    d->live->attachAxis(d->yLog);
    d->reference->attachAxis(d->yLog);
    // The chart owns the x axis attached to it; the other one is parented to this widget.
    d->xLinear->setParent(this);
    d->xLog->setParent(this);
    d->attachX();

    d->view = plot::fillWithChartView(this, d->chart, 40, 14);
    // Every line here is horizontal or vertical (the step line, the markers) and drawn without antialiasing, which
    // would only blur them and is the most expensive part of a software-rendered frame.
    d->canvas = new plot::ChartCanvas(d->view, this);
    connect(d->chart, &QChart::plotAreaChanged, this, [this] { d->canvas->refresh(); });
    d->canvas->setClickHandler([this](QPointF value) { emit clicked(value.x()); });

    d->configureRanges();
    setRestyle([this] {
        const QPalette pal = palette();
        plot::styleChart(d->chart, pal, font(), {d->xLinear, d->xLog});
        const plot::ChartColors c = plot::chartColors(pal);
        d->live->setPen(plot::chartPen(c.live, 2.6));
        d->reference->setPen(plot::chartPen(c.reference, 3.2));
        for (QLineSeries* s : d->overlaySeries)
            d->styleOverlay(s, s->pen().color());
        d->copyPens();
        d->canvas->markers().setStyle(pal, plot::chartFont(font(), 1.0));
        d->canvas->refresh();
    });
    d->redraw(true);
    d->reference->setVisible(false);
    d->copyPens();
}

HistogramChart::~HistogramChart() = default;

void HistogramChart::setValueAxisName(const QString& quantity)
{
    d->xLinear->setTitleText(tr("%1 (µs)").arg(quantity));
    d->xLog->setTitleText(tr("%1 (µs, log scale)").arg(quantity));
}

QString HistogramChart::valueAxisTitle() const
{
    return d->logX ? d->xLog->titleText() : d->xLinear->titleText();
}

void HistogramChart::setLogLatencyAxis(bool log)
{
    if (log == d->logX)
        return;
    d->logX = log;
    d->attachX();
    d->configureRanges();
    d->redraw(true);
}

bool HistogramChart::logLatencyAxis() const
{
    return d->logX;
}

void HistogramChart::setLive(const HistogramCurve& curve, const std::vector<VerticalMarker>& markers)
{
    d->liveCurve = curve;
    // setName relays out the legend: only on a real change.
    if (d->live->name() != curve.name)
        d->live->setName(curve.name);
    d->canvas->markers().setMarkers(markers);
    d->redraw(false);
}

void HistogramChart::setReference(const HistogramCurve* curve)
{
    if (curve)
        d->refCurve = *curve;
    else
        d->refCurve.reset();
    d->reference->setVisible(curve != nullptr);
    d->copyPens();
    if (curve && d->reference->name() != curve->name)
        d->reference->setName(curve->name);
    // The bins may stay as they are; the frozen counts are recomputed for them once.
    d->refCounts = d->refCurve ? plot::rebin(d->refCurve->buckets, d->edges) : std::vector<uint64_t>{};
    d->canvas->curve(Impl::kReference).points =
        d->refCurve ? plot::stepPoints(d->edges, d->refCounts, plot::kCountFloor) : QList<QPointF>{};
    d->redraw(false);
}

void HistogramChart::clear()
{
    d->liveCurve = {};
    d->canvas->markers().setMarkers({});
    d->xRange.reset();
    d->yRange.reset();
    d->redraw(true);
}

void HistogramChart::setOverlays(const std::vector<HistogramOverlay>& overlays)
{
    while (d->overlaySeries.size() < overlays.size())
        d->addOverlaySeries();
    for (size_t i = 0; i < d->overlaySeries.size(); ++i) {
        QLineSeries* s = d->overlaySeries[i];
        const bool used = i < overlays.size();
        if (s->isVisible() != used)
            s->setVisible(used);
        if (!used)
            continue;
        // Name and pen relay out the legend: only on a real change.
        if (s->name() != overlays[i].curve.name)
            s->setName(overlays[i].curve.name);
        if (s->pen().color() != overlays[i].color)
            d->styleOverlay(s, overlays[i].color);
    }
    d->overlays = overlays;
    d->copyPens();
    d->rebinOverlays();
    d->redraw(false);
}

void HistogramChart::setLiveVisible(bool visible)
{
    d->live->setVisible(visible);
    d->copyPens();
    d->canvas->refresh();
}

void HistogramChart::setTitle(const QString& title)
{
    d->chart->setTitle(title);
}

int HistogramChart::overlayCount() const
{
    return int(d->overlays.size());
}

QList<QPointF> HistogramChart::overlayPoints(int index) const
{
    return index >= 0 && index < overlayCount() ? d->canvas->curve(Impl::kFirstOverlay + size_t(index)).points
                                                : QList<QPointF>{};
}

QString HistogramChart::overlayName(int index) const
{
    return index >= 0 && index < overlayCount() ? d->overlaySeries[size_t(index)]->name() : QString();
}

QList<QPointF> HistogramChart::livePoints() const
{
    return d->canvas->curve(Impl::kLive).points;
}
QList<QPointF> HistogramChart::referencePoints() const
{
    return d->canvas->curve(Impl::kReference).points;
}
double HistogramChart::latencyAxisMin() const
{
    return d->xRange.lower();
}
double HistogramChart::latencyAxisMax() const
{
    return d->xRange.upper();
}
double HistogramChart::countAxisMax() const
{
    return d->yRange.upper();
}
int HistogramChart::axisUpdates() const
{
    return d->axisUpdates;
}
int HistogramChart::visibleMarkers() const
{
    return d->canvas->markers().visibleCount();
}

QPoint HistogramChart::viewPosition(double latencyUs, double count) const
{
    return d->canvas->toPixel(QPointF(latencyUs, count)).toPoint();
}

QStringList HistogramChart::visibleMarkerLabels() const
{
    return d->canvas->markers().visibleLabels();
}
QList<double> HistogramChart::visibleMarkerLineX() const
{
    return d->canvas->markers().visibleLineX();
}
QWidget* HistogramChart::plotSurface() const
{
    return d->canvas;
}
QString HistogramChart::liveName() const
{
    return d->live->name();
}
QString HistogramChart::referenceName() const
{
    return d->reference->name();
}

} // namespace rtscope

#include "moc_histogram_chart.cpp"
