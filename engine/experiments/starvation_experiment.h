#pragma once
/// @file The starvation lab (docs/experiments/starvation.md): a SCHED_FIFO/RR spinner busy-loops for bursts on one CPU
/// while SCHED_OTHER counter threads on the same CPU try to make progress. A sampler on another CPU reads the
/// counters every 10 ms and streams them, like every worker's events, through rings to the collector, which
/// publishes immutable snapshots: per-counter rates, progress during and after every burst, and the windows in
/// which a starved counter advanced anyway (RT throttling / the fair server).
///
/// Safety is part of the feature: the spinner checks its own deadline every few thousand iterations, a
/// watchdog on another CPU at a higher FIFO priority demotes it when it overruns by more than 50 ms, it never
/// goes on a reserved or the only CPU (StarvationConfig::validate), and stop(), the destructor and every
/// failed start() demote it and join every thread within 100 ms.
#include "engine/experiments/starvation_config.h"
#include "engine/pipeline/collector.h"
#include "engine/pipeline/decimated_series.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/throttle_settings.h"
#include "engine/rt/watchdog.h"
#include "engine/util/error.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rtscope {

/// @brief A stretch of time in which one counter thread ran with no break longer than
/// StarvationExperiment::kStallNs (CLOCK_MONOTONIC ns).
struct RunSegment {
    int64_t startNs = 0;
    int64_t endNs = 0;
};

/// @brief A stretch of a burst in which a starved counter advanced although the spinner wanted the CPU:
/// the kernel's safety net (RT throttling, or the fair server on kernels >= 6.12) at work.
struct ThrottleWindow {
    int64_t startNs = 0; ///< CLOCK_MONOTONIC
    int64_t endNs = 0;
    int64_t offsetNs = 0;  ///< from the start of its burst
    int64_t spacingNs = 0; ///< start to start from the previous window of the same burst; 0 for the first
    int64_t lengthNs() const { return endNs - startNs; }
};

/// @brief The windows of one burst from the counters' run segments: each segment is clipped to the burst,
/// then segments closer than @p mergeGapNs are joined (counters and other tasks take turns inside one
/// window). A segment that ended before the burst began is the counter's work before it was preempted.
std::vector<ThrottleWindow> findThrottleWindows(int64_t burstStartNs, int64_t burstEndNs,
                                                std::vector<RunSegment> segments, int64_t mergeGapNs);

inline constexpr int kStarvationMaxThreads = StarvationConfig::kMaxCounters + 1; ///< counters + control

/// @brief One counter thread, for the big live numbers and the rate lines.
struct CounterStats {
    std::string label; ///< "counter 1", ..., "control"
    int cpu = -1;
    bool control = false; ///< runs on another CPU than the spinner: the bursts must not touch it
    int nice = 0;
    pid_t tid = 0;
    uint64_t ops = 0;              ///< operations (increments) since start
    double opsPerSec = 0;          ///< over the last 100 ms
    std::vector<SeriesPoint> rate; ///< ops/s per sampler interval (values in ops/s, not ns), oldest first
};

/// @brief One burst of the spinner and the gap after it.
struct BurstRecord {
    int index = 0;        ///< 1-based
    int64_t startNs = 0;  ///< the spinner's clock when it began spinning
    int64_t endNs = 0;    ///< when it stopped spinning; 0 while it spins
    int64_t gapEndNs = 0; ///< end of the gap after it (next burst or end of run); 0 while that gap runs
    /// @brief Operations per counter (snapshot order) while the spinner spun: 0 for the starved counters
    /// unless the kernel's safety net let them in.
    std::array<uint64_t, kStarvationMaxThreads> during{};
    std::array<uint64_t, kStarvationMaxThreads> after{}; ///< per counter, in the gap after the burst
    std::vector<ThrottleWindow> windows;                 ///< where the starved counters advanced during the burst
    bool windowsFinal = false;    ///< every starved counter has run since the burst ended: no window can appear
    bool watchdogDemoted = false; ///< the watchdog had to demote the spinner in this burst
    bool interrupted = false;     ///< stopped while spinning

    bool spinning() const { return endNs == 0; }
    int64_t spinnerNs() const { return endNs ? endNs - startNs : 0; }
    int64_t gapNs() const { return gapEndNs && endNs ? gapEndNs - endNs : 0; }
    /// @brief Sum over the first @p n counters (the starved ones).
    uint64_t duringSum(int n) const;
    uint64_t afterSum(int n) const;
};

struct StarvationSnapshot {
    StarvationConfig config; ///< as run: cpu and controlCpu resolved
    int controllerCpu = -1;  ///< where the watchdog, sampler and collector run
    pid_t spinnerTid = 0;
    uint64_t generation = 0; ///< increases with every publish
    bool running = false;
    bool finished = false;    ///< the spinner ran its bursts (or the watchdog ended the run)
    bool interrupted = false; ///< stopped before the planned end
    int64_t startNs = 0;      ///< CLOCK_MONOTONIC at start
    int64_t publishedNs = 0;
    int64_t endNs = 0;                                    ///< when the spinner finished; 0 while running
    int64_t leadInNs = 0;                                 ///< the gap before the first burst (so far)
    std::array<uint64_t, kStarvationMaxThreads> leadIn{}; ///< per counter, during the lead-in: the normal rate
    int starvedCounters = 0; ///< counters[0 .. starvedCounters) share the spinner's CPU; a control follows
    std::vector<CounterStats> counters;
    std::vector<BurstRecord> bursts; ///< oldest first, the running one last (at most kMaxBurstRecords)
    uint64_t burstsDropped = 0;      ///< older records left out of a long repeating run
    ThrottleSettings kernel;
    WatchdogConfig watchdog;
    std::vector<WatchdogTrip> watchdogTrips;
    uint64_t droppedSamples = 0;  ///< sampler ring full (the rate lines have a gap)
    uint64_t droppedSegments = 0; ///< counters' run-segment rings full (windows may be incomplete)
    uint64_t droppedEvents = 0;   ///< spinner event ring full (a burst record is missing)
    std::string memoryLock;
    std::string note; ///< e.g. why the remaining bursts were cancelled

    /// @brief The burst that is spinning now, or null.
    const BurstRecord* spinningBurst() const;
};

class StarvationExperiment : private CollectorSource {
public:
    static constexpr int64_t kStallNs = 1'000'000;        ///< a counter off the CPU longer than this ends a segment
    static constexpr int64_t kWindowMergeNs = 20'000'000; ///< breaks inside one throttling window are shorter
    static constexpr int kSpinBatch = 4096;               ///< spinner iterations between two deadline checks
    static constexpr int kCounterBatch = 1024;            ///< counter operations between two clock reads
    static constexpr size_t kMaxBurstRecords = 1000;
    static constexpr int64_t kMaxTestOverrunNs = 1'000'000'000;

    StarvationExperiment();
    ~StarvationExperiment() override;
    StarvationExperiment(const StarvationExperiment&) = delete;
    StarvationExperiment& operator=(const StarvationExperiment&) = delete;

    /// @brief Lock all memory with mlockall (CLI) instead of only the rings and stacks (GUI). Before start().
    void setLockAllMemory(bool all) { m_lockAll = all; }
    /// @brief How much of the rate lines each snapshot carries (1 s … 120 s, default 10 s).
    void setSeriesWindow(int64_t ns);
    /// @brief Test hook: the spinner keeps spinning @p ns past every burst deadline, as a buggy spinner would,
    /// so that the watchdog has something to catch (0 … 1 s, default 0). Call before start().
    void setTestDeadlineOverrun(int64_t ns);

    /// @brief Validates (against StarvationConfig::placementTopology()), then starts the watchdog, the
    /// counters, the sampler, the collector and last the spinner, which sleeps one gap before its first burst.
    /// On any failure everything started is stopped again and the error returned (InvalidConfig, Permission…).
    Error start(const StarvationConfig& config);
    /// @brief Demotes the spinner, then stops and joins every thread (within 100 ms), drains the rings and
    /// publishes a final snapshot with the partial results. Idempotent; the destructor calls it.
    void stop();

    bool running() const { return m_running.load(); }
    /// @brief The spinner has run all its bursts (or the watchdog ended the run): call stop() to collect.
    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    const StarvationConfig& config() const { return m_config; }
    /// @brief The spinner's CPU (its starved counters share it); empty when not running. Whoever drives the
    /// experiment keeps its own threads off it (ScopedCallerAffinity in the CLI): a thread there would be starved
    /// too, and would count as one more task the spinner starves. Control thread only.
    std::vector<int> busyCpus() const { return m_running ? std::vector<int>{m_config.cpu} : std::vector<int>{}; }
    /// @brief The latest published snapshot; never blocks a worker. Null before the first start().
    std::shared_ptr<const StarvationSnapshot> snapshot() const;
    /// @brief Publishes now (after stop(), or for tests).
    void publishNow();

private:
    struct alignas(kCacheLine) CounterSlot {
        std::atomic<uint64_t> ops{0};
        std::atomic<int64_t> openStartNs{INT64_MAX}; ///< start of the segment running now; INT64_MAX: none
        std::atomic<int64_t> lastSeenNs{0};          ///< the counter's latest clock read
        std::atomic<pid_t> tid{0};
    };
    struct SpinnerEvent {
        enum Kind : uint8_t { RunStart, BurstStart, BurstEnd, RunEnd };
        Kind kind = RunStart;
        bool demoted = false;
        bool interrupted = false;
        int32_t burst = 0;
        int64_t tNs = 0;
        uint64_t counts[kStarvationMaxThreads] = {};
    };
    struct ProgressSample {
        int64_t tNs = 0;
        uint64_t counts[kStarvationMaxThreads] = {};
    };
    // Collector-thread view of one counter.
    struct CounterAggregate {
        DecimatedSeries rate{StarvationConfig::kSampleIntervalNs, 1};
        uint64_t ops = 0;
        std::vector<RunSegment> segments; ///< closed segments that may still matter to an unsettled burst
    };

    size_t drain() override;
    void publish() override;

    void teardown();
    Error startCounters();
    void spinnerLoop(const std::atomic<bool>& stop);
    void counterLoop(int index, const std::atomic<bool>& stop);
    void samplerLoop(const std::atomic<bool>& stop);
    bool sleepUntil(int64_t tNs, const std::atomic<bool>& stop);
    void pushEvent(SpinnerEvent::Kind kind, int burst, int64_t tNs, bool demoted, bool interrupted);
    void handleEvent(const SpinnerEvent& ev);
    void handleSample(const ProgressSample& s);
    size_t drainSegments();
    void updateWindows(int64_t nowNs);

    StarvationConfig m_config; ///< resolved, fixed while running
    int m_controllerCpu = -1;
    int m_threads = 0; ///< counters including the control one
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_finished{false};
    bool m_lockAll = false;
    int64_t m_testOverrunNs = 0;
    std::atomic<int64_t> m_seriesWindowNs{10'000'000'000};
    int64_t m_startNs = 0;
    MemoryLockStatus m_memoryLock;
    ThrottleSettings m_kernel;

    // Shared with the workers.
    std::unique_ptr<CounterSlot[]> m_counters;
    std::unique_ptr<SpscRing<SpinnerEvent>> m_events;
    std::unique_ptr<SpscRing<ProgressSample>> m_samples;
    std::vector<std::unique_ptr<SpscRing<RunSegment>>> m_segmentRings;
    std::atomic<pid_t> m_spinnerTid{0};
    std::atomic<bool> m_retireCounters{false}; ///< one flag for all counters, so they leave together
    std::atomic<bool> m_leaveBurst{false};     ///< stop() asks the spinner to end its burst before demoting it
    std::atomic<bool> m_spinning{false};       ///< the spinner is inside a burst
    Watchdog m_watchdog;
    int m_watchdogSlot = -1;
    RtThread m_spinner;
    RtThread m_sampler;
    std::vector<std::unique_ptr<RtThread>> m_counterThreads;
    Collector m_collector;

    // Collector-thread state.
    std::vector<CounterAggregate> m_agg;
    std::array<ProgressSample, 16> m_history{}; ///< the latest samples, for the live rate
    size_t m_historyCount = 0;
    std::vector<BurstRecord> m_bursts;
    uint64_t m_burstsDropped = 0;
    std::array<uint64_t, kStarvationMaxThreads> m_runStartCounts{};
    std::array<uint64_t, kStarvationMaxThreads> m_burstStartCounts{};
    std::array<uint64_t, kStarvationMaxThreads> m_burstEndCounts{};
    std::array<uint64_t, kStarvationMaxThreads> m_leadIn{};
    int64_t m_runStartNs = 0;
    int64_t m_leadInEndNs = 0;
    int64_t m_runEndNs = 0;
    bool m_interrupted = false;
    uint64_t m_generation = 0;

    mutable std::mutex m_snapshotMutex;
    std::shared_ptr<const StarvationSnapshot> m_snapshot;
};

} // namespace rtscope
