// ctest: parallel. LatencyReplay (no threads) and painting.
// The heat strip and its history: known per-interval maxima, fed as latency samples through the replay (the live
// experiment's aggregator), land in the right cells; intervals without a wake-up are marked as such, never as a
// small latency; overlapping snapshots never count a wake-up twice; lost samples flag their interval; the widget
// paints each cell in the colour of its maximum on a labelled log scale.
#include "engine/experiments/latency/latency_replay.h"
#include "engine/util/clock.h"
#include "tests/common/line_thickness.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/heat_strip.h"
#include "ui/workbench/cpus/heat_history.h"

#include "tests/common/test_main.h"
#include <QImage>
#include <QScopeGuard>
#include <QSet>

#include <QtTest>

using namespace rtscope;

namespace {

constexpr int64_t kInterval = HeatHistory::kDefaultIntervalNs;
// Interval-aligned, as CLOCK_MONOTONIC values go.
constexpr int64_t kStripT0 = 4000 * kInterval;

LatencySample sampleAt(uint64_t seq, int64_t wakeNs, int64_t latencyNs)
{
    LatencySample s;
    s.seq = seq;
    s.latencyNs = latencyNs;
    s.wakeNs = wakeNs;
    s.deadlineNs = wakeNs - latencyNs;
    return s;
}

// Interval 0: 10 µs and 40 µs; interval 1: 3 ms; interval 2: nothing; interval 3: 100 µs.
void feedKnown(LatencyReplay& replay)
{
    replay.add(sampleAt(0, kStripT0 + 10 * kNsPerMs, 10'000));
    replay.add(sampleAt(1, kStripT0 + 100 * kNsPerMs, 40'000));
    replay.add(sampleAt(2, kStripT0 + kInterval + 5 * kNsPerMs, 3'000'000));
    replay.add(sampleAt(3, kStripT0 + 3 * kInterval + 20 * kNsPerMs, 100'000));
}

LatencyConfig cpuConfig(int cpu)
{
    LatencyConfig c;
    c.cpu = cpu;
    return c;
}

QColor pixel(const QImage& image, const QPoint& p)
{
    return image.pixelColor(p);
}

} // namespace

class TestHeatStrip : public QObject {
    Q_OBJECT

private slots:
    void knownMaximaLandInTheirIntervals()
    {
        LatencyReplay replay;
        replay.start(cpuConfig(1), kStripT0);
        feedKnown(replay);
        HeatHistory history;
        history.reset(kInterval);
        const auto snap = replay.publish(kStripT0 + 4 * kInterval - kNsPerMs);
        history.add(*snap, kStripT0);

        QCOMPARE(history.cpus(), std::vector<int>{1});
        QCOMPARE(history.endNs(), kStripT0 + 4 * kInterval);
        const std::vector<HeatCell> cells = history.cells(1, 4);
        QCOMPARE(cells.size(), size_t(4));
        QVERIFY(cells[0].covered);
        QCOMPARE(cells[0].samples, 2u);
        QCOMPARE(cells[0].maxUs, 40.0);
        QCOMPARE(cells[1].samples, 1u);
        QCOMPARE(cells[1].maxUs, 3000.0);
        // Seen, and empty: a "no samples" cell, not a latency of 0.
        QVERIFY(cells[2].covered);
        QCOMPARE(cells[2].samples, 0u);
        QCOMPARE(cells[3].samples, 1u);
        QCOMPARE(cells[3].maxUs, 100.0);
        for (const HeatCell& c : cells)
            QCOMPARE(c.lost, uint64_t(0));

        // More columns than the run has: the ones before its start are not part of it.
        const std::vector<HeatCell> wide = history.cells(1, 6);
        QVERIFY(!wide[0].covered);
        QVERIFY(!wide[1].covered);
        QCOMPARE(wide[3].maxUs, 3000.0);
        // A CPU never measured has nothing at all.
        for (const HeatCell& c : history.cells(0, 4))
            QVERIFY(!c.covered);

        // The interval still filling counts as measured only once it holds a sample: an empty one is not yet a
        // "no wake-up" cell, and neither is the part of the first interval before the first wake-up.
        history.add(*replay.publish(kStripT0 + 4 * kInterval + kNsPerMs), kStripT0);
        QVERIFY(!history.cells(1, 1).front().covered);
        QVERIFY(history.cells(1, 2).front().covered);
    }

    void overlappingSnapshotsDoNotCountTwiceAndOldIntervalsStay()
    {
        LatencyReplay replay;
        replay.start(cpuConfig(0), kStripT0);
        feedKnown(replay);
        HeatHistory history;
        history.reset(kInterval);
        history.add(*replay.publish(kStripT0 + 4 * kInterval - kNsPerMs), kStripT0);
        history.add(*replay.publish(kStripT0 + 4 * kInterval - kNsPerMs), kStripT0);

        // A later snapshot whose window starts inside interval 1: intervals 0 and 1 keep what was seen before, and
        // interval 4 gets its sample and the samples lost meanwhile.
        replay.add(sampleAt(4, kStripT0 + 4 * kInterval + 3 * kNsPerMs, 7'000));
        replay.setDrops(3);
        history.add(*replay.publish(kStripT0 + 4 * kInterval + 10 * kNsPerMs), kStripT0 + kInterval + kNsPerMs);

        const std::vector<HeatCell> cells = history.cells(0, 5);
        QCOMPARE(cells[0].samples, 2u);
        QCOMPARE(cells[0].maxUs, 40.0);
        QCOMPARE(cells[1].samples, 1u);
        QCOMPARE(cells[1].maxUs, 3000.0);
        QCOMPARE(cells[2].samples, 0u);
        QCOMPARE(cells[3].samples, 1u);
        QCOMPARE(cells[4].samples, 1u);
        QCOMPARE(cells[4].maxUs, 7.0);
        QCOMPARE(cells[4].lost, uint64_t(3));
        QCOMPARE(cells[3].lost, uint64_t(0));

        // Counters restart after a statistics reset: a smaller count is new loss, not negative loss.
        replay.resetStatistics(kStripT0 + 4 * kInterval + 20 * kNsPerMs);
        replay.setDrops(1);
        history.add(*replay.publish(kStripT0 + 5 * kInterval + kNsPerMs), kStripT0 + 3 * kInterval);
        QCOMPARE(history.cells(0, 1).front().lost, uint64_t(1));
    }

    void intervalsFollowThePeriod_data()
    {
        QTest::addColumn<qint64>("periodNs");
        QTest::addColumn<qint64>("intervalNs");
        QTest::newRow("1 ms") << qint64(kNsPerMs) << qint64(250 * kNsPerMs);
        QTest::newRow("250 ms") << qint64(250 * kNsPerMs) << qint64(250 * kNsPerMs);
        QTest::newRow("300 ms") << qint64(300 * kNsPerMs) << qint64(500 * kNsPerMs);
        QTest::newRow("1 s") << qint64(kNsPerSec) << qint64(kNsPerSec);
    }
    void intervalsFollowThePeriod()
    {
        QFETCH(qint64, periodNs);
        QFETCH(qint64, intervalNs);
        QCOMPARE(HeatHistory::intervalFor(periodNs), intervalNs);
    }

    void cellsArePaintedInTheColourOfTheirMaximum()
    {
        HeatStrip strip;
        HeatStripData data;
        data.intervalSec = 0.25;
        data.spanSec = 1.0;
        HeatRow quiet{"CPU 0", "", {}};
        HeatRow noisy{"CPU 1", "2 hogs", {}};
        quiet.cells = {{true, 250, 5, 0}, {true, 250, 6, 0}, {true, 250, 8, 0}, {true, 250, 5, 0}};
        noisy.cells = {{true, 250, 20, 0}, {true, 0, 0, 0}, {true, 240, 3000, 10}, {false, 0, 0, 0}};
        data.rows = {quiet, noisy};
        strip.setData(data);
        strip.resize(900, strip.sizeHint().height());

        // The scale took the 3 ms maximum in by a whole decade; the legend names interval, unit and scale.
        QCOMPARE(strip.scaleMinUs(), 1.0);
        QCOMPARE(strip.scaleMaxUs(), 10'000.0);
        QVERIFY(strip.legendTitle().contains("250 ms"));
        QVERIFY(strip.legendTitle().contains("µs"));
        QVERIFY(strip.legendTitle().contains("log scale"));
        QVERIFY(strip.colorFor(5) != strip.colorFor(3000));

        const QImage image = strip.grab().toImage();
        for (int row = 0; row < 2; ++row)
            for (int column = 0; column < 4; ++column)
                QVERIFY2(!strip.cellRect(row, column).isEmpty(), "every cell is inside the 1 s axis");
        QCOMPARE(pixel(image, strip.cellRect(0, 2).center()).rgb(), strip.colorFor(8).rgb());
        QCOMPARE(pixel(image, strip.cellRect(1, 0).center()).rgb(), strip.colorFor(20).rgb());
        QCOMPARE(pixel(image, strip.cellRect(1, 2).center()).rgb(), strip.colorFor(3000).rgb());
        // Cells sit left to right in time and row by row.
        QVERIFY(strip.cellRect(0, 1).left() > strip.cellRect(0, 0).right());
        QVERIFY(strip.cellRect(1, 0).top() > strip.cellRect(0, 0).bottom());
        QCOMPARE(strip.cellAt(strip.cellRect(1, 2).center()), std::make_pair(1, 2));

        // The empty interval is hatched: the hatch colour, and no colour of the scale.
        const QRect empty = strip.cellRect(1, 1).adjusted(2, 2, -2, -2);
        QSet<QRgb> colours;
        for (int y = empty.top(); y <= empty.bottom(); ++y)
            for (int x = empty.left(); x <= empty.right(); ++x)
                colours.insert(image.pixel(x, y));
        QVERIFY(colours.contains(strip.noSamplesColor().rgb()));
        QVERIFY(colours.size() >= 2);
        QVERIFY(!colours.contains(strip.colorFor(1).rgb()));
        QVERIFY(strip.cellToolTip(1, 1).contains("no wake-up"));
        // The interval with lost samples carries the flag in its corner.
        const QRect lost = strip.cellRect(1, 2);
        QCOMPARE(image.pixel(lost.left() + 2, lost.top() + 2), strip.lostColor().rgb());
        QVERIFY(strip.cellToolTip(1, 2).contains("10 samples lost"));
        // The uncovered interval is neither a latency nor hatched.
        const QRgb blank = image.pixel(strip.cellRect(1, 3).center());
        QVERIFY(blank != strip.noSamplesColor().rgb());
        QVERIFY(strip.cellToolTip(1, 3).contains("not measured"));

        // A new run starts from the default scale again.
        strip.resetScale();
        QCOMPARE(strip.scaleMaxUs(), HeatStrip::kDefaultScaleMaxUs);
    }

    void linesFollowThePresentationScale()
    {
        // A marker between two intervals nobody measured (so only the row band is behind it) and the plot's frame.
        HeatStrip strip;
        HeatStripData data;
        data.intervalSec = 0.5;
        data.spanSec = 1.0;
        data.rows = {{"CPU 0", "", std::vector<HeatCell>(2)}};
        data.markers = {{-0.5, "FIFO 80", MarkerRole::P99}};
        strip.setData(data);
        strip.resize(800, strip.sizeHint().height());
        const QRect right = strip.cellRect(0, 1);
        const QPoint marker(right.left(), right.center().y());
        const QPoint frame(strip.cellRect(0, 0).left(), right.center().y());
        const QRgb markerColour = plot::markerColor(MarkerRole::P99, strip.palette()).rgb();
        const QRgb text = plot::chartColors(strip.palette()).text.rgb();
        auto thickness = [&](double scale, QPoint at, QRgb colour) {
            plot::setLineWidthScale(scale);
            return test::lineThickness(strip.grab().toImage(), at, Qt::Vertical, colour, 4);
        };
        const auto restore = qScopeGuard([] { plot::setLineWidthScale(1.0); });

        const int thinMarker = thickness(1.0, marker, markerColour);
        const int thinFrame = thickness(1.0, frame, text);
        QCOMPARE(thinMarker, 2);
        QCOMPARE(thinFrame, 1);
        // Presentation mode doubles every line of the strip, as it does the charts' (plot::lineWidth).
        QCOMPARE(thickness(2.0, marker, markerColour), 2 * thinMarker);
        QCOMPARE(thickness(2.0, frame, text), 2 * thinFrame);
        QCOMPARE(thickness(1.0, marker, markerColour), thinMarker);
    }

    void olderColumnsOutsideTheSpanAreNotDrawn()
    {
        HeatStrip strip;
        HeatStripData data;
        data.intervalSec = 0.5;
        data.spanSec = 1.0;
        data.rows = {{"CPU 0", "", std::vector<HeatCell>(4, HeatCell{true, 10, 50, 0})}};
        strip.setData(data);
        strip.resize(600, strip.sizeHint().height());
        QVERIFY(strip.cellRect(0, 0).isEmpty());
        QVERIFY(strip.cellRect(0, 1).isEmpty());
        QVERIFY(!strip.cellRect(0, 2).isEmpty());
        QVERIFY(!strip.cellRect(0, 3).isEmpty());
    }
};

RTSCOPE_TEST_MAIN(TestHeatStrip)
#include "tst_heat_strip.moc"
