#pragma once
/// @file A bounded single-producer single-consumer ring: the only channel from a worker thread to the
/// collector. The producer never blocks; a full ring counts a drop instead.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

namespace rtscope {

// 64 on x86-64 and most ARM cores; std::hardware_destructive_interference_size warns under GCC 12 (ABI).
inline constexpr size_t kCacheLine = 64;

/// @brief Lock-free SPSC ring of trivially copyable items, capacity a power of two.
///
/// Design (rigtorp's SPSCQueue for the free slots, FastForward's for the full ones): each slot carries its own
/// sequence number, so the consumer learns that a slot is filled from the slot itself and never reads the producer's
/// write index on its way; the producer learns that slots are free from the consumer's read index, which it re-reads
/// (one shared cache line transfer) only when its cached copy says the ring is full. Slots are padded to a power of
/// two up to a cache line (a 40-byte sample and its sequence fill 64 bytes), so no slot straddles two lines and a
/// sample the producer writes never shares a line with the one the consumer is reading. Measured on AMD EPYC (10 runs
/// each, docs/BENCHMARKS.md, bench/bench_ring): the previous layout (40-byte slots, a shared write index) drained in
/// batches at a median 1.3x boost's spsc_queue, this one at 2.1x (one item a pop: 2.1x before, 2.9x now). Memory: a
/// 40-byte item takes 64 bytes. Indices grow without wrapping (64-bit); the slot is
/// index & mask and its sequence is index + 1 once filled, so a slot left from the previous lap never reads as full.
/// Only acquire/release ordering: the release store of a slot's sequence publishes its contents to the consumer's
/// acquire load, and the consumer's release store of the read index hands the slots back.
template <class T> class SpscRing {
    static_assert(std::is_trivially_copyable_v<T>, "ring items are copied with plain stores");

    struct alignas(std::bit_ceil(sizeof(T) + sizeof(uint64_t)) < kCacheLine
                       ? std::bit_ceil(sizeof(T) + sizeof(uint64_t))
                       : kCacheLine) Slot {
        T item;
        std::atomic<uint64_t> seq{0}; ///< index + 1 of the item in it; anything else: not filled yet
    };
    static_assert(sizeof(Slot) % kCacheLine == 0 || kCacheLine % sizeof(Slot) == 0, "no slot straddles a cache line");

public:
    /// @param capacity rounded up to a power of two (minimum 2).
    explicit SpscRing(size_t capacity)
        : m_capacity(std::bit_ceil(capacity < 2 ? size_t(2) : capacity))
        , m_mask(m_capacity - 1)
        , m_slots(new Slot[m_capacity]())
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
        Slot& slot = m_slots[w & m_mask];
        slot.item = item;
        slot.seq.store(w + 1, std::memory_order_release);
        // Read by pushed() and sizeApprox() only, never on the consumer's way: this line stays the producer's.
        m_prod.write.store(w + 1, std::memory_order_relaxed);
        return true;
    }

    /// @brief Consumer only. Pops one item into @p out; false when empty (after a back-off of a few `pause`s, well
    /// under a microsecond; the producer is never delayed by it).
    [[nodiscard]] bool tryPop(T& out) noexcept { return popBatch(&out, 1) == 1; }

    /// @brief Consumer only. Pops up to @p max items into @p out; returns how many. One index publish per batch.
    size_t popBatch(T* out, size_t max) noexcept
    {
        const uint64_t r = m_cons.read.load(std::memory_order_relaxed);
        size_t n = 0;
        for (; n < max; ++n) {
            const Slot& slot = m_slots[(r + n) & m_mask];
            if (slot.seq.load(std::memory_order_acquire) != r + n + 1)
                break;
            out[n] = slot.item;
        }
        if (n == 0) {
            backOff();
            return 0;
        }
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
    size_t storageBytes() const noexcept { return m_capacity * sizeof(Slot); }
    /// @brief Bytes a slot takes: the item, its sequence number and the padding to a power of two.
    static constexpr size_t slotBytes() noexcept { return sizeof(Slot); }

private:
    /// Called when a pop found the ring empty: a consumer that polls in a loop would otherwise re-read the slot the
    /// producer is about to fill as fast as it can, taking its cache line away from the producer before each store
    /// and keeping both sides in lock step, one item (and several cache-line transfers) at a time. A short pause lets
    /// the producer fill a few slots, which the consumer then takes in one go.
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
    std::unique_ptr<Slot[]> m_slots;

    struct alignas(kCacheLine) Producer {
        std::atomic<uint64_t> write{0};
        uint64_t cachedRead = 0;
        std::atomic<uint64_t> drops{0};
    } m_prod;
    struct alignas(kCacheLine) Consumer {
        std::atomic<uint64_t> read{0};
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
