#include "engine/pipeline/latency_aggregator.h"

#include "engine/util/clock.h"

namespace rtscope {

LatencyAggregator::LatencyAggregator(size_t exactUsBins, DecimatedSeries::Storage seriesStorage, size_t seriesCapacity)
    : m_series(kSeriesBucketNs, seriesCapacity, seriesStorage)
{
    clear(exactUsBins);
}

void LatencyAggregator::clear(size_t exactUsBins)
{
    // Emptied in place, field by field, when the histogram's size stays: a replay starts a thread's aggregator anew
    // at every restart of the recorded threads, and a fresh LatencyThreadStats allocates a whole histogram.
    if (m_stats.histogram.exactUsBinCount() == exactUsBins)
        m_stats.histogram.reset();
    else
        m_stats.histogram = Histogram(exactUsBins);
    m_stats.cpu = -1;
    m_stats.tid = 0;
    m_stats.samples = m_stats.skipped = m_stats.drops = m_stats.seqGaps = 0;
    m_stats.lastNs = 0;
    m_stats.overflowSeqs.clear();
    m_stats.series.clear();
    m_overflowLimit = exactUsBins;
    m_series.clear();
    m_expectedSeq = 0;
}

void LatencyAggregator::resetStatistics()
{
    const int cpu = m_stats.cpu, tid = m_stats.tid;
    m_stats.histogram.reset(); // in place: costs what was recorded since, not the histogram's size
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
