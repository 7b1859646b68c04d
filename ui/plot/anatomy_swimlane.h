#pragma once
// The latency anatomy of one wake-up (docs/experiments/anatomy.md), drawn: a swimlane of the measured CPU from
// shortly before the deadline to after the wake-up — the parts of the latency, the measuring thread's states, the
// task holding the CPU (coloured by policy), the interrupts — with the deadline and the wake-up as vertical lines on
// a time axis in µs. A QPainter widget taking plain data (ui/widgets/anatomy_view_data.h builds it from the kernel's
// events) and drawing where layoutSwimlane() (anatomy_swimlane_layout.h) puts each piece; what no event tells is
// drawn hatched and called unknown. The stacked bar beside it is anatomy_breakdown_bar.h.
#include "ui/plot/anatomy_swimlane_layout.h"
#include "ui/plot/laid_out_widget.h"

#include <QColor>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <utility>
#include <vector>

class QPainter;

namespace rtscope {

class AnatomySwimlane : public plot::LaidOutWidget {
    Q_OBJECT
public:
    explicit AnatomySwimlane(QWidget* parent = nullptr);
    ~AnatomySwimlane() override;

    void setData(AnatomySwimlaneData data);
    const AnatomySwimlaneData& data() const { return m_data; }
    /// Where each piece is drawn at the current size.
    const SwimlaneLayout& layout() const { return m_layout; }

    // Geometry for the current size, for tests.
    double xOf(int64_t ns) const;
    QRectF plotRect() const { return m_layout.plot; }
    QRectF laneRect(int lane) const;
    /// Where segment @p index of lane @p lane is drawn (an empty rect when it is outside the window).
    QRectF segmentRect(int lane, int index) const;
    /// The x of each line, in the order of data().lines (NaN when outside the window).
    std::vector<double> lineX() const { return m_layout.lineX; }
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
    bool event(QEvent* event) override;

private:
    void relayout() override;
    void drawSegment(QPainter& p, int lane, const SwimSegment& s, const QRectF& r) const;
    void drawGroupLabels(QPainter& p) const;
    void drawLines(QPainter& p) const;
    void drawAxis(QPainter& p) const;
    void drawSwatch(QPainter& p, const QRectF& r, int kind) const;
    QColor lineColor(SwimLineRole role) const;

    AnatomySwimlaneData m_data;
    SwimlaneLayout m_layout;
};

} // namespace rtscope
