#pragma once
// The latency anatomy of one wake-up (docs/experiments/anatomy.md), drawn: a swimlane of the measured CPU from
// shortly before the deadline to after the wake-up — the parts of the latency, the measuring thread's states, the
// task holding the CPU (coloured by policy), the interrupts — with the deadline and the wake-up as vertical lines on
// a time axis in µs; and the breakdown as a stacked bar with values. Both are QPainter widgets taking plain data
// (the latency page builds it from the kernel's events); what no event tells is drawn hatched and called unknown.
#include <QColor>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

class QPainter;

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

class AnatomySwimlane : public QWidget {
    Q_OBJECT
public:
    explicit AnatomySwimlane(QWidget* parent = nullptr);
    ~AnatomySwimlane() override;

    void setData(AnatomySwimlaneData data);
    const AnatomySwimlaneData& data() const { return m_data; }

    // Geometry for the current size, for tests.
    double xOf(int64_t ns) const;
    QRectF plotRect() const { return m_plot; }
    QRectF laneRect(int lane) const;
    /// Where segment @p index of lane @p lane is drawn (an empty rect when it is outside the window).
    QRectF segmentRect(int lane, int index) const;
    /// The x of each line, in the order of data().lines (NaN when outside the window).
    std::vector<double> lineX() const;
    QStringList tickLabels() const;
    /// The legend's entries: the kinds the data uses, in a fixed order (the lines are labelled in the plot).
    QStringList legendTexts() const;
    /// The segment under @p pos, as {lane, index}; {-1, -1} when none.
    std::pair<int, int> segmentAt(const QPointF& pos) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    /// The thinnest a lane is drawn: its name's line height (from the font), so that names never overlap.
    double minLaneHeight() const;

    /// The fill of @p kind on a light or dark background.
    static QColor kindColor(SwimKind kind, bool dark);
    static QString kindName(SwimKind kind);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Tick {
        double x = 0;
        QString label;
    };
    struct LegendItem {
        QString text;
        int kind = 0; ///< a SwimKind, or 100 + a SwimLineRole
    };

    void relayout();
    std::vector<LegendItem> legendItems() const;
    int legendHeight(int width) const;
    int lineLabelRows() const;
    QRectF segmentRectOf(int lane, const SwimSegment& s) const;
    void drawSegment(QPainter& p, int lane, const SwimSegment& s) const;
    void drawGroupLabels(QPainter& p) const;
    void drawSwatch(QPainter& p, const QRectF& r, int kind) const;
    QColor lineColor(SwimLineRole role) const;

    AnatomySwimlaneData m_data;
    QRectF m_plot;
    double m_laneHeight = 0;
    std::vector<Tick> m_ticks;
    double m_axisTitleLeft = 0;
    std::vector<int> m_lineRow;       ///< the label row of each line (labels that would overlap go one row up)
    std::vector<double> m_lineLabelX; ///< where each line's label starts
    std::vector<QString> m_lineLabel; ///< the label a line draws (lines close together share the first's)
};

/// One part of a wake-up's latency in the stacked bar.
enum class BreakdownRole : uint8_t { TimerDelay, Interrupts, Scheduling, ReturnToUser, Unaccounted };

struct BreakdownPart {
    BreakdownRole role = BreakdownRole::Unaccounted;
    QString name;              ///< "scheduling delay"
    std::optional<int64_t> ns; ///< nullopt: unknown (listed, no block)
    QString valueText;         ///< ns written with its unit ("1.18 ms")
    QString detail;            ///< "stress-ng-cpu 1.18 ms" (the largest contributor), may be empty
};

struct AnatomyBreakdownData {
    int64_t latencyNs = 0;
    QString latencyText; ///< "1.21 ms"
    /// In time order; the Unaccounted part (latency − the known parts, exact) last, when it is not zero.
    std::vector<BreakdownPart> parts;
};

class AnatomyBreakdownBar : public QWidget {
    Q_OBJECT
public:
    explicit AnatomyBreakdownBar(QWidget* parent = nullptr);
    ~AnatomyBreakdownBar() override;

    void setData(AnatomyBreakdownData data);
    const AnatomyBreakdownData& data() const { return m_data; }

    /// The block of part @p index (empty for an unknown part, which has no size), for tests.
    QRectF blockRect(int index) const;
    /// The text beside part @p index.
    QString labelText(int index) const;
    QRectF barRect() const { return m_bar; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static QColor roleColor(BreakdownRole role, bool dark);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void relayout();

    AnatomyBreakdownData m_data;
    QRectF m_bar;
    std::vector<QRectF> m_blocks;
    std::vector<double> m_labelY; ///< the baseline centre of each part's label
};

} // namespace rtscope
