#include "engine/pipeline/run_counters.h"

#include <algorithm>

namespace rtscope {

CounterRate::CounterRate(int64_t startNs, int64_t intervalNs)
    : m_intervalNs(std::max<int64_t>(intervalNs, 1))
    , m_lastNs(startNs)
{}

bool CounterRate::sample(int64_t tNs, uint64_t total)
{
    const int64_t dt = tNs - m_lastNs;
    if (dt < m_intervalNs)
        return false;
    m_rate = double(total - std::min(total, m_lastTotal)) * 1e9 / double(dt);
    m_lastTotal = total;
    m_lastNs = tNs;
    return true;
}

bool ReportedTotals::changed(size_t index, uint64_t total)
{
    if (index >= m_sent.size())
        m_sent.resize(index + 1, 0);
    if (m_sent[index] == total)
        return false;
    m_sent[index] = total;
    return true;
}

} // namespace rtscope
