#include "ui/plot/sweep_chart.h"

#include "ui/plot/axis_auto_range.h"
#include "ui/plot/chart_setup.h"
#include "ui/plot/chart_style.h"

#include <QEvent>
#include <QGraphicsSimpleTextItem>
#include <QVBoxLayout>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>

#include <algorithm>
#include <array>
#include <cmath>

namespace rtscope {

namespace {

constexpr std::array<MarkerRole, 4> kRoles = {MarkerRole::Median, MarkerRole::P99, MarkerRole::P999, MarkerRole::Max};

double value(const SweepChartPoint& p, MarkerRole role)
{
    switch (role) {
    case MarkerRole::Median:
        return p.p50Us;
    case MarkerRole::P99:
        return p.p99Us;
    case MarkerRole::P999:
        return p.p999Us;
    default:
        return p.maxUs;
    }
}

QString roleName(MarkerRole role)
{
    switch (role) {
    case MarkerRole::Median:
        return QObject::tr("p50");
    case MarkerRole::P99:
        return QObject::tr("p99");
    case MarkerRole::P999:
        return QObject::tr("p99.9");
    default:
        return QObject::tr("max");
    }
}

// On a log axis, latencies below the lowest tick are drawn at it rather than vanish.
constexpr double kLowestUs = 0.1;

} // namespace

struct SweepChart::Impl : plot::ChartAndView {
    QCategoryAxis* x = nullptr;
    QLogValueAxis* y = nullptr;
    plot::AxisAutoRange yRange{plot::AxisAutoRange::Scale::Log};
    /// Per percentile, one line per run of neighbouring finished settings; the first carries the legend entry.
    std::array<std::vector<QLineSeries*>, 4> segments;
    std::vector<QGraphicsSimpleTextItem*> failed;
    std::vector<SweepChartPoint> points;
    QStringList labels;
    QPalette palette;
    QFont font;

    QLineSeries* segment(size_t role, size_t k)
    {
        auto& pool = segments[role];
        while (pool.size() <= k) {
            auto* s = new QLineSeries;
            s->setName(roleName(kRoles[role]));
            s->setPointsVisible(true);
            plot::addSeries(chart, s);
            style(s, kRoles[role]);
            pool.push_back(s);
        }
        return pool[k];
    }

    void style(QLineSeries* s, MarkerRole role) const
    {
        const QPen pen = plot::chartPen(plot::markerColor(role, palette), role == MarkerRole::Max ? 3.0 : 2.6,
                                        role == MarkerRole::Median ? Qt::DashLine : Qt::SolidLine);
        s->setPen(pen);
        s->setBrush(pen.color());
        s->setMarkerSize(plot::lineWidth(9)); // the points grow with the lines, or thick lines would hide them
    }

    void updateCategories()
    {
        QStringList next;
        for (const SweepChartPoint& p : points) {
            QString label = p.label;
            if (p.state == SweepChartPoint::State::Running)
                label = QString::fromUtf8("\u25b6 ") + label;
            else if (p.state == SweepChartPoint::State::Failed)
                label += QString::fromUtf8(" \u2717");
            // Category labels must be unique: a setting listed twice gets its position.
            while (next.contains(label))
                label += QStringLiteral(" ·");
            next << label;
        }
        if (next == labels)
            return;
        labels = next;
        for (const QString& old : x->categoriesLabels())
            x->remove(old);
        x->setStartValue(-0.5);
        for (int i = 0; i < labels.size(); ++i)
            x->append(labels[i], i + 0.5);
        x->setRange(-0.5, std::max<double>(0.5, double(labels.size()) - 0.5));
    }

    void updateSeries()
    {
        double lo = 0, hi = 0;
        bool any = false;
        for (size_t r = 0; r < kRoles.size(); ++r) {
            size_t k = 0;
            QList<QPointF> run;
            auto flush = [&] {
                if (run.isEmpty())
                    return;
                segment(r, k++)->replace(run);
                run.clear();
            };
            for (size_t i = 0; i < points.size(); ++i) {
                if (points[i].state != SweepChartPoint::State::Done) {
                    flush();
                    continue;
                }
                const double v = std::max(value(points[i], kRoles[r]), kLowestUs);
                run << QPointF(double(i), v);
                lo = any ? std::min(lo, v) : v;
                hi = any ? std::max(hi, v) : v;
                any = true;
            }
            flush();
            // The first series keeps the legend entry even while empty; the rest are hidden when unused.
            segment(r, 0);
            if (k == 0)
                segments[r][0]->clear();
            for (size_t j = 0; j < segments[r].size(); ++j) {
                QLineSeries* s = segments[r][j];
                if (j >= std::max<size_t>(k, 1))
                    s->clear();
                for (QLegendMarker* m : chart->legend()->markers(s))
                    m->setVisible(j == 0);
            }
        }
        if (yRange.update(any ? lo : 1.0, any ? hi : 100.0))
            y->setRange(yRange.lower(), yRange.upper());
    }

    void placeFailedLabels()
    {
        size_t used = 0;
        const double mid = std::sqrt(yRange.lower() * yRange.upper());
        QLineSeries* anchor = segments[0].empty() ? nullptr : segments[0][0];
        for (size_t i = 0; i < points.size() && anchor; ++i) {
            if (points[i].state != SweepChartPoint::State::Failed)
                continue;
            if (failed.size() <= used) {
                auto* item = new QGraphicsSimpleTextItem(chart);
                item->setZValue(20);
                failed.push_back(item);
            }
            QGraphicsSimpleTextItem* item = failed[used++];
            item->setFont(plot::labelFont(font, 1.15, true));
            item->setBrush(plot::markerColor(MarkerRole::P999, palette));
            item->setText(QObject::tr("failed"));
            const QPointF at = chart->mapToPosition(QPointF(double(i), mid), anchor);
            const QRectF box = item->boundingRect();
            item->setPos(at.x() - box.width() / 2, at.y() - box.height() / 2);
            item->setVisible(true);
        }
        for (size_t j = used; j < failed.size(); ++j)
            failed[j]->setVisible(false);
    }
};

SweepChart::SweepChart(QWidget* parent)
    : plot::RestyledWidget(parent)
    , d(std::make_unique<Impl>())
{
    d->chart = plot::newChart(tr("Latency against the setting"));
    d->chart->legend()->setAlignment(Qt::AlignBottom);
    d->x = new QCategoryAxis;
    d->x->setTitleText(tr("setting, in the order run"));
    d->x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
    d->x->setGridLineVisible(false);
    d->y = plot::newLogAxis(tr("latency (µs, log scale)"));
    d->chart->addAxis(d->x, Qt::AlignBottom);
    d->chart->addAxis(d->y, Qt::AlignLeft);
    d->yRange.setLowestLower(kLowestUs);
    d->yRange.setMinimumUpper(10);
    d->view = plot::fillWithChartView(this, d->chart, 40, 14);
    d->view->setRenderHint(QPainter::Antialiasing, true);
    connect(d->chart, &QChart::plotAreaChanged, this, [this] { d->placeFailedLabels(); });
    for (size_t r = 0; r < kRoles.size(); ++r)
        d->segment(r, 0);
    setRestyle([this] {
        d->palette = palette();
        d->font = font();
        plot::styleChart(d->chart, d->palette, d->font);
        for (size_t r = 0; r < kRoles.size(); ++r)
            for (QLineSeries* s : d->segments[r])
                d->style(s, kRoles[r]);
        d->placeFailedLabels();
    });
    setPoints({});
}

SweepChart::~SweepChart() = default;

void SweepChart::setPoints(const std::vector<SweepChartPoint>& points)
{
    d->points = points;
    d->updateCategories();
    d->updateSeries();
    d->placeFailedLabels();
}

QStringList SweepChart::categoryLabels() const
{
    return d->labels;
}

QList<QPointF> SweepChart::points(MarkerRole role) const
{
    const auto it = std::find(kRoles.begin(), kRoles.end(), role);
    if (it == kRoles.end())
        return {};
    QList<QPointF> out;
    for (QLineSeries* s : d->segments[size_t(it - kRoles.begin())])
        out << s->points();
    return out;
}

int SweepChart::failedLabels() const
{
    return int(std::count_if(d->failed.begin(), d->failed.end(), [](auto* item) { return item->isVisible(); }));
}

double SweepChart::latencyAxisMin() const
{
    return d->yRange.lower();
}

double SweepChart::latencyAxisMax() const
{
    return d->yRange.upper();
}

} // namespace rtscope

#include "moc_sweep_chart.cpp"
