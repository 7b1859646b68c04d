#pragma once
/// @file CPU hogs: pinned spinners that load CPUs for an experiment (the latency experiment's `hogs`), each with a
/// work counter, started and stopped as a set.
#include "engine/rt/rt_thread.h"
#include "engine/rt/sched_policy.h"
#include "engine/util/error.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rtscope {

/// @brief Where the hogs of a HogSet run and how they are scheduled.
struct HogPlacement {
    std::vector<int> cpus;         ///< every CPU gets the same number of hogs
    Policy policy = Policy::Other; ///< other, batch or idle: real-time spinners belong to a watchdog's care
    int nice = 0;
    std::string name = "rtscope-hog"; ///< the threads' name, as the kernel shows it (15 characters at most)
};

/// @brief A set of CPU hogs on the CPUs of a placement, the same number on each.
///
/// Threads: one control thread calls every member but iterations(), which any thread may call (the collector reads
/// the hogs' progress while the control thread changes their number). A hog takes no lock: it spins and publishes
/// its count every 4096 iterations, so hogs' progress can be compared across policies ("RT changes when, not how
/// much", docs/science.md).
class HogSet {
public:
    /// @param maxThreads the most hogs the set holds over all its CPUs; the counters are allocated once, here.
    explicit HogSet(int maxThreads);
    /// Stops and joins every hog.
    ~HogSet();
    HogSet(const HogSet&) = delete;
    HogSet& operator=(const HogSet&) = delete;

    /// @brief Stops every hog (within kJoinBudgetMs) and keeps @p placement for the next setPerCpu().
    void place(HogPlacement placement);
    const HogPlacement& placement() const { return m_placement; }

    /// @brief Starts or stops hogs until each CPU of the placement has @p perCpu (clamped to 0 and to the set's
    /// maximum). New hogs are launched without waiting for their first turn (RtThread::launch), from a thread kept
    /// off the hog CPUs meanwhile, so starting N takes time linear in N; @p interrupted (when given) is asked before
    /// each one, and a true answer ends the start-up with ErrorKind::Interrupted. Hogs to remove are all flagged
    /// before any is joined, so each exits the moment it next runs. On an error the hogs started so far keep running
    /// (perCpu() says how many there are; stopAll() joins them) and the error says why.
    [[nodiscard]] Error setPerCpu(int perCpu, const std::function<bool()>& interrupted = {});
    /// @brief Stops and joins every hog; the placement is kept.
    void stopAll();

    /// @brief Hogs running now, over all CPUs.
    size_t threadCount() const { return m_threads.size(); }
    /// @brief Hogs per CPU now (threadCount() over the placement's CPUs).
    int perCpu() const;
    /// @brief Work done by every hog since the set was made, stopped hogs included. Any thread.
    uint64_t iterations() const;

private:
    // Counters on their own cache lines (64 bytes on x86-64 and most ARM cores), so hogs do not slow each other
    // through false sharing.
    struct alignas(64) Counter {
        std::atomic<uint64_t> iterations{0};
        std::atomic<bool> retire{false}; ///< set for every hog to remove before joining any of them
    };

    Error launchOne(size_t index);
    /// A negative nice needs privilege, which a hog that sets its own would find out only when it runs: one thread
    /// with the placement's policy and nice is tried first, off the hog CPUs.
    Error checkNice() const;
    ThreadSpec spec(int cpu) const; ///< a hog's thread on @p cpu

    const int m_maxThreads;
    HogPlacement m_placement;
    std::unique_ptr<Counter[]> m_counters;
    std::vector<std::unique_ptr<RtThread>> m_threads;
    std::atomic<uint64_t> m_retiredIterations{0};
};

} // namespace rtscope
