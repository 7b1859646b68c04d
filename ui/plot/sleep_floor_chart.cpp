#include "ui/plot/sleep_floor_chart.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_setup.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QVBoxLayout>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace rtscope {

QString decadeLabel(int e)
{
    static const char* units[] = {"ns", "µs", "ms", "s"};
    if (e < 0)
        return QStringLiteral("0");
    const int unit = std::min(e / 3, 3);
    const int64_t mantissa = int64_t(std::pow(10, e - unit * 3));
    return QString("%1 %2").arg(mantissa).arg(QString::fromUtf8(units[unit]));
}

namespace {
QColor methodColor(int index, bool dark)
{
    static const QColor light[] = {QColor(colors::kBlue800),     QColor(colors::kGreen800),  QColor(colors::kPurple700),
                                   QColor(colors::kRed800),      QColor(colors::kOrange900), QColor(colors::kCyan800),
                                   QColor(colors::kBlueGrey700), QColor(colors::kBrown600)};
    static const QColor darkSet[] = {
        QColor(colors::kBlue300),   QColor(colors::kGreen300), QColor(colors::kPurple200),   QColor(colors::kRedSoft),
        QColor(colors::kOrange400), QColor(colors::kCyan300),  QColor(colors::kBlueGrey200), QColor(colors::kBrown200)};
    return dark ? darkSet[index % 8] : light[index % 8];
}

/// Every decade while the labels have room along @p axisPx, else every 2nd or 5th, on the 1-2-5 ladder the timeline
/// uses to thin its seconds: Qt elides a category label that does not fit its share of the axis ("100…", "…").
int sleepFloorDecadeStep(double axisPx, int decades, double labelPx)
{
    if (!(axisPx > 0) || !(labelPx > 0) || decades < 1)
        return 1;
    const int fit = std::max(2, int(axisPx / labelPx));
    return decades > fit ? std::max(1, int(std::lround(plot::niceTickInterval(decades, fit)))) : 1;
}
} // namespace

struct SleepFloorChart::Impl : plot::ChartAndView {
    SleepFloorChart* owner = nullptr;
    QCategoryAxis* x = nullptr;
    QCategoryAxis* y = nullptr;
    QLineSeries* identity = nullptr;
    QLineSeries* resolution = nullptr;
    std::vector<QLineSeries*> medians;
    std::vector<QScatterSeries*> p99s;
    std::vector<bool> spins;
    int curves = 0;
    double zeroPosition = -1; ///< x of the 0 ns request
    double xLo = -1.5, xHi = 7.5, yLo = 0, yHi = 8;
    int64_t resolutionNs = 1;
    std::vector<int64_t> axisRequests; ///< what the axes were last built for: rebuilt only when it changes
    int axisYMin = 0, axisYMax = 0;
    int xStep = 1, yStep = 1; ///< label every n-th decade (thinned on a small plot)
    bool fitting = false;

    void ensureCurves(size_t n)
    {
        while (medians.size() < n) {
            auto* m = new QLineSeries;
            m->setPointsVisible(true);
            plot::addSeries(chart, m);
            medians.push_back(m);
            auto* p = new QScatterSeries;
            p->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
            p->setMarkerSize(13);
            plot::addSeries(chart, p);
            p99s.push_back(p);
            spins.push_back(false);
        }
        for (size_t i = 0; i < medians.size(); ++i) {
            medians[i]->setVisible(i < n);
            p99s[i]->setVisible(i < n);
            for (QLegendMarker* m : chart->legend()->markers(medians[i]))
                m->setVisible(i < n);
            // One legend entry per method: the triangles are explained in the title.
            for (QLegendMarker* m : chart->legend()->markers(p99s[i]))
                m->setVisible(false);
        }
    }

    void style()
    {
        const QPalette pal = owner->palette();
        const bool dark = plot::isDarkPalette(pal);
        for (size_t i = 0; i < medians.size(); ++i) {
            const QColor c = methodColor(int(i), dark);
            medians[i]->setPen(plot::chartPen(c, 3.0, spins[i] ? Qt::DashLine : Qt::SolidLine));
            medians[i]->setColor(c);
            QColor fill = c;
            fill.setAlphaF(0.55f);
            p99s[i]->setColor(fill);
            p99s[i]->setBorderColor(c);
        }
        QColor text = pal.color(QPalette::Text);
        QColor ident = text;
        ident.setAlphaF(0.55f);
        identity->setPen(plot::chartPen(ident, 2.0, Qt::DashLine));
        resolution->setPen(
            plot::chartPen(dark ? QColor(colors::kAmber300) : QColor(colors::kAmberDark), 2.5, Qt::DotLine));
    }

    int builtXStep = 0, builtYStep = 0;

    /// The label steps for the plot area as it is now: a label needs its own width and an "m" of gap across, and
    /// its height and half of it again up the side.
    void fitSteps(const std::vector<int64_t>& requests, int yMinExp, int yMaxExp)
    {
        const QRectF area = chart->plotArea();
        const QFontMetricsF xm(x->labelsFont()), ym(y->labelsFont());
        int xLabels = 0;
        double widest = 0;
        for (int64_t r : requests) {
            widest = std::max(widest,
                              xm.horizontalAdvance(decadeLabel(r > 0 ? int(std::floor(std::log10(double(r)))) : -1)));
            ++xLabels;
        }
        xStep = sleepFloorDecadeStep(area.width(), xLabels, widest + xm.horizontalAdvance(QStringLiteral("m")));
        yStep = sleepFloorDecadeStep(area.height(), yMaxExp - yMinExp + 1, 1.5 * ym.height());
    }

    /// After a resize: the axes again only if the steps change.
    void refit()
    {
        if (fitting || axisRequests.empty())
            return;
        fitting = true;
        const std::vector<int64_t> requests = axisRequests;
        rebuildAxes(requests, axisYMin, axisYMax);
        fitting = false;
    }

    void rebuildAxes(const std::vector<int64_t>& requests, int yMinExp, int yMaxExp)
    {
        fitSteps(requests, yMinExp, yMaxExp);
        if (!x->categoriesLabels().isEmpty() && requests == axisRequests && yMinExp == axisYMin &&
            yMaxExp == axisYMax && xStep == builtXStep && yStep == builtYStep)
            return;
        builtXStep = xStep;
        builtYStep = yStep;
        axisRequests = requests;
        axisYMin = yMinExp;
        axisYMax = yMaxExp;
        int64_t smallest = 0, largest = 0;
        for (int64_t r : requests)
            if (r > 0) {
                smallest = smallest ? std::min(smallest, r) : r;
                largest = std::max(largest, r);
            }
        const bool hasZero = std::find(requests.begin(), requests.end(), 0) != requests.end();
        const int firstExp = smallest ? int(std::floor(std::log10(double(smallest)))) : 0;
        const int lastExp = largest ? int(std::ceil(std::log10(double(largest)))) : 3;
        zeroPosition = firstExp - 1;
        xLo = (hasZero ? zeroPosition : firstExp) - 0.4;
        xHi = lastExp + 0.4;

        for (const QString& l : x->categoriesLabels())
            x->remove(l);
        x->setStartValue(xLo);
        if (hasZero)
            x->append(decadeLabel(-1), zeroPosition);
        for (int e = firstExp; e <= lastExp; e += xStep)
            x->append(decadeLabel(e), e);
        x->setRange(xLo, xHi);

        yLo = yMinExp;
        yHi = yMaxExp;
        for (const QString& l : y->categoriesLabels())
            y->remove(l);
        y->setStartValue(yLo - 0.5);
        for (int e = yMinExp; e <= yMaxExp; e += yStep)
            y->append(decadeLabel(e), e);
        // Half a decade of room below, so the clock_getres line never hides in the axis.
        y->setRange(yLo - 0.5, yHi);

        // y = x exists for requests of 1 ns and more; the 0 ns column has no "requested" height.
        const double a = std::max<double>(firstExp, yLo), b = std::min(xHi, yHi);
        QList<QPointF> diag;
        if (b > a)
            diag << QPointF(a, a) << QPointF(b, b);
        identity->replace(diag);
        const double r = durationPosition(resolutionNs);
        resolution->replace(QList<QPointF>{QPointF(xLo, r), QPointF(xHi, r)});
    }
};

SleepFloorChart::SleepFloorChart(QWidget* parent)
    : plot::RestyledWidget(parent)
    , d(std::make_unique<Impl>())
{
    d->owner = this;
    d->chart = plot::newChart(tr("Requested vs actual sleep (line = median, ▲ = p99)"), QMargins(4, 4, 12, 4));
    // One entry per line, stacked at the right: the method names stay whole instead of being elided.
    d->chart->legend()->setAlignment(Qt::AlignRight);
    d->x = new QCategoryAxis;
    d->x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    d->x->setTitleText(tr("requested duration (log scale)"));
    d->y = new QCategoryAxis;
    d->y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    d->y->setTitleText(tr("actual (log scale)"));
    d->chart->addAxis(d->x, Qt::AlignBottom);
    d->chart->addAxis(d->y, Qt::AlignLeft);
    d->identity = new QLineSeries;
    d->identity->setName(tr("actual = requested"));
    plot::addSeries(d->chart, d->identity);
    d->resolution = new QLineSeries;
    d->resolution->setName(tr("clock_getres"));
    plot::addSeries(d->chart, d->resolution);

    d->view = plot::fillWithChartView(this, d->chart, 50, 16);
    d->view->setRenderHint(QPainter::Antialiasing);
    d->rebuildAxes({0, 1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000}, 0, 8);
    connect(d->chart, &QChart::plotAreaChanged, this, [this] { d->refit(); });
    setRestyle([this] {
        plot::styleChart(d->chart, palette(), font());
        d->style();
    });
}

SleepFloorChart::~SleepFloorChart() = default;

double SleepFloorChart::durationPosition(int64_t ns)
{
    return std::log10(double(std::max<int64_t>(ns, 1)));
}

double SleepFloorChart::requestPosition(int64_t requestNs) const
{
    return requestNs <= 0 ? d->zeroPosition : std::log10(double(requestNs));
}

void SleepFloorChart::setData(const std::vector<SleepFloorCurve>& curves, const std::vector<int64_t>& requestsNs,
                              int64_t clockResolutionNs)
{
    if (std::max<int64_t>(clockResolutionNs, 1) != d->resolutionNs)
        d->axisRequests.clear(); // the clock_getres line moves
    d->resolutionNs = std::max<int64_t>(clockResolutionNs, 1);
    int64_t hi = 1'000, lo = d->resolutionNs;
    for (int64_t r : requestsNs)
        hi = std::max(hi, r);
    for (const SleepFloorCurve& c : curves)
        for (const SleepFloorCurve::Point& p : c.points) {
            hi = std::max({hi, p.p50Ns, p.p99Ns});
            lo = std::min(lo, std::max<int64_t>(p.p50Ns, 1));
        }
    d->rebuildAxes(requestsNs, int(std::floor(durationPosition(lo))), int(std::ceil(durationPosition(hi))));

    const size_t n = std::min(curves.size(), size_t(kMaxCurves));
    d->ensureCurves(n);
    d->curves = int(n);
    for (size_t i = 0; i < n; ++i) {
        QList<QPointF> median, p99;
        for (const SleepFloorCurve::Point& p : curves[i].points) {
            median << QPointF(requestPosition(p.requestNs), durationPosition(p.p50Ns));
            p99 << QPointF(requestPosition(p.requestNs), durationPosition(p.p99Ns));
        }
        d->medians[i]->setName(curves[i].name);
        d->spins[i] = curves[i].spins;
        d->medians[i]->replace(median);
        d->p99s[i]->replace(p99);
    }
    d->resolution->setName(tr("clock_getres = %1 ns").arg(QString::number(d->resolutionNs)));
    d->style();
}

void SleepFloorChart::clear()
{
    setData({}, {0, 1, 10, 100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000}, d->resolutionNs);
}

int SleepFloorChart::curveCount() const
{
    return d->curves;
}

QString SleepFloorChart::curveName(int curve) const
{
    return d->medians.at(size_t(curve))->name();
}

QList<QPointF> SleepFloorChart::medianPoints(int curve) const
{
    return d->medians.at(size_t(curve))->points();
}

QList<QPointF> SleepFloorChart::p99Points(int curve) const
{
    return d->p99s.at(size_t(curve))->points();
}

QList<QPointF> SleepFloorChart::identityPoints() const
{
    return d->identity->points();
}

QStringList SleepFloorChart::requestAxisLabels() const
{
    return d->x->categoriesLabels();
}

QStringList SleepFloorChart::durationAxisLabels() const
{
    return d->y->categoriesLabels();
}

} // namespace rtscope

#include "moc_sleep_floor_chart.cpp"
