// ctest: parallel. Timeline widget from hand-made data.
// The inversion timeline widget: known segments land at the pixels their times say, the medium thread's time
// inside high's waits (and only that) is marked as the inversion, segments outside the window cost nothing,
// and many sub-pixel segments merge into few blocks without losing any of them.
#include "engine/util/clock.h"
#include "tests/common/line_thickness.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/inversion_timeline.h"

#include "tests/common/test_main.h"
#include <QScopeGuard>

#include <QtTest>

#include <cmath>
#include <map>
#include <tuple>

using namespace rtscope;

namespace {

InversionTimelineData window(int64_t from, int64_t to)
{
    InversionTimelineData d;
    d.laneNames = {"high · 30", "medium · 20", "low · 10"};
    d.originNs = from;
    d.fromNs = from;
    d.toNs = to;
    return d;
}

std::vector<InversionTimeline::Block> blocksOf(const InversionTimeline& t, int lane)
{
    std::vector<InversionTimeline::Block> out;
    for (const auto& b : t.blocks())
        if (b.lane == lane)
            out.push_back(b);
    return out;
}
} // namespace

class TestInversionTimeline : public QObject {
    Q_OBJECT

private slots:
    void segmentsLandAtTheirTimes()
    {
        InversionTimeline t;
        t.resize(1000, 300);
        // One period of the mutex case: low holds, high waits 50 ms while medium spins inside the wait.
        InversionTimelineData d = window(0, 100 * kNsPerMs);
        d.lanes[InversionTimelineData::Low] = {
            {0, kNsPerMs / 3, LaneActivity::Holding},
            {50 * kNsPerMs + 2 * kNsPerMs / 3, 51 * kNsPerMs, LaneActivity::Holding}};
        d.lanes[InversionTimelineData::High] = {{kNsPerMs / 3, 51 * kNsPerMs, LaneActivity::Waiting},
                                                {51 * kNsPerMs, 51 * kNsPerMs + 20'000, LaneActivity::Holding}};
        d.lanes[InversionTimelineData::Medium] = {
            {2 * kNsPerMs / 3, 50 * kNsPerMs + 2 * kNsPerMs / 3, LaneActivity::Running},
            {51 * kNsPerMs + 20'000, 60 * kNsPerMs, LaneActivity::Running}};
        d.highWaits = {{kNsPerMs / 3, 51 * kNsPerMs}};
        d.periodStarts = {0, 100 * kNsPerMs};
        t.setData(d);

        const QRectF plot = t.plotRect();
        QVERIFY(plot.width() > 500);
        QCOMPARE(t.xOf(0), plot.left());
        QCOMPARE(t.xOf(100 * kNsPerMs), plot.right());

        const auto medium = blocksOf(t, InversionTimelineData::Medium);
        QCOMPARE(int(medium.size()), 2);
        // The whole first burst lies inside the wait: all of it is the inversion.
        QVERIFY(medium[0].inversion);
        QCOMPARE(medium[0].x0, t.xOf(2 * kNsPerMs / 3));
        QCOMPARE(medium[0].x1, t.xOf(50 * kNsPerMs + 2 * kNsPerMs / 3));
        // After high got the lock medium runs again: not an inversion.
        QVERIFY(!medium[1].inversion);
        QCOMPARE(medium[1].x0, t.xOf(51 * kNsPerMs + 20'000));

        const auto high = blocksOf(t, InversionTimelineData::High);
        QCOMPARE(int(high.size()), 2);
        QCOMPARE(high[0].activity, LaneActivity::Waiting);
        QCOMPARE(high[1].activity, LaneActivity::Holding);
        QCOMPARE(int(blocksOf(t, InversionTimelineData::Low).size()), 2);

        QCOMPARE(int(t.waitShading().size()), 1);
        QCOMPARE(t.waitShading()[0].x0, t.xOf(kNsPerMs / 3));
        QCOMPARE(t.waitShading()[0].x1, t.xOf(51 * kNsPerMs));

        const std::vector<double> periods = t.periodMarkerX();
        QCOMPARE(int(periods.size()), 2);
        QCOMPARE(periods[0], plot.left());
        QCOMPARE(periods[1], plot.right());

        const QStringList ticks = t.tickLabels();
        QVERIFY(ticks.size() >= 3);
        QCOMPARE(ticks.first(), QString("0"));
        QCOMPARE(ticks.last(), QString("100"));
        QVERIFY(t.legendTexts().contains("medium runs while high waits: the inversion"));
    }

    void aBurstPartlyInsideAWaitIsSplitAtTheWaitsEnd()
    {
        InversionTimeline t;
        t.resize(1000, 300);
        InversionTimelineData d = window(0, 100 * kNsPerMs);
        d.lanes[InversionTimelineData::Medium] = {{10 * kNsPerMs, 60 * kNsPerMs, LaneActivity::Running}};
        d.highWaits = {{20 * kNsPerMs, 30 * kNsPerMs}, {40 * kNsPerMs, 80 * kNsPerMs}};
        t.setData(d);
        const auto medium = blocksOf(t, InversionTimelineData::Medium);
        QCOMPARE(int(medium.size()), 4);
        const bool expectedInversion[] = {false, true, false, true};
        const int64_t edges[] = {10 * kNsPerMs, 20 * kNsPerMs, 30 * kNsPerMs, 40 * kNsPerMs, 60 * kNsPerMs};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(medium[size_t(i)].inversion, expectedInversion[i]);
            QCOMPARE(medium[size_t(i)].x0, t.xOf(edges[i]));
            QCOMPARE(medium[size_t(i)].x1, t.xOf(edges[i + 1]));
        }
    }

    void onlyTheVisibleWindowIsLaidOutAndClipped()
    {
        InversionTimeline t;
        t.resize(800, 300);
        InversionTimelineData d = window(1000 * kNsPerMs, 1100 * kNsPerMs);
        auto& low = d.lanes[InversionTimelineData::Low];
        // A million segments before the window, one across its left edge, one across its right edge.
        for (int64_t i = 0; i < 1'000'000; ++i)
            low.push_back({i * 900, i * 900 + 500, LaneActivity::Holding});
        low.push_back({990 * kNsPerMs, 1010 * kNsPerMs, LaneActivity::Holding});
        low.push_back({1090 * kNsPerMs, 1200 * kNsPerMs, LaneActivity::Holding});
        t.setData(d);
        const auto blocks = blocksOf(t, InversionTimelineData::Low);
        QCOMPARE(int(blocks.size()), 2);
        QCOMPARE(blocks[0].x0, t.plotRect().left());
        QCOMPARE(blocks[0].x1, t.xOf(1010 * kNsPerMs));
        QCOMPARE(blocks[1].x0, t.xOf(1090 * kNsPerMs));
        QCOMPARE(blocks[1].x1, t.plotRect().right());
    }

    void subPixelSegmentsMergeWithoutLosingAny()
    {
        InversionTimeline t;
        t.resize(1000, 300);
        InversionTimelineData d = window(0, 200 * kNsPerMs);
        auto& medium = d.lanes[InversionTimelineData::Medium];
        // 50 000 segments of 1 µs every 2 µs over the first 100 ms: a pixel (~0.2 ms) holds a hundred of them.
        for (int64_t i = 0; i < 50'000; ++i)
            medium.push_back({i * 2000, i * 2000 + 1000, LaneActivity::Running});
        // A lone 10 ns segment far from the others keeps its own block (drawn at least a pixel wide).
        medium.push_back({150 * kNsPerMs, 150 * kNsPerMs + 10, LaneActivity::Running});
        t.setData(d);
        const auto blocks = blocksOf(t, InversionTimelineData::Medium);
        QCOMPARE(int(blocks.size()), 2);
        QCOMPARE(blocks.front().x0, t.xOf(0));
        QCOMPARE(blocks.front().x1, t.xOf(49'999 * 2000 + 1000));
        QCOMPARE(blocks.back().x0, t.xOf(150 * kNsPerMs));
        QCOMPARE(blocks.back().x1, t.xOf(150 * kNsPerMs + 10));
        // Every segment lies inside some block.
        for (size_t i = 0; i < medium.size(); i += 997) {
            const double x0 = t.xOf(medium[i].startNs), x1 = t.xOf(medium[i].endNs);
            bool covered = false;
            for (const auto& b : blocks)
                covered = covered || (b.x0 <= x0 + 1e-9 && b.x1 >= x1 - 1e-9);
            QVERIFY2(covered, qPrintable(QString("segment %1").arg(i)));
        }
    }

    void differentActivitiesNeverMerge()
    {
        InversionTimeline t;
        t.resize(1000, 300);
        InversionTimelineData d = window(0, 1000 * kNsPerMs);
        // Sub-pixel neighbours of different kinds: the short wait between two holds stays visible.
        d.lanes[InversionTimelineData::High] = {{0, 100'000, LaneActivity::Holding},
                                                {100'000, 200'000, LaneActivity::Waiting},
                                                {200'000, 300'000, LaneActivity::Holding}};
        t.setData(d);
        const auto high = blocksOf(t, InversionTimelineData::High);
        QCOMPARE(int(high.size()), 3);
        QCOMPARE(high[1].activity, LaneActivity::Waiting);
    }

    void ticksFollowTheSpanAndTheOrigin()
    {
        InversionTimeline t;
        t.resize(1000, 300);
        InversionTimelineData d = window(5 * kNsPerMs, 7 * kNsPerMs);
        d.originNs = 5 * kNsPerMs;
        t.setData(d);
        const QStringList ticks = t.tickLabels();
        QCOMPARE(ticks.first(), QString("0.0"));
        QCOMPARE(ticks.last(), QString("2.0"));
        QVERIFY(ticks.contains("1.0"));
    }

    void linesFollowThePresentationScale()
    {
        // Empty lanes, so behind the period line and the time axis there is only the background.
        InversionTimeline t;
        t.resize(1000, 600);
        InversionTimelineData d = window(0, 100 * kNsPerMs);
        d.periodStarts = {50 * kNsPerMs};
        t.setData(d);
        QCOMPARE(int(t.periodMarkerX().size()), 1);
        const QPoint period(int(std::lround(t.periodMarkerX().front())), int(t.laneRect(1).center().y()));
        const QPoint axis(int(t.plotRect().left()) + 20, int(std::lround(t.plotRect().bottom())));
        const QRgb text = t.palette().color(QPalette::Text).rgb();
        const auto restore = qScopeGuard([] { plot::setLineWidthScale(1.0); });
        // Pens of 1.2 or 1.4 px are drawn 1 or 2 pixels wide depending on where the line falls, so the widths are
        // compared at ×1, ×2 (presentation mode) and ×4, where a pen that ignored the scale could not keep up.
        for (const auto& [at, line, reach] : {std::tuple{period, Qt::Vertical, 12}, {axis, Qt::Horizontal, 3}}) {
            std::map<double, int> px;
            for (double scale : {1.0, 2.0, 4.0}) {
                plot::setLineWidthScale(scale);
                px[scale] = test::lineThickness(t.grab().toImage(), at, line, text, reach);
            }
            const QString widths = QString("%1, %2, %3 px").arg(px[1.0]).arg(px[2.0]).arg(px[4.0]);
            QVERIFY2(px[1.0] >= 1, qPrintable(widths));
            QVERIFY2(px[2.0] >= px[1.0], qPrintable(widths));
            QVERIFY2(px[4.0] >= 2 * px[1.0] && px[4.0] > px[2.0], qPrintable(widths));
        }
    }

    void emptyDataDrawsTheHintAndNoBlocks()
    {
        InversionTimeline t;
        t.resize(600, 250);
        InversionTimelineData d = window(0, 100 * kNsPerMs);
        d.emptyText = "Press Start";
        t.setData(d);
        QVERIFY(t.blocks().empty());
        const QImage image = t.grab().toImage();
        QVERIFY(!image.isNull());
    }
};

RTSCOPE_TEST_MAIN(TestInversionTimeline)
#include "tst_inversion_timeline.moc"
