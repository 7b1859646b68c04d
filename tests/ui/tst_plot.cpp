// ctest: parallel. Chart widgets from hand-made data.
// ui/plot: display bins conserve every count, a single spike survives per-pixel decimation, auto-ranging does
// not jump on jitter, and the charts draw what they are given (whole series, frozen reference kept).
#include "ui/plot/axis_auto_range.h"
#include "ui/plot/chart_canvas.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/plot_math.h"
#include "ui/plot/timeline_chart.h"

#include "tests/common/data_rows.h"
#include "tests/common/exposed_widget.h"
#include "tests/common/test_main.h"

#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QImage>
#include <QPainter>
#include <QtTest>
#include <cmath>

using namespace rtscope;
using namespace rtscope::plot;

namespace {

uint64_t total(const std::vector<uint64_t>& v)
{
    uint64_t n = 0;
    for (uint64_t c : v)
        n += c;
    return n;
}

// The count a step line shows at latency x.
double stepAt(const QList<QPointF>& points, double x)
{
    for (qsizetype i = 0; i + 1 < points.size(); i += 2)
        if (points[i].x() <= x && x < points[i + 1].x())
            return points[i].y();
    return -1;
}

HistogramCurve curve(const std::vector<std::pair<double, uint64_t>>& values, const QString& name = "live")
{
    HistogramCurve c;
    c.name = name;
    for (auto [us, n] : values)
        c.buckets.push_back({us, us * 1.002, n});
    return c;
}

} // namespace

class TestPlot : public QObject {
    Q_OBJECT
private slots:
    void niceNumbers_data()
    {
        test::addColumns<double, double, double>("value", "ceil", "floor");
        QTest::newRow("1") << 1.0 << 1.0 << 1.0;
        QTest::newRow("1.3") << 1.3 << 2.0 << 1.0;
        QTest::newRow("3") << 3.0 << 5.0 << 2.0;
        QTest::newRow("7") << 7.0 << 10.0 << 5.0;
        QTest::newRow("3901") << 3901.0 << 5000.0 << 2000.0;
        QTest::newRow("0.04") << 0.04 << 0.05 << 0.02;
    }
    void niceNumbers()
    {
        QFETCH(double, value);
        QFETCH(double, ceil);
        QFETCH(double, floor);
        QCOMPARE(niceCeil(value), ceil);
        QCOMPARE(niceFloor(value), floor);
        QVERIFY(decadeCeil(value) >= value && decadeFloor(value) <= value);
    }

    void rebinConservesCountsAndPlacesValues()
    {
        const HistogramCurve c = curve({{10, 600}, {20, 300}, {100, 99}, {3000, 1}});
        const std::vector<double> lin = linearEdges(0, 5000, 200); // 25 µs bins
        const std::vector<uint64_t> a = rebin(c.buckets, lin);
        QCOMPARE(a.size(), size_t(200));
        QCOMPARE(total(a), uint64_t(1000));
        QCOMPARE(a[0], uint64_t(900));
        QCOMPARE(a[4], uint64_t(99));
        QCOMPARE(a[120], uint64_t(1));

        const std::vector<double> log = logEdges(1, 10000, 50);
        QCOMPARE(log.size(), size_t(201));
        for (size_t i = 1; i < log.size(); ++i)
            QVERIFY(log[i] > log[i - 1]);
        const std::vector<uint64_t> b = rebin(c.buckets, log);
        QCOMPARE(total(b), uint64_t(1000));
        const QList<QPointF> steps = stepPoints(log, b, 0.5);
        QCOMPARE(steps.size(), qsizetype(400));
        QCOMPARE(stepAt(steps, 10.01), 600.0);
        QCOMPARE(stepAt(steps, 20.01), 300.0);
        QCOMPARE(stepAt(steps, 100.1), 99.0);
        QCOMPARE(stepAt(steps, 3001), 1.0);
        QCOMPARE(stepAt(steps, 500), 0.5); // an empty bin sits on the floor of the log count axis

        // Out of range: clamped into the end bins, never lost.
        const std::vector<uint64_t> clamped = rebin(c.buckets, linearEdges(15, 50, 7));
        QCOMPARE(total(clamped), uint64_t(1000));
        QCOMPARE(clamped.front(), uint64_t(600));
        QCOMPARE(clamped.back(), uint64_t(100));
    }

    void aSingleSpikeSurvivesDecimation()
    {
        std::vector<TimelinePoint> points;
        for (int i = 0; i < 10000; ++i) // 10 s of 1 ms buckets at 5 µs, one 3 ms spike
            points.push_back({-10.0 + i * 0.001, 4.0, i == 5123 ? 3000.0 : 5.0});
        const std::vector<TimelinePoint> cols = decimateColumns(points, -10, 0, 700);
        QVERIFY(cols.size() <= 700 && cols.size() >= 690);
        int spikes = 0;
        for (const TimelinePoint& c : cols) {
            QCOMPARE(c.minUs, 4.0);
            if (c.maxUs == 3000.0)
                ++spikes;
            else
                QCOMPARE(c.maxUs, 5.0);
        }
        QCOMPARE(spikes, 1);
        const QList<QPointF> env = envelopePoints(cols, 0.1);
        QCOMPARE(env.size(), qsizetype(cols.size() * 2));
        double top = 0;
        for (const QPointF& p : env)
            top = std::max(top, p.y());
        QCOMPARE(top, 3000.0);
    }

    void autoRangeIgnoresJitterAndNarrowsLate()
    {
        AxisAutoRange r(AxisAutoRange::Scale::Linear);
        QVERIFY(r.update(0, 80));
        const double upper = r.upper();
        QCOMPARE(upper, 100.0);
        int changes = 0;
        for (int i = 0; i < 200; ++i)
            changes += r.update(0, i % 2 ? 70 : 92);
        QCOMPARE(changes, 0);
        QVERIFY(r.update(0, 3000)); // widening is immediate
        QCOMPARE(r.upper(), 5000.0);
        for (int i = 0; i < AxisAutoRange::kShrinkAfterUpdates - 1; ++i)
            QVERIFY(!r.update(0, 50));
        QVERIFY(r.update(0, 50));
        QCOMPARE(r.upper(), 100.0);

        AxisAutoRange log(AxisAutoRange::Scale::Log);
        log.update(3, 4000);
        QCOMPARE(log.lower(), 2.0);
        QCOMPARE(log.upper(), 5000.0);
        for (int i = 0; i < 100; ++i)
            QVERIFY(!log.update(2.5 + i % 3, 3000 + 500 * (i % 3)));
    }

    void histogramChartDrawsLiveAndKeepsTheReference()
    {
        HistogramChart chart;
        QVERIFY(test::showExposed(chart, 800, 500));
        QVERIFY(chart.logLatencyAxis());
        const HistogramCurve ref = curve({{800, 500}, {2000, 400}, {3900, 3}}, "reference: OTHER");
        chart.setReference(&ref);
        const QList<QPointF> frozen = chart.referencePoints();
        QVERIFY(!frozen.isEmpty());
        const int updatesBefore = chart.axisUpdates();
        for (int frame = 0; frame < 100; ++frame) {
            const HistogramCurve live = curve({{5.0 + frame % 3, 900u + frame}, {12, 80}, {30.0 + frame % 5, 2}});
            chart.setLive(live, {{5, "p50", MarkerRole::Median}, {32, "max", MarkerRole::Max}});
        }
        QVERIFY2(chart.axisUpdates() - updatesBefore <= 2, qPrintable(QString::number(chart.axisUpdates())));
        QCOMPARE(chart.referencePoints(), frozen); // new live data leaves the reference as it was
        QCOMPARE(chart.referenceName(), QString("reference: OTHER"));
        QCOMPARE(chart.visibleMarkers(), 2);
        QVERIFY(chart.latencyAxisMax() >= 3900);
        QCOMPARE(stepAt(chart.livePoints(), 12 * 1.001), 80.0); // at the bucket's middle, where rebin puts it

        chart.setLogLatencyAxis(false);
        QVERIFY(!chart.livePoints().isEmpty());
        QCOMPARE(chart.latencyAxisMin(), 0.0);
        chart.setReference(nullptr);
        QVERIFY(chart.referencePoints().isEmpty());
    }

    // The overlay sets only what changed from one frame to the next: a new label or position must still show.
    void markerLabelsFollowEveryFrame()
    {
        HistogramChart chart;
        QVERIFY(test::showExposed(chart, 900, 500));
        HistogramCurve live;
        live.buckets = {{4, 5, 100}, {31, 32, 1}};
        const auto labels = [&chart] {
            return chart.visibleMarkerLabels();
        };
        const auto markerX = [&chart] {
            return chart.visibleMarkerLineX();
        };
        chart.setLive(live, {{5, "p50 5 µs", MarkerRole::Median}});
        QCOMPARE(labels(), QStringList{"p50 5 µs"});
        const QList<double> before = markerX();
        QCOMPARE(before.size(), 1);
        chart.setLive(live, {{5, "p50 6 µs", MarkerRole::Median}});
        QCOMPARE(labels(), QStringList{"p50 6 µs"});
        QCOMPARE(markerX(), before);
        chart.setLive(live, {{20, "p50 20 µs", MarkerRole::Median}, {32, "max 32 µs", MarkerRole::Max}});
        QCOMPARE(labels(), (QStringList{"max 32 µs", "p50 20 µs"}));
        QCOMPARE(markerX().size(), 2);
        QVERIFY(!markerX().contains(before.front()));
    }

    void timelineChartKeepsTheSpikeAndShowsMarkers()
    {
        TimelineChart chart;
        QVERIFY(test::showExposed(chart, 900, 500));
        std::vector<TimelinePoint> points;
        for (int i = 0; i < 10000; ++i)
            points.push_back({-10.0 + i * 0.001, 3.0, i == 7777 ? 3000.0 : 6.0});
        chart.setData(points, {{-6, "FIFO 80", MarkerRole::Change}, {-20, "too old", MarkerRole::Change}});
        QVERIFY(chart.columns() >= 50);
        double top = 0;
        for (const QPointF& p : chart.envelope())
            top = std::max(top, p.y());
        QCOMPARE(top, 3000.0);
        QVERIFY(chart.envelope().size() <= 2 * chart.columns());
        QCOMPARE(chart.visibleMarkers(), 1);
        QVERIFY(chart.latencyAxisMax() >= 3000);
        chart.setWindowSeconds(30);
        QCOMPARE(chart.windowSeconds(), 30.0);
    }

    // The timeline's envelope is filled a column at a time (plot::drawColumns) instead of stroked as its zigzag of
    // lines. Against the zigzag drawn by the raster engine with the same pen: every pixel either draws lies within one
    // pixel of the other's ink, the ink differs by at most a tenth, and a one-column spike reaches the same top row.
    void columnsDrawTheEnvelopeTheLinesDrew_data()
    {
        QTest::addColumn<double>("width");
        QTest::addColumn<double>("step");
        for (double w : {1.0, 2.0, 3.0})
            for (double step : {1.0, 1.5}) // a column a pixel (the timeline), and columns a pixel and a half apart
                QTest::addRow("%.0f px pen, columns %.1f px apart", w, step) << w << step;
    }
    void columnsDrawTheEnvelopeTheLinesDrew()
    {
        QFETCH(double, width);
        QFETCH(double, step);
        std::vector<TimelinePoint> columns;
        for (int i = 0; 20 + i * step < 280; ++i) {
            const double x = 20 + i * step;
            const double lo = 150 + 10 * std::sin(i * 0.3), hi = i == 60 ? 20 : lo - 5 - (i % 9) * 2.5;
            columns.push_back({x, 200 - hi, 200 - lo}); // values upward; pixels downward: y = 200 - value
        }
        const QList<QPointF> zigzag = envelopePoints(columns, -1e300);
        std::vector<QPointF> pixels;
        for (const QPointF& v : zigzag)
            pixels.emplace_back(v.x(), 200 - v.y());
        auto render = [&](bool filled) {
            QImage image(300, 200, QImage::Format_RGB32);
            image.fill(Qt::white);
            QPainter p(&image);
            QPen pen(Qt::black, width);
            pen.setCosmetic(true);
            if (filled) {
                drawColumns(p, pen, pixels);
            } else {
                std::vector<QLineF> lines;
                for (size_t i = 1; i < pixels.size(); ++i)
                    lines.emplace_back(pixels[i - 1], pixels[i]);
                p.setPen(pen);
                p.drawLines(lines.data(), int(lines.size()));
            }
            return image;
        };
        const QImage lines = render(false), filled = render(true);
        auto ink = [](const QImage& i, int x, int y) {
            return x >= 0 && y >= 0 && x < i.width() && y < i.height() && qGray(i.pixel(x, y)) < 128;
        };
        auto near = [&](const QImage& i, int x, int y) {
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (ink(i, x + dx, y + dy))
                        return true;
            return false;
        };
        int inkLines = 0, inkFilled = 0, off = 0, topLines = 200, topFilled = 200;
        for (int y = 0; y < 200; ++y)
            for (int x = 0; x < 300; ++x) {
                const bool a = ink(lines, x, y), b = ink(filled, x, y);
                inkLines += a;
                inkFilled += b;
                off += (a && !b && !near(filled, x, y)) || (b && !a && !near(lines, x, y));
                if (a)
                    topLines = std::min(topLines, y);
                if (b)
                    topFilled = std::min(topFilled, y);
            }
        const QString counts =
            QString("lines %1 pixels, columns %2; %3 more than a pixel off the other; top row %4 / %5")
                .arg(inkLines)
                .arg(inkFilled)
                .arg(off)
                .arg(topLines)
                .arg(topFilled);
        qInfo("%s", qPrintable(counts));
        QVERIFY2(inkLines > 0 && off == 0, qPrintable(counts));
        QVERIFY2(std::abs(inkLines - inkFilled) * 10 <= inkLines, qPrintable(counts));
        QVERIFY2(std::abs(topLines - topFilled) <= 1, qPrintable(counts));
        QVERIFY2(topFilled <= 200 - 20 + 1, qPrintable(counts)); // the spike at 20 (its pixel row 180) is drawn
    }
};

RTSCOPE_TEST_MAIN(TestPlot)
#include "tst_plot.moc"
