#include "ui/plot/starvation_chart.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_setup.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

namespace rtscope {

namespace {
// Counters in one hue family would blur together on a projector: distinct, colour-blind-safe hues.
const QColor kLightColors[] = {QColor(colors::kBlue800),       QColor(colors::kPurple800),  QColor(colors::kCyan800),
                               QColor(colors::kPink800),       QColor(colors::kBrown800),   QColor(colors::kIndigo800),
                               QColor(colors::kLightGreen800), QColor(colors::kBlueGrey800)};
const QColor kDarkColors[] = {QColor(colors::kBlue300),       QColor(colors::kPurple200),  QColor(colors::kCyan300),
                              QColor(colors::kPink200),       QColor(colors::kBrown200),   QColor(colors::kIndigo200),
                              QColor(colors::kLightGreen300), QColor(colors::kBlueGrey200)};
// Bands sit under the lines but over the plot background; Qt Charts draws series well above 1.
constexpr double kBandZ = 1;
constexpr double kLabelZ = 200;
constexpr double kMillion = 1e6;

struct Band {
    QGraphicsRectItem* rect = nullptr;
    QGraphicsRectItem* box = nullptr;
    QGraphicsSimpleTextItem* text = nullptr;
};
} // namespace

struct StarvationChart::Impl : plot::ChartAndView {
    QValueAxis* x = nullptr;
    QValueAxis* y = nullptr;
    std::vector<QLineSeries*> series;
    double yUpper = 1e6; ///< ops/s
    StarvationChartData data;
    std::vector<Band> burstItems;
    std::vector<Band> windowItems;
    int visibleBursts = 0;
    int visibleWindows = 0;
    QPalette palette;
    QFont font;

    Band makeBand()
    {
        Band b;
        b.rect = new QGraphicsRectItem(chart);
        b.rect->setZValue(kBandZ);
        b.box = new QGraphicsRectItem(chart);
        b.box->setZValue(kLabelZ);
        b.text = new QGraphicsSimpleTextItem(b.box);
        return b;
    }

    QColor burstColor() const
    {
        return plot::isDarkPalette(palette) ? QColor(colors::kRed400) : QColor(colors::kRed700);
    }
    QColor windowColor() const
    {
        return plot::isDarkPalette(palette) ? QColor(colors::kAmber300) : QColor(colors::kAmberGold);
    }

    void applyX()
    {
        const double span = std::max(1e-3, data.xMax - data.xMin);
        if (x->min() == data.xMin && x->max() == data.xMax)
            return;
        const double interval = plot::niceTickInterval(span, 8);
        plot::setTickedRange(x, data.xMin, data.xMax, interval, interval < 1 ? "%.1f" : "%.0f");
    }

    void applyY()
    {
        // The axis is in millions of operations per second: "300" reads better from the back row than "3e+08".
        const double upper = yUpper / kMillion;
        plot::setTickedRange(y, 0, upper, plot::niceTickInterval(upper, 5), upper >= 20 ? "%.0f" : "%.1f");
    }

    void placeBands(const std::vector<TimeBand>& bands, std::vector<Band>& items, const QColor& color, bool window,
                    int& visible)
    {
        while (items.size() < bands.size())
            items.push_back(makeBand());
        const QRectF area = chart->plotArea();
        const double lo = x->min(), hi = x->max();
        const QFontMetricsF fm(font);
        visible = 0;
        for (size_t i = 0; i < items.size(); ++i) {
            Band& it = items[i];
            bool shown = i < bands.size() && area.width() > 0 && hi > lo;
            double left = 0, right = 0;
            if (shown) {
                const TimeBand& b = bands[i];
                left = area.left() + (std::max(b.t0, lo) - lo) / (hi - lo) * area.width();
                right = area.left() + (std::min(b.t1, hi) - lo) / (hi - lo) * area.width();
                shown = b.t1 > lo && b.t0 < hi;
                // A 50 ms window on a 30 s axis is less than a pixel: keep it visible.
                if (window && right - left < 3) {
                    const double mid = (left + right) / 2;
                    left = mid - 1.5;
                    right = mid + 1.5;
                }
            }
            it.rect->setVisible(shown);
            it.box->setVisible(shown && !bands[i].label.isEmpty());
            if (!shown)
                continue;
            ++visible;
            QColor fill = color;
            fill.setAlphaF(window ? 0.55f : 0.13f);
            it.rect->setBrush(fill);
            it.rect->setPen(window ? QPen(color, plot::lineWidth(1.5)) : Qt::NoPen);
            it.rect->setRect(left, area.top(), right - left, area.height());

            const QString& label = bands[i].label;
            it.text->setFont(font);
            it.text->setText(label);
            const double w = fm.horizontalAdvance(label) + 10;
            const double h = fm.height() + 4;
            double bx = window ? right + 4 : left + 4;
            bx = std::max(area.left() + 1, std::min(bx, area.right() - w - 1));
            // Burst labels along the top, window labels below them so both stay readable.
            const double by = window ? area.top() + 6 + h * 1.3 : area.top() + 4;
            QColor boxFill = window ? color : plot::chartColors(palette).markerBackground;
            it.box->setBrush(boxFill);
            it.box->setPen(window ? Qt::NoPen : QPen(color, plot::lineWidth(1.2)));
            it.box->setRect(0, 0, w, h);
            it.box->setPos(bx, by);
            it.text->setBrush(window ? QColor(Qt::black) : color);
            it.text->setPos(5, 2);
        }
    }

    void relayoutBands()
    {
        placeBands(data.bursts, burstItems, burstColor(), false, visibleBursts);
        placeBands(data.windows, windowItems, windowColor(), true, visibleWindows);
    }

    void restyleLines()
    {
        const bool dark = plot::isDarkPalette(palette);
        for (size_t i = 0; i < series.size(); ++i) {
            const bool control = i < data.lines.size() && data.lines[i].control;
            QColor c = control ? plot::chartColors(palette).reference
                               : (dark ? kDarkColors : kLightColors)[i % std::size(kLightColors)];
            series[i]->setPen(plot::chartPen(c, 2.6, control ? Qt::DashLine : Qt::SolidLine));
        }
    }

    void redraw()
    {
        const int columns = std::max(50, int(chart->plotArea().width()));
        double yMax = 0;
        for (size_t i = 0; i < series.size(); ++i) {
            if (i >= data.lines.size()) {
                series[i]->clear();
                series[i]->setVisible(false);
                continue;
            }
            const RateLine& line = data.lines[i];
            series[i]->setName(line.name);
            series[i]->setVisible(true);
            QList<QPointF> pts;
            if (line.points.size() > 2 * columns) {
                std::vector<TimelinePoint> raw;
                raw.reserve(size_t(line.points.size()));
                for (const QPointF& p : line.points)
                    raw.push_back({p.x(), p.y(), p.y()});
                pts = plot::envelopePoints(plot::decimateColumns(raw, data.xMin, data.xMax, columns), -1e300);
            } else {
                pts = line.points;
            }
            for (QPointF& p : pts) {
                if (p.x() >= data.xMin && p.x() <= data.xMax)
                    yMax = std::max(yMax, p.y());
                p.setY(p.y() / kMillion);
            }
            series[i]->replace(pts);
        }
        plot::hideLegendOfHiddenSeries(chart);
        applyX();
        // A whole number of nice ticks above the data: the 1-2-5 ladder alone would leave half the plot empty.
        const double tick = plot::niceTickInterval(std::max(yMax, 1e6) * 1.08, 5);
        const double target = tick * std::ceil(std::max(yMax, 1e6) * 1.08 / tick);
        // Grow at once; shrink only when the data fell well below, so a live axis does not twitch.
        if (target > yUpper || target < yUpper * 0.6) {
            yUpper = target;
            applyY();
        }
        relayoutBands();
    }
};

StarvationChart::StarvationChart(QWidget* parent)
    : plot::RestyledWidget(parent)
    , d(std::make_unique<Impl>())
{
    d->chart = plot::newChart(tr("Progress of the counter threads"));
    d->chart->legend()->setAlignment(Qt::AlignBottom);

    d->x = plot::newDynamicAxis(tr("time since start (s)"));
    d->chart->addAxis(d->x, Qt::AlignBottom);
    d->y = plot::newDynamicAxis(tr("progress (million ops/s, 50 ms avg)"));
    d->chart->addAxis(d->y, Qt::AlignLeft);
    for (int i = 0; i < kMaxLines; ++i) {
        auto* s = new QLineSeries;
        plot::addSeries(d->chart, s);
        s->setVisible(false);
        d->series.push_back(s);
    }

    d->view = plot::fillWithChartView(this, d->chart, 50, 16);
    d->view->setRenderHint(QPainter::Antialiasing);
    connect(d->chart, &QChart::plotAreaChanged, this, [this] { d->redraw(); });

    setRestyle([this] {
        d->palette = palette();
        d->font = plot::labelFont(font(), 1.05, true);
        plot::styleChart(d->chart, d->palette, font());
        d->restyleLines();
        d->relayoutBands();
    });
    d->applyY();
    d->redraw();
}

StarvationChart::~StarvationChart() = default;

void StarvationChart::setData(const StarvationChartData& data)
{
    const bool restyle = data.lines.size() != d->data.lines.size();
    d->data = data;
    if (d->data.lines.size() > size_t(kMaxLines))
        d->data.lines.resize(size_t(kMaxLines));
    if (restyle)
        d->restyleLines();
    d->redraw();
}

void StarvationChart::clear()
{
    d->data = {};
    d->yUpper = 1e6;
    d->applyY();
    d->redraw();
}

int StarvationChart::lineCount() const
{
    return int(d->data.lines.size());
}
QList<QPointF> StarvationChart::linePoints(int line) const
{
    return line >= 0 && line < int(d->series.size()) ? d->series[size_t(line)]->points() : QList<QPointF>();
}
int StarvationChart::visibleBursts() const
{
    return d->visibleBursts;
}
int StarvationChart::visibleWindows() const
{
    return d->visibleWindows;
}
QStringList StarvationChart::windowLabels() const
{
    QStringList out;
    for (const TimeBand& b : d->data.windows)
        out << b.label;
    return out;
}
double StarvationChart::xAxisMin() const
{
    return d->x->min();
}
double StarvationChart::xAxisMax() const
{
    return d->x->max();
}
double StarvationChart::yAxisMax() const
{
    return d->y->max() * kMillion;
}

} // namespace rtscope

#include "moc_starvation_chart.cpp"
