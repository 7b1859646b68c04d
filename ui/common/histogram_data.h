#pragma once
// An engine histogram as the plain data the histogram charts take: buckets in µs and the percentile markers. Every
// lab that draws a histogram (latency, per-CPU, sweep, lock waits) converts it here.
#include "engine/pipeline/histogram.h"
#include "ui/plot/plot_data.h"

#include <QString>

#include <vector>

namespace rtscope {

HistogramCurve histogramCurve(const Histogram& histogram, const QString& name);
/// p50, p99, p99.9 and max of @p histogram (none when it is empty).
std::vector<VerticalMarker> percentileMarkers(const Histogram& histogram);

} // namespace rtscope
