#include "ui/plot/contention_chart.h"

#include "ui/common/colors.h"
#include "ui/plot/axis_auto_range.h"
#include "ui/plot/chart_setup.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QGridLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>

#include <algorithm>

namespace rtscope {

namespace {

constexpr int kBinsPerDecade = 20;
// The throughput axis counts thousands: "674" reads better than "674200" from the back of a room.
constexpr double kRateScale = 1e3;

QChartView* makeView(QChart* chart, QWidget* parent)
{
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing, false);
    return view;
}

// The text items written on the bars: a pool that grows, hidden when unused.
struct BarLabels {
    std::vector<QGraphicsSimpleTextItem*> items;
    QFont font;

    QGraphicsSimpleTextItem* at(QChart* chart, size_t i)
    {
        while (items.size() <= i) {
            auto* item = new QGraphicsSimpleTextItem(chart);
            item->setZValue(20);
            item->setFont(font);
            items.push_back(item);
        }
        return items[i];
    }
    void setFont(const QFont& f)
    {
        font = f;
        for (QGraphicsSimpleTextItem* item : items)
            item->setFont(f);
    }
    void hideFrom(size_t n)
    {
        for (size_t i = n; i < items.size(); ++i)
            items[i]->hide();
    }
    /// The texts of the first @p n items, last first: the top bar's label first, as the page lists the kinds.
    QStringList topFirst(size_t n) const
    {
        QStringList out;
        for (size_t j = n; j-- > 0;)
            out << items[j]->text();
        return out;
    }
};

/// One of the bar charts: horizontal stacked bars, one a kind, named on the left, their figure along the bottom and
/// written beside each bar.
struct BarPanel {
    QChart* chart = nullptr;
    QHorizontalStackedBarSeries* series = nullptr;
    QBarCategoryAxis* categories = nullptr;
    QValueAxis* axis = nullptr;
    BarLabels labels;

    /// Puts the series, bars 0.7 wide, on the chart over the categories on the left and the axis (about five ticks)
    /// along the bottom.
    void setUp()
    {
        series->setBarWidth(0.7);
        axis->setLabelFormat("%g");
        axis->setTickCount(5);
        chart->addAxis(categories, Qt::AlignLeft);
        chart->addAxis(axis, Qt::AlignBottom);
        plot::addSeries(chart, series);
    }
};

// Writes @p text at the end of a bar from 0 to @p value at category @p y: right of it when the plot has room,
// else inside its end in @p inside (so the longest bar's label is never clipped).
void placeLabel(QChart* chart, QAbstractSeries* series, QGraphicsSimpleTextItem* item, double value, double y,
                const QString& text, const QColor& outside, const QColor& inside)
{
    item->setText(text);
    const QRectF plot = chart->plotArea();
    const QPointF end = chart->mapToPosition(QPointF(value, y), series);
    const QRectF box = item->boundingRect();
    const double pad = 6;
    double x = end.x() + pad;
    QColor color = outside;
    if (x + box.width() > plot.right()) {
        x = std::max(plot.left() + pad, end.x() - pad - box.width());
        color = inside;
    }
    item->setBrush(color);
    item->setPos(x, end.y() - box.height() / 2);
    item->show();
}
// "2.7 + 6.0": voluntary + involuntary, in the order of the stacked parts; a kind not measured yet says so
// rather than showing zeros it never counted.
QString switchLabel(const ContentionBar& b)
{
    if (!b.measured)
        return b.label;
    return QString("%1 + %2").arg(b.voluntaryPer1k, 0, 'f', 1).arg(b.involuntaryPer1k, 0, 'f', 1);
}
} // namespace

QColor lockKindColor(int colorIndex, const QPalette& palette)
{
    // Red, blue, green, purple, orange, grey: apart in hue and in lightness.
    static const QColor light[] = {QColor(colors::kRed800),    QColor(colors::kBlue800),   QColor(colors::kGreen800),
                                   QColor(colors::kPurple700), QColor(colors::kOrange800), QColor(colors::kGrey700)};
    static const QColor dark[] = {QColor(colors::kRed400),    QColor(colors::kBlue300),   QColor(colors::kGreen300),
                                  QColor(colors::kPurple200), QColor(colors::kOrange300), QColor(colors::kGrey400)};
    const int i = std::clamp(colorIndex, 0, ContentionChart::kMaxKinds - 1);
    return plot::isDarkPalette(palette) ? dark[i] : light[i];
}

struct ContentionChart::Impl {
    ContentionChart* owner = nullptr;
    ContentionChartData data;

    BarPanel rate;
    std::vector<QBarSet*> rateSets; ///< one per colour: a stacked series gives each kind its own colour

    BarPanel switches;
    QBarSet* voluntary = nullptr;
    QBarSet* involuntary = nullptr;

    QChart* waitChart = nullptr;
    QLogValueAxis* waitX = nullptr;
    QLogValueAxis* waitY = nullptr;
    std::vector<QLineSeries*> waitSeries;
    plot::AxisAutoRange xRange{plot::AxisAutoRange::Scale::Log};
    plot::AxisAutoRange yRange{plot::AxisAutoRange::Scale::Log};

    QStringList categories; ///< bottom to top, as the bar axis has them

    void setCategories(const QStringList& names)
    {
        if (names == categories)
            return;
        categories = names;
        rate.categories->clear();
        rate.categories->append(names);
        switches.categories->clear();
        switches.categories->append(names);
    }

    static void setValues(QBarSet* set, const QList<qreal>& values)
    {
        if (set->count() != values.size()) {
            set->remove(0, set->count());
            set->append(values);
            return;
        }
        for (int i = 0; i < values.size(); ++i)
            if (set->at(i) != values[i])
                set->replace(i, values[i]);
    }

    void updateBars()
    {
        const int n = int(data.bars.size());
        QStringList names;
        double maxRate = 0, maxSwitch = 0;
        // Category 0 is the bottom row: the bars arrive top first.
        for (int j = 0; j < n; ++j) {
            const ContentionBar& b = data.bars[size_t(n - 1 - j)];
            names << b.name;
            maxRate = std::max(maxRate, b.acquisitionsPerSec / kRateScale);
            maxSwitch = std::max(maxSwitch, b.voluntaryPer1k + b.involuntaryPer1k);
        }
        setCategories(names);
        for (int c = 0; c < kMaxKinds; ++c) {
            QList<qreal> values(n, 0.0);
            for (int j = 0; j < n; ++j) {
                const ContentionBar& b = data.bars[size_t(n - 1 - j)];
                if (std::clamp(b.colorIndex, 0, kMaxKinds - 1) == c)
                    values[j] = b.acquisitionsPerSec / kRateScale;
            }
            setValues(rateSets[size_t(c)], values);
        }
        QList<qreal> vol(n), invol(n);
        for (int j = 0; j < n; ++j) {
            vol[j] = data.bars[size_t(n - 1 - j)].voluntaryPer1k;
            invol[j] = data.bars[size_t(n - 1 - j)].involuntaryPer1k;
        }
        setValues(voluntary, vol);
        setValues(involuntary, invol);
        const double rateTop = plot::niceCeil(std::max(maxRate * 1.05, 1.0));
        if (rate.axis->max() != rateTop)
            rate.axis->setRange(0, rateTop);
        const double switchTop = plot::niceCeil(std::max(maxSwitch * 1.05, 1.0));
        if (switches.axis->max() != switchTop)
            switches.axis->setRange(0, switchTop);
        relayoutLabels();
    }

    void relayoutLabels()
    {
        const QPalette pal = owner->palette();
        const QColor text = pal.color(QPalette::Text);
        const int n = int(data.bars.size());
        for (int j = 0; j < n; ++j) {
            const ContentionBar& b = data.bars[size_t(n - 1 - j)];
            placeLabel(rate.chart, rate.series, rate.labels.at(rate.chart, size_t(j)),
                       b.acquisitionsPerSec / kRateScale, j, b.label, text, Qt::white);
        }
        rate.labels.hideFrom(size_t(n));
        for (int j = 0; j < n; ++j) {
            const ContentionBar& b = data.bars[size_t(n - 1 - j)];
            placeLabel(switches.chart, switches.series, switches.labels.at(switches.chart, size_t(j)),
                       b.voluntaryPer1k + b.involuntaryPer1k, j, switchLabel(b), text, Qt::white);
        }
        switches.labels.hideFrom(size_t(n));
    }

    void updateWaits()
    {
        while (waitSeries.size() < data.waits.size()) {
            auto* s = new QLineSeries;
            plot::addSeries(waitChart, s);
            waitSeries.push_back(s);
        }
        plot::BucketExtent e;
        for (const ContentionWaitCurve& w : data.waits)
            e.add(w.curve);
        if (xRange.update(e.any ? e.min : 0.1, e.any ? e.max : 10))
            waitX->setRange(xRange.lower(), xRange.upper());
        const std::vector<double> edges = plot::logEdges(xRange.lower(), xRange.upper(), kBinsPerDecade);
        uint64_t maxCount = 1;
        std::vector<std::vector<uint64_t>> counts;
        for (const ContentionWaitCurve& w : data.waits) {
            counts.push_back(plot::rebin(w.curve.buckets, edges));
            for (uint64_t c : counts.back())
                maxCount = std::max(maxCount, c);
        }
        if (yRange.update(plot::kCountFloor, double(maxCount)))
            waitY->setRange(yRange.lower(), yRange.upper());
        const QPalette pal = owner->palette();
        for (size_t i = 0; i < waitSeries.size(); ++i) {
            QLineSeries* s = waitSeries[i];
            if (i >= data.waits.size()) {
                s->setVisible(false);
                s->clear();
                continue;
            }
            const ContentionWaitCurve& w = data.waits[i];
            if (s->name() != w.curve.name)
                s->setName(w.curve.name);
            const QPen pen = plot::chartPen(lockKindColor(w.colorIndex, pal), 2.6);
            if (s->pen() != pen)
                s->setPen(pen);
            s->replace(plot::stepPoints(edges, counts[i], plot::kCountFloor));
            s->setVisible(true);
        }
        plot::hideLegendOfHiddenSeries(waitChart);
    }

    void restyle()
    {
        const QPalette pal = owner->palette();
        const QFont font = owner->font();
        for (QChart* c : {rate.chart, switches.chart, waitChart})
            plot::styleChart(c, pal, font);
        for (size_t c = 0; c < rateSets.size(); ++c) {
            const QColor color = lockKindColor(int(c), pal);
            rateSets[c]->setColor(color);
            rateSets[c]->setBorderColor(color);
        }
        const plot::ChartColors colors = plot::chartColors(pal);
        voluntary->setColor(colors.live);
        voluntary->setBorderColor(colors.live);
        involuntary->setColor(colors.reference);
        involuntary->setBorderColor(colors.reference);
        rate.labels.setFont(plot::chartFont(font, 1.0));
        switches.labels.setFont(plot::chartFont(font, 0.95));
        updateWaits();
        relayoutLabels();
    }
};

ContentionChart::ContentionChart(QWidget* parent)
    : plot::RestyledWidget(parent)
    , d(std::make_unique<Impl>())
{
    d->owner = this;

    d->rate.chart = plot::newChart(tr("Throughput (higher is better)"));
    d->rate.chart->legend()->hide();
    d->rate.series = new QHorizontalStackedBarSeries;
    for (int c = 0; c < kMaxKinds; ++c) {
        auto* set = new QBarSet(QString::number(c));
        d->rateSets.push_back(set);
        d->rate.series->append(set);
    }
    d->rate.categories = new QBarCategoryAxis;
    d->rate.axis = new QValueAxis;
    d->rate.axis->setTitleText(tr("k acquisitions / s, all threads"));
    d->rate.setUp();

    d->switches.chart = plot::newChart(tr("Context switches per 1000 acquisitions"));
    d->switches.chart->legend()->setAlignment(Qt::AlignBottom);
    d->switches.series = new QHorizontalStackedBarSeries;
    d->voluntary = new QBarSet(tr("voluntary (it slept)"));
    d->involuntary = new QBarSet(tr("involuntary (preempted)"));
    d->switches.series->append(d->voluntary);
    d->switches.series->append(d->involuntary);
    d->switches.categories = new QBarCategoryAxis;
    d->switches.axis = new QValueAxis;
    d->switches.setUp();

    d->waitChart = plot::newChart(tr("Wait from request to holding the lock"));
    d->waitChart->legend()->setAlignment(Qt::AlignBottom);
    d->waitX = plot::newLogAxis(tr("wait (µs, log scale), every acquisition"), "%g");
    d->waitY = plot::newLogAxis(tr("acquisitions (log scale)"), "%g", 0);
    d->waitChart->addAxis(d->waitX, Qt::AlignBottom);
    d->waitChart->addAxis(d->waitY, Qt::AlignLeft);
    d->xRange.setMinimumUpper(1);
    d->xRange.setLowestLower(0.01);
    d->yRange.setFixedLower(plot::kCountFloor);
    d->yRange.setMinimumUpper(10);

    auto* rateView = makeView(d->rate.chart, this);
    auto* switchView = makeView(d->switches.chart, this);
    auto* waitView = makeView(d->waitChart, this);
    rateView->setObjectName("throughputChart");
    switchView->setObjectName("switchChart");
    waitView->setObjectName("waitChart");
    const QFontMetrics fm = fontMetrics();
    for (QChartView* v : {rateView, switchView})
        v->setMinimumSize(fm.averageCharWidth() * 40, fm.height() * 10);
    waitView->setMinimumSize(fm.averageCharWidth() * 50, fm.height() * 16);
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    grid->addWidget(rateView, 0, 0);
    grid->addWidget(switchView, 1, 0);
    grid->addWidget(waitView, 0, 1, 2, 1);
    grid->setColumnStretch(0, 4);
    grid->setColumnStretch(1, 5);
    connect(d->rate.chart, &QChart::plotAreaChanged, this, [this] { d->relayoutLabels(); });
    connect(d->switches.chart, &QChart::plotAreaChanged, this, [this] { d->relayoutLabels(); });

    setRestyle([this] { d->restyle(); });
    clear();
}

ContentionChart::~ContentionChart() = default;

void ContentionChart::setData(const ContentionChartData& data)
{
    d->data = data;
    d->updateBars();
    d->updateWaits();
}

void ContentionChart::clear()
{
    d->xRange.reset();
    d->yRange.reset();
    setData({});
}

QStringList ContentionChart::barNames() const
{
    QStringList out;
    for (const ContentionBar& b : d->data.bars)
        out << b.name;
    return out;
}

QList<double> ContentionChart::throughputValues() const
{
    // Read back from the bar sets (top row = the last category), so a test sees what is drawn.
    QList<double> out;
    const int n = int(d->categories.size());
    for (int j = n - 1; j >= 0; --j) {
        double v = 0;
        for (QBarSet* set : d->rateSets)
            v += j < set->count() ? set->at(j) : 0;
        out << v * kRateScale;
    }
    return out;
}

QStringList ContentionChart::throughputLabels() const
{
    return d->rate.labels.topFirst(d->data.bars.size());
}

QList<double> ContentionChart::switchValues(bool voluntary) const
{
    QList<double> out;
    const QBarSet* set = voluntary ? d->voluntary : d->involuntary;
    for (int j = set->count() - 1; j >= 0; --j)
        out << set->at(j);
    return out;
}

QStringList ContentionChart::switchLabels() const
{
    return d->switches.labels.topFirst(d->data.bars.size());
}

int ContentionChart::waitCurveCount() const
{
    return int(d->data.waits.size());
}

QString ContentionChart::waitCurveName(int index) const
{
    return d->waitSeries[size_t(index)]->name();
}

QList<QPointF> ContentionChart::waitCurvePoints(int index) const
{
    return d->waitSeries[size_t(index)]->points();
}

QColor ContentionChart::waitCurveColor(int index) const
{
    return d->waitSeries[size_t(index)]->pen().color();
}

double ContentionChart::waitAxisMin() const
{
    return d->xRange.lower();
}

double ContentionChart::waitAxisMax() const
{
    return d->xRange.upper();
}

} // namespace rtscope

#include "moc_contention_chart.cpp"
