#include "engine/pipeline/anatomy_aggregator.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace rtscope {

namespace {

bool anatomyAggByTime(const TraceEvent& a, const TraceEvent& b)
{
    return a.ts < b.ts;
}

// The held prefix is erased once it is this long and at least half the vector: erasing costs one move of what is
// held, at most once per as many events as it frees.
constexpr size_t kAnatomyAggCompactAt = 65'536;

} // namespace

int64_t anatomyLookbackNs(int64_t periodNs)
{
    return std::clamp<int64_t>(3 * periodNs, 1'000'000, 100'000'000);
}

AnatomyAggregator::AnatomyAggregator()
    : AnatomyAggregator(Limits{})
{}

AnatomyAggregator::AnatomyAggregator(const Limits& limits)
    : m_limits(limits)
{}

void AnatomyAggregator::configure(int64_t thresholdNs, int top, int64_t lookbackNs)
{
    if (thresholdNs != m_thresholdNs) {
        m_over.clear();
        m_counts.overThresholdTotal = 0;
    }
    m_thresholdNs = std::max<int64_t>(0, thresholdNs);
    m_top = std::max(0, top);
    if (m_worst.size() > size_t(m_top))
        m_worst.resize(size_t(m_top));
    m_lookbackNs = std::max<int64_t>(0, lookbackNs);
    ++m_version;
}

void AnatomyAggregator::start(int64_t sinceNs)
{
    clear();
    m_horizonNs = sinceNs;
    m_startNs = sinceNs;
}

void AnatomyAggregator::clear()
{
    m_events.clear();
    m_first = 0;
    m_horizonNs = INT64_MIN;
    m_startNs = INT64_MIN;
    m_newestNs = INT64_MIN;
    m_cpuNewest.clear();
    resetStatistics();
}

void AnatomyAggregator::resetStatistics()
{
    m_pending.clear();
    m_culprits.clear();
    m_worst.clear();
    m_over.clear();
    m_counts = {};
    ++m_version;
}

std::span<const TraceEvent> AnatomyAggregator::window() const
{
    return std::span<const TraceEvent>(m_events.data() + m_first, m_events.size() - m_first);
}

int64_t AnatomyAggregator::newestOn(int cpu) const
{
    return cpu >= 0 && size_t(cpu) < m_cpuNewest.size() ? m_cpuNewest[size_t(cpu)] : INT64_MIN;
}

size_t AnatomyAggregator::dropBefore(int64_t ns)
{
    const size_t before = m_first;
    while (m_first < m_events.size() && m_events[m_first].ts < ns)
        ++m_first;
    const size_t dropped = m_first - before;
    m_horizonNs = std::max(m_horizonNs, ns);
    if (m_first >= kAnatomyAggCompactAt && m_first * 2 >= m_events.size()) {
        m_events.erase(m_events.begin(), m_events.begin() + long(m_first));
        m_first = 0;
    }
    return dropped;
}

void AnatomyAggregator::addEvents(std::span<const TraceEvent> batch)
{
    const size_t oldEnd = m_events.size();
    for (const TraceEvent& e : batch) {
        if (e.ts < m_horizonNs) {
            // Older than the window: every wake-up that needed it is settled. One from before start() (a session
            // records from a moment inside its start, not known exactly) was never part of the window: not counted.
            m_counts.eventsDropped += e.ts >= m_startNs ? 1 : 0;
            continue;
        }
        m_events.push_back(e);
        if (m_cpuNewest.size() <= e.cpu)
            m_cpuNewest.resize(size_t(e.cpu) + 1, INT64_MIN);
        m_cpuNewest[e.cpu] = std::max(m_cpuNewest[e.cpu], e.ts);
        m_newestNs = std::max(m_newestNs, e.ts);
    }
    if (m_events.size() == oldEnd)
        return;
    ++m_version; // the held events changed: wakeupsPending and what a later wake-up sees
    const auto mid = m_events.begin() + long(oldEnd);
    if (!std::is_sorted(mid, m_events.end(), anatomyAggByTime))
        std::stable_sort(mid, m_events.end(), anatomyAggByTime);
    // A batch may hold events older than the newest held (another CPU's late sub-buffer): merge from the first held
    // event later than the batch's first, so that equal timestamps keep the order they came in.
    if (oldEnd > m_first && (mid - 1)->ts > mid->ts) {
        const auto from = std::upper_bound(m_events.begin() + long(m_first), mid, *mid, anatomyAggByTime);
        std::inplace_merge(from, mid, m_events.end(), anatomyAggByTime);
    }
    // The bound: the oldest go (and so does every event at their timestamp, so that the horizon stays exact).
    const size_t held = m_events.size() - m_first;
    if (held > m_limits.maxEvents)
        m_counts.eventsDropped += dropBefore(m_events[m_first + (held - m_limits.maxEvents) - 1].ts + 1);
    analyseReady(false);
    trim();
}

void AnatomyAggregator::addWakeups(size_t thread, int32_t tid, int cpu, std::span<const LatencySample> samples)
{
    for (const LatencySample& s : samples) {
        ++m_counts.wakeupsSeen;
        ++m_version;
        const Pending p{thread, tid, cpu, s};
        if (s.deadlineNs - m_lookbackNs < m_horizonNs) {
            ++m_counts.wakeupsNotAnalysed; // its window's start is gone (or was never recorded)
            continue;
        }
        if (newestOn(cpu) > s.wakeNs + kAnatomyToleranceNs) {
            analyse(p);
            continue;
        }
        m_pending.push_back(p);
        if (m_pending.size() > m_limits.maxPending) {
            m_pending.pop_front();
            ++m_counts.wakeupsNotAnalysed;
        }
    }
    trim();
}

void AnatomyAggregator::finish()
{
    analyseReady(true);
}

void AnatomyAggregator::analyseReady(bool final)
{
    if (m_pending.empty())
        return;
    std::deque<Pending> waiting;
    for (const Pending& p : m_pending) {
        if (p.sample.deadlineNs - m_lookbackNs < m_horizonNs)
            ++m_counts.wakeupsNotAnalysed;
        else if (newestOn(p.cpu) > p.sample.wakeNs + kAnatomyToleranceNs)
            analyse(p);
        else if (final)
            ++m_counts.wakeupsNotAnalysed;
        else
            waiting.push_back(p);
    }
    if (waiting.size() != m_pending.size())
        ++m_version;
    m_pending.swap(waiting);
}

void AnatomyAggregator::trim()
{
    // Keep what the waiting wake-ups need, and retainNs behind the newest event for those still on their way.
    int64_t keepFrom = m_newestNs == INT64_MIN ? INT64_MIN : m_newestNs - m_limits.retainNs;
    for (const Pending& p : m_pending)
        keepFrom = std::min(keepFrom, p.sample.deadlineNs - m_lookbackNs);
    if (keepFrom > m_horizonNs)
        (void)dropBefore(keepFrom); // served: every wake-up that needs them is analysed, or counted
}

void AnatomyAggregator::analyse(const Pending& p)
{
    const WakeupQuery q{p.tid, p.cpu, p.sample.deadlineNs, p.sample.wakeNs};
    const std::span<const TraceEvent> w = wakeupWindow(window(), q, m_lookbackNs);
    WakeupAnatomy a = analyzeWakeup(q, w, m_options);
    ++m_counts.wakeupsAnalysed;
    m_counts.wakeupsComplete += a.complete() ? 1 : 0;
    m_counts.wakeupsWithLoss += a.eventsLost ? 1 : 0;
    m_culprits.add(a);
    ++m_version;

    const bool worst = m_top > 0 && (m_worst.size() < size_t(m_top) || a.latencyNs > m_worst.back().anatomy.latencyNs);
    const bool over = m_thresholdNs > 0 && a.latencyNs > m_thresholdNs;
    if (!worst && !over)
        return;
    TracedWakeup t;
    t.seq = p.sample.seq;
    t.thread = p.thread;
    const size_t n = std::min(w.size(), m_limits.maxWindowEvents);
    t.eventsOmitted = w.size() - n;
    t.events.assign(w.end() - long(n), w.end());
    t.anatomy = std::move(a);
    if (over) {
        ++m_counts.overThresholdTotal;
        if (m_limits.maxOverThreshold > 0) {
            if (worst)
                m_over.push_back(t); // the copy: the worst list takes t itself below
            else
                m_over.push_back(std::move(t));
            if (m_over.size() > m_limits.maxOverThreshold)
                m_over.pop_front();
        }
    }
    if (worst) {
        // After those as late as it: the first of equals stays ahead.
        const auto at = std::upper_bound(
            m_worst.begin(), m_worst.end(), t.anatomy.latencyNs,
            [](int64_t latency, const TracedWakeup& kept) { return latency > kept.anatomy.latencyNs; });
        m_worst.insert(at, std::move(t));
        if (m_worst.size() > size_t(m_top))
            m_worst.pop_back();
    }
}

AnatomyFigures AnatomyAggregator::figures() const
{
    AnatomyFigures f = m_counts;
    f.wakeupsPending = m_pending.size();
    f.worst = m_worst;
    f.overThreshold.assign(m_over.begin(), m_over.end());
    f.culprits = m_culprits.rows();
    return f;
}

} // namespace rtscope
