#pragma once
// The swimlane of one wake-up's anatomy (docs/experiments/anatomy.md) as plain data, and where each of its pieces goes
// for a given size and font: a pure function, so the geometry is tested without painting, and the widget
// (anatomy_swimlane.h) only draws what it returns.
#include <QFont>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace rtscope {

/// What a piece of a lane stands for; the widget picks its colour and pattern from it (ui/common/colors.h).
enum class SwimKind : uint8_t {
    // The parts of the latency (the top lane), as in the breakdown bar.
    PartTimer,   ///< deadline → the thread's timer fired: timer IRQ delay
    PartWaiting, ///< timer → switch-in: interrupts and the scheduling delay
    PartReturn,  ///< switch-in → the thread read its clock: return to user
    // The measuring thread.
    Asleep,  ///< sleeping until its timer
    Waiting, ///< woken (or preempted), waiting for the CPU
    Running, ///< on its CPU
    // Who holds the CPU.
    Measuring, ///< the measuring thread itself
    RtTask,    ///< another task of a real-time policy (kernel prio < 100: FIFO, RR, DEADLINE)
    OtherTask, ///< another task of a normal policy (OTHER, BATCH, IDLE)
    Idle,      ///< the idle task
    // Interrupt context.
    Interrupt, ///< a hard IRQ, an x86 vector, a softirq or another hrtimer callback
    OwnTimer,  ///< the measuring thread's own hrtimer callback (part of every wake-up)
    Unknown,   ///< no event tells: drawn hatched
};

struct SwimSegment {
    int64_t fromNs = 0;
    int64_t toNs = 0;
    SwimKind kind = SwimKind::Unknown;
    QString label;         ///< drawn inside when it fits ("stress-ng-cpu")
    QString detail;        ///< the tooltip ("stress-ng-cpu, pid 4242, nice 0 (OTHER/BATCH): 1.18 ms")
    bool inferred = false; ///< known from the events of its context, not from a recorded switch: a dashed outline
    int depth = 0;         ///< interrupt nesting (0 outermost): deeper marks are drawn thinner, on top
};

enum class SwimLineRole : uint8_t { Deadline, Timer, SwitchIn, Wake };

struct SwimLine {
    int64_t ns = 0;
    QString label;
    SwimLineRole role = SwimLineRole::Deadline;
};

struct AnatomySwimlaneData {
    QStringList laneNames;                       ///< one per lane, top to bottom
    std::vector<std::vector<SwimSegment>> lanes; ///< per lane, in time order (interrupts: outer before inner)
    std::vector<SwimLine> lines;
    int64_t originNs = 0; ///< axis zero (the deadline)
    int64_t fromNs = 0;   ///< the visible window
    int64_t toNs = 0;
    QString axisTitle;
    QString emptyText; ///< shown instead of lanes when there is nothing to draw
};

/// What @p kind is called in the legend ("RT task", "unknown: no event tells").
QString swimKindName(SwimKind kind);

/// A legend entry's kind: a SwimKind, or kSwimLineKindBase + a SwimLineRole.
inline constexpr int kSwimLineKindBase = 100;

struct SwimlaneTick {
    double x = 0;
    QString label; ///< µs from the origin
};

struct SwimlaneLegendEntry {
    QString text;
    int kind = 0;     ///< a SwimKind (kSwimLineKindBase + a SwimLineRole for a line)
    QRectF swatch;    ///< its colour sample
    double textX = 0; ///< the text's left and baseline
    double textBaseline = 0;
};

/// Where everything of an AnatomySwimlaneData goes in a widget of a given size.
struct SwimlaneLayout {
    QRectF plot;           ///< the lanes, all of them
    double laneHeight = 0; ///< never below swimlaneMinLaneHeight(), even when the size leaves less
    std::vector<QRectF> lanes;
    /// Per lane, per segment: where it is drawn (an empty rect when it lies outside the window); a segment shorter
    /// than a few pixels is widened to stay visible.
    std::vector<std::vector<QRectF>> segments;
    std::vector<double> lineX;       ///< per line, in data order (NaN when outside the window)
    std::vector<int> lineRow;        ///< the label row of each line (labels that would overlap go one row up)
    std::vector<double> lineLabelX;  ///< where each line's label starts
    std::vector<QString> lineLabel;  ///< the label a line draws (lines close together share the first's; empty)
    int lineLabelRows = 0;           ///< rows of line labels above the plot (0 without lines)
    std::vector<SwimlaneTick> ticks; ///< the time axis under the plot
    double axisTitleLeft = 0;        ///< where the axis title starts, in the tick row
    std::vector<SwimlaneLegendEntry> legend;
    double legendHeight = 0;
};

/// The thinnest a lane is drawn with @p font: its name's line height, so that names never overlap.
double swimlaneMinLaneHeight(const QFont& font);
/// The legend's entries: the kinds @p data uses, in a fixed order, with their names (the lines are labelled where
/// they are drawn, not in the legend).
std::vector<SwimlaneLegendEntry> swimlaneLegend(const AnatomySwimlaneData& data);
/// How tall the legend of @p data is at @p width with @p font (entries wrap onto rows).
double swimlaneLegendHeight(const AnatomySwimlaneData& data, double width, const QFont& font);
/// Where each piece of @p data goes in a widget of @p size drawing with @p font.
SwimlaneLayout layoutSwimlane(const AnatomySwimlaneData& data, const QSizeF& size, const QFont& font);

} // namespace rtscope
