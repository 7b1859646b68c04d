#include "engine/pipeline/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace rtscope {

namespace {

constexpr int64_t kSubBuckets = int64_t(1) << Histogram::kSubBucketBits;
// Below 2·S every nanosecond has its own bucket, so the first log range starts at 2·S = 2^(kSubBucketBits+1).
constexpr int kFirstLogExponent = Histogram::kSubBucketBits + 1;
constexpr int64_t kLinearBuckets = 2 * kSubBuckets;
// kMaxTrackableNs is itself trackable, so its power-of-two row starts; the row's remaining buckets would only ever
// hold overflows, so they are not allocated.
constexpr int kLastLogExponent = std::bit_width(uint64_t(Histogram::kMaxTrackableNs)) - 1;
constexpr size_t kBucketTotal =
    size_t(kLinearBuckets + (kLastLogExponent - kFirstLogExponent) * kSubBuckets +
           ((Histogram::kMaxTrackableNs >> (kLastLogExponent - Histogram::kSubBucketBits)) - kSubBuckets) + 1);

} // namespace

Histogram::Histogram(size_t exactUsBins)
    : m_buckets(kBucketTotal, 0)
    , m_exactUs(exactUsBins, 0)
{}

size_t Histogram::bucketIndex(int64_t ns)
{
    if (ns < kLinearBuckets)
        return ns < 0 ? 0 : size_t(ns);
    if (ns > kMaxTrackableNs)
        return kBucketTotal - 1;
    const auto v = uint64_t(ns);
    const int exponent = std::bit_width(v) - 1; // v lies in [2^exponent, 2^(exponent+1))
    const int shift = exponent - kSubBucketBits;
    // The top kSubBucketBits+1 bits of v are 1xxxxxxxx; dropping the leading 1 leaves the sub-bucket.
    const auto sub = size_t(v >> shift) - size_t(kSubBuckets);
    return size_t(kLinearBuckets) + size_t(exponent - kFirstLogExponent) * size_t(kSubBuckets) + sub;
}

int64_t Histogram::bucketLow(size_t index)
{
    if (index < size_t(kLinearBuckets))
        return int64_t(index);
    const size_t rel = index - size_t(kLinearBuckets);
    const int exponent = kFirstLogExponent + int(rel / size_t(kSubBuckets));
    const auto sub = int64_t(rel % size_t(kSubBuckets));
    return (kSubBuckets + sub) << (exponent - kSubBucketBits);
}

int64_t Histogram::bucketHigh(size_t index)
{
    if (index < size_t(kLinearBuckets))
        return int64_t(index);
    const size_t rel = index - size_t(kLinearBuckets);
    const int exponent = kFirstLogExponent + int(rel / size_t(kSubBuckets));
    // The last bucket nominally reaches past the limit, but anything above the limit is an overflow.
    return std::min(bucketLow(index) + (int64_t(1) << (exponent - kSubBucketBits)) - 1, kMaxTrackableNs);
}

bool Histogram::restore(std::vector<uint64_t> buckets, std::vector<uint64_t> exactUs, uint64_t exactUsOverflow,
                        uint64_t count, uint64_t overflow, int64_t min, int64_t max, long double sum)
{
    if (buckets.size() != m_buckets.size())
        return false;
    uint64_t total = overflow;
    for (const uint64_t n : buckets)
        if (__builtin_add_overflow(total, n, &total))
            return false;
    if (total != count)
        return false;
    m_buckets = std::move(buckets);
    m_exactUs = std::move(exactUs);
    m_exactUsOverflow = exactUsOverflow;
    m_count = count;
    m_overflow = overflow;
    m_min = min;
    m_max = max;
    m_sum = sum;
    // Which buckets are filled is not tracked for restored figures: the next reset() clears them all.
    m_touched.clear();
    m_touchedAll = true;
    return true;
}

void Histogram::recordN(int64_t ns, uint64_t n)
{
    if (n == 0)
        return;
    if (m_count == 0) {
        m_min = ns;
        m_max = ns;
    } else {
        m_min = std::min(m_min, ns);
        m_max = std::max(m_max, ns);
    }
    m_count += n;
    m_sum += static_cast<long double>(ns) * static_cast<long double>(n);

    if (ns > kMaxTrackableNs) {
        m_overflow += n;
    } else {
        const size_t i = bucketIndex(ns);
        if (m_buckets[i] == 0)
            touch(i);
        m_buckets[i] += n;
    }

    if (!m_exactUs.empty()) {
        // cyclictest truncates a latency to whole µs before binning; a negative latency (clock step) would
        // index before bin 0 there, here it is clamped like the log buckets.
        const uint64_t bin = ns < 0 ? 0 : uint64_t(ns) / 1000;
        if (bin < m_exactUs.size()) {
            if (m_exactUs[bin] == 0)
                touch(m_buckets.size() + size_t(bin));
            m_exactUs[bin] += n;
        } else
            m_exactUsOverflow += n;
    }
}

void Histogram::touch(size_t index)
{
    if (m_touchedAll)
        return;
    if (m_touched.size() >= (m_buckets.size() + m_exactUs.size()) / 8 || index > UINT32_MAX) {
        m_touchedAll = true;
        return;
    }
    m_touched.push_back(uint32_t(index));
}

void Histogram::merge(const Histogram& other)
{
    if (other.m_count == 0)
        return;
    m_touchedAll = true; // many buckets at once: the next reset clears them all
    for (size_t i = 0; i < m_buckets.size(); ++i)
        m_buckets[i] += other.m_buckets[i];

    if (!m_exactUs.empty()) {
        const size_t common = std::min(m_exactUs.size(), other.m_exactUs.size());
        for (size_t i = 0; i < common; ++i)
            m_exactUs[i] += other.m_exactUs[i];
        // Values in bins we do not have are beyond our range, so they are our overflows.
        for (size_t i = common; i < other.m_exactUs.size(); ++i)
            m_exactUsOverflow += other.m_exactUs[i];
        // When the other's range is shorter, its overflows may belong in some of our upper bins, but we cannot
        // tell which; counting them as overflows keeps count() == sum(bins) + overflow, which exporters rely on.
        m_exactUsOverflow += other.m_exactUsOverflow;
    }

    if (m_count == 0) {
        m_min = other.m_min;
        m_max = other.m_max;
    } else {
        m_min = std::min(m_min, other.m_min);
        m_max = std::max(m_max, other.m_max);
    }
    m_count += other.m_count;
    m_overflow += other.m_overflow;
    m_sum += other.m_sum;
}

void Histogram::reset()
{
    if (m_touchedAll) {
        std::fill(m_buckets.begin(), m_buckets.end(), 0);
        std::fill(m_exactUs.begin(), m_exactUs.end(), 0);
    } else {
        for (const uint32_t i : m_touched) {
            if (i < m_buckets.size())
                m_buckets[i] = 0;
            else
                m_exactUs[i - m_buckets.size()] = 0;
        }
    }
    m_touched.clear();
    m_touchedAll = false;
    m_exactUsOverflow = 0;
    m_count = 0;
    m_overflow = 0;
    m_min = 0;
    m_max = 0;
    m_sum = 0;
}

int64_t Histogram::min() const
{
    return m_count ? m_min : 0;
}

int64_t Histogram::max() const
{
    return m_count ? m_max : 0;
}

double Histogram::mean() const
{
    return m_count ? double(m_sum / static_cast<long double>(m_count)) : 0.0;
}

int64_t Histogram::percentile(double percent) const
{
    if (m_count == 0)
        return 0;
    if (!(percent > 0)) // also catches NaN
        return min();
    if (percent >= 100)
        return max();

    // Nearest-rank definition: the smallest value with at least p % of the values at or below it. The small
    // epsilon keeps e.g. 99.9 % of 1000 at rank 999 although 99.9/100·1000 is 999.0000000000001 in binary.
    const long double exactRank = static_cast<long double>(percent) / 100.0L * static_cast<long double>(m_count);
    auto rank = static_cast<uint64_t>(std::ceil(exactRank - 1e-9L));
    rank = std::clamp<uint64_t>(rank, 1, m_count);

    uint64_t seen = 0;
    for (size_t i = 0; i < m_buckets.size(); ++i) {
        seen += m_buckets[i];
        if (seen >= rank) {
            const int64_t low = bucketLow(i);
            const int64_t mid = low + (bucketHigh(i) - low) / 2;
            // Clamping makes the extreme buckets exact, which is where users look hardest (p0, p99.99).
            return std::clamp(mid, m_min, m_max);
        }
    }
    // The rank lies among the overflows, which only max() describes.
    return m_max;
}

} // namespace rtscope
