#include "ui/plot/heat_strip.h"

#include "ui/common/colors.h"

#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QEvent>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>

namespace rtscope {

namespace {

constexpr int kPad = 8;
constexpr int kMinRowHeight = 30;

// Sequential colour maps, calm for small maxima and loud for large ones. On a light background the scale runs from
// pale yellow to deep red (ColorBrewer YlOrRd); on a dark one from deep purple to bright yellow (matplotlib
// "inferno"), so the noisy row is the one that stands out from the background in both themes.
constexpr std::array<QRgb, 9> kLightMap = {0xffffcc, 0xffeda0, 0xfed976, 0xfeb24c, 0xfd8d3c,
                                           0xfc4e2a, 0xe31a1c, 0xbd0026, 0x800026};
constexpr std::array<QRgb, 9> kDarkMap = {0x2c0b52, 0x56106e, 0x7f1f6d, 0xa52c60, 0xc73e4c,
                                          0xe45a31, 0xf57d15, 0xfbad1f, 0xf6e469};

QColor interpolate(const std::array<QRgb, 9>& map, double f)
{
    f = std::clamp(f, 0.0, 1.0) * double(map.size() - 1);
    const size_t i = std::min(size_t(f), map.size() - 2);
    const double t = f - double(i);
    const QColor a(map[i]), b(map[i + 1]);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QString decadeLabel(double us)
{
    return us < 1 ? QString::number(us, 'g', 1) : QString::number(us, 'f', 0);
}

QString intervalText(double seconds)
{
    return seconds < 1 ? QObject::tr("%1 ms").arg(seconds * 1e3, 0, 'f', 0)
                       : QObject::tr("%1 s").arg(seconds, 0, 'g', 3);
}

QString secondsLabel(double t)
{
    if (std::fabs(t) < 1e-9)
        return QObject::tr("now");
    return QString::fromUtf8("\u2212%1 s").arg(-t, 0, 'g', 4);
}

} // namespace

HeatStrip::HeatStrip(QWidget* parent)
    : QWidget(parent)
{
    setObjectName("heatStrip");
    setMouseTracking(false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void HeatStrip::setData(const HeatStripData& data)
{
    m_data = data;
    double lo = 0, hi = 0;
    for (const HeatRow& r : m_data.rows)
        for (const HeatCell& c : r.cells)
            if (c.covered && c.samples > 0) {
                lo = lo > 0 ? std::min(lo, c.maxUs) : c.maxUs;
                hi = std::max(hi, c.maxUs);
            }
    // Widen by whole decades only, so colours mean the same thing all run long.
    if (hi > m_hiUs)
        m_hiUs = plot::decadeCeil(hi);
    if (lo > 0 && lo < m_loUs)
        m_loUs = plot::decadeFloor(std::max(lo, 0.01));
    if (sizeHint().height() != height())
        updateGeometry();
    update();
}

void HeatStrip::resetScale()
{
    m_loUs = kDefaultScaleMinUs;
    m_hiUs = kDefaultScaleMaxUs;
    update();
}

QColor HeatStrip::colorFor(double us) const
{
    const double f = (std::log10(std::max(us, 1e-3)) - std::log10(m_loUs)) / (std::log10(m_hiUs) - std::log10(m_loUs));
    return interpolate(plot::isDarkPalette(palette()) ? kDarkMap : kLightMap, f);
}

QColor HeatStrip::noSamplesColor() const
{
    return plot::isDarkPalette(palette()) ? QColor(colors::kGrey500) : QColor(colors::kGrey600);
}

QColor HeatStrip::lostColor() const
{
    // Blue is in neither colour map.
    return plot::isDarkPalette(palette()) ? QColor(colors::kLightBlue300) : QColor(colors::kBlue900);
}

QString HeatStrip::legendTitle() const
{
    if (!m_data.legendTitle.isEmpty())
        return m_data.legendTitle;
    return tr("Colour = max latency per %1 interval (µs, log scale)").arg(intervalText(m_data.intervalSec));
}

int HeatStrip::preferredHeight() const
{
    const QFontMetrics title(plot::chartFont(font(), 1.2));
    const QFontMetrics axis(plot::chartFont(font(), 1.0));
    const int rows = std::max<int>(1, int(m_data.rows.size()));
    const QFontMetrics label(plot::chartFont(font(), 1.05));
    const QFontMetrics note(plot::chartFont(font(), 0.9));
    const int rowHeight = std::max(kMinRowHeight, label.height() + note.height() + 6);
    return kPad + title.height() + 4 + axis.height() + rows * rowHeight + 6 + axis.height() + 10 + axis.height() * 2 +
           14 + kPad;
}

QSize HeatStrip::sizeHint() const
{
    return {fontMetrics().averageCharWidth() * 100, preferredHeight()};
}

QSize HeatStrip::minimumSizeHint() const
{
    return {fontMetrics().averageCharWidth() * 50, preferredHeight()};
}

HeatStrip::Geometry HeatStrip::geometry() const
{
    Geometry g;
    const QFontMetrics title(plot::chartFont(font(), 1.2));
    const QFontMetrics label(plot::chartFont(font(), 1.05));
    const QFontMetrics note(plot::chartFont(font(), 0.9));
    const QFontMetrics axis(plot::chartFont(font(), 1.0));
    int labelWidth = label.horizontalAdvance(QStringLiteral("CPU 00"));
    for (const HeatRow& r : m_data.rows)
        labelWidth = std::max({labelWidth, label.horizontalAdvance(r.label), note.horizontalAdvance(r.note)});
    labelWidth += 2 * kPad;
    g.title = QRect(kPad, kPad, width() - 2 * kPad, title.height());
    g.markerTop = g.title.bottom() + 4;
    const int plotTop = g.markerTop + axis.height();
    g.rowHeight = std::max(kMinRowHeight, label.height() + note.height() + 6);
    const int rows = std::max<int>(1, int(m_data.rows.size()));
    const int right = width() - kPad - axis.horizontalAdvance(QStringLiteral("now")) / 2 - 4;
    g.labels = QRect(kPad, plotTop, labelWidth, rows * g.rowHeight);
    g.plot = QRect(QPoint(kPad + labelWidth, plotTop), QPoint(right, plotTop + rows * g.rowHeight - 1));
    g.axisTop = g.plot.bottom() + 6;
    g.legendTop = g.axisTop + axis.height() + 10;
    return g;
}

double HeatStrip::xFor(double tSec, const QRect& plot) const
{
    const double span = std::max(m_data.spanSec, 1e-9);
    return plot.left() + (tSec + span) / span * plot.width();
}

QRect HeatStrip::cellRect(int row, int column) const
{
    if (row < 0 || row >= int(m_data.rows.size()))
        return {};
    const auto& cells = m_data.rows[size_t(row)].cells;
    if (column < 0 || column >= int(cells.size()))
        return {};
    const Geometry g = geometry();
    const double n = double(cells.size());
    const double t0 = -(n - column) * m_data.intervalSec;
    const double t1 = t0 + m_data.intervalSec;
    if (t1 <= -m_data.spanSec + 1e-9)
        return {};
    const int x0 = int(std::lround(xFor(std::max(t0, -m_data.spanSec), g.plot)));
    const int x1 = int(std::lround(xFor(t1, g.plot)));
    const int y0 = g.plot.top() + row * g.rowHeight + 1;
    return QRect(QPoint(x0, y0), QPoint(std::max(x0, x1 - 1), y0 + g.rowHeight - 3));
}

std::pair<int, int> HeatStrip::cellAt(const QPoint& pos) const
{
    const Geometry g = geometry();
    if (!g.plot.contains(pos))
        return {-1, -1};
    const int row = (pos.y() - g.plot.top()) / std::max(1, g.rowHeight);
    if (row < 0 || row >= int(m_data.rows.size()))
        return {-1, -1};
    const auto& cells = m_data.rows[size_t(row)].cells;
    for (int c = int(cells.size()) - 1; c >= 0; --c) {
        const QRect r = cellRect(row, c);
        if (r.isEmpty())
            break;
        if (pos.x() >= r.left() && pos.x() <= r.right() + 1)
            return {row, c};
    }
    return {-1, -1};
}

QString HeatStrip::cellToolTip(int row, int column) const
{
    if (row < 0 || row >= int(m_data.rows.size()) || column < 0 || column >= int(m_data.rows[size_t(row)].cells.size()))
        return {};
    const HeatRow& r = m_data.rows[size_t(row)];
    const HeatCell& c = r.cells[size_t(column)];
    const double n = double(r.cells.size());
    const double t0 = -(n - column) * m_data.intervalSec;
    QString text = tr("%1: %2 … %3").arg(r.label, secondsLabel(t0), secondsLabel(t0 + m_data.intervalSec));
    if (!c.covered)
        text += "\n" + tr("not measured");
    else if (c.samples == 0)
        text += "\n" + (m_data.noValueText.isEmpty() ? tr("no wake-up measured in this interval") : m_data.noValueText);
    else
        text +=
            "\n" + (m_data.valueTip.isEmpty()
                        ? tr("max %1 µs over %2 wake-ups").arg(c.maxUs, 0, 'f', c.maxUs < 100 ? 1 : 0).arg(c.samples)
                        : m_data.valueTip.arg(c.maxUs, 0, 'f', c.maxUs < 100 ? 1 : 0));
    if (c.lost)
        text += "\n" + tr("%1 samples lost (dropped or missing)").arg(c.lost);
    return text;
}

bool HeatStrip::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto [row, column] = cellAt(help->pos());
        if (row >= 0)
            QToolTip::showText(help->globalPos(), cellToolTip(row, column), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void HeatStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const plot::ChartColors colors = plot::chartColors(palette());
    p.fillRect(rect(), colors.background);
    const Geometry g = geometry();

    p.setFont(plot::labelFont(font(), 1.2, true));
    p.setPen(colors.text);
    p.drawText(g.title, Qt::AlignLeft | Qt::AlignVCenter, tr("Per-CPU heat strip"));

    if (m_data.rows.empty()) {
        p.setFont(plot::chartFont(font(), 1.05));
        p.drawText(g.plot, Qt::AlignCenter, tr("Start the experiment: one row per measured CPU appears here."));
        drawAxis(p, g);
        drawLegend(p, g);
    } else {
        drawRows(p, g);
        drawMarkers(p, g);
        drawAxis(p, g);
        drawLegend(p, g);
    }
    if (m_data.keys)
        drawSwatches(p, g);
}

void HeatStrip::drawHatch(QPainter& p, const QRect& r) const
{
    const QColor base = plot::chartColors(palette()).background;
    p.fillRect(r, base);
    p.fillRect(r, QBrush(noSamplesColor(), Qt::BDiagPattern));
}

void HeatStrip::drawLostFlag(QPainter& p, const QRect& r) const
{
    QPen pen(lostColor(), plot::lineWidth(2));
    pen.setJoinStyle(Qt::MiterJoin);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    // Inset by half the pen, so the outline stays inside its cell however thick presentation mode makes it.
    const int inset = std::max(1, int(pen.widthF() / 2));
    p.drawRect(r.adjusted(inset, inset, -inset, -inset));
    const int s = std::min({r.width(), r.height(), 10});
    QPainterPath flag;
    flag.moveTo(r.topLeft());
    flag.lineTo(r.left() + s, r.top());
    flag.lineTo(r.left(), r.top() + s);
    flag.closeSubpath();
    p.fillPath(flag, lostColor());
}

void HeatStrip::drawRows(QPainter& p, const Geometry& g) const
{
    const plot::ChartColors colors = plot::chartColors(palette());
    const QFont label = plot::labelFont(font(), 1.05, true);
    const QFont note = plot::chartFont(font(), 0.9);
    const QFontMetrics lm(label), nm(note);
    for (size_t r = 0; r < m_data.rows.size(); ++r) {
        const HeatRow& row = m_data.rows[r];
        const int top = g.plot.top() + int(r) * g.rowHeight;
        const int textHeight = lm.height() + (row.note.isEmpty() ? 0 : nm.height());
        const int y = top + (g.rowHeight - textHeight) / 2;
        p.setPen(colors.text);
        p.setFont(label);
        p.drawText(QRect(g.labels.left(), y, g.labels.width() - kPad, lm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   row.label);
        if (!row.note.isEmpty()) {
            p.setFont(note);
            p.drawText(QRect(g.labels.left(), y + lm.height(), g.labels.width() - kPad, nm.height()),
                       Qt::AlignRight | Qt::AlignVCenter, row.note);
        }
        // The band behind the cells: what is left blank was not part of the run.
        QColor band = colors.grid;
        band.setAlphaF(band.alphaF() * 0.35f);
        p.fillRect(QRect(g.plot.left(), top + 1, g.plot.width(), g.rowHeight - 2), band);
        for (int c = 0; c < int(row.cells.size()); ++c) {
            const HeatCell& cell = row.cells[size_t(c)];
            if (!cell.covered)
                continue;
            const QRect rect = cellRect(int(r), c);
            if (rect.isEmpty())
                continue;
            if (cell.samples == 0)
                drawHatch(p, rect);
            else
                p.fillRect(rect, colorFor(cell.maxUs));
            if (cell.lost)
                drawLostFlag(p, rect);
        }
    }
    p.setPen(QPen(colors.text, plot::lineWidth(1)));
    p.setBrush(Qt::NoBrush);
    p.drawRect(g.plot.adjusted(0, 0, 0, 0));
}

void HeatStrip::drawMarkers(QPainter& p, const Geometry& g) const
{
    const QFont font = plot::chartFont(this->font(), 0.9);
    const QFontMetrics fm(font);
    p.setFont(font);
    int lastRight = INT32_MIN;
    for (const VerticalMarker& m : m_data.markers) {
        if (m.x < -m_data.spanSec || m.x > 0)
            continue;
        const int x = int(std::lround(xFor(m.x, g.plot)));
        const QColor color = plot::markerColor(m.role, palette());
        p.setPen(QPen(color, plot::lineWidth(2), Qt::DashLine));
        p.drawLine(x, g.plot.top(), x, g.plot.bottom());
        // Labels never overlap: a marker too close to the previous one keeps only its line.
        const QString text = fm.elidedText(m.label, Qt::ElideRight, 28 * fm.averageCharWidth());
        const int w = fm.horizontalAdvance(text);
        const int left = std::min(x + 3, width() - kPad - w);
        if (left <= lastRight + 6)
            continue;
        p.setPen(color);
        p.drawText(QRect(left, g.markerTop, w + 2, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, text);
        lastRight = left + w;
    }
}

void HeatStrip::drawAxis(QPainter& p, const Geometry& g) const
{
    const plot::ChartColors colors = plot::chartColors(palette());
    const QFont font = plot::chartFont(this->font(), 1.0);
    const QFontMetrics fm(font);
    p.setFont(font);
    p.setPen(QPen(colors.text, plot::lineWidth(1)));
    const double span = m_data.spanSec;
    const double step = plot::niceTickInterval(span, std::max(2, g.plot.width() / (fm.averageCharWidth() * 10)));
    for (double t = 0; t >= -span - 1e-9; t -= step) {
        const int x = int(std::lround(xFor(t, g.plot)));
        p.drawLine(x, g.plot.bottom(), x, g.plot.bottom() + 4);
        const QString text = secondsLabel(t);
        const int w = fm.horizontalAdvance(text);
        p.drawText(QRect(x - w / 2, g.axisTop, w + 2, fm.height()), Qt::AlignCenter, text);
    }
}

void HeatStrip::drawLegend(QPainter& p, const Geometry& g) const
{
    const plot::ChartColors colors = plot::chartColors(palette());
    const QFont bold = plot::labelFont(font(), 1.0, true);
    const QFont plain = plot::chartFont(font(), 1.0);
    const QFontMetrics bm(bold), fm(plain);
    int x = g.labels.left();
    const int top = g.legendTop;
    p.setFont(bold);
    p.setPen(colors.text);
    const QString title = legendTitle();
    p.drawText(QRect(x, top, bm.horizontalAdvance(title) + 2, bm.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
    x += bm.horizontalAdvance(title) + 16;

    // The colour bar, one decade per tick.
    const int barWidth = std::clamp(g.plot.width() / 3, 160, 420);
    const QRect bar(x, top + 2, barWidth, bm.height() - 4);
    const auto& map = plot::isDarkPalette(palette()) ? kDarkMap : kLightMap;
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (size_t i = 0; i < map.size(); ++i)
        gradient.setColorAt(double(i) / double(map.size() - 1), QColor(map[i]));
    p.fillRect(bar, gradient);
    p.setPen(QPen(colors.text, plot::lineWidth(1)));
    p.drawRect(bar);
    p.setFont(plain);
    const double decades = std::log10(m_hiUs) - std::log10(m_loUs);
    int labelRight = INT32_MIN;
    for (double us = m_loUs; us <= m_hiUs * 1.0001; us *= 10) {
        const int tx = bar.left() + int(std::lround((std::log10(us) - std::log10(m_loUs)) / decades * bar.width()));
        p.drawLine(tx, bar.bottom(), tx, bar.bottom() + 4);
        // Every decade gets its tick; a label that would touch the previous one is left out.
        const QString text = decadeLabel(us);
        const int w = fm.horizontalAdvance(text);
        if (tx - w / 2 <= labelRight + fm.averageCharWidth())
            continue;
        p.drawText(QRect(tx - w / 2, bar.bottom() + 5, w + 2, fm.height()), Qt::AlignCenter, text);
        labelRight = tx - w / 2 + w;
    }
}

void HeatStrip::drawSwatches(QPainter& p, const Geometry& g) const
{
    // The two marks that are not colours of the scale, right-aligned in the title row where there is room.
    const plot::ChartColors colors = plot::chartColors(palette());
    const QFont plain = plot::chartFont(font(), 1.0);
    const QFontMetrics fm(plain);
    p.setFont(plain);
    const int sw = fm.height();
    const QString noSamples = m_data.noValueText.isEmpty() ? tr("no wake-up in the interval") : m_data.noValueText;
    const QString lostText = tr("samples lost (dropped or gaps)");
    const int width = 2 * (sw * 2 + 6) + fm.horizontalAdvance(noSamples) + 24 + fm.horizontalAdvance(lostText);
    int x = g.title.right() - width;
    const int top = g.title.top() + (g.title.height() - sw) / 2;

    const QRect hatch(x, top, sw * 2, sw);
    drawHatch(p, hatch);
    p.setPen(QPen(colors.text, plot::lineWidth(1)));
    p.setBrush(Qt::NoBrush);
    p.drawRect(hatch);
    p.drawText(QRect(hatch.right() + 6, top, fm.horizontalAdvance(noSamples) + 2, sw), Qt::AlignLeft | Qt::AlignVCenter,
               noSamples);
    x = hatch.right() + 6 + fm.horizontalAdvance(noSamples) + 24;

    const QRect lost(x, top, sw * 2, sw);
    p.fillRect(lost, colorFor(m_loUs));
    drawLostFlag(p, lost);
    p.setPen(colors.text);
    p.drawText(QRect(lost.right() + 6, top, fm.horizontalAdvance(lostText) + 2, sw), Qt::AlignLeft | Qt::AlignVCenter,
               lostText);
}

} // namespace rtscope

#include "moc_heat_strip.cpp"
