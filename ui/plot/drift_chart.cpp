#include "ui/plot/drift_chart.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_setup.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
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
#include <limits>

namespace rtscope {

namespace {
// The lowest |drift| a log axis shows: an absolute timer can land on its deadline to the nanosecond.
constexpr double kLogFloorUs = 0.1;

QColor curveColor(int index, bool relative, bool dark)
{
    if (relative)
        return dark ? QColor(colors::kRedSoft) : QColor(colors::kRed800);
    // Cool, distinct hues for the absolute methods, so the one warm line is the naive loop.
    static const QColor light[] = {QColor(colors::kBlue800), QColor(colors::kGreen800),    QColor(colors::kPurple700),
                                   QColor(colors::kCyan800), QColor(colors::kBlueGrey700), QColor(colors::kBrown600)};
    static const QColor darkSet[] = {QColor(colors::kBlue300), QColor(colors::kGreen300),    QColor(colors::kPurple200),
                                     QColor(colors::kCyan300), QColor(colors::kBlueGrey200), QColor(colors::kBrown200)};
    return dark ? darkSet[index % 6] : light[index % 6];
}
} // namespace

struct DriftChart::Impl : plot::ChartAndView {
    DriftChart* owner = nullptr;
    std::vector<QLineSeries*> series;
    QValueAxis* x = nullptr;
    QValueAxis* yLinear = nullptr;
    QLogValueAxis* yLog = nullptr;
    bool logY = false;
    bool zoomed = false;
    bool applying = false; ///< our own axis changes, as opposed to the user's rubber band
    std::vector<DriftCurve> curves;
    std::shared_ptr<const void> keepAlive;
    int64_t totalTicks = 2;
    int columns = 0;

    QAbstractAxis* y() const { return logY ? static_cast<QAbstractAxis*>(yLog) : yLinear; }

    void attachY()
    {
        plot::swapAxis(chart, logY ? static_cast<QAbstractAxis*>(yLinear) : yLog, y(), Qt::AlignLeft, owner);
    }

    void ensureSeries(size_t n)
    {
        while (series.size() < n) {
            auto* s = new QLineSeries;
            plot::addSeries(chart, s);
            series.push_back(s);
        }
        for (size_t i = 0; i < series.size(); ++i) {
            series[i]->setVisible(i < n);
            if (auto markers = chart->legend()->markers(series[i]); !markers.isEmpty())
                markers.front()->setVisible(i < n);
        }
    }

    void style()
    {
        const bool dark = plot::isDarkPalette(owner->palette());
        int absolute = 0;
        for (size_t i = 0; i < series.size() && i < curves.size(); ++i) {
            const bool rel = curves[i].relative;
            series[i]->setPen(plot::chartPen(curveColor(rel ? 0 : absolute++, rel, dark), rel ? 3.5 : 2.5));
        }
    }

    double value(const DriftTick& t) const
    {
        const double us = double(t.driftNs) / 1e3;
        return logY ? std::max(std::abs(us), kLogFloorUs) : us;
    }

    void setXRange(double lo, double hi)
    {
        applying = true;
        plot::setTickedRange(x, lo, hi, std::max(1.0, plot::niceTickInterval(hi - lo, 8)), "%.0f");
        applying = false;
    }

    void applyYRange(double lo, double hi)
    {
        applying = true;
        if (logY) {
            const double l = plot::decadeFloor(std::max(lo, kLogFloorUs));
            const double h = std::max(plot::decadeCeil(std::max(hi, 1.0)), l * 10);
            if (yLog->min() != l || yLog->max() != h)
                yLog->setRange(l, h);
        } else {
            const double span = std::max(hi - lo, 10.0);
            const double step = plot::niceTickInterval(span, 6);
            // A little headroom, so the highest line never runs along the frame.
            const double l = std::floor((std::min(lo, 0.0) - 0.04 * span) / step) * step;
            const double h = std::ceil((std::max(hi, 0.0) + 0.04 * span) / step) * step;
            plot::setTickedRange(yLinear, l, h, step, step >= 1 ? "%.0f" : "%.1f");
        }
        applying = false;
    }

    void redraw()
    {
        ensureSeries(curves.size());
        style();
        if (!zoomed)
            setXRange(0, double(std::max<int64_t>(totalTicks, 2)));
        const double x0 = x->min(), x1 = x->max();
        columns = std::max(50, int(chart->plotArea().width()));
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (size_t i = 0; i < curves.size(); ++i) {
            const std::span<const DriftTick> ticks = curves[i].ticks;
            // Ticks are in ascending order: find the visible stretch, plus one neighbour each side so the line
            // runs to the plot's edges when zoomed.
            auto first = std::partition_point(ticks.begin(), ticks.end(),
                                              [x0](const DriftTick& t) { return double(t.tick) < x0; });
            auto last =
                std::partition_point(first, ticks.end(), [x1](const DriftTick& t) { return double(t.tick) <= x1; });
            if (first != ticks.begin())
                --first;
            if (last != ticks.end())
                ++last;
            const size_t n = size_t(last - first);
            QList<QPointF> points;
            if (n <= size_t(2 * columns)) {
                points.reserve(qsizetype(n));
                for (auto it = first; it != last; ++it)
                    points.append(QPointF(double(it->tick), value(*it)));
            } else {
                std::vector<TimelinePoint> cols;
                const double width = (x1 - x0) / columns;
                int current = std::numeric_limits<int>::min();
                for (auto it = first; it != last; ++it) {
                    const int c = int(std::floor((double(it->tick) - x0) / width));
                    const double v = value(*it);
                    if (c != current) {
                        cols.push_back({x0 + (c + 0.5) * width, v, v});
                        current = c;
                    } else {
                        cols.back().minUs = std::min(cols.back().minUs, v);
                        cols.back().maxUs = std::max(cols.back().maxUs, v);
                    }
                }
                points = plot::envelopePoints(cols, logY ? kLogFloorUs : -1e300);
            }
            for (const QPointF& p : points)
                if (p.x() >= x0 && p.x() <= x1) {
                    lo = std::min(lo, p.y());
                    hi = std::max(hi, p.y());
                }
            series[i]->setName(curves[i].name);
            series[i]->replace(points);
        }
        // Only the tick axis zooms; the drift axis always fits what is visible.
        if (!std::isfinite(lo)) {
            lo = logY ? 1 : -10;
            hi = logY ? 1000 : 10;
        }
        applyYRange(lo, hi);
    }
};

DriftChart::DriftChart(QWidget* parent)
    : plot::RestyledWidget(parent)
    , d(std::make_unique<Impl>())
{
    d->owner = this;
    d->chart = plot::newChart(tr("Cumulative drift: actual wake-up − (t0 + k·P)"), QMargins(4, 4, 12, 4));
    d->chart->legend()->setAlignment(Qt::AlignTop);

    d->x = new QValueAxis;
    d->x->setLabelFormat("%.0f");
    d->x->setTitleText(tr("tick k"));
    d->chart->addAxis(d->x, Qt::AlignBottom);
    d->yLinear = new QValueAxis;
    d->yLinear->setTitleText(tr("drift (µs)"));
    d->yLog = plot::newLogAxis(tr("|drift| (µs, log scale)"), "%g");
    d->yLinear->setParent(this);
    d->yLog->setParent(this);
    d->attachY();

    d->view = plot::fillWithChartView(this, d->chart, 50, 16);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->view->setRubberBand(QChartView::HorizontalRubberBand);
    d->view->setToolTip(tr("Drag across to zoom into a stretch of ticks; right-click to zoom out"));

    connect(d->x, &QValueAxis::rangeChanged, this, [this] {
        if (d->applying)
            return;
        // The user's rubber band (or right-click) moved the tick axis: decimate again for the new stretch.
        d->zoomed = true;
        d->redraw();
    });
    connect(d->chart, &QChart::plotAreaChanged, this, [this] { d->redraw(); });
    setRestyle([this] {
        const QPalette pal = palette();
        plot::styleChart(d->chart, pal, font(), {d->yLinear, d->yLog});
        d->style();
    });
    d->redraw();
}

DriftChart::~DriftChart() = default;

void DriftChart::setCurves(std::vector<DriftCurve> curves, std::shared_ptr<const void> keepAlive, int64_t totalTicks)
{
    d->curves = std::move(curves);
    if (d->curves.size() > size_t(kMaxCurves))
        d->curves.resize(kMaxCurves);
    d->keepAlive = std::move(keepAlive);
    d->totalTicks = totalTicks;
    d->redraw();
}

void DriftChart::clear()
{
    setCurves({}, nullptr, 2);
}

void DriftChart::setLogScale(bool log)
{
    if (log == d->logY)
        return;
    d->logY = log;
    d->attachY();
    d->zoomed = false;
    d->redraw();
}

bool DriftChart::logScale() const
{
    return d->logY;
}

void DriftChart::resetZoom()
{
    d->zoomed = false;
    d->redraw();
}

bool DriftChart::zoomed() const
{
    return d->zoomed;
}

void DriftChart::zoomTicks(double first, double last)
{
    d->zoomed = true;
    d->setXRange(first, last);
    d->redraw();
}

int DriftChart::curveCount() const
{
    return int(d->curves.size());
}

QString DriftChart::curveName(int curve) const
{
    return d->series.at(size_t(curve))->name();
}

QList<QPointF> DriftChart::curvePoints(int curve) const
{
    return d->series.at(size_t(curve))->points();
}

double DriftChart::tickAxisMin() const
{
    return d->x->min();
}

double DriftChart::tickAxisMax() const
{
    return d->x->max();
}

double DriftChart::driftAxisMin() const
{
    return d->logY ? d->yLog->min() : d->yLinear->min();
}

double DriftChart::driftAxisMax() const
{
    return d->logY ? d->yLog->max() : d->yLinear->max();
}

int DriftChart::columns() const
{
    return d->columns;
}

} // namespace rtscope

#include "moc_drift_chart.cpp"
