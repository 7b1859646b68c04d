#include "ui/plot/anatomy_swimlane_layout.h"

#include "ui/plot/chart_style.h"
#include "ui/plot/plot_math.h"

#include <QFontMetricsF>
#include <QObject>

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
constexpr int kSwimMaxLabelRows = 4;

double swimXOf(const AnatomySwimlaneData& data, const QRectF& plot, int64_t ns)
{
    const double span = double(std::max<int64_t>(1, data.toNs - data.fromNs));
    return plot.left() + double(ns - data.fromNs) * plot.width() / span;
}

QRectF swimSegmentRect(const AnatomySwimlaneData& data, const QRectF& plot, const QRectF& lane, const SwimSegment& s)
{
    if (s.toNs < data.fromNs || s.fromNs > data.toNs || s.toNs < s.fromNs)
        return {};
    double x0 = swimXOf(data, plot, std::max(s.fromNs, data.fromNs));
    double x1 = swimXOf(data, plot, std::min(s.toNs, data.toNs));
    const double minPx =
        s.kind == SwimKind::Interrupt || s.kind == SwimKind::OwnTimer ? kSwimMinInterruptPx : kSwimMinSegmentPx;
    if (x1 - x0 < minPx) {
        const double c = (x0 + x1) / 2;
        x0 = std::max(plot.left(), c - minPx / 2);
        x1 = std::min(plot.right(), x0 + minPx);
    }
    double pad = lane.height() * 0.14;
    if (s.kind == SwimKind::Interrupt || s.kind == SwimKind::OwnTimer)
        pad += lane.height() * 0.12 * std::min(s.depth, 3);
    if (s.kind == SwimKind::Asleep)
        pad = lane.height() * 0.42;
    return QRectF(x0, lane.top() + pad, x1 - x0, lane.height() - 2 * pad);
}

// Line labels above the plot. Lines closer than a few pixels share one label ("switched in · woke, 18.5 ms late").
// The deadline's label ends at its line, the others start at theirs (or end there, at the right edge); a label that
// would still run into another goes one row up.
void layoutLineLabels(const AnatomySwimlaneData& data, double left, double plotWidth, double width,
                      const QFontMetricsF& lineFm, SwimlaneLayout& out)
{
    out.lineRow.assign(data.lines.size(), 0);
    out.lineLabelX.assign(data.lines.size(), 0);
    out.lineLabel.assign(data.lines.size(), QString());
    const double span = double(std::max<int64_t>(1, data.toNs - data.fromNs));
    std::vector<size_t> order(data.lines.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    auto xOfLine = [&](size_t i) {
        return left + double(data.lines[i].ns - data.fromNs) * plotWidth / span;
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
            texts << data.lines[order[k]].label;
            deadline = deadline || data.lines[order[k]].role == SwimLineRole::Deadline;
        }
        const QString text = texts.join(QStringLiteral(" · "));
        const double w = lineFm.horizontalAdvance(text);
        const double first = xOfLine(order[g]), last = xOfLine(order[e - 1]);
        double x0 = deadline ? first - 6 - w : last + 6;
        if (!deadline && x0 + w > width)
            x0 = first - 6 - w;
        x0 = std::clamp(x0, 0.0, std::max(0.0, width - w));
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
            out.lineRow[order[k]] = row;
        out.lineLabel[order[g]] = text; // drawn once, by the group's first line
        out.lineLabelX[order[g]] = x0;
        g = e;
    }
    int rows = 0;
    for (int r : out.lineRow)
        rows = std::max(rows, r + 1);
    out.lineLabelRows = data.lines.empty() ? 0 : std::max(rows, 1);
}

// The axis title sits in the tick row: left of the plot, under the lane names, where it fits; else at the right
// end, and a tick label that would run into it is left out.
void layoutTicks(const AnatomySwimlaneData& data, const QFont& font, SwimlaneLayout& out)
{
    if (data.toNs <= data.fromNs)
        return;
    const QFontMetricsF fm(plot::labelFont(font, 1.0));
    const QRectF& plot = out.plot;
    const double spanUs = double(data.toNs - data.fromNs) / 1e3;
    const double step = plot::niceTickInterval(spanUs, std::max(2, int(plot.width() / kSwimTickSpacingPx)));
    const double fromUs = double(data.fromNs - data.originNs) / 1e3;
    const double toUs = double(data.toNs - data.originNs) / 1e3;
    const int decimals = plot::tickDecimals(step);
    const QFontMetricsF titleFm(plot::labelFont(font, 1.0, true));
    const double titleWidth = titleFm.horizontalAdvance(data.axisTitle);
    out.axisTitleLeft = titleWidth <= plot.left() - 12 ? plot.left() - 10 - titleWidth : plot.right() - titleWidth;
    const double titleLeft = out.axisTitleLeft < plot.left() ? 1e300 : out.axisTitleLeft - 4;
    for (double v = std::ceil(fromUs / step - 1e-9) * step; v <= toUs + step * 1e-6; v += step) {
        const double x = swimXOf(data, plot, data.originNs + int64_t(std::llround(v * 1e3)));
        const QString label = QString::number(std::abs(v) < step * 1e-6 ? 0.0 : v, 'f', decimals);
        if (!data.axisTitle.isEmpty() && x + fm.horizontalAdvance(label) / 2 + 8 > titleLeft)
            continue;
        out.ticks.push_back({x, label});
    }
}

// The legend along the bottom, wrapping onto rows; returns its height.
double layoutLegend(const AnatomySwimlaneData& data, const QSizeF& size, const QFont& font,
                    std::vector<SwimlaneLegendEntry>* entries)
{
    const QFontMetricsF fm(plot::labelFont(font, 0.95));
    std::vector<SwimlaneLegendEntry> legend = swimlaneLegend(data);
    double x = kSwimMargin;
    int rows = 1;
    for (SwimlaneLegendEntry& i : legend) {
        const double w = kSwimSwatchWidth + 6 + fm.horizontalAdvance(i.text) + 16;
        if (x + w > size.width() - kSwimMargin && x > kSwimMargin) {
            ++rows;
            x = kSwimMargin;
        }
        // Rows are placed once the height is known (below).
        i.swatch = QRectF(x, (rows - 1) * (fm.height() + 4) + fm.height() * 0.18, kSwimSwatchWidth, fm.height() * 0.64);
        i.textX = x + kSwimSwatchWidth + 6;
        i.textBaseline = (rows - 1) * (fm.height() + 4) + fm.ascent();
        x += w;
    }
    const double height = int(rows * (fm.height() + 4) + 6);
    const double top = size.height() - height + 2;
    for (SwimlaneLegendEntry& i : legend) {
        i.swatch.translate(0, top);
        i.textBaseline += top;
    }
    if (entries)
        *entries = std::move(legend);
    return height;
}

} // namespace

QString swimKindName(SwimKind kind)
{
    switch (kind) {
    case SwimKind::PartTimer:
        return QObject::tr("timer IRQ delay");
    case SwimKind::PartWaiting:
        return QObject::tr("waiting for the CPU (scheduling + interrupts)");
    case SwimKind::PartReturn:
        return QObject::tr("return to user");
    case SwimKind::Asleep:
        return QObject::tr("asleep");
    case SwimKind::Waiting:
        return QObject::tr("woken, waiting for the CPU");
    case SwimKind::Running:
        return QObject::tr("measuring thread runs");
    case SwimKind::Measuring:
        return QObject::tr("measuring thread");
    case SwimKind::RtTask:
        return QObject::tr("RT task");
    case SwimKind::OtherTask:
        return QObject::tr("OTHER task");
    case SwimKind::Idle:
        return QObject::tr("idle");
    case SwimKind::Interrupt:
        return QObject::tr("interrupt");
    case SwimKind::OwnTimer:
        return QObject::tr("its timer");
    case SwimKind::Unknown:
        return QObject::tr("unknown: no event tells");
    }
    return {};
}

double swimlaneMinLaneHeight(const QFont& font)
{
    // A lane's name is drawn at its centre: a lane thinner than the name's line lets the names of neighbouring lanes
    // run into each other.
    return std::max(kSwimMinLaneHeight, QFontMetricsF(plot::labelFont(font, 1.0, true)).height() + 4);
}

std::vector<SwimlaneLegendEntry> swimlaneLegend(const AnatomySwimlaneData& data)
{
    // The kinds the data uses, in a fixed order (the parts are named in the lane and in the bar beside).
    static constexpr SwimKind kOrder[] = {SwimKind::Asleep,    SwimKind::Waiting,   SwimKind::Running,
                                          SwimKind::RtTask,    SwimKind::OtherTask, SwimKind::Idle,
                                          SwimKind::Interrupt, SwimKind::OwnTimer,  SwimKind::Unknown};
    std::vector<SwimlaneLegendEntry> out;
    for (SwimKind k : kOrder) {
        bool used = false;
        for (const auto& lane : data.lanes)
            for (const SwimSegment& s : lane)
                used = used || s.kind == k || (k == SwimKind::Running && s.kind == SwimKind::Measuring);
        if (used)
            out.push_back({swimKindName(k), int(k), {}, 0, 0});
    }
    return out;
}

double swimlaneLegendHeight(const AnatomySwimlaneData& data, double width, const QFont& font)
{
    return layoutLegend(data, QSizeF(width, 0), font, nullptr);
}

SwimlaneLayout layoutSwimlane(const AnatomySwimlaneData& data, const QSizeF& size, const QFont& font)
{
    SwimlaneLayout out;
    const QFontMetricsF nameFm(plot::labelFont(font, 1.0, true));
    const QFontMetricsF fm(plot::labelFont(font, 1.0));
    const QFontMetricsF lineFm(plot::labelFont(font, 1.0, true)); // the lines' labels
    double nameWidth = 0;
    for (const QString& n : data.laneNames)
        nameWidth = std::max(nameWidth, nameFm.horizontalAdvance(n));
    const double left = kSwimMargin + nameWidth + 10;
    const double plotWidth = std::max(10.0, size.width() - left - kSwimMargin - 8);

    layoutLineLabels(data, left, plotWidth, size.width(), lineFm, out);
    const double top = 4 + out.lineLabelRows * (lineFm.height() + 1) + 4;
    const double axis = fm.height() + 12; // the ticks' labels, with the axis title at their right
    out.legendHeight = layoutLegend(data, size, font, &out.legend);
    const int lanes = std::max<int>(1, int(data.lanes.size()));
    // Below the minimum size the lanes get thinner rather than run into the axis and the legend.
    // Never below the readable minimum: a parent too short scrolls (AnatomyPanel) rather than crush the names.
    out.laneHeight =
        std::max(swimlaneMinLaneHeight(font),
                 std::min((size.height() - top - axis - out.legendHeight - 4) / lanes, kSwimMaxLaneHeight));
    out.plot = QRectF(left, top, plotWidth, lanes * out.laneHeight);

    out.lanes.resize(data.lanes.size());
    out.segments.resize(data.lanes.size());
    for (size_t lane = 0; lane < data.lanes.size(); ++lane) {
        out.lanes[lane] =
            QRectF(out.plot.left(), out.plot.top() + double(lane) * out.laneHeight, out.plot.width(), out.laneHeight);
        for (const SwimSegment& s : data.lanes[lane])
            out.segments[lane].push_back(swimSegmentRect(data, out.plot, out.lanes[lane], s));
    }
    for (const SwimLine& l : data.lines)
        out.lineX.push_back(l.ns < data.fromNs || l.ns > data.toNs ? std::numeric_limits<double>::quiet_NaN()
                                                                   : swimXOf(data, out.plot, l.ns));
    layoutTicks(data, font, out);
    return out;
}

} // namespace rtscope
