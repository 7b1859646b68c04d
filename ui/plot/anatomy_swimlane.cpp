#include "ui/plot/anatomy_swimlane.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rtscope {

namespace {
constexpr double kSwimMinLaneHeight = 16;
constexpr double kSwimMaxLaneHeight = 54;
constexpr double kSwimMargin = 10;
constexpr double kSwimTickSpacingPx = 80;
constexpr double kSwimSwatchWidth = 26;
constexpr double kSwimMinSegmentPx = 2;   // a segment shorter than this is still drawn this wide
constexpr double kSwimMinInterruptPx = 3; // interrupts are short and matter: a little wider
constexpr int kSwimLineKindBase = 100;    // legend items for lines: kSwimLineKindBase + SwimLineRole
constexpr int kSwimMaxLabelRows = 4;

QFont swimFont(const QFont& base, double factor, bool bold = false)
{
    QFont f = plot::chartFont(base, factor);
    f.setBold(bold);
    return f;
}

int swimDecimals(double step)
{
    return step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
}

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
} // namespace

AnatomySwimlane::AnatomySwimlane(QWidget* parent)
    : QWidget(parent)
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
    switch (kind) {
    case SwimKind::PartTimer:
        return tr("timer IRQ delay");
    case SwimKind::PartWaiting:
        return tr("waiting for the CPU (scheduling + interrupts)");
    case SwimKind::PartReturn:
        return tr("return to user");
    case SwimKind::Asleep:
        return tr("asleep");
    case SwimKind::Waiting:
        return tr("woken, waiting for the CPU");
    case SwimKind::Running:
        return tr("measuring thread runs");
    case SwimKind::Measuring:
        return tr("measuring thread");
    case SwimKind::RtTask:
        return tr("RT task");
    case SwimKind::OtherTask:
        return tr("OTHER task");
    case SwimKind::Idle:
        return tr("idle");
    case SwimKind::Interrupt:
        return tr("interrupt");
    case SwimKind::OwnTimer:
        return tr("its timer");
    case SwimKind::Unknown:
        return tr("unknown: no event tells");
    }
    return {};
}

QSize AnatomySwimlane::sizeHint() const
{
    const QFontMetricsF fm(swimFont(font(), 1.0, true));
    const int lanes = std::max<int>(1, int(m_data.lanes.size()));
    return QSize(900, int(fm.height() * 4 + 20 + lanes * std::max(30.0, minLaneHeight()) + legendHeight(900)));
}

double AnatomySwimlane::minLaneHeight() const
{
    // A lane's name is drawn at its centre: a lane thinner than the name's line lets the names of neighbouring lanes
    // run into each other.
    return std::max(kSwimMinLaneHeight, QFontMetricsF(swimFont(font(), 1.0, true)).height() + 4);
}

QSize AnatomySwimlane::minimumSizeHint() const
{
    // What relayout() needs for lanes no thinner than minLaneHeight(): the line labels above (two rows, the usual
    // count), the lanes, the time axis and the legend at the narrowest width; a parent with less gives a scroll bar
    // (AnatomyPanel), not squeezed lanes.
    const QFontMetricsF nameFm(swimFont(font(), 1.0, true));
    const QFontMetricsF fm(swimFont(font(), 1.0));
    const int lanes = std::max<int>(1, int(m_data.lanes.size()));
    const double labels = m_data.lines.empty() ? 0 : 2 * (nameFm.height() + 1);
    return QSize(360, int(std::ceil(8 + labels + lanes * minLaneHeight() + fm.height() + 12 + legendHeight(700) + 4)));
}

void AnatomySwimlane::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void AnatomySwimlane::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        updateGeometry();
        relayout();
        update();
    }
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
    return m_plot.left() + double(ns - m_data.fromNs) * m_plot.width() / span;
}

QRectF AnatomySwimlane::laneRect(int lane) const
{
    return QRectF(m_plot.left(), m_plot.top() + lane * m_laneHeight, m_plot.width(), m_laneHeight);
}

QRectF AnatomySwimlane::segmentRectOf(int lane, const SwimSegment& s) const
{
    if (s.toNs < m_data.fromNs || s.fromNs > m_data.toNs || s.toNs < s.fromNs)
        return {};
    const QRectF r = laneRect(lane);
    double x0 = xOf(std::max(s.fromNs, m_data.fromNs));
    double x1 = xOf(std::min(s.toNs, m_data.toNs));
    const double minPx =
        s.kind == SwimKind::Interrupt || s.kind == SwimKind::OwnTimer ? kSwimMinInterruptPx : kSwimMinSegmentPx;
    if (x1 - x0 < minPx) {
        const double c = (x0 + x1) / 2;
        x0 = std::max(m_plot.left(), c - minPx / 2);
        x1 = std::min(m_plot.right(), x0 + minPx);
    }
    double pad = r.height() * 0.14;
    if (s.kind == SwimKind::Interrupt || s.kind == SwimKind::OwnTimer)
        pad += r.height() * 0.12 * std::min(s.depth, 3);
    if (s.kind == SwimKind::Asleep)
        pad = r.height() * 0.42;
    return QRectF(x0, r.top() + pad, x1 - x0, r.height() - 2 * pad);
}

QRectF AnatomySwimlane::segmentRect(int lane, int index) const
{
    if (lane < 0 || size_t(lane) >= m_data.lanes.size() || index < 0 ||
        size_t(index) >= m_data.lanes[size_t(lane)].size())
        return {};
    return segmentRectOf(lane, m_data.lanes[size_t(lane)][size_t(index)]);
}

std::pair<int, int> AnatomySwimlane::segmentAt(const QPointF& pos) const
{
    for (size_t lane = 0; lane < m_data.lanes.size(); ++lane) {
        if (!laneRect(int(lane)).contains(pos))
            continue;
        // The innermost (last drawn) first.
        const auto& segs = m_data.lanes[lane];
        for (size_t i = segs.size(); i-- > 0;) {
            QRectF r = segmentRectOf(int(lane), segs[i]);
            r.setTop(laneRect(int(lane)).top());
            r.setBottom(laneRect(int(lane)).bottom());
            if (!r.isEmpty() && r.adjusted(-1, 0, 1, 0).contains(pos))
                return {int(lane), int(i)};
        }
    }
    return {-1, -1};
}

std::vector<double> AnatomySwimlane::lineX() const
{
    std::vector<double> out;
    for (const SwimLine& l : m_data.lines)
        out.push_back(l.ns < m_data.fromNs || l.ns > m_data.toNs ? std::numeric_limits<double>::quiet_NaN()
                                                                 : xOf(l.ns));
    return out;
}

QStringList AnatomySwimlane::tickLabels() const
{
    QStringList out;
    for (const Tick& t : m_ticks)
        out << t.label;
    return out;
}

std::vector<AnatomySwimlane::LegendItem> AnatomySwimlane::legendItems() const
{
    // The kinds the data uses, in a fixed order (the parts are named in the lane and in the bar beside).
    static constexpr SwimKind kOrder[] = {SwimKind::Asleep,    SwimKind::Waiting,   SwimKind::Running,
                                          SwimKind::RtTask,    SwimKind::OtherTask, SwimKind::Idle,
                                          SwimKind::Interrupt, SwimKind::OwnTimer,  SwimKind::Unknown};
    std::vector<LegendItem> out;
    for (SwimKind k : kOrder) {
        bool used = false;
        for (const auto& lane : m_data.lanes)
            for (const SwimSegment& s : lane)
                used = used || s.kind == k || (k == SwimKind::Running && s.kind == SwimKind::Measuring);
        if (used)
            out.push_back({kindName(k), int(k)});
    }
    return out; // the lines are labelled where they are drawn
}

QStringList AnatomySwimlane::legendTexts() const
{
    QStringList out;
    for (const LegendItem& i : legendItems())
        out << i.text;
    return out;
}

int AnatomySwimlane::legendHeight(int width) const
{
    const QFontMetricsF fm(swimFont(font(), 0.95));
    double x = kSwimMargin;
    int rows = 1;
    for (const LegendItem& i : legendItems()) {
        const double w = kSwimSwatchWidth + 6 + fm.horizontalAdvance(i.text) + 16;
        if (x + w > width - kSwimMargin && x > kSwimMargin) {
            ++rows;
            x = kSwimMargin;
        }
        x += w;
    }
    return int(rows * (fm.height() + 4) + 6);
}

int AnatomySwimlane::lineLabelRows() const
{
    int rows = 0;
    for (int r : m_lineRow)
        rows = std::max(rows, r + 1);
    return std::max(rows, 1);
}

void AnatomySwimlane::relayout()
{
    const QFontMetricsF nameFm(swimFont(font(), 1.0, true));
    const QFontMetricsF fm(swimFont(font(), 1.0));
    const QFontMetricsF lineFm(swimFont(font(), 1.0, true)); // the lines' labels
    double nameWidth = 0;
    for (const QString& n : m_data.laneNames)
        nameWidth = std::max(nameWidth, nameFm.horizontalAdvance(n));
    const double left = kSwimMargin + nameWidth + 10;
    const double plotWidth = std::max(10.0, width() - left - kSwimMargin - 8);

    // Line labels above the plot. Lines closer than a few pixels share one label ("switched in · woke, 18.5 ms
    // late"). The deadline's label ends at its line, the others start at theirs (or end there, at the right edge);
    // a label that would still run into another goes one row up.
    m_lineRow.assign(m_data.lines.size(), 0);
    m_lineLabelX.assign(m_data.lines.size(), 0);
    m_lineLabel.assign(m_data.lines.size(), QString());
    {
        const double span = double(std::max<int64_t>(1, m_data.toNs - m_data.fromNs));
        std::vector<size_t> order(m_data.lines.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        auto xOfLine = [&](size_t i) {
            return left + double(m_data.lines[i].ns - m_data.fromNs) * plotWidth / span;
        };
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xOfLine(a) < xOfLine(b); });
        std::vector<std::vector<std::pair<double, double>>> taken(kSwimMaxLabelRows);
        for (size_t g = 0; g < order.size();) {
            size_t e = g + 1;
            while (e < order.size() && xOfLine(order[e]) - xOfLine(order[e - 1]) < 8)
                ++e;
            QStringList texts;
            bool deadline = false;
            for (size_t k = g; k < e; ++k) {
                texts << m_data.lines[order[k]].label;
                deadline = deadline || m_data.lines[order[k]].role == SwimLineRole::Deadline;
            }
            const QString text = texts.join(QStringLiteral(" · "));
            const double w = lineFm.horizontalAdvance(text);
            const double first = xOfLine(order[g]), last = xOfLine(order[e - 1]);
            double x0 = deadline ? first - 6 - w : last + 6;
            if (!deadline && x0 + w > width())
                x0 = first - 6 - w;
            x0 = std::clamp(x0, 0.0, std::max(0.0, width() - w));
            int row = 0;
            auto collides = [&](int r) {
                for (const auto& [a, b] : taken[size_t(r)])
                    if (x0 < b + 8 && x0 + w > a - 8)
                        return true;
                return false;
            };
            while (row < kSwimMaxLabelRows - 1 && collides(row))
                ++row;
            taken[size_t(row)].push_back({x0, x0 + w});
            for (size_t k = g; k < e; ++k)
                m_lineRow[order[k]] = row;
            m_lineLabel[order[g]] = text; // drawn once, by the group's first line
            m_lineLabelX[order[g]] = x0;
            g = e;
        }
    }
    const int labelRows = m_data.lines.empty() ? 0 : lineLabelRows();
    const double top = 4 + labelRows * (lineFm.height() + 1) + 4;
    const double axis = fm.height() + 12; // the ticks' labels, with the axis title at their right
    const double legend = legendHeight(width());
    const int lanes = std::max<int>(1, int(m_data.lanes.size()));
    // Below the minimum size the lanes get thinner rather than run into the axis and the legend.
    // Never below the readable minimum: a parent too short scrolls (AnatomyPanel) rather than crush the names.
    m_laneHeight =
        std::max(minLaneHeight(), std::min((height() - top - axis - legend - 4) / lanes, kSwimMaxLaneHeight));
    m_plot = QRectF(left, top, plotWidth, lanes * m_laneHeight);

    m_ticks.clear();
    if (m_data.toNs <= m_data.fromNs)
        return;
    const double spanUs = double(m_data.toNs - m_data.fromNs) / 1e3;
    const double step = plot::niceTickInterval(spanUs, std::max(2, int(m_plot.width() / kSwimTickSpacingPx)));
    const double fromUs = double(m_data.fromNs - m_data.originNs) / 1e3;
    const double toUs = double(m_data.toNs - m_data.originNs) / 1e3;
    const int decimals = swimDecimals(step);
    // The axis title sits in the tick row: left of the plot, under the lane names, where it fits; else at the
    // right end, and a tick label that would run into it is left out.
    const QFontMetricsF titleFm(swimFont(font(), 1.0, true));
    const double titleWidth = titleFm.horizontalAdvance(m_data.axisTitle);
    m_axisTitleLeft = titleWidth <= m_plot.left() - 12 ? m_plot.left() - 10 - titleWidth : m_plot.right() - titleWidth;
    const double titleLeft = m_axisTitleLeft < m_plot.left() ? 1e300 : m_axisTitleLeft - 4;
    for (double v = std::ceil(fromUs / step - 1e-9) * step; v <= toUs + step * 1e-6; v += step) {
        const double x = xOf(m_data.originNs + int64_t(std::llround(v * 1e3)));
        const QString label = QString::number(std::abs(v) < step * 1e-6 ? 0.0 : v, 'f', decimals);
        if (!m_data.axisTitle.isEmpty() && x + fm.horizontalAdvance(label) / 2 + 8 > titleLeft)
            continue;
        m_ticks.push_back({x, label});
    }
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

void AnatomySwimlane::drawSegment(QPainter& p, int lane, const SwimSegment& s) const
{
    const QRectF r = segmentRectOf(lane, s);
    if (r.isEmpty())
        return;
    const bool dark = plot::isDarkPalette(palette());
    const QColor text = palette().color(QPalette::Text);
    QColor fill = kindColor(s.kind, dark);
    switch (s.kind) {
    case SwimKind::Unknown: {
        QColor hatch = fill;
        p.fillRect(r, QBrush(hatch, Qt::BDiagPattern));
        QPen pen(hatch, 1);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        break;
    }
    case SwimKind::Idle: {
        fill.setAlphaF(0.30f);
        p.fillRect(r, fill);
        break;
    }
    case SwimKind::Asleep:
        p.fillRect(r, fill);
        break;
    case SwimKind::Waiting:
    case SwimKind::PartWaiting:
        p.fillRect(r, fill);
        if (s.kind == SwimKind::Waiting)
            p.fillRect(r, QBrush(fill.darker(160), Qt::BDiagPattern));
        break;
    case SwimKind::Interrupt:
        p.fillRect(r, fill);
        p.setPen(QPen(QColor(colors::kAnatomyInterruptEdge), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        break;
    default:
        p.fillRect(r, fill);
        // Slices of one colour side by side (sixteen hogs taking turns) stay apart: a hairline of the background.
        if (s.kind == SwimKind::RtTask || s.kind == SwimKind::OtherTask || s.kind == SwimKind::Measuring) {
            p.setPen(QPen(palette().color(QPalette::Base), 1));
            p.drawLine(QPointF(r.left() + 0.5, r.top()), QPointF(r.left() + 0.5, r.bottom()));
        }
        break;
    }
    if (s.inferred) {
        QPen pen(text, 1.2, Qt::DashLine);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
    }
    // The label inside, when it fits (else the tooltip has it).
    if (s.label.isEmpty())
        return;
    const QFont f =
        swimFont(font(), 0.95, swimIsPart(s.kind) || s.kind == SwimKind::RtTask || s.kind == SwimKind::OtherTask);
    const QFontMetricsF fm(f);
    const QRectF lr = laneRect(lane);
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
    const QFont f = swimFont(font(), 0.95, true);
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
                const QRectF a = segmentRectOf(lane, segs[i]);
                const QRectF b = segmentRectOf(lane, segs[j - 1]);
                const double w = fm.horizontalAdvance(first.label);
                bool anyFits = false;
                for (size_t k = i; k < j; ++k)
                    anyFits = anyFits || segmentRectOf(lane, segs[k]).width() >= w + 6;
                const QRectF group(a.left(), laneRect(lane).top(), b.right() - a.left(), laneRect(lane).height());
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
    QColor fill = kindColor(s.kind, dark);
    switch (s.kind) {
    case SwimKind::Unknown:
        p.fillRect(r, QBrush(fill, Qt::BDiagPattern));
        p.setPen(QPen(fill, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        break;
    case SwimKind::Idle:
        fill.setAlphaF(0.30f);
        p.fillRect(r, fill);
        break;
    case SwimKind::Asleep:
        p.fillRect(QRectF(r.left(), r.center().y() - 2, r.width(), 4), fill);
        break;
    case SwimKind::Waiting:
        p.fillRect(r, fill);
        p.fillRect(r, QBrush(fill.darker(160), Qt::BDiagPattern));
        break;
    case SwimKind::Interrupt:
        p.fillRect(r, fill);
        p.setPen(QPen(QColor(colors::kAnatomyInterruptEdge), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        break;
    default:
        p.fillRect(r, fill);
        break;
    }
}

void AnatomySwimlane::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (m_data.lanes.empty() || m_data.toNs <= m_data.fromNs) {
        const QFont f = swimFont(font(), 1.1, true);
        p.setFont(f);
        QColor c = text;
        c.setAlphaF(0.65f);
        p.setPen(c);
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_data.emptyText);
        return;
    }

    // Lanes: a light band every other one, the name at the left.
    const QFont nameFont = swimFont(font(), 1.0, true);
    const QFontMetricsF nameFm(nameFont);
    QColor band = text;
    band.setAlphaF(plot::isDarkPalette(pal) ? 0.07f : 0.045f);
    for (int lane = 0; lane < int(m_data.lanes.size()); ++lane) {
        const QRectF r = laneRect(lane);
        if (lane % 2 == 1)
            p.fillRect(r, band);
        p.setFont(nameFont);
        p.setPen(text);
        const QString name = m_data.laneNames.value(lane);
        p.drawText(
            QPointF(m_plot.left() - 10 - nameFm.horizontalAdvance(name), r.center().y() + nameFm.ascent() / 2 - 2),
            name);
    }
    p.save();
    p.setClipRect(m_plot.adjusted(-2, 0, 2, 0));
    for (int lane = 0; lane < int(m_data.lanes.size()); ++lane)
        for (const SwimSegment& s : m_data.lanes[size_t(lane)])
            drawSegment(p, lane, s);
    drawGroupLabels(p);
    p.restore();

    // The lines, across every lane, labelled above the plot.
    const QFont lineFont = swimFont(font(), 1.0, true);
    const QFontMetricsF lfm(lineFont);
    p.setFont(lineFont);
    const std::vector<double> xs = lineX();
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
        const int row = m_lineRow[i];
        const double labelBase = 4 + (lineLabelRows() - row) * (lfm.height() + 1) - lfm.descent();
        p.drawLine(QPointF(xs[i], labelBase + lfm.descent()), QPointF(xs[i], m_plot.bottom() + 3));
        if (m_lineLabel[i].isEmpty())
            continue;
        // A shared label in the text colour; one line's in its own.
        p.setPen(m_lineLabel[i] == l.label ? lineColor(l.role) : text);
        p.drawText(QPointF(m_lineLabelX[i], labelBase), m_lineLabel[i]);
    }

    // The time axis.
    const QFont axisFont = swimFont(font(), 1.0);
    const QFontMetricsF fm(axisFont);
    p.setFont(axisFont);
    p.setPen(QPen(text, plot::lineWidth(1.2)));
    p.drawLine(QPointF(m_plot.left(), m_plot.bottom()), QPointF(m_plot.right(), m_plot.bottom()));
    for (const Tick& t : m_ticks) {
        p.drawLine(QPointF(t.x, m_plot.bottom()), QPointF(t.x, m_plot.bottom() + 5));
        const double w = fm.horizontalAdvance(t.label);
        p.drawText(QPointF(std::clamp(t.x - w / 2, 0.0, width() - w), m_plot.bottom() + 6 + fm.ascent()), t.label);
    }
    if (!m_data.axisTitle.isEmpty()) {
        const QFont tf = swimFont(font(), 1.0, true);
        p.setFont(tf);
        const QFontMetricsF tfm(tf);
        p.drawText(QPointF(m_axisTitleLeft, m_plot.bottom() + 6 + fm.ascent()), m_data.axisTitle);
    }

    // The legend.
    const double lh = legendHeight(width());
    const QFont lf = swimFont(font(), 0.95);
    const QFontMetricsF lgfm(lf);
    p.setFont(lf);
    double x = kSwimMargin, y = height() - lh + 2;
    for (const LegendItem& i : legendItems()) {
        const double w = kSwimSwatchWidth + 6 + lgfm.horizontalAdvance(i.text) + 16;
        if (x + w > width() - kSwimMargin && x > kSwimMargin) {
            x = kSwimMargin;
            y += lgfm.height() + 4;
        }
        drawSwatch(p, QRectF(x, y + lgfm.height() * 0.18, kSwimSwatchWidth, lgfm.height() * 0.64), i.kind);
        p.setPen(text);
        p.drawText(QPointF(x + kSwimSwatchWidth + 6, y + lgfm.ascent()), i.text);
        x += w;
    }
}

// ------------------------------------------------------------------------------------------------------------------

namespace {
constexpr double kSwimBarWidth = 46;
constexpr double kSwimBarMargin = 10;
} // namespace

AnatomyBreakdownBar::AnatomyBreakdownBar(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
}

AnatomyBreakdownBar::~AnatomyBreakdownBar() = default;

QColor AnatomyBreakdownBar::roleColor(BreakdownRole role, bool dark)
{
    switch (role) {
    case BreakdownRole::TimerDelay:
        return AnatomySwimlane::kindColor(SwimKind::PartTimer, dark);
    case BreakdownRole::Interrupts:
        return AnatomySwimlane::kindColor(SwimKind::Interrupt, dark);
    case BreakdownRole::Scheduling:
        return AnatomySwimlane::kindColor(SwimKind::PartWaiting, dark);
    case BreakdownRole::ReturnToUser:
        return AnatomySwimlane::kindColor(SwimKind::PartReturn, dark);
    case BreakdownRole::Unaccounted:
        break;
    }
    return AnatomySwimlane::kindColor(SwimKind::Unknown, dark);
}

void AnatomyBreakdownBar::setData(AnatomyBreakdownData data)
{
    m_data = std::move(data);
    updateGeometry();
    relayout();
    update();
}

QString AnatomyBreakdownBar::labelText(int index) const
{
    if (index < 0 || size_t(index) >= m_data.parts.size())
        return {};
    const BreakdownPart& part = m_data.parts[size_t(index)];
    if (!part.ns)
        return tr("%1: unknown").arg(part.name);
    const double pct = m_data.latencyNs > 0 ? 100.0 * double(*part.ns) / double(m_data.latencyNs) : 0;
    return tr("%1: %2 (%3 %)").arg(part.name, part.valueText).arg(pct, 0, 'f', pct < 10 ? 1 : 0);
}

QSize AnatomyBreakdownBar::sizeHint() const
{
    const QFontMetricsF fm(swimFont(font(), 0.95));
    const QFontMetricsF bold(swimFont(font(), 0.95, true)); // the known parts' labels
    const QFontMetricsF title(swimFont(font(), 1.0, true));
    double w = title.horizontalAdvance(tr("%1 late, split into").arg(m_data.latencyText)) - kSwimBarWidth - 14;
    for (int i = 0; i < int(m_data.parts.size()); ++i) {
        w = std::max(w, bold.horizontalAdvance(labelText(i)) + 14);
        w = std::max(w, fm.horizontalAdvance(m_data.parts[size_t(i)].detail) + 14);
    }
    // As tall as the title and the labels need (two lines for a part with a detail), so that a parent sized by
    // height-for-width (AnatomyPanel's scroll area) does not stretch the swimlane beside it for nothing.
    double h = title.height() + 10 + 8;
    for (const BreakdownPart& part : m_data.parts)
        h += fm.height() * (part.detail.isEmpty() ? 1 : 2) + 4;
    return QSize(int(kSwimBarMargin * 2 + kSwimBarWidth + 14 + std::max(w, 180.0)) + 4,
                 std::max(minimumSizeHint().height(), int(std::ceil(h))));
}

QSize AnatomyBreakdownBar::minimumSizeHint() const
{
    return QSize(int(kSwimBarMargin * 2 + kSwimBarWidth + 14 + 140), 160);
}

void AnatomyBreakdownBar::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void AnatomyBreakdownBar::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        updateGeometry();
        relayout();
        update();
    }
}

QRectF AnatomyBreakdownBar::blockRect(int index) const
{
    return index >= 0 && size_t(index) < m_blocks.size() ? m_blocks[size_t(index)] : QRectF();
}

void AnatomyBreakdownBar::relayout()
{
    const QFontMetricsF tf(swimFont(font(), 1.0, true));
    const QFontMetricsF fm(swimFont(font(), 0.95));
    const double top = tf.height() + 10;
    const double bottom = height() - 8;
    m_bar = QRectF(kSwimBarMargin, top, kSwimBarWidth, std::max(20.0, bottom - top));
    m_blocks.assign(m_data.parts.size(), QRectF());
    m_labelY.assign(m_data.parts.size(), 0);
    // Blocks top to bottom in time order, each as tall as its share of the latency; an unknown part has no block.
    double y = m_bar.top();
    const double total = double(std::max<int64_t>(1, m_data.latencyNs));
    for (size_t i = 0; i < m_data.parts.size(); ++i) {
        const BreakdownPart& part = m_data.parts[i];
        if (!part.ns || *part.ns <= 0)
            continue;
        const double h = m_bar.height() * double(*part.ns) / total;
        m_blocks[i] = QRectF(m_bar.left(), y, m_bar.width(), h);
        y += h;
    }
    // Labels at their block's centre, pushed apart so none overlaps (two lines each when a detail is given);
    // unknown parts follow the known ones, in order.
    std::vector<double> heights(m_data.parts.size());
    for (size_t i = 0; i < m_data.parts.size(); ++i)
        heights[i] = fm.height() * (m_data.parts[i].detail.isEmpty() ? 1 : 2) + 4;
    double next = m_bar.top();
    double lastCenter = m_bar.top();
    for (size_t i = 0; i < m_data.parts.size(); ++i) {
        const double want = m_blocks[i].isEmpty() ? lastCenter + 1 : m_blocks[i].center().y() - heights[i] / 2;
        const double at = std::max(want, next);
        m_labelY[i] = at;
        next = at + heights[i];
        if (!m_blocks[i].isEmpty())
            lastCenter = m_blocks[i].center().y();
    }
    // Past the bottom: shift everything up as far as the top allows.
    if (next > height() - 4) {
        const double shift = next - (height() - 4);
        for (double& ly : m_labelY)
            ly = std::max(top - tf.height() + 2, ly - shift);
    }
}

void AnatomyBreakdownBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const bool dark = plot::isDarkPalette(pal);
    p.fillRect(rect(), pal.color(QPalette::Base));
    if (m_data.parts.empty())
        return;

    const QFont titleFont = swimFont(font(), 1.0, true);
    p.setFont(titleFont);
    p.setPen(text);
    p.drawText(QPointF(kSwimBarMargin, QFontMetricsF(titleFont).ascent() + 4),
               tr("%1 late, split into").arg(m_data.latencyText));

    QPen frame(text, 1);
    for (size_t i = 0; i < m_data.parts.size(); ++i) {
        const QRectF r = m_blocks[i];
        if (r.isEmpty())
            continue;
        const QColor c = roleColor(m_data.parts[i].role, dark);
        if (m_data.parts[i].role == BreakdownRole::Unaccounted) {
            p.fillRect(r, QBrush(c, Qt::BDiagPattern));
        } else {
            p.fillRect(r, c);
        }
    }
    p.setPen(frame);
    p.setBrush(Qt::NoBrush);
    p.drawRect(m_bar.adjusted(0.5, 0.5, -0.5, -0.5));

    const QFont f = swimFont(font(), 0.95);
    const QFont fb = swimFont(font(), 0.95, true);
    const QFontMetricsF fm(f);
    const double lx = m_bar.right() + 14;
    for (size_t i = 0; i < m_data.parts.size(); ++i) {
        const BreakdownPart& part = m_data.parts[i];
        const double y = m_labelY[i];
        // A leader from the block to its label.
        const QColor c = roleColor(part.role, dark);
        if (!m_blocks[i].isEmpty()) {
            p.setPen(QPen(text, 1));
            p.drawLine(QPointF(m_bar.right() + 1, m_blocks[i].center().y()), QPointF(lx - 3, y + fm.height() / 2));
        }
        // A swatch in front of the text says which colour it is, also for an unknown part (hatched).
        const QRectF sw(lx, y + fm.height() * 0.2, 10, fm.height() * 0.6);
        if (part.role == BreakdownRole::Unaccounted || !part.ns)
            p.fillRect(sw, QBrush(roleColor(BreakdownRole::Unaccounted, dark), Qt::BDiagPattern));
        else
            p.fillRect(sw, c);
        p.setFont(part.ns ? fb : f);
        p.setPen(text);
        p.drawText(QPointF(lx + 14, y + fm.ascent()), labelText(int(i)));
        if (!part.detail.isEmpty()) {
            p.setFont(f);
            QColor d = text;
            d.setAlphaF(0.75f);
            p.setPen(d);
            p.drawText(QPointF(lx + 14, y + fm.height() + fm.ascent()),
                       fm.elidedText(part.detail, Qt::ElideRight, width() - lx - 18));
        }
    }
}

} // namespace rtscope
