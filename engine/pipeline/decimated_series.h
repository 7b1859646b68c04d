#pragma once
/// @file A bounded time series that keeps min and max per time bucket, so a single spike survives
/// decimation (an average would hide a 3 ms outlier among thousands of 5 µs samples).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rtscope {

struct SeriesPoint {
    int64_t tNs = 0;   ///< bucket start, CLOCK_MONOTONIC ns
    int64_t minNs = 0; ///< smallest value in the bucket
    int64_t maxNs = 0; ///< largest value in the bucket
    uint32_t count = 0;
};

class DecimatedSeries {
public:
    /// @brief Whether the points are allocated up front (a live run: no allocation while it measures) or as they
    /// come (a replay: a file with many threads and few samples must not cost a full buffer per thread).
    enum class Storage { Upfront, OnDemand };

    /// @param bucketNs time covered by one point; @param capacity points kept (older ones are overwritten)
    DecimatedSeries(int64_t bucketNs, size_t capacity, Storage storage = Storage::Upfront);

    void add(int64_t tNs, int64_t value);
    void clear();

    /// @brief Points with tNs >= sinceNs, oldest first (the bucket still filling included).
    std::vector<SeriesPoint> points(int64_t sinceNs = INT64_MIN) const;
    int64_t bucketNs() const { return m_bucketNs; }
    size_t capacity() const { return m_capacity; }
    size_t size() const { return m_size; }

private:
    int64_t m_bucketNs;
    size_t m_capacity;
    std::vector<SeriesPoint> m_ring; ///< m_capacity points, or fewer while an on-demand series fills
    size_t m_head = 0;               ///< index of the newest point
    size_t m_size = 0;
};

} // namespace rtscope
