#pragma once
/// @file The deadline lab (docs/experiments/deadline.md): SCHED_DEADLINE's contract in three lessons.
/// - admission: deadline tasks are added one by one until the kernel refuses one (EBUSY); the first admitted one
///   then leaves and the refused one is asked again, until its bandwidth is free (at most a few periods).
/// - isolation: a deadline runaway that spins forever is throttled to its runtime every period, while a
///   SCHED_OTHER counter pinned to a CPU keeps counting and a well-behaved deadline task meets its deadlines. With
///   runawayPolicy fifo the runaway is the starvation lab's trap instead: SCHED_FIFO, pinned to the counter's CPU,
///   spinning until the run's end; the counter then gets only the kernel's safety-net window.
/// - edf: two periodic tasks under SCHED_FIFO with the rate-monotonic priorities inverted (one CPU), then the same
///   work under SCHED_DEADLINE; deadline misses per task in each phase.
///
/// Deadline threads are never pinned (the root-domain rule, docs/rt-privileges.md "SCHED_DEADLINE"): each records
/// the CPU it ran on. Every thread polls its stop flag; stop() demotes the deadline threads first (a throttled
/// thread would otherwise see the flag only at its next period) and joins every thread within kJoinBudgetMs. The
/// runaway is also watched by the watchdog (engine/rt/watchdog.h), which demotes it past the run's end + 50 ms.
/// Every deadline thread counts its overruns (SCHED_FLAG_DL_OVERRUN, engine/rt/sched_deadline.h).
#include "engine/experiments/deadline/deadline_config.h"
#include "engine/experiments/experiment_host.h"
#include "engine/experiments/run_status.h"
#include "engine/pipeline/deadline_aggregator.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/watchdog.h"

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief The tasks of each lesson, in DeadlineAggregator's slots.
enum DeadlineSlot : int {
    kDeadlineRunaway = 0, ///< isolation
    kDeadlineGood = 1,    ///< isolation
    kDeadlineFifoShort = 0,
    kDeadlineFifoLong = 1,
    kDeadlineDlShort = 2,
    kDeadlineDlLong = 3,
};

/// error: a failure of rtscope (not an admission refusal, which is the lesson).
struct DeadlineSnapshot : SnapshotOf<DeadlineConfig> {
    int64_t tickNs = 0;                       ///< the scheduler tick (CLOCK_MONOTONIC_COARSE's resolution)
    std::vector<std::string> slotNames;       ///< per aggregator slot
    std::vector<DeadlineParams> slotDeclared; ///< per slot: its reservation ({} for a FIFO task)
    DeadlineBudget budget;
    std::vector<DeadlineAdmissionRow> admission;
    std::vector<DeadlineTaskStats> tasks;
    DeadlineCounterStats counter;
    std::vector<DeadlineJob> jobs; ///< the first DeadlineAggregator::kMaxJobRecords
    uint64_t jobsNotKept = 0;
    int counterCpu = -1; ///< isolation
    /// @brief Isolation: what the counter got, in one sentence with the measured share of its CPU, against what the
    /// runaway's policy leaves it (FIFO: the fair server's or RT throttling's window; DEADLINE: all but the
    /// reservation). Empty before the first window with CPU times.
    std::string counterVerdict;
    std::string throttling; ///< isolation: the kernel's safety net as read at start (fair server or RT throttling)
    int controllerCpu = -1; ///< isolation: the watchdog's and the sampler's CPU
    int fifoCpu = -1;       ///< edf
    bool deadlinePhaseRan = false; ///< edf: both deadline tasks were admitted
    std::string deadlinePhaseNote; ///< edf: why the deadline phase did not run
    WatchdogConfig watchdog;
    std::vector<WatchdogTrip> watchdogTrips;
    uint64_t droppedJobs = 0;
};

class DeadlineRun {
public:
    using Config = DeadlineConfig;
    using Snapshot = DeadlineSnapshot;
    static constexpr std::string_view kName = "deadline";
    static constexpr int kSlots = 4;
    static constexpr size_t kRingCapacity = 8192;
    static constexpr int64_t kLeadInNs = 20'000'000; ///< first release after start(): the collector is in place
    static constexpr int64_t kAdmissionRetryNs = 1'000'000;

    DeadlineRun(const DeadlineConfig& config, const RunEnvironment& env);
    ~DeadlineRun();
    DeadlineRun(const DeadlineRun&) = delete;
    DeadlineRun& operator=(const DeadlineRun&) = delete;

    /// @brief Admission: the whole lesson (a few periods). Isolation and edf: starts the threads, whose first
    /// release is kLeadInNs later. A deadline phase the kernel does not admit is a note, not a failure.
    Error start();
    /// @brief Demotes the deadline threads, asks every thread to leave and joins each within kJoinBudgetMs.
    void stop();
    size_t drain();
    std::shared_ptr<DeadlineSnapshot> makeSnapshot(bool running);
    bool finished() const;
    std::vector<int> busyCpus() const;
    const DeadlineConfig& config() const { return m_config; }
    int collectorCpu() const { return m_controllerCpu; }

private:
    struct Ring {
        SpscRing<DeadlineJob> jobs{kRingCapacity};
    };
    Error runAdmission();
    Error startIsolation();
    Error startEdf();
    Error startThread(RtThread& t, const ThreadSpec& spec, std::function<void(const std::atomic<bool>&)> body);
    void runawayLoop(const std::atomic<bool>& stop);
    void periodicLoop(int slot, int64_t firstReleaseNs, int64_t endNs, int64_t workNs, int64_t periodNs,
                      int64_t deadlineNs, const std::atomic<bool>& stop);
    void counterLoop(const std::atomic<bool>& stop);
    std::string counterVerdict(const DeadlineCounterStats& c) const;
    void samplerLoop(const std::atomic<bool>& stop);
    bool leaving(const std::atomic<bool>& stop) const;

    DeadlineConfig m_config;
    RunEnvironment m_env;
    int m_controllerCpu = -1;
    int64_t m_startNs = 0;
    int64_t m_endNs = 0;
    int64_t m_tickNs = 0;
    bool m_stopped = false;
    int64_t m_stoppedNs = 0;       ///< when stop() was called
    int64_t m_deadlinePhaseNs = 0; ///< edf: the deadline pair's first release
    bool m_deadlinePhaseRan = false;
    std::string m_deadlinePhaseNote;
    std::string m_error;
    std::vector<std::string> m_slotNames;
    std::vector<DeadlineParams> m_slotDeclared;
    MemoryLockStatus m_memoryLock;

    std::array<std::unique_ptr<Ring>, kSlots> m_rings;
    std::unique_ptr<SpscRing<DeadlineCounterSample>> m_counterRing;
    std::atomic<uint64_t> m_counterOps{0};
    std::atomic<int64_t> m_counterCpuNs{-1}; ///< the counter's CPU time, published by itself every few batches
    std::array<DeadlineOverrunCounter, kSlots> m_overruns; ///< per slot: its deadline thread's SIGXCPUs
    std::string m_throttling;
    std::atomic<bool> m_leave{false};
    Watchdog m_watchdog;
    int m_watchdogSlot = -1;
    std::vector<std::unique_ptr<RtThread>> m_deadlineThreads; ///< demoted first at stop() (and the FIFO runaway)
    std::vector<std::unique_ptr<RtThread>> m_otherThreads;
    std::vector<DeadlineAdmissionStep> m_admissionSteps; ///< written by start(), read by the collector after
    bool m_admissionFed = false;

    DeadlineAggregator m_agg;
    std::vector<DeadlineJob> m_batch;
};

class DeadlineExperiment final : public ExperimentHost<DeadlineRun> {};

} // namespace rtscope
