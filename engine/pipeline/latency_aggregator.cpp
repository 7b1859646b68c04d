#include "engine/pipeline/latency_aggregator.h"

#include "engine/util/clock.h"

namespace rtscope {

LatencyAggregator::LatencyAggregator(size_t exactUsBins)
    : m_series(kSeriesBucketNs, kSeriesCapacity)
{
    clear(exactUsBins);
}

void LatencyAggregator::clear(size_t exactUsBins)
{
    m_stats = LatencyThreadStats{};
    m_stats.histogram = Histogram(exactUsBins);
    m_overflowLimit = exactUsBins;
    m_series.clear();
    m_expectedSeq = 0;
}

void LatencyAggregator::resetStatistics()
{
    const int cpu = m_stats.cpu, tid = m_stats.tid;
    m_stats.histogram = Histogram(m_overflowLimit);
    m_stats.samples = m_stats.skipped = m_stats.drops = m_stats.seqGaps = 0;
    m_stats.lastNs = 0;
    m_stats.overflowSeqs.clear();
    m_stats.cpu = cpu;
    m_stats.tid = tid;
}

void LatencyAggregator::add(const LatencySample& s)
{
    if (s.seq > m_expectedSeq)
        m_stats.seqGaps += s.seq - m_expectedSeq;
    m_expectedSeq = s.seq + 1;
    m_stats.histogram.record(s.latencyNs);
    // cyclictest keeps as many overflow cycle numbers as it has bins.
    if (m_overflowLimit && s.latencyNs >= int64_t(m_overflowLimit) * kNsPerUs &&
        m_stats.overflowSeqs.size() < m_overflowLimit)
        m_stats.overflowSeqs.push_back(s.seq);
    m_stats.samples++;
    m_stats.skipped += s.skipped;
    m_stats.lastNs = s.latencyNs;
    m_series.add(s.wakeNs, s.latencyNs);
}

LatencyThreadStats LatencyAggregator::stats(int64_t seriesSinceNs) const
{
    LatencyThreadStats t = m_stats;
    t.series = m_series.points(seriesSinceNs);
    return t;
}

} // namespace rtscope
