#include "ui/start/lesson_thumbnail.h"

#include "ui/common/colors.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/noise_cpu_bars.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <utility>

namespace rtscope {

namespace {

// Every sketch draws in a unit square (x right, y up, 0..1) mapped onto the plot area; the shapes are the
// pages' own (docs/gui.md), not data.
struct ThumbCanvas {
    QPainter& p;
    QRectF area;
    plot::ChartColors c;
    bool dark;

    QPointF at(double x, double y) const { return {area.left() + x * area.width(), area.bottom() - y * area.height()}; }
    QRectF box(double x0, double y0, double x1, double y1) const { return QRectF(at(x0, y1), at(x1, y0)); }
    QPen pen(const QColor& color, double width = 2.0) const
    {
        QPen pen(color, width);
        pen.setCapStyle(Qt::RoundCap);
        pen.setJoinStyle(Qt::RoundJoin);
        return pen;
    }
    void curve(const QColor& color, int steps, const std::function<double(double)>& f, double width = 2.0) const
    {
        QPainterPath path(at(0, f(0)));
        for (int i = 1; i <= steps; ++i) {
            const double x = double(i) / steps;
            path.lineTo(at(x, f(x)));
        }
        p.setPen(pen(color, width));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
    }
    QColor shade(QRgb light, QRgb darkShade) const { return QColor(dark ? darkShade : light); }
};

// The latency page with a reference: the OTHER run (orange) spreads far to the right, FIFO (blue) is one spike.
void drawLatency(const ThumbCanvas& t)
{
    t.curve(t.c.reference, 60, [](double x) { return 0.55 * std::exp(-std::pow((x - 0.45) / 0.28, 2)) + 0.04; });
    t.curve(
        t.c.live, 60, [](double x) { return 0.92 * std::exp(-std::pow((x - 0.1) / 0.035, 2)) + 0.02; }, 2.5);
}

// The doctor's trial: alternated phases without (A) and with (B, shaded) a fix; each phase's p99 as a step, high in
// the A phases and low in the B ones.
void drawDoctor(const ThumbCanvas& t)
{
    const QColor shaded = t.shade(colors::kGreen50, colors::kGreenNight);
    for (int i = 1; i < 6; i += 2)
        t.p.fillRect(t.box(i / 6.0, 0, (i + 1) / 6.0, 1), shaded);
    t.curve(t.c.reference, 120, [](double x) { return int(x * 6) % 2 ? 0.18 : 0.78 - 0.05 * std::sin(x * 19); });
}

// The starvation page: the counter's progress goes flat while the FIFO spinner holds the CPU (shaded bursts).
void drawStarvation(const ThumbCanvas& t)
{
    QColor burst = t.shade(colors::kRed50, colors::kRedNight);
    for (double x0 : {0.18, 0.48, 0.78})
        t.p.fillRect(t.box(x0, 0, x0 + 0.18, 1), burst);
    t.curve(t.c.live, 100, [](double x) {
        // Progress at a steady rate except inside the three bursts.
        double y = 0;
        double last = 0;
        for (double x0 : {0.18, 0.48, 0.78}) {
            if (x <= x0)
                break;
            y += x0 - last;
            last = std::min(x, x0 + 0.18);
        }
        y += std::max(0.0, x - last);
        return 0.05 + y * 1.7;
    });
}

// The deadline page, FIFO runaway then DEADLINE runaway: under FIFO the counter's progress stays flat but for the
// safety net's short windows (reference colour); under DEADLINE it climbs in small steps, paused only while the
// runaway uses its runtime each period.
void drawDeadline(const ThumbCanvas& t)
{
    t.curve(t.c.reference, 100, [](double x) { return 0.05 + 0.12 * std::floor(x * 3.0) / 3.0; });
    t.curve(
        t.c.live, 200,
        [](double x) {
            const double periods = x * 8.0;
            const double inPeriod = periods - std::floor(periods);
            return 0.05 + 0.85 * (std::floor(periods) * 0.8 + std::max(0.0, inPeriod - 0.2)) / 8.0;
        },
        2.5);
}

// The drift page: the naive loop's drift climbs in a straight line, the absolute timers stay in a flat band.
void drawDrift(const ThumbCanvas& t)
{
    t.curve(
        t.shade(colors::kRed800, colors::kRed400), 2, [](double x) { return 0.1 + 0.82 * x; }, 2.5);
    for (int i = 0; i < 4; ++i)
        t.curve(colors::curveColor(i == 1   ? 2
                                   : i == 2 ? 4
                                   : i == 3 ? 5
                                            : 0,
                                   t.dark),
                40, [i](double x) { return 0.08 + 0.02 * i + 0.015 * std::sin(x * 30 + i); });
}

// The sleep-floor page: what a sleep costs against what was asked (log axes): flat at a floor, then the
// diagonal; the second run (timer slack 1 ns, blue) has the lower floor, the first (orange) is the reference.
void drawSleepFloor(const ThumbCanvas& t)
{
    t.p.setPen(t.pen(t.c.grid, 1.0));
    t.p.drawLine(t.at(0, 0), t.at(1, 1));
    t.curve(t.c.reference, 60, [](double x) { return std::max(0.55, x * 0.98); });
    t.curve(
        t.c.live, 60, [](double x) { return std::max(0.3, x * 0.98); }, 2.5);
}

// The inversion page: three threads' lanes; medium (long bar) runs while high waits for low's lock.
void drawInversion(const ThumbCanvas& t)
{
    const QColor high = t.c.live;
    const QColor medium = t.shade(colors::kRed800, colors::kRed400);
    const QColor low = t.shade(colors::kGreen800, colors::kGreen300);
    const QColor waiting = t.shade(colors::kAmber600, colors::kAmber300);
    auto bar = [&](double lane, double x0, double x1, const QColor& color) {
        t.p.fillRect(t.box(x0, lane - 0.1, x1, lane + 0.1), color);
    };
    bar(0.18, 0.02, 0.16, low);
    bar(0.82, 0.16, 0.86, waiting);
    bar(0.5, 0.2, 0.8, medium);
    bar(0.18, 0.8, 0.86, low);
    bar(0.82, 0.86, 0.98, high);
}

// The contention page: one bar per lock kind (spin, mutex, adaptive ×2, PI), cost per hand-off.
void drawContention(const ThumbCanvas& t)
{
    const double heights[] = {0.45, 0.9, 0.35, 0.3, 0.95};
    for (int i = 0; i < 5; ++i) {
        const double x0 = 0.06 + i * 0.19;
        t.p.fillRect(t.box(x0, 0, x0 + 0.13, heights[i]), colors::curveColor(i, t.dark));
    }
}

// The noise page: per CPU a stacked bar of where its time went, mostly available (green), the rest split among the
// kinds in the page's colours (the sketch widens the lost parts: on the page they get a bar of their own).
void drawNoise(const ThumbCanvas& t)
{
    const std::array<std::array<double, 5>, 2> rows = {{{0.62, 0.12, 0.08, 0.1, 0.08}, {0.78, 0.04, 0.03, 0.05, 0.1}}};
    const std::array<NoisePart, 5> parts = {NoisePart::Available, NoisePart::Irq, NoisePart::Softirq, NoisePart::Thread,
                                            NoisePart::Unexplained};
    for (size_t r = 0; r < rows.size(); ++r) {
        const double y = r == 0 ? 0.62 : 0.15;
        double x = 0.02;
        for (size_t i = 0; i < parts.size(); ++i) {
            t.p.fillRect(t.box(x, y, x + rows[r][i] * 0.96, y + 0.26), NoiseCpuBars::partColor(parts[i], t.dark));
            x += rows[r][i] * 0.96;
        }
    }
}

} // namespace

QPixmap lessonThumbnail(const QString& experiment, QSize size, const QPalette& palette, qreal dpr)
{
    QPixmap pixmap(size * dpr);
    pixmap.setDevicePixelRatio(dpr);
    const plot::ChartColors c = plot::chartColors(palette);
    pixmap.fill(c.background);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF frame(0.5, 0.5, size.width() - 1.0, size.height() - 1.0);
    const double margin = std::min(size.width(), size.height()) * 0.1;
    const QRectF area = frame.adjusted(margin * 1.4, margin, -margin, -margin * 1.2);
    // The axes, as every page's charts have them.
    p.setPen(QPen(c.grid, 1.0));
    for (int i = 1; i < 4; ++i) {
        const double y = area.top() + area.height() * i / 4;
        p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
    }
    p.setPen(QPen(c.text, 1.2));
    p.drawLine(area.bottomLeft(), area.bottomRight());
    p.drawLine(area.bottomLeft(), area.topLeft());

    const ThumbCanvas canvas{p, area, c, plot::isDarkPalette(palette)};
    p.save();
    p.setClipRect(area.adjusted(-2, -2, 2, 2));
    // The drawing of each lesson's experiment, by its name.
    static const std::array<std::pair<const char*, void (*)(const ThumbCanvas&)>, 9> kDrawings = {{
        {"latency", drawLatency},
        {"starvation", drawStarvation},
        {"drift", drawDrift},
        {"sleep-floor", drawSleepFloor},
        {"inversion", drawInversion},
        {"contention", drawContention},
        {"deadline", drawDeadline},
        {"doctor", drawDoctor},
        {"noise", drawNoise},
    }};
    const auto drawing = std::find_if(kDrawings.begin(), kDrawings.end(),
                                      [&](const auto& d) { return experiment == QLatin1String(d.first); });
    if (drawing != kDrawings.end()) {
        drawing->second(canvas);
    } else {
        p.setPen(c.text);
        p.drawText(area, Qt::AlignCenter, experiment);
    }
    p.restore();
    p.setPen(QPen(c.grid, 1.0));
    p.setBrush(Qt::NoBrush);
    p.drawRect(frame);
    return pixmap;
}

} // namespace rtscope
