#include "ui/common/histogram_data.h"

#include "ui/common/text_format.h"

namespace rtscope {

HistogramCurve histogramCurve(const Histogram& histogram, const QString& name)
{
    HistogramCurve c;
    c.name = name;
    histogram.forEachBucket([&c](int64_t low, int64_t high, uint64_t count) {
        // [low, high] inclusive in ns; as µs the bucket spans [low, high + 1).
        c.buckets.push_back({double(low) / 1e3, double(high + 1) / 1e3, count});
    });
    if (histogram.overflowCount())
        c.buckets.push_back(
            {double(Histogram::kMaxTrackableNs) / 1e3, double(histogram.max()) / 1e3, histogram.overflowCount()});
    return c;
}

std::vector<VerticalMarker> percentileMarkers(const Histogram& h)
{
    if (h.count() == 0)
        return {};
    auto marker = [](const char* name, int64_t ns, MarkerRole role) {
        return VerticalMarker{double(ns) / 1e3, QString("%1 %2").arg(name, formatLatency(double(ns))), role};
    };
    return {marker("p50", h.percentile(50), MarkerRole::Median), marker("p99", h.percentile(99), MarkerRole::P99),
            marker("p99.9", h.percentile(99.9), MarkerRole::P999), marker("max", h.max(), MarkerRole::Max)};
}

} // namespace rtscope
