#include "ui/plot/noise_cpu_bars.h"

#include "ui/common/colors.h"

#include "ui/plot/chart_style.h"

#include <QEvent>
#include <QPainter>

#include <algorithm>
#include <array>

namespace rtscope {

namespace {

constexpr std::array<NoisePart, 7> kNoiseLegendParts = {NoisePart::Available, NoisePart::Irq, NoisePart::Softirq,
                                                        NoisePart::Thread,    NoisePart::Nmi, NoisePart::Unexplained,
                                                        NoisePart::Untraced};

} // namespace

NoiseCpuBars::NoiseCpuBars(QWidget* parent)
    : plot::LaidOutWidget(parent)
{
    setObjectName("noiseCpuBars");
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

QString NoiseCpuBars::percentText(double percent)
{
    return QString::number(percent, 'f',
                           percent == 0     ? 0
                           : percent < 0.01 ? 4
                           : percent < 1    ? 3
                                            : 2) +
           QStringLiteral(" %");
}

QColor NoiseCpuBars::partColor(NoisePart part, bool dark)
{
    switch (part) {
    case NoisePart::Available:
        return QColor(dark ? colors::kOkabeGreenLight : colors::kOkabeGreen);
    case NoisePart::Irq:
        return QColor(dark ? colors::kOkabeVermillionLight : colors::kOkabeVermillion);
    case NoisePart::Softirq:
        return QColor(colors::kOkabeOrange);
    case NoisePart::Thread:
        return QColor(dark ? colors::kOkabeSkyBlue : colors::kOkabeBlue);
    case NoisePart::Nmi:
        return QColor(dark ? colors::kOkabePurpleLight : colors::kOkabePurple);
    case NoisePart::Unexplained:
        return QColor(dark ? colors::kGrey400 : colors::kGrey800);
    case NoisePart::Untraced:
        return QColor(dark ? colors::kGrey600 : colors::kGreyMid);
    }
    return QColor(colors::kGrey500);
}

QString NoiseCpuBars::partName(NoisePart part)
{
    switch (part) {
    case NoisePart::Available:
        return tr("available");
    case NoisePart::Irq:
        return tr("IRQ");
    case NoisePart::Softirq:
        return tr("softirq");
    case NoisePart::Thread:
        return tr("thread");
    case NoisePart::Nmi:
        return tr("NMI");
    case NoisePart::Unexplained:
        return tr("unexplained (HW/VM)");
    case NoisePart::Untraced:
        return tr("untraced");
    }
    return {};
}

QColor NoiseCpuBars::textOn(const QColor& background)
{
    // Relative luminance, roughly: dark text on the light colours (orange, green, purple), white on the others.
    const double l = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return l > 0.45 ? QColor(Qt::black) : QColor(Qt::white);
}

void NoiseCpuBars::setData(NoiseBarsData data)
{
    const bool rowsChanged = data.rows.size() != m_data.rows.size();
    m_data = std::move(data);
    relayout();
    if (rowsChanged)
        updateGeometry();
    update();
}

int NoiseCpuBars::rowHeight() const
{
    const QFontMetrics big(plot::chartFont(font(), 1.35));
    const QFontMetrics fm(plot::chartFont(font(), 1.0));
    // Title line, the thin bar to scale, the lost-time bar, two lines of values; with spacing (as relayout()).
    return big.height() + 4 + fm.height() / 2 + 4 + fm.height() * 2 + 4 + fm.height() * 2 + fm.height() / 2;
}

int NoiseCpuBars::legendHeight() const
{
    return QFontMetrics(plot::chartFont(font(), 1.0)).height() + 10;
}

QSize NoiseCpuBars::sizeHint() const
{
    const int rows = std::max<int>(1, int(m_data.rows.size()));
    return {800, legendHeight() + rows * rowHeight() + 8};
}

QSize NoiseCpuBars::minimumSizeHint() const
{
    return {400, legendHeight() + rowHeight() + 8};
}

void NoiseCpuBars::relayout()
{
    m_layout.clear();
    const QFont plain = plot::chartFont(font(), 1.0);
    const QFontMetrics fm(plain);
    const QFontMetrics big(plot::chartFont(font(), 1.35));
    const int pad = 8;
    const int gutter = fm.horizontalAdvance(tr("lost time")) + 2 * pad; // the bars' own labels on the left
    double y = legendHeight();
    for (const NoiseBarRow& row : m_data.rows) {
        RowLayout l;
        const double left = pad, right = width() - pad;
        l.title = QRectF(left, y, right - left, big.height());
        y += big.height() + 4;
        l.scaleBar = QRectF(left + gutter, y, right - left - gutter, fm.height() / 2.0);
        y += fm.height() / 2.0 + 4;
        l.lostBar = QRectF(left + gutter, y, right - left - gutter, fm.height() * 2.0);
        y += fm.height() * 2.0 + 4;
        l.detail = QRectF(left + gutter, y, right - left - gutter, fm.height() * 2.0);
        y += fm.height() * 2.0 + fm.height() / 2;

        double total = 0;
        for (const NoiseBarSegment& s : row.lost)
            total += std::max(0.0, s.percent);
        double x = l.lostBar.left();
        for (const NoiseBarSegment& s : row.lost) {
            if (s.percent <= 0 || total <= 0)
                continue;
            const double w = l.lostBar.width() * s.percent / total;
            Block b{s.part, QRectF(x, l.lostBar.top(), w, l.lostBar.height()),
                    partName(s.part) + QStringLiteral(" ") + percentText(s.percent)};
            if (fm.horizontalAdvance(b.label) + 8 > w) {
                b.label = percentText(s.percent);
                b.inside = fm.horizontalAdvance(b.label) + 8 <= w;
            }
            l.blocks.push_back(b);
            x += w;
        }
        m_layout.push_back(std::move(l));
    }
}

const NoiseCpuBars::Block* NoiseCpuBars::block(int row, NoisePart part) const
{
    if (row < 0 || row >= int(m_layout.size()))
        return nullptr;
    for (const Block& b : m_layout[size_t(row)].blocks)
        if (b.part == part)
            return &b;
    return nullptr;
}

QRectF NoiseCpuBars::lostBlock(int row, NoisePart part) const
{
    const Block* b = block(row, part);
    return b ? b->rect : QRectF();
}

QString NoiseCpuBars::lostLabel(int row, NoisePart part) const
{
    const Block* b = block(row, part);
    return b ? b->label : QString();
}

void NoiseCpuBars::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const plot::ChartColors c = plot::chartColors(palette());
    p.fillRect(rect(), c.background);
    drawLegend(p);
    for (size_t i = 0; i < m_data.rows.size() && i < m_layout.size(); ++i)
        drawRow(p, m_data.rows[i], m_layout[i]);
    if (m_data.rows.empty()) {
        p.setPen(c.text);
        p.setFont(plot::chartFont(font(), 1.1));
        p.drawText(rect().adjusted(8, legendHeight(), -8, 0), Qt::AlignCenter,
                   tr("Press Start: each measured CPU gets a bar of where its time went"));
    }
}

void NoiseCpuBars::drawLegend(QPainter& p) const
{
    const plot::ChartColors c = plot::chartColors(palette());
    const bool dark = plot::isDarkPalette(palette());
    const QFont plain = plot::chartFont(font(), 1.0);
    const QFontMetrics fm(plain);
    p.setFont(plain);
    int x = 8;
    const int sw = fm.height();
    for (NoisePart part : kNoiseLegendParts) {
        const QRect swatch(x, 4, sw, sw);
        p.fillRect(swatch, partColor(part, dark));
        if (part == NoisePart::Untraced)
            p.fillRect(swatch, QBrush(c.text, Qt::BDiagPattern));
        p.setPen(c.text);
        p.drawRect(swatch);
        const QString name = partName(part);
        p.drawText(QRect(swatch.right() + 5, 4, fm.horizontalAdvance(name) + 2, sw), Qt::AlignVCenter, name);
        x = swatch.right() + 5 + fm.horizontalAdvance(name) + 18;
    }
}

void NoiseCpuBars::drawRow(QPainter& p, const NoiseBarRow& row, const RowLayout& l) const
{
    const plot::ChartColors c = plot::chartColors(palette());
    const bool dark = plot::isDarkPalette(palette());
    const QFont big = plot::labelFont(font(), 1.35, true);
    const QFont plain = plot::chartFont(font(), 1.0);
    const QFontMetrics bm(big), fm(plain);

    // The title line: "CPU 1   99.82 % available   lost 0.18 % (…)".
    p.setFont(big);
    p.setPen(c.text);
    const int labelWidth = bm.horizontalAdvance(row.label) + 16;
    p.drawText(l.title.adjusted(0, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, row.label);
    const QRectF headline = l.title.adjusted(labelWidth, 0, 0, 0);
    p.setPen(partColor(NoisePart::Available, dark).darker(dark ? 100 : 115));
    p.drawText(headline, Qt::AlignLeft | Qt::AlignVCenter, row.headline);
    p.setFont(plain);
    p.setPen(c.text);
    const double detailLeft = headline.left() + bm.horizontalAdvance(row.headline) + 16;
    p.drawText(QRectF(detailLeft, l.title.top(), l.title.right() - detailLeft, l.title.height()),
               Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(row.detail, Qt::ElideRight, int(l.title.right() - detailLeft)));

    // The bars' names in the gutter on the left.
    const double gutterLeft = l.title.left();
    const double gutterWidth = l.scaleBar.left() - gutterLeft - 8;
    p.drawText(QRectF(gutterLeft, l.scaleBar.top() - 4, gutterWidth, l.scaleBar.height() + 8),
               Qt::AlignLeft | Qt::AlignVCenter, tr("to scale"));
    p.drawText(QRectF(gutterLeft, l.lostBar.top(), gutterWidth, l.lostBar.height()), Qt::AlignLeft | Qt::AlignVCenter,
               tr("lost time"));

    // The whole run to scale: available, then each lost part at its true width (often a hair at the right end).
    double x = l.scaleBar.left();
    const double availableW = l.scaleBar.width() * std::clamp(row.availablePercent, 0.0, 100.0) / 100.0;
    p.fillRect(QRectF(x, l.scaleBar.top(), availableW, l.scaleBar.height()), partColor(NoisePart::Available, dark));
    x += availableW;
    for (const NoiseBarSegment& s : row.lost) {
        const double w = l.scaleBar.width() * std::max(0.0, s.percent) / 100.0;
        p.fillRect(QRectF(x, l.scaleBar.top(), w, l.scaleBar.height()), partColor(s.part, dark));
        x += w;
    }
    p.setPen(QPen(c.grid, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.scaleBar);

    // The lost time alone, split by who took it.
    if (l.blocks.empty()) {
        p.setPen(QPen(c.grid, 1, Qt::DashLine));
        p.drawRect(l.lostBar);
        p.setPen(c.text);
        p.drawText(l.lostBar, Qt::AlignCenter,
                   row.note.isEmpty() ? tr("no gap at or above the threshold: nothing was taken from this CPU")
                                      : row.note);
    }
    for (const Block& b : l.blocks) {
        const QColor color = partColor(b.part, dark);
        p.fillRect(b.rect, color);
        if (b.part == NoisePart::Untraced)
            p.fillRect(b.rect, QBrush(textOn(color), Qt::BDiagPattern));
        p.setPen(QPen(c.background, 1));
        p.drawLine(b.rect.topRight(), b.rect.bottomRight());
        if (b.inside) {
            p.setPen(textOn(color));
            p.drawText(b.rect, Qt::AlignCenter, b.label);
        }
    }
    if (!l.blocks.empty()) {
        p.setPen(QPen(c.text, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(l.lostBar);
    }

    // Every part's value under the bar, with its swatch, on up to two lines: the small parts whose label did not
    // fit are read here.
    double vx = l.detail.left();
    double vy = l.detail.top();
    const double lineHeight = fm.height();
    const int sw = fm.height() - 4;
    for (const NoiseBarSegment& s : row.lost) {
        if (s.valueText.isEmpty())
            continue;
        const QString text = partName(s.part) + QStringLiteral(" ") + s.valueText;
        const double need = sw + 4 + fm.horizontalAdvance(text) + 16;
        if (vx + need > l.detail.right() && vx > l.detail.left()) {
            vx = l.detail.left();
            vy += lineHeight;
        }
        if (vy + lineHeight > l.detail.bottom() + 1)
            break;
        const QRectF swatch(vx, vy + 2, sw, sw);
        p.fillRect(swatch, partColor(s.part, dark));
        p.setPen(c.text);
        p.drawText(QRectF(swatch.right() + 4, vy, need, lineHeight), Qt::AlignLeft | Qt::AlignVCenter, text);
        vx += need;
    }
}

} // namespace rtscope

#include "moc_noise_cpu_bars.cpp"
