#include "ui/plot/anatomy_breakdown_bar.h"

#include "ui/plot/anatomy_swimlane.h"
#include "ui/plot/chart_style.h"

#include <QEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace rtscope {

namespace {
constexpr double kSwimBarWidth = 46;
constexpr double kSwimBarMargin = 10;
} // namespace

AnatomyBreakdownBar::AnatomyBreakdownBar(QWidget* parent)
    : plot::LaidOutWidget(parent)
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
    const QFontMetricsF fm(plot::labelFont(font(), 0.95));
    const QFontMetricsF bold(plot::labelFont(font(), 0.95, true)); // the known parts' labels
    const QFontMetricsF title(plot::labelFont(font(), 1.0, true));
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

QRectF AnatomyBreakdownBar::blockRect(int index) const
{
    return index >= 0 && size_t(index) < m_blocks.size() ? m_blocks[size_t(index)] : QRectF();
}

void AnatomyBreakdownBar::relayout()
{
    const QFontMetricsF tf(plot::labelFont(font(), 1.0, true));
    const QFontMetricsF fm(plot::labelFont(font(), 0.95));
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

    const QFont titleFont = plot::labelFont(font(), 1.0, true);
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

    const QFont f = plot::labelFont(font(), 0.95);
    const QFont fb = plot::labelFont(font(), 0.95, true);
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

#include "moc_anatomy_breakdown_bar.cpp"
