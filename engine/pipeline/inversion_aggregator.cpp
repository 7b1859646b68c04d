#include "engine/pipeline/inversion_aggregator.h"

#include "engine/util/name_list.h"

#include <algorithm>

namespace rtscope {

namespace {

bool inversionIsWaiting(const TimelineSegment& s)
{
    return s.state == SegmentState::WaitingForLock;
}

// Total time in which a segment of @p a and a segment of @p b overlap. Each list is one thread's segments, so
// it is sorted and its segments are disjoint: one merge pass.
template <class KeepA>
int64_t inversionOverlapNs(const std::vector<TimelineSegment>& a, const std::vector<TimelineSegment>& b, KeepA keepA)
{
    int64_t total = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (!keepA(a[i])) {
            ++i;
            continue;
        }
        const int64_t lo = std::max(a[i].startNs, b[j].startNs);
        const int64_t hi = std::min(a[i].endNs, b[j].endNs);
        if (hi > lo)
            total += hi - lo;
        if (a[i].endNs < b[j].endNs)
            ++i;
        else
            ++j;
    }
    return total;
}

} // namespace

const char* inversionLaneName(InversionLane l)
{
    return enumName<InversionLane::High>(l, {"low", "medium", "high"});
}

const char* segmentStateName(SegmentState s)
{
    return enumName<SegmentState::WaitingForLock>(s, {"running", "holding", "waiting"});
}

InversionAggregator::InversionAggregator(size_t maxSegmentsPerLane, size_t maxPeriods)
    : m_maxSegmentsPerLane(maxSegmentsPerLane)
    , m_maxPeriods(maxPeriods)
{}

void InversionAggregator::addSegment(const TimelineSegment& s)
{
    const size_t lane = size_t(s.lane);
    if (lane >= m_segments.size())
        return;
    if (m_segments[lane].size() < m_maxSegmentsPerLane)
        m_segments[lane].push_back(s);
    else
        m_truncated = true;
}

void InversionAggregator::addPeriod(const InversionPeriod& p)
{
    m_highWait.record(p.waitNs());
    m_highWaitTotalNs += p.waitNs();
    m_highContended += p.contended ? 1 : 0;
    m_highMissed += p.missed ? 1 : 0;
    m_highSkipped += p.skipped;
    if (m_periods.size() < m_maxPeriods)
        m_periods.push_back(p);
}

InversionFigures InversionAggregator::figures(int64_t fromNs) const
{
    constexpr size_t low = size_t(InversionLane::Low);
    constexpr size_t medium = size_t(InversionLane::Medium);
    constexpr size_t high = size_t(InversionLane::High);
    InversionFigures f;
    f.highWait = m_highWait;
    f.highPeriods = m_highWait.count();
    f.highContended = m_highContended;
    f.highMissed = m_highMissed;
    f.highSkipped = m_highSkipped;
    f.highWaitTotalNs = m_highWaitTotalNs;
    f.mediumRanWhileHighWaitedNs = inversionOverlapNs(m_segments[high], m_segments[medium], inversionIsWaiting);
    f.lowRanWhileHighWaitedNs = inversionOverlapNs(m_segments[high], m_segments[low], inversionIsWaiting);
    f.timelineFromNs = fromNs;
    for (const auto& lane : m_segments)
        for (const TimelineSegment& s : lane)
            if (s.endNs >= fromNs)
                f.timeline.push_back(s);
    for (const InversionPeriod& p : m_periods)
        if (p.releaseNs >= fromNs)
            f.periods.push_back(p);
    f.timelineTruncated = m_truncated;
    std::sort(f.timeline.begin(), f.timeline.end(),
              [](const TimelineSegment& a, const TimelineSegment& b) { return a.startNs < b.startNs; });
    return f;
}

int64_t InversionAggregator::windowStart(int64_t startNs, int64_t publishedNs, int64_t windowNs)
{
    return windowNs > 0 ? std::max(startNs, publishedNs - windowNs) : startNs;
}

} // namespace rtscope
