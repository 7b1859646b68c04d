#include "ui/plot/inversion_timeline.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace rtscope {

namespace {
constexpr double kMinLaneHeight = 22;
constexpr double kMaxLaneHeight = 64;
constexpr double kPreferredLaneHeight = 46;
constexpr double kMargin = 12;
constexpr double kTickSpacingPx = 90;
constexpr double kSwatchWidth = 28;

enum LegendKind { LowHolding, HighHolding, MediumRunning, Inversion, HighWaiting, PeriodLine };

} // namespace

InversionTimeline::InversionTimeline(QWidget* parent)
    : plot::LaidOutWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

InversionTimeline::~InversionTimeline() = default;

void InversionTimeline::setData(InversionTimelineData data)
{
    m_data = std::move(data);
    relayout();
    update();
}

void InversionTimeline::setLegendVisible(bool visible)
{
    if (m_legend == visible)
        return;
    m_legend = visible;
    updateGeometry();
    relayout();
    update();
}

QSize InversionTimeline::sizeHint() const
{
    const QFontMetricsF fm(plot::labelFont(font(), 1.05));
    const double h = fm.height() * 4 + 3 * kPreferredLaneHeight + legendHeight(800) + 16;
    return QSize(800, int(h));
}

QSize InversionTimeline::minimumSizeHint() const
{
    const QFontMetricsF fm(plot::labelFont(font(), 1.05));
    const double h = fm.height() * 4 + 3 * kMinLaneHeight + legendHeight(400) + 16;
    return QSize(400, int(h));
}

double InversionTimeline::xOf(int64_t ns) const
{
    const double span = double(std::max<int64_t>(1, m_data.toNs - m_data.fromNs));
    return m_plot.left() + double(ns - m_data.fromNs) * m_plot.width() / span;
}

QRectF InversionTimeline::laneRect(int lane) const
{
    return QRectF(m_plot.left(), m_plot.top() + lane * m_laneHeight, m_plot.width(), m_laneHeight);
}

std::vector<InversionTimeline::LegendItem> InversionTimeline::legendItems() const
{
    return {{tr("low holds the lock"), LowHolding},
            {tr("high holds the lock"), HighHolding},
            {tr("medium runs (needs no lock)"), MediumRunning},
            {tr("medium runs while high waits: the inversion"), Inversion},
            {tr("high waits for the lock"), HighWaiting},
            {tr("period start"), PeriodLine}};
}

QStringList InversionTimeline::legendTexts() const
{
    QStringList out;
    for (const LegendItem& i : legendItems())
        out << i.text;
    return out;
}

int InversionTimeline::legendHeight(int width) const
{
    if (!m_legend)
        return 0;
    const QFontMetricsF fm(plot::labelFont(font(), 1.0));
    double x = kMargin;
    int rows = 1;
    for (const LegendItem& i : legendItems()) {
        const double w = kSwatchWidth + 6 + fm.horizontalAdvance(i.text) + 18;
        if (x + w > width - kMargin && x > kMargin) {
            ++rows;
            x = kMargin;
        }
        x += w;
    }
    return int(rows * (fm.height() + 6) + 4);
}

void InversionTimeline::relayout()
{
    const QFontMetricsF nameFm(plot::labelFont(font(), 1.05, true));
    const QFontMetricsF titleFm(plot::labelFont(font(), 1.15, true));
    const QFontMetricsF fm(plot::labelFont(font(), 1.0));
    double nameWidth = 0;
    for (const QString& n : m_data.laneNames)
        nameWidth = std::max(nameWidth, nameFm.horizontalAdvance(n));
    const double top = m_data.title.isEmpty() ? 6 : titleFm.height() + 8;
    const double axis = fm.height() * 2 + 12;
    const double legend = legendHeight(width());
    const double lanes = std::clamp((height() - top - axis - legend - 4) / 3, kMinLaneHeight, kMaxLaneHeight);
    m_laneHeight = lanes;
    const double left = kMargin + nameWidth + 12;
    m_plot = QRectF(left, top, std::max(10.0, width() - left - kMargin - 6), 3 * lanes);

    m_blocks.clear();
    m_waits.clear();
    m_ticks.clear();
    m_periodX.clear();
    if (m_data.toNs <= m_data.fromNs)
        return;
    for (int lane = 0; lane < InversionTimelineData::LaneCount; ++lane)
        layoutLane(lane);

    const auto& waits = m_data.highWaits;
    auto w = std::partition_point(waits.begin(), waits.end(),
                                  [this](const TimeSpan& s) { return s.endNs <= m_data.fromNs; });
    for (; w != waits.end() && w->startNs < m_data.toNs; ++w)
        addBlock(m_waits, {-1, LaneActivity::Waiting, false, xOf(std::max(w->startNs, m_data.fromNs)),
                           xOf(std::min(w->endNs, m_data.toNs))});

    for (int64_t t : m_data.periodStarts)
        if (t >= m_data.fromNs && t <= m_data.toNs)
            m_periodX.push_back(xOf(t));

    const double spanMs = double(m_data.toNs - m_data.fromNs) / 1e6;
    const double step = plot::niceTickInterval(spanMs, std::max(2, int(m_plot.width() / kTickSpacingPx)));
    const double fromMs = double(m_data.fromNs - m_data.originNs) / 1e6;
    const double toMs = double(m_data.toNs - m_data.originNs) / 1e6;
    const int decimals = plot::tickDecimals(step);
    for (double v = std::ceil(fromMs / step - 1e-9) * step; v <= toMs + step * 1e-6; v += step)
        m_ticks.push_back({xOf(m_data.originNs + int64_t(std::llround(v * 1e6))),
                           QString::number(std::abs(v) < step * 1e-6 ? 0.0 : v, 'f', decimals)});
}

void InversionTimeline::addBlock(std::vector<Block>& out, Block b) const
{
    // Pieces of one lane and one kind that touch or overlap within a pixel become one block: a window of many
    // thousand segments costs at most a few blocks per pixel column.
    if (!out.empty()) {
        Block& last = out.back();
        if (last.lane == b.lane && last.activity == b.activity && last.inversion == b.inversion &&
            b.x0 <= last.x1 + 1.0) {
            last.x1 = std::max(last.x1, b.x1);
            return;
        }
    }
    out.push_back(b);
}

void InversionTimeline::layoutLane(int lane)
{
    const auto& segs = m_data.lanes[size_t(lane)];
    const int64_t from = m_data.fromNs, to = m_data.toNs;
    // One thread's segments are disjoint and sorted by start, so their ends are sorted too.
    auto it = std::partition_point(segs.begin(), segs.end(), [from](const LaneSegment& s) { return s.endNs <= from; });
    const auto& waits = m_data.highWaits;
    auto w = std::partition_point(waits.begin(), waits.end(), [from](const TimeSpan& s) { return s.endNs <= from; });
    auto piece = [&](int64_t a, int64_t b, LaneActivity activity, bool inversion) {
        if (b > a || (b == a && activity != LaneActivity::Running))
            addBlock(m_blocks, {lane, activity, inversion, xOf(a), xOf(b)});
    };
    for (; it != segs.end() && it->startNs < to; ++it) {
        const int64_t s0 = std::max(it->startNs, from);
        const int64_t s1 = std::min(it->endNs, to);
        if (lane != InversionTimelineData::Medium || it->activity != LaneActivity::Running) {
            piece(s0, s1, it->activity, false);
            continue;
        }
        // The medium thread: the parts inside one of high's waits are the inversion.
        int64_t cur = s0;
        while (w != waits.end() && w->endNs <= cur)
            ++w;
        while (cur < s1) {
            if (w == waits.end() || w->startNs >= s1) {
                piece(cur, s1, LaneActivity::Running, false);
                break;
            }
            if (w->startNs > cur) {
                piece(cur, w->startNs, LaneActivity::Running, false);
                cur = w->startNs;
            }
            const int64_t e = std::min(w->endNs, s1);
            piece(cur, e, LaneActivity::Running, true);
            cur = e;
            if (w->endNs <= s1)
                ++w;
        }
    }
}

QStringList InversionTimeline::tickLabels() const
{
    QStringList out;
    for (const Tick& t : m_ticks)
        out << t.label;
    return out;
}

std::vector<double> InversionTimeline::periodMarkerX() const
{
    return m_periodX;
}

QColor InversionTimeline::laneColor(int lane, LaneActivity activity, bool inversion) const
{
    const bool dark = plot::isDarkPalette(palette());
    if (activity == LaneActivity::Waiting)
        return dark ? QColor(colors::kAmber400) : QColor(colors::kAmber600);
    if (inversion)
        return dark ? QColor(colors::kRed400) : QColor(colors::kRed800);
    switch (lane) {
    case InversionTimelineData::High:
        return dark ? QColor(colors::kBlue300) : QColor(colors::kBlue800);
    case InversionTimelineData::Low:
        return dark ? QColor(colors::kGreen300) : QColor(colors::kGreen800);
    default:
        return dark ? QColor(colors::kGrey500) : QColor(colors::kGrey600);
    }
}

void InversionTimeline::drawSwatch(QPainter& p, const QRectF& r, int kind) const
{
    switch (kind) {
    case LowHolding:
        p.fillRect(r, laneColor(InversionTimelineData::Low, LaneActivity::Holding, false));
        break;
    case HighHolding:
        p.fillRect(r, laneColor(InversionTimelineData::High, LaneActivity::Holding, false));
        break;
    case MediumRunning:
        p.fillRect(r, laneColor(InversionTimelineData::Medium, LaneActivity::Running, false));
        break;
    case Inversion:
        p.fillRect(r, laneColor(InversionTimelineData::Medium, LaneActivity::Running, true));
        break;
    case HighWaiting: {
        const QColor c = laneColor(InversionTimelineData::High, LaneActivity::Waiting, false);
        p.fillRect(r, c);
        p.fillRect(r, QBrush(c.darker(170), Qt::BDiagPattern));
        break;
    }
    case PeriodLine: {
        QPen pen(palette().color(QPalette::Text), plot::lineWidth(1.5), Qt::DashLine);
        p.setPen(pen);
        p.drawLine(QPointF(r.center().x(), r.top() - 2), QPointF(r.center().x(), r.bottom() + 2));
        break;
    }
    default:
        break;
    }
}

void InversionTimeline::drawLegend(QPainter& p, const QRectF& area) const
{
    const QFont f = plot::labelFont(font(), 1.0);
    const QFontMetricsF fm(f);
    p.setFont(f);
    double x = area.left() + kMargin, y = area.top() + 4;
    for (const LegendItem& i : legendItems()) {
        const double w = kSwatchWidth + 6 + fm.horizontalAdvance(i.text) + 18;
        if (x + w > area.right() - kMargin && x > area.left() + kMargin) {
            x = area.left() + kMargin;
            y += fm.height() + 6;
        }
        const QRectF swatch(x, y + fm.height() * 0.2, kSwatchWidth, fm.height() * 0.6);
        drawSwatch(p, swatch, i.kind);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPointF(x + kSwatchWidth + 6, y + fm.ascent()), i.text);
        x += w;
    }
}

void InversionTimeline::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    p.fillRect(rect(), pal.color(QPalette::Base));

    if (!m_data.title.isEmpty()) {
        const QFont f = plot::labelFont(font(), 1.15, true);
        p.setFont(f);
        p.setPen(m_data.titleColor.isValid() ? m_data.titleColor : text);
        p.drawText(QPointF(kMargin, QFontMetricsF(f).ascent() + 4), m_data.title);
    }

    // Lanes: a light band each, the name at the left.
    const QFont nameFont = plot::labelFont(font(), 1.05, true);
    p.setFont(nameFont);
    const QFontMetricsF nameFm(nameFont);
    QColor band = text;
    band.setAlphaF(plot::isDarkPalette(pal) ? 0.08f : 0.05f);
    for (int lane = 0; lane < InversionTimelineData::LaneCount; ++lane) {
        const QRectF r = laneRect(lane);
        if (lane % 2 == 0)
            p.fillRect(r, band);
        p.setPen(laneColor(lane, LaneActivity::Holding, false));
        const QString& name = m_data.laneNames[size_t(lane)];
        p.drawText(
            QPointF(m_plot.left() - 12 - nameFm.horizontalAdvance(name), r.center().y() + nameFm.ascent() / 2 - 2),
            name);
    }

    // High's waits, shaded across every lane: what ran inside them is what high waited for.
    QColor shade = laneColor(InversionTimelineData::High, LaneActivity::Waiting, false);
    shade.setAlphaF(0.22f);
    for (const Block& b : m_waits)
        p.fillRect(QRectF(b.x0, m_plot.top(), std::max(1.0, b.x1 - b.x0), m_plot.height()), shade);

    for (const Block& b : m_blocks) {
        const QRectF lane = laneRect(b.lane);
        const double pad = lane.height() * 0.14;
        const QRectF r(b.x0, lane.top() + pad, std::max(1.0, b.x1 - b.x0), lane.height() - 2 * pad);
        const QColor c = laneColor(b.lane, b.activity, b.inversion);
        p.fillRect(r, c);
        if (b.activity == LaneActivity::Waiting)
            p.fillRect(r, QBrush(c.darker(170), Qt::BDiagPattern));
    }

    QPen periodPen(text, plot::lineWidth(1.4), Qt::DashLine);
    p.setPen(periodPen);
    for (double x : m_periodX)
        p.drawLine(QPointF(x, m_plot.top() - 4), QPointF(x, m_plot.bottom() + 4));

    // The time axis.
    const QFont axisFont = plot::labelFont(font(), 1.0);
    const QFontMetricsF fm(axisFont);
    p.setFont(axisFont);
    QPen axisPen(text, plot::lineWidth(1.2));
    p.setPen(axisPen);
    p.drawLine(QPointF(m_plot.left(), m_plot.bottom()), QPointF(m_plot.right(), m_plot.bottom()));
    for (const Tick& t : m_ticks) {
        p.drawLine(QPointF(t.x, m_plot.bottom()), QPointF(t.x, m_plot.bottom() + 5));
        const double w = fm.horizontalAdvance(t.label);
        p.drawText(QPointF(std::clamp(t.x - w / 2, 0.0, width() - w), m_plot.bottom() + 6 + fm.ascent()), t.label);
    }
    const QFont titleFont = plot::labelFont(font(), 1.0, true);
    p.setFont(titleFont);
    const QString axisTitle = tr("time (ms) from the start of the first period shown");
    const QFontMetricsF tfm(titleFont);
    p.drawText(QPointF(m_plot.center().x() - tfm.horizontalAdvance(axisTitle) / 2,
                       m_plot.bottom() + 8 + fm.height() + tfm.ascent()),
               axisTitle);

    if (m_blocks.empty() && !m_data.emptyText.isEmpty()) {
        const QFont f = plot::labelFont(font(), 1.2, true);
        p.setFont(f);
        QColor c = text;
        c.setAlphaF(0.6f);
        p.setPen(c);
        p.drawText(m_plot, Qt::AlignCenter | Qt::TextWordWrap, m_data.emptyText);
    }

    if (m_legend) {
        const double h = legendHeight(width());
        drawLegend(p, QRectF(0, height() - h, width(), h));
    }
}

} // namespace rtscope

#include "moc_inversion_timeline.cpp"
