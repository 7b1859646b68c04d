#include "ui/plot/plot_math.h"

#include <algorithm>
#include <cmath>

namespace rtscope::plot {

namespace {
constexpr double kLadder[] = {1, 2, 5, 10};
} // namespace

double niceCeil(double v)
{
    if (!(v > 0))
        return 1;
    const double decade = std::pow(10.0, std::floor(std::log10(v)));
    for (double step : kLadder)
        if (step * decade >= v * (1 - 1e-12))
            return step * decade;
    return 10 * decade;
}

double niceFloor(double v)
{
    if (!(v > 0))
        return 1;
    const double decade = std::pow(10.0, std::floor(std::log10(v)));
    double best = decade;
    for (double step : kLadder)
        if (step * decade <= v * (1 + 1e-12))
            best = step * decade;
    return best;
}

double decadeCeil(double v)
{
    return v > 0 ? std::pow(10.0, std::ceil(std::log10(v) - 1e-12)) : 1;
}

double decadeFloor(double v)
{
    return v > 0 ? std::pow(10.0, std::floor(std::log10(v) + 1e-12)) : 1;
}

double niceTickInterval(double span, int ticks)
{
    if (!(span > 0) || ticks < 1)
        return 1;
    return niceCeil(span / ticks);
}

int tickDecimals(double step)
{
    return step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
}

std::vector<double> linearEdges(double lo, double hi, int bins)
{
    bins = std::max(1, bins);
    std::vector<double> edges(size_t(bins) + 1);
    for (int i = 0; i <= bins; ++i)
        edges[size_t(i)] = lo + (hi - lo) * i / bins;
    return edges;
}

std::vector<double> logEdges(double lo, double hi, int perDecade)
{
    lo = std::max(lo, 1e-9);
    hi = std::max(hi, lo * 1.0001);
    const double a = std::log10(lo), b = std::log10(hi);
    const int bins = std::max(1, int(std::ceil((b - a) * std::max(1, perDecade) - 1e-9)));
    std::vector<double> edges(size_t(bins) + 1);
    for (int i = 0; i <= bins; ++i)
        edges[size_t(i)] = std::pow(10.0, a + (b - a) * i / bins);
    return edges;
}

std::vector<uint64_t> rebin(const std::vector<HistogramBucket>& buckets, const std::vector<double>& edges)
{
    if (edges.size() < 2)
        return {};
    std::vector<uint64_t> counts(edges.size() - 1, 0);
    for (const HistogramBucket& b : buckets) {
        const double mid = (b.lowUs + b.highUs) / 2;
        // upper_bound: a value exactly on an edge belongs to the bin that starts there.
        auto it = std::upper_bound(edges.begin(), edges.end(), mid);
        ptrdiff_t bin = (it - edges.begin()) - 1;
        bin = std::clamp<ptrdiff_t>(bin, 0, ptrdiff_t(counts.size()) - 1);
        counts[size_t(bin)] += b.count;
    }
    return counts;
}

void BucketExtent::add(const HistogramCurve& curve)
{
    for (const HistogramBucket& b : curve.buckets) {
        if (!b.count)
            continue;
        min = any ? std::min(min, b.lowUs) : b.lowUs;
        max = any ? std::max(max, b.highUs) : b.highUs;
        any = true;
    }
}

QList<QPointF> stepPoints(const std::vector<double>& edges, const std::vector<uint64_t>& counts, double floor)
{
    QList<QPointF> out;
    if (edges.size() != counts.size() + 1)
        return out;
    out.reserve(qsizetype(counts.size() * 2));
    for (size_t i = 0; i < counts.size(); ++i) {
        const double y = std::max(double(counts[i]), floor);
        out.append({edges[i], y});
        out.append({edges[i + 1], y});
    }
    return out;
}

std::vector<TimelinePoint> decimateColumns(const std::vector<TimelinePoint>& points, double t0, double t1, int columns)
{
    std::vector<TimelinePoint> out;
    if (columns < 1 || !(t1 > t0))
        return out;
    const double width = (t1 - t0) / columns;
    int current = -1;
    for (const TimelinePoint& p : points) {
        if (p.tSec < t0 || p.tSec > t1)
            continue;
        const int col = std::min(columns - 1, int((p.tSec - t0) / width));
        if (col != current) {
            out.push_back({t0 + (col + 0.5) * width, p.minUs, p.maxUs});
            current = col;
        } else {
            out.back().minUs = std::min(out.back().minUs, p.minUs);
            out.back().maxUs = std::max(out.back().maxUs, p.maxUs);
        }
    }
    return out;
}

QList<QPointF> envelopePoints(const std::vector<TimelinePoint>& columns, double floor)
{
    QList<QPointF> out;
    out.reserve(qsizetype(columns.size() * 2));
    bool up = true;
    for (const TimelinePoint& c : columns) {
        const double lo = std::max(c.minUs, floor), hi = std::max(c.maxUs, floor);
        out.append({c.tSec, up ? lo : hi});
        out.append({c.tSec, up ? hi : lo});
        up = !up;
    }
    return out;
}

} // namespace rtscope::plot
