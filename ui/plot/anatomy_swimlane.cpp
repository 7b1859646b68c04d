#include "ui/plot/anatomy_swimlane.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_style.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace rtscope {

namespace {
// Black or white, whichever reads better on @p fill.
QColor swimTextOn(const QColor& fill)
{
    const double l = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return l > 0.45 ? QColor(Qt::black) : QColor(Qt::white);
}

bool swimIsPart(SwimKind k)
{
    return k == SwimKind::PartTimer || k == SwimKind::PartWaiting || k == SwimKind::PartReturn;
}

// @p r's edge drawn with @p pen just inside it, nothing filled.
void outlineSwimRect(QPainter& p, const QRectF& r, const QPen& pen)
{
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
}

// @p r filled as a segment of @p kind in @p fill: unknown hatched and outlined, idle faint, waiting hatched darker,
// an interrupt outlined, the rest plain.
void fillSwimKind(QPainter& p, SwimKind kind, const QRectF& r, QColor fill)
{
    switch (kind) {
    case SwimKind::Unknown:
        p.fillRect(r, QBrush(fill, Qt::BDiagPattern));
        outlineSwimRect(p, r, QPen(fill, 1));
        break;
    case SwimKind::Idle:
        fill.setAlphaF(0.30f);
        p.fillRect(r, fill);
        break;
    case SwimKind::Waiting:
        p.fillRect(r, fill);
        p.fillRect(r, QBrush(fill.darker(160), Qt::BDiagPattern));
        break;
    case SwimKind::Interrupt:
        p.fillRect(r, fill);
        outlineSwimRect(p, r, QPen(QColor(colors::kAnatomyInterruptEdge), 1));
        break;
    default:
        p.fillRect(r, fill);
        break;
    }
}
} // namespace

AnatomySwimlane::AnatomySwimlane(QWidget* parent)
    : plot::LaidOutWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(true);
}

AnatomySwimlane::~AnatomySwimlane() = default;

void AnatomySwimlane::setData(AnatomySwimlaneData data)
{
    m_data = std::move(data);
    updateGeometry();
    relayout();
    update();
}

QColor AnatomySwimlane::kindColor(SwimKind kind, bool dark)
{
    switch (kind) {
    case SwimKind::PartTimer:
    case SwimKind::OwnTimer:
        return QColor(dark ? colors::kAnatomyTimerDark : colors::kAnatomyTimer);
    case SwimKind::PartWaiting:
    case SwimKind::Waiting:
        return QColor(colors::kAnatomyWaiting);
    case SwimKind::PartReturn:
    case SwimKind::Running:
    case SwimKind::Measuring:
        return QColor(dark ? colors::kAnatomyRunningDark : colors::kAnatomyRunning);
    case SwimKind::RtTask:
        return QColor(dark ? colors::kAnatomyRtTaskDark : colors::kAnatomyRtTask);
    case SwimKind::OtherTask:
        return QColor(dark ? colors::kAnatomyOtherTaskDark : colors::kAnatomyOtherTask);
    case SwimKind::Interrupt:
        return QColor(colors::kAnatomyInterrupt);
    case SwimKind::Asleep:
    case SwimKind::Idle:
    case SwimKind::Unknown:
        return QColor(dark ? colors::kAnatomyUnknownDark : colors::kAnatomyUnknown);
    }
    return QColor(colors::kAnatomyUnknown);
}

QString AnatomySwimlane::kindName(SwimKind kind)
{
    return swimKindName(kind);
}

QSize AnatomySwimlane::sizeHint() const
{
    const QFontMetricsF fm(plot::labelFont(font(), 1.0, true));
    const int lanes = std::max<int>(1, int(m_data.lanes.size()));
    return QSize(900, int(fm.height() * 4 + 20 + lanes * std::max(30.0, minLaneHeight()) +
                          int(swimlaneLegendHeight(m_data, 900, font()))));
}

double AnatomySwimlane::minLaneHeight() const
{
    return swimlaneMinLaneHeight(font());
}

QSize AnatomySwimlane::minimumSizeHint() const
{
    // What the layout needs for lanes no thinner than minLaneHeight(): the line labels above (two rows, the usual
    // count), the lanes, the time axis and the legend at the narrowest width; a parent with less gives a scroll bar
    // (AnatomyPanel), not squeezed lanes.
    const QFontMetricsF nameFm(plot::labelFont(font(), 1.0, true));
    const QFontMetricsF fm(plot::labelFont(font(), 1.0));
    const int lanes = std::max<int>(1, int(m_data.lanes.size()));
    const double labels = m_data.lines.empty() ? 0 : 2 * (nameFm.height() + 1);
    return QSize(360, int(std::ceil(8 + labels + lanes * minLaneHeight() + fm.height() + 12 +
                                    int(swimlaneLegendHeight(m_data, 700, font())) + 4)));
}

void AnatomySwimlane::relayout()
{
    m_layout = layoutSwimlane(m_data, QSizeF(size()), font());
}

bool AnatomySwimlane::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [lane, index] = segmentAt(help->pos());
        if (lane >= 0) {
            const SwimSegment& s = m_data.lanes[size_t(lane)][size_t(index)];
            QToolTip::showText(help->globalPos(), s.detail.isEmpty() ? s.label : s.detail, this);
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    return QWidget::event(event);
}

double AnatomySwimlane::xOf(int64_t ns) const
{
    const double span = double(std::max<int64_t>(1, m_data.toNs - m_data.fromNs));
    return m_layout.plot.left() + double(ns - m_data.fromNs) * m_layout.plot.width() / span;
}

QRectF AnatomySwimlane::laneRect(int lane) const
{
    return QRectF(m_layout.plot.left(), m_layout.plot.top() + lane * m_layout.laneHeight, m_layout.plot.width(),
                  m_layout.laneHeight);
}

QRectF AnatomySwimlane::segmentRect(int lane, int index) const
{
    if (lane < 0 || size_t(lane) >= m_layout.segments.size() || index < 0 ||
        size_t(index) >= m_layout.segments[size_t(lane)].size())
        return {};
    return m_layout.segments[size_t(lane)][size_t(index)];
}

std::pair<int, int> AnatomySwimlane::segmentAt(const QPointF& pos) const
{
    for (size_t lane = 0; lane < m_layout.segments.size(); ++lane) {
        const QRectF laneR = m_layout.lanes[lane];
        if (!laneR.contains(pos))
            continue;
        // The innermost (last drawn) first.
        const auto& rects = m_layout.segments[lane];
        for (size_t i = rects.size(); i-- > 0;) {
            QRectF r = rects[i];
            r.setTop(laneR.top());
            r.setBottom(laneR.bottom());
            if (!r.isEmpty() && r.adjusted(-1, 0, 1, 0).contains(pos))
                return {int(lane), int(i)};
        }
    }
    return {-1, -1};
}

QStringList AnatomySwimlane::tickLabels() const
{
    QStringList out;
    for (const SwimlaneTick& t : m_layout.ticks)
        out << t.label;
    return out;
}

QStringList AnatomySwimlane::legendTexts() const
{
    QStringList out;
    for (const SwimlaneLegendEntry& i : m_layout.legend)
        out << i.text;
    return out;
}

QColor AnatomySwimlane::lineColor(SwimLineRole role) const
{
    const bool dark = plot::isDarkPalette(palette());
    switch (role) {
    case SwimLineRole::Timer:
        return kindColor(SwimKind::OwnTimer, dark);
    case SwimLineRole::SwitchIn:
        return kindColor(SwimKind::Running, dark);
    case SwimLineRole::Deadline:
    case SwimLineRole::Wake:
        break;
    }
    return palette().color(QPalette::Text);
}

void AnatomySwimlane::drawSegment(QPainter& p, int lane, const SwimSegment& s, const QRectF& r) const
{
    if (r.isEmpty())
        return;
    const bool dark = plot::isDarkPalette(palette());
    const QColor text = palette().color(QPalette::Text);
    const QColor fill = kindColor(s.kind, dark);
    fillSwimKind(p, s.kind, r, fill);
    // Slices of one colour side by side (sixteen hogs taking turns) stay apart: a hairline of the background.
    if (s.kind == SwimKind::RtTask || s.kind == SwimKind::OtherTask || s.kind == SwimKind::Measuring) {
        p.setPen(QPen(palette().color(QPalette::Base), 1));
        p.drawLine(QPointF(r.left() + 0.5, r.top()), QPointF(r.left() + 0.5, r.bottom()));
    }
    if (s.inferred)
        outlineSwimRect(p, r, QPen(text, 1.2, Qt::DashLine));
    // The label inside, when it fits (else the tooltip has it).
    if (s.label.isEmpty())
        return;
    const QFont f = plot::labelFont(font(), 0.95,
                                    swimIsPart(s.kind) || s.kind == SwimKind::RtTask || s.kind == SwimKind::OtherTask);
    const QFontMetricsF fm(f);
    const QRectF lr = m_layout.lanes[size_t(lane)];
    const double w = fm.horizontalAdvance(s.label);
    if (w + 6 > r.width() || fm.height() > lr.height())
        return;
    p.setFont(f);
    QColor tc = text;
    if (s.kind != SwimKind::Unknown && s.kind != SwimKind::Idle && s.kind != SwimKind::Asleep)
        tc = swimTextOn(fill);
    p.setPen(tc);
    if (s.kind == SwimKind::Asleep) {
        // Over the thin line: on the lane's background, above the line.
        p.drawText(QPointF(r.left() + 4, r.top() - 3), s.label);
        return;
    }
    p.drawText(QRectF(r.left(), lr.top(), r.width(), lr.height()), Qt::AlignCenter, s.label);
}

void AnatomySwimlane::drawGroupLabels(QPainter& p) const
{
    // Tasks of one name taking turns (sixteen hogs): slices too short for the name each, the name once over them.
    const QFont f = plot::labelFont(font(), 0.95, true);
    const QFontMetricsF fm(f);
    p.setFont(f);
    const bool dark = plot::isDarkPalette(palette());
    for (int lane = 0; lane < int(m_data.lanes.size()); ++lane) {
        const auto& segs = m_data.lanes[size_t(lane)];
        for (size_t i = 0; i < segs.size();) {
            const SwimSegment& first = segs[i];
            size_t j = i + 1;
            if (first.kind == SwimKind::RtTask || first.kind == SwimKind::OtherTask)
                while (j < segs.size() && segs[j].kind == first.kind && segs[j].label == first.label &&
                       segs[j].fromNs == segs[j - 1].toNs)
                    ++j;
            if (j - i >= 2 && !first.label.isEmpty()) {
                const std::vector<QRectF>& rects = m_layout.segments[size_t(lane)];
                const QRectF a = rects[i];
                const QRectF b = rects[j - 1];
                const double w = fm.horizontalAdvance(first.label);
                bool anyFits = false;
                for (size_t k = i; k < j; ++k)
                    anyFits = anyFits || rects[k].width() >= w + 6;
                const QRectF lr = m_layout.lanes[size_t(lane)];
                const QRectF group(a.left(), lr.top(), b.right() - a.left(), lr.height());
                if (!anyFits && group.width() >= w + 12) {
                    const QColor fill = kindColor(first.kind, dark);
                    QRectF back(group.center().x() - w / 2 - 4, group.center().y() - fm.height() / 2, w + 8,
                                fm.height());
                    p.fillRect(back, fill);
                    p.setPen(swimTextOn(fill));
                    p.drawText(back, Qt::AlignCenter, first.label);
                }
            }
            i = j;
        }
    }
}

void AnatomySwimlane::drawSwatch(QPainter& p, const QRectF& r, int kind) const
{
    if (kind >= kSwimLineKindBase) {
        const auto role = SwimLineRole(kind - kSwimLineKindBase);
        QPen pen(lineColor(role),
                 plot::lineWidth(role == SwimLineRole::Wake || role == SwimLineRole::Deadline ? 2.2 : 1.6),
                 role == SwimLineRole::Deadline ? Qt::DashLine
                 : role == SwimLineRole::Wake   ? Qt::SolidLine
                                                : Qt::DotLine);
        p.setPen(pen);
        p.drawLine(QPointF(r.center().x(), r.top() - 2), QPointF(r.center().x(), r.bottom() + 2));
        return;
    }
    SwimSegment s;
    s.kind = SwimKind(kind);
    const bool dark = plot::isDarkPalette(palette());
    const QColor fill = kindColor(s.kind, dark);
    // The swatch of Asleep is a thin bar across the middle.
    if (s.kind == SwimKind::Asleep)
        p.fillRect(QRectF(r.left(), r.center().y() - 2, r.width(), 4), fill);
    else
        fillSwimKind(p, s.kind, r, fill);
}

void AnatomySwimlane::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (m_data.lanes.empty() || m_data.toNs <= m_data.fromNs) {
        const QFont f = plot::labelFont(font(), 1.1, true);
        p.setFont(f);
        QColor c = text;
        c.setAlphaF(0.65f);
        p.setPen(c);
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_data.emptyText);
        return;
    }

    // Lanes: a light band every other one, the name at the left.
    const QFont nameFont = plot::labelFont(font(), 1.0, true);
    const QFontMetricsF nameFm(nameFont);
    QColor band = text;
    band.setAlphaF(plot::isDarkPalette(pal) ? 0.07f : 0.045f);
    for (int lane = 0; lane < int(m_data.lanes.size()); ++lane) {
        const QRectF r = m_layout.lanes[size_t(lane)];
        if (lane % 2 == 1)
            p.fillRect(r, band);
        p.setFont(nameFont);
        p.setPen(text);
        const QString name = m_data.laneNames.value(lane);
        p.drawText(QPointF(m_layout.plot.left() - 10 - nameFm.horizontalAdvance(name),
                           r.center().y() + nameFm.ascent() / 2 - 2),
                   name);
    }
    p.save();
    p.setClipRect(m_layout.plot.adjusted(-2, 0, 2, 0));
    for (int lane = 0; lane < int(m_data.lanes.size()); ++lane) {
        const std::vector<SwimSegment>& segs = m_data.lanes[size_t(lane)];
        for (size_t i = 0; i < segs.size(); ++i)
            drawSegment(p, lane, segs[i], m_layout.segments[size_t(lane)][i]);
    }
    drawGroupLabels(p);
    p.restore();

    drawLines(p);
    drawAxis(p);

    // The legend.
    p.setFont(plot::labelFont(font(), 0.95));
    for (const SwimlaneLegendEntry& i : m_layout.legend) {
        drawSwatch(p, i.swatch, i.kind);
        p.setPen(text);
        p.drawText(QPointF(i.textX, i.textBaseline), i.text);
    }
}

void AnatomySwimlane::drawLines(QPainter& p) const
{
    // The lines, across every lane, labelled above the plot.
    const QColor text = palette().color(QPalette::Text);
    const QFont lineFont = plot::labelFont(font(), 1.0, true);
    const QFontMetricsF lfm(lineFont);
    p.setFont(lineFont);
    const std::vector<double>& xs = m_layout.lineX;
    for (size_t i = 0; i < m_data.lines.size(); ++i) {
        if (std::isnan(xs[i]))
            continue;
        const SwimLine& l = m_data.lines[i];
        const bool strong = l.role == SwimLineRole::Deadline || l.role == SwimLineRole::Wake;
        QPen pen(lineColor(l.role), plot::lineWidth(strong ? 2.2 : 1.6),
                 l.role == SwimLineRole::Deadline ? Qt::DashLine
                 : l.role == SwimLineRole::Wake   ? Qt::SolidLine
                                                  : Qt::DotLine);
        p.setPen(pen);
        const int row = m_layout.lineRow[i];
        const double labelBase = 4 + (m_layout.lineLabelRows - row) * (lfm.height() + 1) - lfm.descent();
        p.drawLine(QPointF(xs[i], labelBase + lfm.descent()), QPointF(xs[i], m_layout.plot.bottom() + 3));
        if (m_layout.lineLabel[i].isEmpty())
            continue;
        // A shared label in the text colour; one line's in its own.
        p.setPen(m_layout.lineLabel[i] == l.label ? lineColor(l.role) : text);
        p.drawText(QPointF(m_layout.lineLabelX[i], labelBase), m_layout.lineLabel[i]);
    }
}

void AnatomySwimlane::drawAxis(QPainter& p) const
{
    const QColor text = palette().color(QPalette::Text);
    const QRectF& plotRect = m_layout.plot;
    const QFont axisFont = plot::labelFont(font(), 1.0);
    const QFontMetricsF fm(axisFont);
    p.setFont(axisFont);
    p.setPen(QPen(text, plot::lineWidth(1.2)));
    p.drawLine(QPointF(plotRect.left(), plotRect.bottom()), QPointF(plotRect.right(), plotRect.bottom()));
    for (const SwimlaneTick& t : m_layout.ticks) {
        p.drawLine(QPointF(t.x, plotRect.bottom()), QPointF(t.x, plotRect.bottom() + 5));
        const double w = fm.horizontalAdvance(t.label);
        p.drawText(QPointF(std::clamp(t.x - w / 2, 0.0, width() - w), plotRect.bottom() + 6 + fm.ascent()), t.label);
    }
    if (!m_data.axisTitle.isEmpty()) {
        p.setFont(plot::labelFont(font(), 1.0, true));
        p.drawText(QPointF(m_layout.axisTitleLeft, plotRect.bottom() + 6 + fm.ascent()), m_data.axisTitle);
    }
}

} // namespace rtscope

#include "moc_anatomy_swimlane.cpp"
