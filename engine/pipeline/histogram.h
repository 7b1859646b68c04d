#pragma once
/// @file A constant-memory HDR-style (log-linear) histogram of nanosecond values.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rtscope {

/// @brief Records non-negative nanosecond values from 0 to kMaxTrackableNs with a relative error of at
/// most 2^-kSubBucketBits (< 0.4 %) per value, in constant memory, plus an exact count, min, max and sum.
///
/// Layout: values below 2·S (S = 2^kSubBucketBits) have one bucket per ns; above, each power-of-two
/// range [2^k, 2^(k+1)) is split into S equal buckets. Values above kMaxTrackableNs are counted as
/// overflows (they still enter count/min/max/sum exactly). Negative values are clamped to 0 in the
/// buckets, but min() stays exact.
///
/// Optionally it also keeps exact 1 µs bins for [0, exactUsBins) µs (cyclictest's histogram, where a
/// value v ns falls into bin floor(v / 1000)), so exports in cyclictest's `-h` format are exact rather
/// than re-binned from log buckets.
class Histogram {
public:
    static constexpr int kSubBucketBits = 8;
    static constexpr int64_t kMaxTrackableNs = int64_t(1) << 35; ///< ~34.4 s

    /// Not explicit, so a Histogram member of an aggregate can be value-initialised with `{}`.
    Histogram()
        : Histogram(0)
    {}
    explicit Histogram(size_t exactUsBins);

    void record(int64_t ns) { recordN(ns, 1); }
    void recordN(int64_t ns, uint64_t n);
    void merge(const Histogram& other); ///< exact-µs bins merge up to the shorter length
    /// @brief Empties it, keeping the exact-µs size. Costs what was recorded since the last reset, not the size:
    /// only the buckets that were filled are cleared (a replay resets once per restart of its threads, and a
    /// million exact bins per reset would make it quadratic).
    void reset();

    uint64_t count() const { return m_count; }
    uint64_t overflowCount() const { return m_overflow; } ///< values > kMaxTrackableNs
    int64_t min() const;                                  ///< 0 when empty
    int64_t max() const;                                  ///< 0 when empty
    double mean() const;                                  ///< 0 when empty
    long double sum() const { return m_sum; }

    /// @brief The value below which @p percent % (0..100) of the recorded values fall, within the bucket
    /// precision; p=100 returns max(), p=0 returns min(). 0 when empty.
    int64_t percentile(double percent) const;

    /// @brief Exact 1 µs bins, if enabled: bin i counts values in [i µs, i+1 µs).
    size_t exactUsBinCount() const { return m_exactUs.size(); }
    const std::vector<uint64_t>& exactUsBins() const { return m_exactUs; }
    uint64_t exactUsOverflow() const { return m_exactUsOverflow; } ///< values >= exactUsBins µs

    /// @brief Visits every non-empty bucket as [lowNs, highNs] inclusive with its count, in order.
    template <class F> void forEachBucket(F&& f) const
    {
        for (size_t i = 0; i < m_buckets.size(); ++i)
            if (m_buckets[i])
                f(bucketLow(i), bucketHigh(i), m_buckets[i]);
    }
    size_t bucketCount() const { return m_buckets.size(); }

    /// @brief Every figure at once, as the accessors give them (a histogram read back from JSON,
    /// engine/remote/snapshot_json.cpp). False, and nothing changed, when @p buckets is not bucketCount() long or the
    /// bucket counts and @p overflow do not add up to @p count.
    bool restore(std::vector<uint64_t> buckets, std::vector<uint64_t> exactUs, uint64_t exactUsOverflow, uint64_t count,
                 uint64_t overflow, int64_t min, int64_t max, long double sum);

    static size_t bucketIndex(int64_t ns);
    static int64_t bucketLow(size_t index);
    static int64_t bucketHigh(size_t index);

private:
    /// Notes that bucket @p index (exact-µs bin i is index bucketCount() + i) went from empty to filled.
    void touch(size_t index);

    std::vector<uint64_t> m_buckets;
    std::vector<uint64_t> m_exactUs;
    // The buckets filled since the last reset, so that reset() clears only those; past an eighth of all buckets
    // the list stops and reset() clears everything, which then costs at most eight times the filling did.
    std::vector<uint32_t> m_touched;
    bool m_touchedAll = false;
    uint64_t m_exactUsOverflow = 0;
    uint64_t m_count = 0;
    uint64_t m_overflow = 0;
    int64_t m_min = 0;
    int64_t m_max = 0;
    long double m_sum = 0;
};

} // namespace rtscope
