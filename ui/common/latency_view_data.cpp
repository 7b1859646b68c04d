#include "ui/common/latency_view_data.h"

#include "engine/util/clock.h"
#include "ui/common/text_format.h"

namespace rtscope {

namespace {
constexpr int kMaxMarkerLabel = 34;
// An automatic reset follows its change within a few milliseconds; a user's reset is seconds apart.
constexpr int64_t kAutoResetNs = 250 * kNsPerMs;

QString elided(const std::string& text)
{
    QString s = screenText(text);
    if (s.size() > kMaxMarkerLabel)
        s = s.left(kMaxMarkerLabel - 1) + QChar(0x2026);
    return s;
}
// "start: OTHER · 1.00 ms · 4 hogs · CPU 1 · abs" → "start: OTHER, 4 hogs": the two things a viewer compares.
std::string markerText(const std::string& label)
{
    const std::string prefix = "start: ";
    if (label.rfind(prefix, 0) != 0)
        return label;
    std::vector<std::string> parts;
    const std::string sep = " · ";
    size_t from = 0;
    for (size_t at; (at = label.find(sep, from)) != std::string::npos; from = at + sep.size())
        parts.push_back(label.substr(from, at - from));
    parts.push_back(label.substr(from));
    return parts.size() >= 3 ? parts[0] + ", " + parts[2] : parts[0];
}
} // namespace

LatencyRunSummary summarizeRun(const LatencyThreadStats& t, const std::string& configLabel)
{
    LatencyRunSummary s;
    s.label = QString::fromStdString(configLabel);
    const Histogram& h = t.histogram;
    s.samples = t.samples;
    s.minNs = h.min();
    s.avgNs = h.mean();
    s.p50Ns = h.percentile(50);
    s.p90Ns = h.percentile(90);
    s.p99Ns = h.percentile(99);
    s.p999Ns = h.percentile(99.9);
    s.maxNs = h.max();
    s.skipped = t.skipped;
    s.drops = t.drops;
    s.seqGaps = t.seqGaps;
    return s;
}

std::vector<TimelinePoint> timelinePoints(const LatencySnapshot& snapshot, size_t thread)
{
    std::vector<TimelinePoint> out;
    if (thread >= snapshot.threads.size())
        return out;
    const auto& series = snapshot.threads[thread].series;
    out.reserve(series.size());
    for (const SeriesPoint& p : series)
        out.push_back({double(p.tNs - snapshot.publishedNs) / 1e9, double(p.minNs) / 1e3, double(p.maxNs) / 1e3});
    return out;
}

std::vector<VerticalMarker> timelineMarkers(const LatencySnapshot& snapshot, double windowSeconds)
{
    std::vector<VerticalMarker> out;
    const int64_t since = snapshot.publishedNs - int64_t(windowSeconds * 1e9);
    int64_t previousNs = INT64_MIN / 2;
    for (const Marker& m : snapshot.markers) {
        const bool reset = m.label == "reset";
        const bool automatic = reset && m.tNs - previousNs < kAutoResetNs;
        previousNs = m.tNs;
        if (m.tNs < since || automatic)
            continue;
        out.push_back({double(m.tNs - snapshot.publishedNs) / 1e9, elided(markerText(m.label)),
                       reset ? MarkerRole::Reset : MarkerRole::Change});
    }
    return out;
}

QString shortConfigLabel(const LatencyConfig& c)
{
    return QString("%1, %2 %3")
        .arg(QString::fromStdString(policyLabel(c.policy, c.priority, c.nice)))
        .arg(c.hogs)
        .arg(c.hogs == 1 ? "hog" : "hogs");
}

VerticalMarker referenceMaxMarker(const Histogram& h)
{
    return {double(h.max()) / 1e3, QString("ref. max %1").arg(formatLatency(double(h.max()))), MarkerRole::Reference};
}

} // namespace rtscope
