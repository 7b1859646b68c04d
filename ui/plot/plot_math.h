#pragma once
// Pure arithmetic behind the charts: display bins, re-binning, per-pixel decimation, nice numbers.
#include "ui/plot/plot_data.h"

#include <QList>
#include <QPointF>

#include <cstdint>
#include <vector>

namespace rtscope::plot {

/// Smallest 1-2-5 × 10^k value >= v (v > 0).
double niceCeil(double v);
/// Largest 1-2-5 × 10^k value <= v (v > 0).
double niceFloor(double v);
/// 10^ceil(log10 v) and 10^floor(log10 v).
double decadeCeil(double v);
double decadeFloor(double v);
/// A tick interval giving roughly @p ticks intervals over [0, span], on the 1-2-5 ladder.
double niceTickInterval(double span, int ticks);
/// The decimals a tick label needs when the ticks are @p step apart: 0 for whole steps, 1 for 0.5, 2 for 0.02.
int tickDecimals(double step);

/// n + 1 equally spaced edges over [lo, hi].
std::vector<double> linearEdges(double lo, double hi, int bins);
/// Edges spaced evenly in log10 over [lo, hi] (lo > 0), @p perDecade bins per decade (at least one bin).
std::vector<double> logEdges(double lo, double hi, int perDecade);

/// Counts of @p buckets per display bin: a bucket goes to the bin holding its midpoint; values outside the
/// edges go to the first or last bin, so nothing recorded disappears from the picture.
std::vector<uint64_t> rebin(const std::vector<HistogramBucket>& buckets, const std::vector<double>& edges);

/// The span of the non-empty buckets of one or more histograms: what their value axis must show.
struct BucketExtent {
    double min = 0;
    double max = 0;
    bool any = false; ///< whether a non-empty bucket was seen; min and max mean nothing before
    void add(const HistogramCurve& curve);
};

/// The count at which empty bins are drawn on a log count axis: below its first decade, so an empty bin reads as
/// nothing rather than disappearing from the line.
inline constexpr double kCountFloor = 0.5;

/// A step line through the bins: (e0, c0) (e1, c0) (e1, c1) (e2, c1) …; counts below @p floor are drawn at
/// @p floor, which keeps empty bins on a log count axis.
QList<QPointF> stepPoints(const std::vector<double>& edges, const std::vector<uint64_t>& counts, double floor);

/// Reduces @p points to at most @p columns columns over [t0, t1]: per column the smallest min and the largest
/// max, so a single spike among thousands of quiet samples survives. Columns without data are left out.
std::vector<TimelinePoint> decimateColumns(const std::vector<TimelinePoint>& points, double t0, double t1, int columns);

/// The envelope as one polyline, two points per column (min then max, alternating direction so neighbouring
/// columns join without diagonals across the band); values below @p floor are raised to it (log axes).
QList<QPointF> envelopePoints(const std::vector<TimelinePoint>& columns, double floor);

} // namespace rtscope::plot
