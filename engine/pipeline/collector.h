#pragma once
/// @file The collector: one SCHED_OTHER thread that drains every worker's ring in batches into the
/// experiments' aggregates and publishes snapshots. Workers never wait for it; the UI never drains rings.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rtscope {

/// @brief What an experiment registers with the collector. Both calls run on the collector thread only.
class CollectorSource {
public:
    virtual ~CollectorSource() = default;
    /// @brief Moves everything waiting in the source's rings into its aggregates; returns items moved.
    virtual size_t drain() = 0;
    /// @brief Publishes an immutable snapshot of the aggregates for readers on other threads.
    virtual void publish() = 0;
};

class Collector {
public:
    Collector();
    ~Collector();
    Collector(const Collector&) = delete;
    Collector& operator=(const Collector&) = delete;

    /// @brief Registers a source; may be called while running. The source must outlive its registration.
    void addSource(CollectorSource* source);
    /// @brief Unregisters; after it returns, the collector thread no longer touches @p source.
    void removeSource(CollectorSource* source);
    /// @brief The collector thread calls @p source no more: returns once a pass in progress has ended. A run that is
    /// about to stop is held first (ExperimentHost::stop), so drain() never runs concurrently with its stop() and no
    /// running snapshot follows it. flushNow() (and so stop()) still drains and publishes it: its last snapshot.
    /// removeSource() or the next start() lets go of it.
    void hold(CollectorSource* source);

    /// @param drainIntervalNs how often rings are drained; @param publishIntervalNs how often snapshots are made
    /// @param cpu pin the collector to this CPU (-1 = any): keep it off the CPUs that run hogs
    void start(int64_t drainIntervalNs = 1'000'000, int64_t publishIntervalNs = 16'000'000, int cpu = -1);
    /// @brief Stops the thread after a final drain and publish of every source.
    void stop();
    bool running() const { return m_thread.joinable(); }

    /// @brief Drains and publishes every source now, on the calling thread (when the collector is not
    /// running: tests and the final flush).
    void flushNow();

    /// @brief Changes how often the running collector publishes, from its next pass (the GUI's presentation mode
    /// draws 60 frames a second and needs a fresh snapshot for each). Until the next start() only.
    void setPublishInterval(int64_t publishIntervalNs)
    {
        m_publishIntervalNs.store(publishIntervalNs, std::memory_order_relaxed);
    }

    /// @brief Asks the running collector to publish at its next pass (e.g. after a reconfiguration).
    void requestPublish() { m_publishRequested.store(true, std::memory_order_relaxed); }

    uint64_t passes() const { return m_passes.load(std::memory_order_relaxed); }

private:
    void run(int64_t drainIntervalNs);

    std::mutex m_sourcesMutex; ///< held by the collector thread while it drains; never by a worker
    std::vector<CollectorSource*> m_sources;
    std::vector<CollectorSource*> m_held; ///< skipped by the collector's passes (hold()), under m_sourcesMutex
    std::thread m_thread;
    std::mutex m_wakeMutex;
    std::condition_variable m_wake;
    bool m_stopRequested = false;
    std::atomic<bool> m_publishRequested{false};
    std::atomic<int64_t> m_publishIntervalNs{16'000'000};
    std::atomic<uint64_t> m_passes{0};
};

} // namespace rtscope
