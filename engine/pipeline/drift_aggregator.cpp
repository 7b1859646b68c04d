#include "engine/pipeline/drift_aggregator.h"

#include <algorithm>

namespace rtscope {

void DriftAggregator::SlopeSums::add(int64_t tick, int64_t drift)
{
    const long double x = tick, y = drift;
    n += 1;
    k += x;
    kk += x * x;
    d += y;
    kd += x * y;
}

double DriftAggregator::SlopeSums::slope() const
{
    const long double den = n * kk - k * k;
    return n >= 2 && den != 0 ? double((n * kd - k * d) / den) : 0.0;
}

DriftAggregator::DriftAggregator(size_t methods, int64_t periodNs, size_t ticksPerMethod)
    : m_periodNs(periodNs > 0 ? periodNs : 1)
    , m_methods(methods)
{
    for (Method& m : m_methods)
        m.log = std::make_shared<AppendLog<DriftTick>>(ticksPerMethod);
}

bool DriftAggregator::add(size_t method, const DriftSample& s)
{
    if (method >= m_methods.size())
        return false;
    Method& m = m_methods[method];
    DriftTick t;
    t.tick = s.tick;
    t.driftNs = s.wakeNs - (m_t0Ns + s.tick * m_periodNs);
    t.latenessNs = s.wakeNs - s.deadlineNs;
    // A gap in the ticks is what the method slept through (the timer counted the expirations, or the schedule
    // skipped them): counted on the tick that follows it, so wakes + missed is the latest tick.
    t.missed = s.tick > m.lastTick + 1 ? uint32_t(std::min<int64_t>(s.tick - m.lastTick - 1, UINT32_MAX)) : 0;
    m.missed += t.missed;
    m.lastTick = std::max(m.lastTick, s.tick);
    m.lastDrift = t.driftNs;
    m.minDrift = m.wakes == 0 ? t.driftNs : std::min(m.minDrift, t.driftNs);
    m.maxDrift = m.wakes == 0 ? t.driftNs : std::max(m.maxDrift, t.driftNs);
    m.lastWake = s.wakeNs;
    ++m.wakes;
    m.sums.add(t.tick, t.driftNs);
    m.lateness.record(t.latenessNs);
    (void)m.log->append(t); // past the capacity: refused and counted by the log
    return true;
}

DriftMethodFigures DriftAggregator::figures(size_t method) const
{
    DriftMethodFigures f;
    if (method >= m_methods.size())
        return f;
    const Method& m = m_methods[method];
    f.wakes = m.wakes;
    f.lastTick = m.lastTick;
    f.missedTicks = m.missed;
    f.driftNs = m.lastDrift;
    f.minDriftNs = m.minDrift;
    f.maxDriftNs = m.maxDrift;
    f.slopeNsPerTick = m.sums.slope();
    if (m.wakes > 0 && m.lastWake > m_t0Ns) {
        f.rateHz = double(m.wakes) * 1e9 / double(m.lastWake - m_t0Ns);
        f.ratePercent = 100.0 * f.rateHz / nominalHz();
    }
    f.latenessP50Ns = m.lateness.percentile(50);
    f.latenessP99Ns = m.lateness.percentile(99);
    f.latenessMaxNs = m.lateness.max();
    f.log = m.log;
    f.logCount = m.log->size();
    return f;
}

} // namespace rtscope
