#include "ui/workbench/cpus/heat_history.h"

#include <algorithm>

namespace rtscope {

int64_t HeatHistory::intervalFor(int64_t periodNs)
{
    for (int64_t ms : {250, 500, 1000, 2000, 5000})
        if (ms * 1'000'000 >= periodNs)
            return ms * 1'000'000;
    return 10'000'000'000;
}

void HeatHistory::reset(int64_t intervalNs)
{
    m_intervalNs = std::max<int64_t>(intervalNs, 1'000'000);
    m_startNs = 0;
    m_newest = -1;
    m_cpus.clear();
}

int64_t HeatHistory::index(int64_t tNs) const
{
    // Floor division: CLOCK_MONOTONIC is positive, but a replay may start anywhere.
    return tNs >= 0 ? tNs / m_intervalNs : -((-tNs + m_intervalNs - 1) / m_intervalNs);
}

void HeatHistory::add(const LatencySnapshot& s, int64_t seriesSinceNs)
{
    if (m_startNs == 0 || s.startNs < m_startNs)
        m_startNs = s.startNs;
    const int64_t from = std::max(seriesSinceNs, s.startNs);
    // The first interval the window covers entirely; the run's first interval counts as covered from its start.
    int64_t first = index(from);
    if (from > s.startNs && first * m_intervalNs < from)
        ++first;
    const int64_t last = index(s.publishedNs);
    m_newest = std::max(m_newest, last);
    for (const LatencyThreadStats& t : s.threads) {
        Cpu& cpu = m_cpus[t.cpu];
        for (int64_t k = first; k <= last; ++k)
            cpu.cells[k] = HeatCell{true, 0, 0, 0};
        for (const SeriesPoint& point : t.series) {
            const int64_t k = index(point.tNs);
            if (k < first || k > last)
                continue;
            HeatCell& c = cpu.cells[k];
            c.maxUs = c.samples ? std::max(c.maxUs, double(point.maxNs) / 1e3) : double(point.maxNs) / 1e3;
            c.samples += point.count;
            cpu.firstSample = std::min(cpu.firstSample, k);
        }
        // Before its first wake-up a thread was still starting (hogs and workers start one after the other), and the
        // collector may not have drained the interval still filling: such empty cells are not "no wake-up" cells.
        for (int64_t k = first; k <= last; ++k)
            if (HeatCell& c = cpu.cells[k]; c.samples == 0 && (k < cpu.firstSample || k == last))
                c.covered = false;
        // Drops and gaps count since the last statistics reset: a smaller number means a reset, not negative loss.
        const uint64_t lost = t.drops + t.seqGaps;
        const uint64_t delta = lost >= cpu.lastLost ? lost - cpu.lastLost : lost;
        cpu.lastLost = lost;
        if (delta)
            cpu.lost[last] += delta;
        prune(cpu);
    }
}

void HeatHistory::prune(Cpu& cpu)
{
    const int64_t oldest = m_newest - kKeepNs / m_intervalNs;
    cpu.cells.erase(cpu.cells.begin(), cpu.cells.lower_bound(oldest));
    cpu.lost.erase(cpu.lost.begin(), cpu.lost.lower_bound(oldest));
}

std::vector<int> HeatHistory::cpus() const
{
    std::vector<int> out;
    for (const auto& [cpu, data] : m_cpus)
        out.push_back(cpu);
    return out;
}

std::vector<HeatCell> HeatHistory::cells(int cpu, int columns) const
{
    std::vector<HeatCell> out(size_t(std::max(columns, 0)));
    auto it = m_cpus.find(cpu);
    if (it == m_cpus.end() || m_newest < 0)
        return out;
    const int64_t first = m_newest - columns + 1;
    for (auto c = it->second.cells.lower_bound(first); c != it->second.cells.end() && c->first <= m_newest; ++c)
        out[size_t(c->first - first)] = c->second;
    for (auto l = it->second.lost.lower_bound(first); l != it->second.lost.end() && l->first <= m_newest; ++l) {
        HeatCell& cell = out[size_t(l->first - first)];
        cell.lost = l->second;
        cell.covered = true;
    }
    return out;
}

int64_t HeatHistory::endNs() const
{
    return m_newest < 0 ? 0 : (m_newest + 1) * m_intervalNs;
}

} // namespace rtscope
