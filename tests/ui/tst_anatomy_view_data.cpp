// ctest: parallel. Anatomy layout from hand-made events.
// The latency anatomy's view data and the swimlane's layout as plain functions (ui/widgets/anatomy_view_data.h,
// ui/plot/anatomy_swimlane_layout.h), fed by hand: the tracing status line, the latency parts lane, and where the
// swimlane puts its lanes, pieces, lines, ticks and legend for a given size. The same wake-ups through the widgets
// are in tst_anatomy_view.cpp.
#include "engine/pipeline/wakeup_anatomy.h"
#include "ui/plot/anatomy_swimlane.h"
#include "ui/plot/anatomy_swimlane_layout.h"
#include "ui/widgets/anatomy_view_data.h"

#include "tests/common/test_main.h"

#include <QApplication>

#include <cmath>

using namespace rtscope;

namespace {

constexpr int64_t kVdUs = 1000;
constexpr int64_t kVdDeadline = 7'000'000;

// A wake-up 100 µs late whose anatomy found every part: timer IRQ delay 10 µs, waiting 80 µs (interrupts 20,
// scheduling 60), return to user 10 µs.
WakeupAnatomy vdComplete()
{
    WakeupAnatomy a;
    a.query = {100, 1, kVdDeadline, kVdDeadline + 100 * kVdUs};
    a.latencyNs = 100 * kVdUs;
    a.timerNs = kVdDeadline + 10 * kVdUs;
    a.switchInNs = kVdDeadline + 90 * kVdUs;
    a.timerIrqDelayNs = 10 * kVdUs;
    a.irqNs = 20 * kVdUs;
    a.schedulingNs = 60 * kVdUs;
    a.returnToUserNs = 10 * kVdUs;
    return a;
}

// Every piece of @p lane in time order, touching, from @p from to @p to exactly.
void vdCheckCovers(const std::vector<SwimSegment>& lane, int64_t from, int64_t to)
{
    QVERIFY(!lane.empty());
    QCOMPARE(lane.front().fromNs, from);
    QCOMPARE(lane.back().toNs, to);
    for (size_t i = 1; i < lane.size(); ++i)
        QCOMPARE(lane[i].fromNs, lane[i - 1].toNs);
}

LatencySnapshot vdSnapshot(double seconds)
{
    LatencySnapshot s;
    s.startNs = 1'000'000'000;
    s.publishedNs = s.startNs + int64_t(seconds * 1e9);
    s.threads.resize(2);
    s.threads[0].cpu = 1;
    s.threads[1].cpu = 3;
    return s;
}

// Four lanes over 1 ms, the deadline at 0.1 ms: a long part, an interrupt of 1 ns, a piece outside the window;
// the deadline, a switch-in and the wake-up 1 µs apart (their labels share one), a timer line outside the window.
AnatomySwimlaneData vdLayoutData()
{
    AnatomySwimlaneData d;
    d.laneNames = {"latency parts", "measuring thread", "CPU 1 runs", "interrupts"};
    d.lanes.resize(4);
    d.originNs = 100'000;
    d.fromNs = 0;
    d.toNs = 1'000'000;
    d.axisTitle = "µs from deadline";
    d.lanes[0].push_back({100'000, 900'000, SwimKind::PartWaiting, "waiting", "", false, 0});
    d.lanes[1].push_back({0, 500'000, SwimKind::Asleep, "asleep", "", false, 0});
    d.lanes[2].push_back({2'000'000, 3'000'000, SwimKind::OtherTask, "hog", "", false, 0});
    d.lanes[3].push_back({500'000, 500'001, SwimKind::Interrupt, "irq 24", "", false, 0});
    d.lines = {{100'000, "deadline", SwimLineRole::Deadline},
               {899'000, "switched in", SwimLineRole::SwitchIn},
               {900'000, "woke", SwimLineRole::Wake},
               {5'000'000, "timer fired", SwimLineRole::Timer}};
    return d;
}

// A tracing that is on and has read @p events events.
LatencyTracing vdActiveTracing(uint64_t events)
{
    LatencyTracing t;
    t.active = true;
    t.stats.events = events;
    return t;
}

} // namespace

class TestAnatomyViewData : public QObject {
    Q_OBJECT

private slots:
    void tracingStatusSaysWhyTracingIsOff()
    {
        LatencyTracing t;
        t.unavailable = "tracefs is not mounted <here>";
        const QString html = tracingStatusHtml(t, vdSnapshot(2));
        QVERIFY2(html.contains("Kernel tracing is not running:"), qPrintable(html));
        QVERIFY2(html.contains("tracefs is not mounted &lt;here&gt;"), qPrintable(html)); // escaped
        QVERIFY(!html.contains("events/s"));
        t.unavailable.clear();
        QVERIFY(tracingStatusHtml(t, vdSnapshot(2)).contains("the run reports no reason"));
    }

    void tracingStatusCountsEventsAndWakeups()
    {
        LatencyTracing t = vdActiveTracing(1000);
        t.figures.wakeupsSeen = 9;
        t.figures.wakeupsAnalysed = 7;
        t.figures.wakeupsComplete = 5;
        const QString html = tracingStatusHtml(t, vdSnapshot(2));
        QVERIFY2(html.contains("on CPU 1, 3: 500 events/s"), qPrintable(html));
        QVERIFY2(html.contains("0 events lost"), qPrintable(html));
        QVERIFY2(html.contains("7 of 9 wake-ups analysed (5 fully)"), qPrintable(html));
        QVERIFY2(!html.contains(" over ") && !html.contains("not analysed") && !html.contains("lacks"),
                 qPrintable(html));

        t.thresholdNs = 100 * kVdUs;
        t.figures.overThresholdTotal = 12;
        t.figures.wakeupsNotAnalysed = 2;
        const QString more = tracingStatusHtml(t, vdSnapshot(2));
        QVERIFY2(more.contains("12 over 100 µs"), qPrintable(more));
        QVERIFY2(more.contains("2 not analysed"), qPrintable(more));
    }

    void tracingStatusWarnsOfLostEvents()
    {
        LatencyTracing t = vdActiveTracing(10);
        t.stats.lostEvents = 3;
        t.stats.lossReports = 1;
        t.queueDroppedEvents = 2;
        t.queueDroppedBatches = 1;
        t.figures.wakeupsWithLoss = 4;
        t.missingEvents = {"irq_vectors:local_timer_entry"};
        t.stopError = "rmdir <instance> failed";
        const QString html = tracingStatusHtml(t, vdSnapshot(1));
        // The kernel's and the queue's losses together, in the warning colour.
        QVERIFY2(html.contains("5 events lost</b> (2 gaps): 4 wake-ups are partly unknown"), qPrintable(html));
        QVERIFY(!html.contains("0 events lost"));
        QVERIFY2(html.contains("this kernel lacks irq_vectors:local_timer_entry"), qPrintable(html));
        QVERIFY2(html.contains("rmdir &lt;instance&gt; failed"), qPrintable(html));
    }

    void partsLaneSplitsTheLatencyInTimeOrder()
    {
        const WakeupAnatomy a = vdComplete();
        const std::vector<SwimSegment> lane = latencyPartsLane(a);
        QCOMPARE(lane.size(), size_t(3));
        QCOMPARE(lane[0].kind, SwimKind::PartTimer);
        QCOMPARE(lane[1].kind, SwimKind::PartWaiting);
        QCOMPARE(lane[2].kind, SwimKind::PartReturn);
        QCOMPARE(lane[0].toNs, kVdDeadline + 10 * kVdUs);
        QCOMPARE(lane[2].fromNs, kVdDeadline + 90 * kVdUs);
        QVERIFY2(lane[1].detail.contains("scheduling delay 60.0 µs, interrupts 20.0 µs"), qPrintable(lane[1].detail));
        vdCheckCovers(lane, kVdDeadline, kVdDeadline + 100 * kVdUs);
    }

    void partsLaneLeavesAMissingPartUnknownWithItsReason()
    {
        WakeupAnatomy a = vdComplete();
        a.irqNs.reset();
        a.schedulingNs.reset();
        a.note = "the kernel lost events on CPU 1 between the timer and the switch-in";
        const std::vector<SwimSegment> lane = latencyPartsLane(a);
        QCOMPARE(lane.size(), size_t(3));
        QCOMPARE(lane[1].kind, SwimKind::Unknown);
        QCOMPARE(lane[1].fromNs, kVdDeadline + 10 * kVdUs);
        QCOMPARE(lane[1].toNs, kVdDeadline + 90 * kVdUs);
        QVERIFY2(lane[1].detail.contains("80.0 µs") && lane[1].detail.contains("lost events on CPU 1"),
                 qPrintable(lane[1].detail));
        vdCheckCovers(lane, kVdDeadline, kVdDeadline + 100 * kVdUs);

        // An inconsistent anatomy: nothing of it is drawn as known.
        a = vdComplete();
        a.consistent = false;
        const std::vector<SwimSegment> none = latencyPartsLane(a);
        QCOMPARE(none.size(), size_t(1));
        QCOMPARE(none[0].kind, SwimKind::Unknown);
        QVERIFY2(none[0].detail.contains("no event tells how this time splits"), qPrintable(none[0].detail));
        vdCheckCovers(none, kVdDeadline, kVdDeadline + 100 * kVdUs);
    }

    void layoutPlacesLanesAndPiecesByTime()
    {
        const AnatomySwimlaneData d = vdLayoutData();
        const QFont font = QApplication::font();
        const QSizeF size(800, 320);
        const SwimlaneLayout l = layoutSwimlane(d, size, font);

        // The plot inside the widget, right of the lane names; the lanes stacked on it, one height each.
        QVERIFY(l.plot.left() > 10 && l.plot.right() < size.width() && l.plot.top() > 0);
        QCOMPARE(l.lanes.size(), size_t(4));
        for (size_t i = 0; i < l.lanes.size(); ++i) {
            QCOMPARE(l.lanes[i].top(), l.plot.top() + double(i) * l.laneHeight);
            QCOMPARE(l.lanes[i].height(), l.laneHeight);
        }
        QCOMPARE(l.lanes.back().bottom(), l.plot.bottom());

        // Time maps linearly onto the plot's width; a piece is drawn inside its own lane.
        const QRectF part = l.segments[0][0];
        QVERIFY(std::abs(part.left() - (l.plot.left() + 0.1 * l.plot.width())) < 1e-6);
        QVERIFY(std::abs(part.right() - (l.plot.left() + 0.9 * l.plot.width())) < 1e-6);
        QVERIFY(l.lanes[0].contains(part.center()) && part.height() < l.laneHeight);
        // A 1 ns interrupt is still a few pixels wide; a piece outside the window has no rect.
        const QRectF irq = l.segments[3][0];
        QVERIFY2(irq.width() >= 2.99 && irq.width() < 4, qPrintable(QString::number(irq.width())));
        QVERIFY(std::abs(irq.center().x() - (l.plot.left() + 0.5 * l.plot.width())) < 1);
        QVERIFY(l.segments[2][0].isEmpty());
        // Asleep is a thin line in the middle of its lane.
        QVERIFY(l.segments[1][0].height() < l.laneHeight / 4);

        // Lines: at their time, NaN outside the window; the two 1 µs apart share one label, drawn by the first.
        QCOMPARE(l.lineX.size(), size_t(4));
        QVERIFY(std::abs(l.lineX[0] - (l.plot.left() + 0.1 * l.plot.width())) < 1e-6);
        QVERIFY(std::isnan(l.lineX[3]));
        QCOMPARE(l.lineLabel[1], QString("switched in · woke"));
        QVERIFY(l.lineLabel[2].isEmpty());
        QCOMPARE(l.lineRow[1], l.lineRow[2]);
        QVERIFY(l.lineLabelRows >= 1);
        QVERIFY(l.lineLabelX[0] < l.lineX[0]); // the deadline's label ends at its line

        // Ticks: µs from the deadline, ascending, inside the plot, 0 at the deadline.
        QVERIFY(l.ticks.size() >= 3);
        bool zero = false;
        for (size_t i = 0; i < l.ticks.size(); ++i) {
            QVERIFY(l.ticks[i].x >= l.plot.left() - 1e-6 && l.ticks[i].x <= l.plot.right() + 1e-6);
            if (i > 0)
                QVERIFY(l.ticks[i].x > l.ticks[i - 1].x);
            if (l.ticks[i].label == "0") {
                zero = true;
                QVERIFY(std::abs(l.ticks[i].x - l.lineX[0]) < 1e-6);
            }
        }
        QVERIFY(zero);

        // The legend: the kinds used, in the fixed order, under the axis and inside the widget.
        QStringList texts;
        for (const SwimlaneLegendEntry& e : l.legend) {
            texts << e.text;
            QVERIFY(e.swatch.top() > l.plot.bottom());
            QVERIFY(e.textBaseline <= size.height() && e.swatch.right() <= size.width());
        }
        QCOMPARE(texts, QStringList({swimKindName(SwimKind::Asleep), swimKindName(SwimKind::OtherTask),
                                     swimKindName(SwimKind::Interrupt)}));
        QCOMPARE(l.legendHeight, swimlaneLegendHeight(d, size.width(), font));
    }

    void layoutNeverCrushesTheLanes()
    {
        const AnatomySwimlaneData d = vdLayoutData();
        const QFont font = QApplication::font();
        const double minLane = swimlaneMinLaneHeight(font);
        // Too short for four readable lanes: they keep their minimum (the panel scrolls).
        QCOMPARE(layoutSwimlane(d, QSizeF(800, 60), font).laneHeight, minLane);
        // Tall: they grow, but only to a limit.
        const double tall = layoutSwimlane(d, QSizeF(800, 2000), font).laneHeight;
        QVERIFY(tall > minLane && tall < 100);
        // A narrow legend wraps onto more rows.
        QVERIFY(swimlaneLegendHeight(d, 200, font) > swimlaneLegendHeight(d, 2000, font));
    }

    void widgetDrawsWhereTheLayoutSays()
    {
        const AnatomySwimlaneData d = vdLayoutData();
        AnatomySwimlane w;
        w.resize(800, 320);
        w.setData(d);
        const SwimlaneLayout l = layoutSwimlane(d, QSizeF(800, 320), w.font());
        QCOMPARE(w.plotRect(), l.plot);
        QCOMPARE(w.segmentRect(0, 0), l.segments[0][0]);
        QCOMPARE(w.laneRect(3), l.lanes[3]);
        QCOMPARE(w.segmentAt(l.segments[0][0].center()), std::make_pair(0, 0));
        QCOMPARE(w.segmentAt(QPointF(l.plot.left() - 5, l.lanes[0].center().y())), std::make_pair(-1, -1));
    }
};

RTSCOPE_TEST_MAIN(TestAnatomyViewData)
#include "tst_anatomy_view_data.moc"
