#include "engine/pipeline/decimated_series.h"

#include <algorithm>

namespace rtscope {

DecimatedSeries::DecimatedSeries(int64_t bucketNs, size_t capacity, Storage storage)
    : m_bucketNs(bucketNs > 0 ? bucketNs : 1)
    , m_capacity(std::max<size_t>(capacity, 1))
{
    if (storage == Storage::Upfront)
        m_ring.resize(m_capacity);
}

void DecimatedSeries::add(int64_t tNs, int64_t value)
{
    const int64_t bucket = tNs - (((tNs % m_bucketNs) + m_bucketNs) % m_bucketNs);
    if (m_size > 0) {
        SeriesPoint& cur = m_ring[m_head];
        if (cur.tNs == bucket) {
            cur.minNs = std::min(cur.minNs, value);
            cur.maxNs = std::max(cur.maxNs, value);
            ++cur.count;
            return;
        }
        // A sample older than the open bucket (clock readings from two threads): fold it into the open
        // bucket rather than reordering the series; its value is kept, its time is approximate.
        if (bucket < cur.tNs) {
            cur.minNs = std::min(cur.minNs, value);
            cur.maxNs = std::max(cur.maxNs, value);
            ++cur.count;
            return;
        }
    }
    // Until an on-demand ring is full, points are appended; from then on it wraps like an up-front one.
    if (m_size > 0 || m_ring.empty()) {
        if (m_ring.size() < m_capacity && m_size == m_ring.size()) {
            m_ring.push_back({});
            m_head = m_ring.size() - 1;
        } else {
            m_head = (m_head + 1) % m_ring.size();
        }
    }
    m_ring[m_head] = SeriesPoint{bucket, value, value, 1};
    m_size = std::min(m_size + 1, m_ring.size());
}

void DecimatedSeries::clear()
{
    m_head = 0;
    m_size = 0;
}

std::vector<SeriesPoint> DecimatedSeries::points(int64_t sinceNs) const
{
    const size_t n = m_ring.size();
    if (n == 0)
        return {};
    const size_t oldest = (m_head + n + 1 - m_size) % n;
    // Points are in time order: skip the old ones first, then reserve exactly what the window holds, so a
    // 10 s snapshot of a 120 s buffer allocates 10 s worth (reserving the whole buffer per snapshot made the
    // allocator's footprint creep up until the buffer was full).
    size_t first = 0;
    while (first < m_size && m_ring[(oldest + first) % n].tNs < sinceNs)
        ++first;
    std::vector<SeriesPoint> out;
    out.reserve(m_size - first);
    for (size_t i = first; i < m_size; ++i)
        out.push_back(m_ring[(oldest + i) % n]);
    return out;
}

} // namespace rtscope
