#include "engine/pipeline/sleep_floor_aggregator.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace rtscope {

int64_t SleepFloorAggregator::nearestRank(const std::vector<int64_t>& values, double percent,
                                          std::vector<int64_t>& scratch)
{
    if (values.empty())
        return 0;
    scratch.assign(values.begin(), values.end());
    const size_t rank = size_t(std::ceil(percent / 100.0 * double(scratch.size())));
    const size_t k = std::clamp<size_t>(rank, 1, scratch.size()) - 1;
    std::nth_element(scratch.begin(), scratch.begin() + ptrdiff_t(k), scratch.end());
    return scratch[k];
}

SleepFloorAggregator::SleepFloorAggregator(std::vector<int64_t> requestsNs, size_t methods, size_t samplesPerCell)
    : m_requestsNs(std::move(requestsNs))
    , m_methods(methods)
    , m_samplesPerCell(samplesPerCell)
    , m_cells(m_requestsNs.size() * methods)
    , m_log(std::make_shared<AppendLog<SleepSample>>(m_cells.size() * samplesPerCell))
{
    for (size_t r = 0; r < m_requestsNs.size(); ++r)
        for (size_t m = 0; m < m_methods; ++m) {
            Cell& c = m_cells[r * m_methods + m];
            c.actual.reserve(samplesPerCell);
            c.cpu.reserve(samplesPerCell);
            c.figures.requestNs = m_requestsNs[r];
        }
}

bool SleepFloorAggregator::add(const SleepSample& s)
{
    if (s.request >= m_requestsNs.size() || s.method >= m_methods)
        return false;
    Cell& c = m_cells[size_t(s.request) * m_methods + s.method];
    c.minNs = c.actual.empty() ? s.actualNs : std::min(c.minNs, s.actualNs);
    c.maxNs = c.actual.empty() ? s.actualNs : std::max(c.maxNs, s.actualNs);
    c.actual.push_back(s.actualNs);
    c.cpu.push_back(s.cpuNs);
    c.wallSum += s.actualNs;
    c.dirty = true;
    (void)m_log->append(s); // past the planned total: refused and counted by the log
    m_currentRequest = s.request;
    ++m_samplesDone;
    return true;
}

void SleepFloorAggregator::update(int64_t nowNs, bool live)
{
    for (Cell& c : m_cells) {
        if (!c.dirty)
            continue;
        const bool complete = c.actual.size() >= m_samplesPerCell;
        if (live && !complete && c.actual.size() > kBigCell && nowNs - c.computedNs < kBigCellIntervalNs)
            continue;
        c.dirty = false;
        c.computedNs = nowNs;
        SleepCellFigures& f = c.figures;
        f.samples = c.actual.size();
        f.minNs = c.minNs;
        f.maxNs = c.maxNs;
        f.p50Ns = nearestRank(c.actual, 50, m_scratch);
        f.p99Ns = nearestRank(c.actual, 99, m_scratch);
        f.meanNs = f.samples ? double(c.wallSum / f.samples) : 0.0;
        f.overshootNs = f.p50Ns - f.requestNs;
        f.overshootRatio = f.requestNs > 0 ? double(f.p50Ns) / double(f.requestNs) : 0.0;
        f.cpuPerWaitNs = double(nearestRank(c.cpu, 50, m_scratch));
        f.cpuShare = f.p50Ns > 0 ? f.cpuPerWaitNs / double(f.p50Ns) : 0.0;
    }
}

const SleepCellFigures& SleepFloorAggregator::cell(size_t request, size_t method) const
{
    return m_cells[request * m_methods + method].figures;
}

std::vector<int64_t> SleepFloorAggregator::floorNs() const
{
    std::vector<int64_t> floor;
    if (m_requestsNs.empty())
        return floor;
    const size_t smallest = size_t(std::min_element(m_requestsNs.begin(), m_requestsNs.end()) - m_requestsNs.begin());
    for (size_t m = 0; m < m_methods; ++m)
        floor.push_back(cell(smallest, m).p50Ns);
    return floor;
}

} // namespace rtscope
