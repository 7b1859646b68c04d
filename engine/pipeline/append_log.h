#pragma once
/// @file A fixed-capacity, append-only record of every sample of a bounded run, filled by the collector and
/// shared with snapshots without copying: a snapshot keeps the log alive and the count it saw.
#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>

namespace rtscope {

/// @brief Append-only array with one writer (the collector thread) and any number of readers.
///
/// Readers never look past a count they obtained through a snapshot, and the writer only ever writes past
/// the current size, so a published prefix is never written again: it is as immutable as a copy would be.
/// The release store of the size (and the snapshot mutex on the way to the reader) orders the item writes
/// before any read of them. Appends beyond the capacity are refused and counted.
template <class T> class AppendLog {
    static_assert(std::is_trivially_copyable_v<T>, "log items are copied with plain stores");

public:
    explicit AppendLog(size_t capacity)
        : m_capacity(capacity)
        , m_items(new T[capacity ? capacity : 1]())
    {}
    AppendLog(const AppendLog&) = delete;
    AppendLog& operator=(const AppendLog&) = delete;

    /// @brief Writer only. False (and counted) when the log is full.
    bool append(const T& item) noexcept
    {
        const size_t n = m_size.load(std::memory_order_relaxed);
        if (n >= m_capacity) {
            m_refused.store(m_refused.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            return false;
        }
        m_items[n] = item;
        m_size.store(n + 1, std::memory_order_release);
        return true;
    }

    /// @brief Any thread: items appended so far.
    size_t size() const noexcept { return m_size.load(std::memory_order_acquire); }
    size_t capacity() const noexcept { return m_capacity; }
    /// @brief Appends refused because the log was full (0 when the capacity was sized right).
    size_t refused() const noexcept { return m_refused.load(std::memory_order_relaxed); }

    /// @brief The first @p count items (clamped to size()); stable for as long as the log lives.
    std::span<const T> prefix(size_t count) const noexcept
    {
        const size_t n = size();
        return {m_items.get(), count < n ? count : n};
    }

private:
    const size_t m_capacity;
    std::unique_ptr<T[]> m_items;
    std::atomic<size_t> m_size{0};
    std::atomic<size_t> m_refused{0};
};

} // namespace rtscope
