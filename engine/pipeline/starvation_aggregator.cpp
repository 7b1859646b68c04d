#include "engine/pipeline/starvation_aggregator.h"

#include <algorithm>

namespace rtscope {

namespace {

constexpr int64_t kStarvationRateBucketNs = 1'000'000;

// Per counter, what it did since @p before (a counter never goes back; 0 if a reading says otherwise).
template <class A> A starvationDifference(const uint64_t* now, const A& before, int n)
{
    A out{};
    for (int i = 0; i < n; ++i)
        out[size_t(i)] = now[i] >= before[size_t(i)] ? now[i] - before[size_t(i)] : 0;
    return out;
}

} // namespace

std::vector<ThrottleWindow> findThrottleWindows(int64_t burstStartNs, int64_t burstEndNs,
                                                std::vector<RunSegment> segments, int64_t mergeGapNs)
{
    std::vector<RunSegment> inside;
    for (const RunSegment& s : segments) {
        if (s.endNs < s.startNs)
            continue;
        // Strict at the start: a counter the spinner preempted read its clock for the last time before the
        // spinner read the burst's start, so its last segment ends before the burst and must not count.
        if (s.endNs <= burstStartNs || s.startNs >= burstEndNs)
            continue;
        inside.push_back({std::max(s.startNs, burstStartNs), std::min(s.endNs, burstEndNs)});
    }
    std::sort(inside.begin(), inside.end(), [](const RunSegment& a, const RunSegment& b) {
        return a.startNs < b.startNs || (a.startNs == b.startNs && a.endNs < b.endNs);
    });
    std::vector<ThrottleWindow> windows;
    for (const RunSegment& s : inside) {
        if (!windows.empty() && s.startNs - windows.back().endNs < mergeGapNs) {
            windows.back().endNs = std::max(windows.back().endNs, s.endNs);
            continue;
        }
        ThrottleWindow w;
        w.startNs = s.startNs;
        w.endNs = s.endNs;
        windows.push_back(w);
    }
    for (size_t i = 0; i < windows.size(); ++i) {
        windows[i].offsetNs = windows[i].startNs - burstStartNs;
        windows[i].spacingNs = i ? windows[i].startNs - windows[i - 1].startNs : 0;
    }
    return windows;
}

uint64_t BurstRecord::duringSum(int n) const
{
    uint64_t sum = 0;
    for (int i = 0; i < n && i < kStarvationMaxThreads; ++i)
        sum += during[size_t(i)];
    return sum;
}

uint64_t BurstRecord::afterSum(int n) const
{
    uint64_t sum = 0;
    for (int i = 0; i < n && i < kStarvationMaxThreads; ++i)
        sum += after[size_t(i)];
    return sum;
}

StarvationAggregator::StarvationAggregator() = default;

StarvationAggregator::StarvationAggregator(int threads, int starved, int64_t seriesWindowNs, int64_t sampleIntervalNs)
    : m_threads(std::clamp(threads, 0, kStarvationMaxThreads))
    , m_starved(std::clamp(starved, 0, m_threads))
{
    const size_t seriesPoints = size_t(seriesWindowNs / std::max<int64_t>(1, sampleIntervalNs)) + 16;
    m_counters.reserve(size_t(m_threads));
    for (int i = 0; i < m_threads; ++i)
        // One point per sample: 1 ms buckets never merge two samples 10 ms apart, whatever their jitter.
        m_counters.push_back(Counter{DecimatedSeries(kStarvationRateBucketNs, seriesPoints), 0, {}});
}

void StarvationAggregator::addEvent(const StarvationSpinnerEvent& ev)
{
    const int n = m_threads;
    switch (ev.kind) {
    case StarvationSpinnerEvent::RunStart:
        m_runStartNs = ev.tNs;
        std::copy(ev.counts, ev.counts + kStarvationMaxThreads, m_runStartCounts.begin());
        m_burstEndCounts = m_runStartCounts;
        break;
    case StarvationSpinnerEvent::BurstStart: {
        if (m_bursts.empty() && m_burstsDropped == 0) {
            m_leadIn = starvationDifference(ev.counts, m_runStartCounts, n);
            m_leadInEndNs = ev.tNs;
        } else if (!m_bursts.empty() && m_bursts.back().endNs && !m_bursts.back().gapEndNs) {
            m_bursts.back().after = starvationDifference(ev.counts, m_burstEndCounts, n);
            m_bursts.back().gapEndNs = ev.tNs;
        }
        if (m_bursts.size() >= kMaxBurstRecords) {
            m_bursts.erase(m_bursts.begin());
            ++m_burstsDropped;
        }
        BurstRecord rec;
        rec.index = ev.burst;
        rec.startNs = ev.tNs;
        m_bursts.push_back(std::move(rec));
        std::copy(ev.counts, ev.counts + kStarvationMaxThreads, m_burstStartCounts.begin());
        break;
    }
    case StarvationSpinnerEvent::BurstEnd:
        if (!m_bursts.empty() && m_bursts.back().index == ev.burst && m_bursts.back().spinning()) {
            BurstRecord& rec = m_bursts.back();
            rec.endNs = std::max(ev.tNs, rec.startNs + 1);
            rec.during = starvationDifference(ev.counts, m_burstStartCounts, n);
            rec.watchdogDemoted = ev.demoted;
            rec.interrupted = ev.interrupted;
        }
        std::copy(ev.counts, ev.counts + kStarvationMaxThreads, m_burstEndCounts.begin());
        break;
    case StarvationSpinnerEvent::RunEnd:
        m_runEndNs = ev.tNs;
        m_interrupted = ev.interrupted;
        if (m_bursts.empty() && m_burstsDropped == 0) {
            m_leadIn = starvationDifference(ev.counts, m_runStartCounts, n);
            m_leadInEndNs = ev.tNs;
        } else if (!m_bursts.empty() && m_bursts.back().endNs && !m_bursts.back().gapEndNs) {
            m_bursts.back().after = starvationDifference(ev.counts, m_burstEndCounts, n);
            m_bursts.back().gapEndNs = std::max(ev.tNs, m_bursts.back().endNs);
        }
        break;
    }
}

void StarvationAggregator::addSample(const StarvationProgressSample& s)
{
    const size_t cap = m_history.size();
    if (m_historyCount > 0) {
        const StarvationProgressSample& prev = m_history[(m_historyCount - 1) % cap];
        const int64_t dt = s.tNs - prev.tNs;
        if (dt > 0)
            for (int i = 0; i < m_threads; ++i) {
                const uint64_t d = s.counts[i] >= prev.counts[i] ? s.counts[i] - prev.counts[i] : 0;
                // Stamped at the start of the interval it covers, so a rate of 0 lines up with the burst.
                m_counters[size_t(i)].rate.add(prev.tNs, int64_t(double(d) * 1e9 / double(dt)));
            }
    }
    for (int i = 0; i < m_threads; ++i)
        m_counters[size_t(i)].ops = s.counts[i];
    m_history[m_historyCount % cap] = s;
    ++m_historyCount;
}

void StarvationAggregator::addSegments(int counter, const RunSegment* segments, size_t n)
{
    if (counter < 0 || counter >= m_threads)
        return;
    auto& kept = m_counters[size_t(counter)].segments;
    kept.insert(kept.end(), segments, segments + n);
    if (kept.size() > kMaxSegmentsKept)
        kept.erase(kept.begin(), kept.begin() + std::ptrdiff_t(kept.size() / 2));
}

void StarvationAggregator::updateWindows(int64_t nowNs, const std::array<RunSegment, kStarvationMaxThreads>& open)
{
    int64_t horizon = nowNs - kSegmentKeepNs;
    for (BurstRecord& b : m_bursts) {
        if (b.windowsFinal)
            continue;
        const int64_t end = b.endNs ? b.endNs : nowNs;
        std::vector<RunSegment> segments;
        bool settled = b.endNs != 0;
        for (int i = 0; i < m_starved; ++i) {
            for (const RunSegment& s : m_counters[size_t(i)].segments)
                if (s.endNs > b.startNs && s.startNs < end)
                    segments.push_back(s);
            const RunSegment& o = open[size_t(i)];
            if (o.startNs <= o.endNs)
                segments.push_back(o);
            // A segment still open since before the burst ended may yet grow into it; one opened after the end
            // proves every earlier segment of this counter has been drained.
            if (o.startNs <= b.endNs)
                settled = false;
        }
        b.windows = findThrottleWindows(b.startNs, end, std::move(segments), kWindowMergeNs);
        if (settled)
            b.windowsFinal = true;
        else
            horizon = std::min(horizon, b.startNs);
    }
    for (Counter& c : m_counters)
        std::erase_if(c.segments, [horizon](const RunSegment& s) { return s.endNs < horizon; });
}

const StarvationProgressSample* StarvationAggregator::latestSample() const
{
    return m_historyCount ? &m_history[(m_historyCount - 1) % m_history.size()] : nullptr;
}

StarvationLeadIn StarvationAggregator::leadIn() const
{
    StarvationLeadIn out;
    if (!m_runStartNs)
        return out;
    if (m_leadInEndNs) {
        out.ns = m_leadInEndNs - m_runStartNs;
        out.counts = m_leadIn;
    } else if (const StarvationProgressSample* latest = latestSample()) {
        out.ns = std::max<int64_t>(0, latest->tNs - m_runStartNs);
        out.counts = starvationDifference(latest->counts, m_runStartCounts, m_threads);
    }
    return out;
}

std::vector<CounterStats> StarvationAggregator::counterStats(int64_t seriesSinceNs) const
{
    const StarvationProgressSample* newest = latestSample();
    const size_t back = std::min<size_t>(kLiveRateSamples, m_historyCount ? m_historyCount - 1 : 0);
    const StarvationProgressSample* older = back ? &m_history[(m_historyCount - 1 - back) % m_history.size()] : nullptr;
    std::vector<CounterStats> out;
    out.reserve(size_t(m_threads));
    for (int i = 0; i < m_threads; ++i) {
        CounterStats c;
        c.control = i >= m_starved;
        c.label = c.control ? std::string("control") : "counter " + std::to_string(i + 1);
        c.ops = m_counters[size_t(i)].ops;
        if (newest && older && newest->tNs > older->tNs)
            c.opsPerSec = double(newest->counts[i] - std::min(newest->counts[i], older->counts[i])) * 1e9 /
                          double(newest->tNs - older->tNs);
        c.rate = m_counters[size_t(i)].rate.points(seriesSinceNs);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace rtscope
