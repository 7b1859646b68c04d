#pragma once
/// @file The last step of the data path before a view: the collector thread hands each new immutable snapshot to a
/// SnapshotPublisher; any other thread takes the latest one without ever waiting for a worker (docs/architecture.md).
#include <memory>
#include <mutex>
#include <utility>

namespace rtscope {

/// @brief Holds the latest published snapshot. Writers replace it whole; a reader keeps its shared_ptr as long as it
/// likes, so a snapshot is never changed after it was published. The mutex guards one pointer swap: neither side can
/// hold it for longer than that.
template <class Snapshot> class SnapshotPublisher {
public:
    /// @brief Makes @p snapshot the one readers get from now on (null clears it).
    void publish(std::shared_ptr<const Snapshot> snapshot)
    {
        std::lock_guard lock(m_mutex);
        m_latest.swap(snapshot);
        // @p snapshot now holds the previous one: it is released after the lock, so no reader waits for a destructor.
    }
    /// @brief The latest snapshot; null before the first publish().
    std::shared_ptr<const Snapshot> latest() const
    {
        std::lock_guard lock(m_mutex);
        return m_latest;
    }

private:
    mutable std::mutex m_mutex;
    std::shared_ptr<const Snapshot> m_latest;
};

} // namespace rtscope
