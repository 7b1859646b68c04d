#pragma once
/// @file The sleep-floor experiment (docs/experiments/sleep-floor.md): one pinned thread asks for each requested length
/// N times with each method (nanosleep, clock_nanosleep relative/absolute, busy-wait, hybrid) and measures what it got
/// on the wall clock and in CPU time; optional background load keeps the other CPUs awake.
#include "engine/experiments/timers/sleep_floor_config.h"
#include "engine/pipeline/append_log.h"
#include "engine/pipeline/collector.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace rtscope {

/// @brief One wait (plain data: copied through the ring and kept for the CSV).
struct SleepSample {
    uint16_t request = 0; ///< index into the config's requests
    uint8_t method = 0;   ///< index into the config's methods
    uint32_t sample = 0;  ///< 0 … samples − 1
    int64_t actualNs = 0; ///< wall time the wait took (CLOCK_MONOTONIC)
    int64_t cpuNs = 0; ///< CPU time the thread consumed meanwhile (CLOCK_THREAD_CPUTIME_ID), less the clock's own cost
};

/// @brief Figures of one requested length with one method.
struct SleepFloorCell {
    int64_t requestNs = 0;
    SleepMethod method = SleepMethod::Nanosleep;
    uint64_t samples = 0;
    int64_t minNs = 0;
    int64_t p50Ns = 0; ///< median actual duration
    int64_t p99Ns = 0;
    int64_t maxNs = 0;
    double meanNs = 0;
    int64_t overshootNs = 0;   ///< p50 − request
    double overshootRatio = 0; ///< p50 / request; 0 for a 0 ns request (no ratio)
    double cpuPerWaitNs = 0;   ///< median CPU time per wait
    double cpuShare = 0;       ///< median CPU time / median wall time: 1 for busy-wait, ~0 for a real sleep
};

struct SleepFloorSnapshot {
    SleepFloorConfig config; ///< in force (cpu resolved)
    uint64_t generation = 0;
    bool running = false;
    bool finished = false; ///< every sample taken; false after a stop or a failure
    int64_t startNs = 0;
    int64_t publishedNs = 0;
    int64_t clockResolutionNs = 0;  ///< clock_getres(CLOCK_MONOTONIC): how finely the clock is read
    int64_t timerSlackNs = -1;      ///< prctl(PR_GET_TIMERSLACK) in the measuring thread; -1 before it ran
    int64_t effectiveSlackNs = 0;   ///< what its sleeps actually get: 0 under fifo/rr
    std::string slackNote;          ///< in words, for the view and the table
    int64_t cpuClockOverheadNs = 0; ///< cost of reading the CPU-time clock, subtracted from every sample's cpuNs
    int tid = 0;
    uint64_t samplesDone = 0;
    uint64_t samplesTotal = 0;
    int currentRequest = -1;           ///< index of the request being measured, -1 before the first sample
    std::vector<SleepFloorCell> cells; ///< request-major: cells[request × methods + method]
    /// Median of the smallest request, per method (in the config's method order): the measured floor.
    std::vector<int64_t> floorNs;
    int loadThreads = 0; ///< background spinners started (0 when load is off)
    uint64_t loadIterations = 0;
    uint64_t drops = 0; ///< samples the ring refused (must stay 0)
    std::string memoryLock;
    std::string error;

    std::shared_ptr<const AppendLog<SleepSample>> log;
    size_t logCount = 0;
    std::span<const SleepSample> rawSamples() const
    {
        return log ? log->prefix(logCount) : std::span<const SleepSample>();
    }
    const SleepFloorCell& cell(size_t request, size_t method) const
    {
        return cells[request * config.methods.size() + method];
    }
};

class SleepFloorExperiment : private CollectorSource {
public:
    SleepFloorExperiment();
    ~SleepFloorExperiment() override;
    SleepFloorExperiment(const SleepFloorExperiment&) = delete;
    SleepFloorExperiment& operator=(const SleepFloorExperiment&) = delete;

    /// @brief Lock all memory with mlockall (CLI) instead of only the ring and the stack (GUI). Before start().
    void setLockAllMemory(bool all) { m_lockAll = all; }

    /// @brief Validates, starts the background load (if asked), the measuring thread and the collector. On any
    /// failure everything started is stopped again and the error returned (InvalidConfig, Permission, ...).
    Error start(const SleepFloorConfig& config);
    /// @brief Stops and joins every thread (within 100 ms; one that overstays is demoted), drains the last samples,
    /// publishes. Idempotent.
    void stop();

    bool running() const { return m_running.load(); }
    /// @brief The measuring thread has ended (every sample taken, failed or stopped): time to call stop().
    bool finished() const { return m_done.load(std::memory_order_acquire); }
    const SleepFloorConfig& config() const { return m_config; }
    /// @brief The measuring CPU and, with background load, every CPU a load thread spins on; sorted, empty when not
    /// running. Whoever drives the experiment keeps its own threads off them (ScopedCallerAffinity in the CLI).
    /// Control thread only.
    std::vector<int> busyCpus() const;
    /// @brief The latest published snapshot; never blocks the measuring thread. Null before the first start().
    std::shared_ptr<const SleepFloorSnapshot> snapshot() const;

    static constexpr size_t kRingCapacity = 1 << 14;

private:
    struct Cell;
    struct alignas(kCacheLine) LoadCounter {
        std::atomic<uint64_t> iterations{0};
    };

    size_t drain() override;
    void publish() override;
    void measuringLoop(const std::atomic<bool>& stop);
    Error startLoad(const CpuTopology& cpus);
    void stopAll();

    SleepFloorConfig m_config;
    bool m_lockAll = false;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_done{false};      ///< the measuring thread has ended, for whatever reason
    std::atomic<bool> m_completed{false}; ///< ... having taken every sample
    int64_t m_startNs = 0;
    int64_t m_clockResolutionNs = 0;

    std::unique_ptr<SpscRing<SleepSample>> m_ring;
    std::shared_ptr<AppendLog<SleepSample>> m_log;
    RtThread m_measuring;
    std::atomic<int> m_tid{0};
    std::atomic<int64_t> m_slackNs{-1};
    std::atomic<int64_t> m_cpuOverheadNs{0};
    std::string m_workerError; ///< written by the measuring thread before it sets m_done

    std::vector<std::unique_ptr<RtThread>> m_load; ///< control thread only
    std::vector<int> m_loadCpus;                   ///< control thread only: where m_load runs
    std::atomic<int> m_loadThreads{0};             ///< how many started, for the collector's snapshot
    std::unique_ptr<LoadCounter[]> m_loadCounters;
    MemoryLockStatus m_memoryLock;
    Collector m_collector;

    // Collector-thread state.
    std::vector<Cell> m_cells;
    std::vector<int64_t> m_scratch;
    uint64_t m_samplesDone = 0;
    int m_currentRequest = -1;
    uint64_t m_generation = 0;
    DrainBuffer<SleepSample, 1024> m_drainBatch; ///< collector thread only

    mutable std::mutex m_snapshotMutex;
    std::shared_ptr<const SleepFloorSnapshot> m_snapshot;
};

} // namespace rtscope
