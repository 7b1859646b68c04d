#pragma once
/// @file A bounded single-producer single-consumer ring: the only channel from a worker thread to the
/// collector. The producer never blocks; a full ring counts a drop instead.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

namespace rtscope {

// 64 on x86-64 and most ARM cores; std::hardware_destructive_interference_size warns under GCC 12 (ABI).
inline constexpr size_t kCacheLine = 64;

/// @brief Lock-free SPSC ring of trivially copyable items, capacity a power of two.
///
/// Design (after rigtorp's SPSCQueue): the write index, the producer's cached copy of the read index and
/// the drop counter live on the producer's cache line; the read index and the consumer's cached copy of
/// the write index on the consumer's. Each side re-reads the other side's index (one shared cache line
/// transfer) only when its cached copy says the ring is full/empty. Indices grow without wrapping (64-bit),
/// the slot is index & mask. Only acquire/release ordering: the release store of the write index publishes
/// the slot contents to the consumer's acquire load, and vice versa for freeing slots.
template <class T> class SpscRing {
    static_assert(std::is_trivially_copyable_v<T>, "ring items are copied with plain stores");

public:
    /// @param capacity rounded up to a power of two (minimum 2).
    explicit SpscRing(size_t capacity)
        : m_capacity(std::bit_ceil(capacity < 2 ? size_t(2) : capacity))
        , m_mask(m_capacity - 1)
        , m_slots(new T[m_capacity]())
    {}
    SpscRing(const SpscRing&) = delete;
    SpscRing& operator=(const SpscRing&) = delete;

    size_t capacity() const noexcept { return m_capacity; }

    /// @brief Producer only. Copies @p item in; returns false and counts a drop when the ring is full.
    [[nodiscard]] bool tryPush(const T& item) noexcept
    {
        const uint64_t w = m_prod.write.load(std::memory_order_relaxed);
        if (w - m_prod.cachedRead >= m_capacity) {
            m_prod.cachedRead = m_cons.read.load(std::memory_order_acquire);
            if (w - m_prod.cachedRead >= m_capacity) {
                // Only the producer writes the counter; relaxed is enough, readers just want a recent value.
                m_prod.drops.store(m_prod.drops.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
                return false;
            }
        }
        m_slots[w & m_mask] = item;
        m_prod.write.store(w + 1, std::memory_order_release);
        return true;
    }

    /// @brief Consumer only. Pops one item into @p out; false when empty (after a back-off of a few `pause`s, well
    /// under a microsecond; the producer is never delayed by it).
    [[nodiscard]] bool tryPop(T& out) noexcept
    {
        const uint64_t r = m_cons.read.load(std::memory_order_relaxed);
        if (r == m_cons.cachedWrite) {
            m_cons.cachedWrite = m_prod.write.load(std::memory_order_acquire);
            if (r == m_cons.cachedWrite) {
                backOff();
                return false;
            }
        }
        out = m_slots[r & m_mask];
        m_cons.read.store(r + 1, std::memory_order_release);
        return true;
    }

    /// @brief Consumer only. Pops up to @p max items into @p out; returns how many. One index publish per batch.
    size_t popBatch(T* out, size_t max) noexcept
    {
        const uint64_t r = m_cons.read.load(std::memory_order_relaxed);
        if (m_cons.cachedWrite - r < max)
            m_cons.cachedWrite = m_prod.write.load(std::memory_order_acquire);
        size_t n = size_t(m_cons.cachedWrite - r);
        if (n > max)
            n = max;
        if (n == 0) {
            backOff();
            return 0;
        }
        // At most two contiguous spans (the second when the batch wraps), each copied as one block.
        const size_t first = size_t(r & m_mask);
        const size_t head = n < m_capacity - first ? n : m_capacity - first;
        std::memcpy(static_cast<void*>(out), &m_slots[first], head * sizeof(T));
        if (head < n)
            std::memcpy(static_cast<void*>(out + head), &m_slots[0], (n - head) * sizeof(T));
        m_cons.read.store(r + n, std::memory_order_release);
        return n;
    }

    /// @brief Any thread: items pushed and not yet popped (approximate while both sides run).
    size_t sizeApprox() const noexcept
    {
        const uint64_t r = m_cons.read.load(std::memory_order_acquire);
        const uint64_t w = m_prod.write.load(std::memory_order_acquire);
        return w >= r ? size_t(w - r) : 0;
    }
    /// @brief Any thread: pushes refused because the ring was full.
    uint64_t drops() const noexcept { return m_prod.drops.load(std::memory_order_relaxed); }
    /// @brief Any thread: items accepted so far.
    uint64_t pushed() const noexcept { return m_prod.write.load(std::memory_order_relaxed); }

    /// @brief Slot storage, for mlock() by the owner before the RT path starts.
    void* storage() const noexcept { return m_slots.get(); }
    size_t storageBytes() const noexcept { return m_capacity * sizeof(T); }

private:
    /// Called when a pop found the ring empty: a consumer that polls in a loop would otherwise re-read the
    /// producer's cache line as fast as it can, taking it away from the producer before each of its stores
    /// and keeping both sides in lock step, one item (and several cache-line transfers) at a time. A short
    /// pause lets the producer fill a few slots, which the consumer then takes from its cached write index.
    static constexpr int kEmptyPauses =
        4; ///< chosen from 0/1/4/8/16 on AMD EPYC under load: noisy (docs/BENCHMARKS.md)
    static void backOff() noexcept
    {
#if defined(__x86_64__) || defined(__i386__)
        for (int i = 0; i < kEmptyPauses; ++i)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
        for (int i = 0; i < kEmptyPauses; ++i)
            asm volatile("yield");
#endif
    }

    const size_t m_capacity;
    const size_t m_mask;
    std::unique_ptr<T[]> m_slots;

    struct alignas(kCacheLine) Producer {
        std::atomic<uint64_t> write{0};
        uint64_t cachedRead = 0;
        std::atomic<uint64_t> drops{0};
    } m_prod;
    struct alignas(kCacheLine) Consumer {
        std::atomic<uint64_t> read{0};
        uint64_t cachedWrite = 0;
    } m_cons;

    static_assert(sizeof(Producer) == kCacheLine && sizeof(Consumer) == kCacheLine, "one cache line per side");
    static_assert(std::atomic<uint64_t>::is_always_lock_free);
};

/// @brief Consumer-side scratch space for popBatch(), allocated once and reused. A local `T batch[N]` of a type with
/// default member initialisers is zero-filled on every call: a collector that drains every millisecond then spends
/// most of its time in memset (measured: a third of the latency collector's CPU time, 40 KB per pass).
template <class T, size_t N> class DrainBuffer {
public:
    T* data() noexcept { return m_items.get(); }
    static constexpr size_t size() noexcept { return N; }
    const T& operator[](size_t i) const noexcept { return m_items[i]; }

    /// @brief Empties @p ring through this buffer, a batch at a time: @p onBatch(std::span<const T>) for each batch
    /// popped (the last one short, possibly empty). Returns how many items it popped.
    template <class OnBatch> size_t drain(SpscRing<T>& ring, OnBatch&& onBatch)
    {
        size_t total = 0;
        for (;;) {
            const size_t n = ring.popBatch(data(), N);
            onBatch(std::span<const T>(data(), n));
            total += n;
            if (n < N)
                return total;
        }
    }

private:
    std::unique_ptr<T[]> m_items = std::make_unique<T[]>(N);
};

} // namespace rtscope
