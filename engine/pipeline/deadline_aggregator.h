#pragma once
/// @file The deadline lab's figures (docs/experiments/deadline.md), thread-free: the admission steps with the running
/// bandwidth total against the kernel's limit, per-task job statistics (runtime used per period, time off the CPU,
/// deadline misses, the CPUs the jobs ran on) and the SCHED_OTHER counter's progress per window. Plain data in,
/// plain data out; the run (engine/experiments/deadline/) feeds it from its rings on the collector thread.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rtscope {

/// @brief One job of a task: a release of a periodic task, or, for the runaway, one stretch on the CPU between two
/// stretches off it (the kernel's throttling). Trivially copyable: it travels through an SpscRing.
struct DeadlineJob {
    int32_t slot = 0;    ///< which task (DeadlineAggregator's slot)
    int32_t cpu = -1;    ///< sched_getcpu() during the job
    int64_t startNs = 0; ///< release (periodic) or when it got the CPU back (runaway), CLOCK_MONOTONIC
    int64_t endNs = 0;   ///< when the job's work ended (periodic) or the last moment it ran (runaway)
    int64_t ranNs = 0;   ///< its CPU time during the job (CLOCK_THREAD_CPUTIME_ID delta)
    int64_t gapNs = 0;   ///< runaway: how long it was off the CPU after the job; periodic: 0
    int64_t lateNs = 0;  ///< periodic: end - (release + deadline), negative when in time
    bool missed = false; ///< periodic: the job ended after its deadline
};

/// @brief The counter's total operations at one moment (the sampler reads it once per window).
struct DeadlineCounterSample {
    int64_t tNs = 0;
    uint64_t ops = 0;
    int64_t cpuNs = -1; ///< the counter's own CPU time as it last published it; -1 = not known yet
};

/// @brief One thing the admission lesson asked of the kernel and its answer.
struct DeadlineAdmissionStep {
    enum class Action { Add, Remove, Retry };
    Action action = Action::Add;
    int task = 0; ///< index in the task list
    int64_t runtimeNs = 0;
    int64_t periodNs = 0;
    bool admitted = false; ///< Add/Retry: the kernel admitted it; Remove: always true
    int attempts = 1;      ///< Retry: how many times it was asked before the answer
    std::string answer;    ///< "admitted", "left" or the kernel's refusal as a sentence
    double bandwidth() const { return periodNs > 0 ? double(runtimeNs) / double(periodNs) : 0.0; }
};

/// @brief What the root domain can hold, as read before the lesson. Unknown values are nullopt.
struct DeadlineBudget {
    std::optional<double> perCpuLimit; ///< sched_rt_runtime_us / sched_rt_period_us; nullopt = unreadable or off
    int cpus = 0;                      ///< CPUs of the root domain
    std::optional<double> fairServers; ///< the fair servers' total bandwidth; nullopt = unknown (or no server)
    bool fairServerKernel = false;     ///< the kernel has fair servers (≥ 6.12)
    double othersAtStart = 0;          ///< other deadline tasks' bandwidth when the lesson began
    /// @brief perCpuLimit × cpus minus the fair servers: what deadline tasks may declare in total; nullopt when
    /// either is unknown.
    std::optional<double> limit() const;
};

/// @brief An admission step with the totals after it.
struct DeadlineAdmissionRow {
    DeadlineAdmissionStep step;
    double ownTotal = 0;           ///< the lesson's admitted tasks after the step
    std::optional<bool> predicted; ///< Add/Retry: whether others + own + this fits limit(); nullopt = limit unknown
};

struct DeadlineTaskStats {
    uint64_t jobs = 0;
    uint64_t misses = 0;
    int64_t totalRanNs = 0;
    int64_t maxRanNs = 0;
    int64_t totalGapNs = 0;
    int64_t maxGapNs = 0;
    int64_t maxLateNs = INT64_MIN;    ///< INT64_MIN: no job yet
    std::vector<uint64_t> jobsPerCpu; ///< index = CPU; sized to the highest CPU seen
    int64_t firstNs = 0;
    int64_t lastNs = 0;
    // SCHED_FLAG_DL_OVERRUN (docs/experiments/deadline.md, "Overruns"): filled by the run, not the aggregator.
    uint64_t overruns = 0;        ///< SIGXCPUs the kernel sent the task; meaningful only when overrunsCounted
    bool overrunsCounted = false; ///< false: a FIFO task, or a kernel without the flag (overrunsNote says)
    std::string overrunsNote;     ///< "not counted: …" when !overrunsCounted
};

struct DeadlineCounterStats {
    uint64_t windows = 0;        ///< windows between two samples
    uint64_t stalledWindows = 0; ///< windows in which the counter did not advance
    uint64_t minOps = 0;         ///< fewest operations in a window (0 before the first window)
    uint64_t maxOps = 0;
    uint64_t totalOps = 0;
    int64_t maxWindowNs = 0;   ///< longest window (a late sampler makes one longer)
    int64_t totalWindowNs = 0; ///< every window's wall time together
    int64_t cpuNs = 0;         ///< the counter's CPU time over the windows whose both ends knew it
    int64_t cpuWallNs = 0;     ///< … and those windows' wall time
    /// @brief cpuNs / cpuWallNs: the share of its CPU the counter got; nullopt before a window with CPU times.
    std::optional<double> cpuShare() const
    {
        return cpuWallNs > 0 ? std::optional<double>(double(cpuNs) / double(cpuWallNs)) : std::nullopt;
    }
};

class DeadlineAggregator {
public:
    static constexpr int kMaxSlots = 8;
    static constexpr int kMaxCpus = 1024;
    static constexpr size_t kMaxJobRecords = 20000; ///< the first jobs are kept for the timeline and the JSON

    explicit DeadlineAggregator(int slots = 0);

    void setBudget(const DeadlineBudget& b) { m_budget = b; }
    const DeadlineBudget& budget() const { return m_budget; }
    void addAdmission(const DeadlineAdmissionStep& step);
    void add(const DeadlineJob& job);
    void addCounter(const DeadlineCounterSample& s);

    const std::vector<DeadlineAdmissionRow>& admission() const { return m_rows; }
    const std::vector<DeadlineTaskStats>& tasks() const { return m_tasks; }
    const DeadlineCounterStats& counter() const { return m_counter; }
    const std::vector<DeadlineJob>& jobs() const { return m_jobs; }
    uint64_t jobsNotKept() const { return m_jobsNotKept; }
    uint64_t badSlots() const { return m_badSlots; }

private:
    DeadlineBudget m_budget;
    std::vector<DeadlineAdmissionRow> m_rows;
    std::vector<double> m_admitted; ///< per task index: its admitted bandwidth, 0 when not (or no longer) admitted
    std::vector<DeadlineTaskStats> m_tasks;
    DeadlineCounterStats m_counter;
    std::optional<DeadlineCounterSample> m_lastCounter;
    std::vector<DeadlineJob> m_jobs;
    uint64_t m_jobsNotKept = 0;
    uint64_t m_badSlots = 0;
};

} // namespace rtscope
