#pragma once
// The plain data the chart widgets accept: views outside ui/plot speak only this, never Qt Charts.
#include <QString>

#include <cstdint>
#include <vector>

namespace rtscope {

/// One histogram bucket: [lowUs, highUs] holds count values.
struct HistogramBucket {
    double lowUs = 0;
    double highUs = 0;
    uint64_t count = 0;
};

/// A whole histogram (non-empty buckets in ascending order) and the name the legend gives it.
struct HistogramCurve {
    QString name;
    std::vector<HistogramBucket> buckets;
};

/// What a vertical marker stands for; the chart picks its colour and dash from the role.
enum class MarkerRole { Median, P99, P999, Max, Reference, Change, Reset };

struct VerticalMarker {
    double x = 0; ///< in the axis unit (µs on a histogram, relative seconds on a timeline)
    QString label;
    MarkerRole role = MarkerRole::Change;
};

/// One column of a timeline: min and max latency of everything in [tSec, tSec + bucket).
struct TimelinePoint {
    double tSec = 0; ///< relative to "now" (negative = in the past)
    double minUs = 0;
    double maxUs = 0;
};

} // namespace rtscope
