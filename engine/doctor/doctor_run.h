#pragma once
/// @file `rtscope doctor`'s loop as an engine API (docs/doctor.md), for the CLI and the desktop app alike: measure a
/// traced baseline on one CPU under the user's load, read the machine's facts, diagnose (diagnosis.h), then try each
/// run-time fix temporarily through a DoctorSession (session.h: journal, guardian) alternated against the baseline
/// (trial.h), then the helpful ones together, putting the machine back after every trial; optionally keep the helpful
/// ones (--keep).
///
///     DoctorRun run;
///     if (Error e = run.start(plan)) …one sentence…
///     while (run.running()) { DoctorProgress p = run.progress(); … }   // a snapshot, any thread
///     std::shared_ptr<const DoctorReport> r = run.report();
///
/// The loop runs in a thread of its own (not real-time); the measuring threads are the latency experiment's. stop()
/// is seen within 100 ms at any point (every wait is a bounded wait on the stop flag): the experiment stops (its
/// threads joined within 100 ms, engine/rt/rt_thread.h), the session reverts whatever is applied, and the report says
/// what was done up to then.
#include "engine/doctor/doctor_report.h"
#include "engine/doctor/guardian.h"
#include "engine/doctor/journal.h"
#include "engine/doctor/trial.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/sched_policy.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rtscope::doctor {

/// @brief The user's load during the whole run, the same in every phase.
enum class DoctorLoadKind {
    None,    ///< what the machine is doing anyway
    Hogs,    ///< one SCHED_OTHER CPU hog on the measured CPU (the latency experiment's)
    Io,      ///< a shell loop writing and syncing a 16 MiB file in the temporary directory
    Command, ///< the user's command, through /bin/sh -c, in a process group of its own, stopped at the end
};

struct DoctorPlan {
    int cpu = -1; ///< -1: the highest usable CPU
    Policy policy = Policy::Fifo;
    int priority = 80;
    int64_t periodNs = 1'000'000;
    DoctorLoadKind load = DoctorLoadKind::None;
    std::string loadCommand; ///< DoctorLoadKind::Command
    DoctorDepth depth = DoctorDepth::Default;
    PhasePlan phases = phasePlan(DoctorDepth::Default); ///< set from depth by the CLI; tests shorten it
    bool tryFixes = true;                               ///< false: diagnose only (no session, nothing changed)
    /// Only the findings with these ids are tried (empty: the plan's choice). The GUI's "Try" of one finding.
    std::vector<std::string> only;
    bool keep = false; ///< leave the helpful fixes applied (journal kept, `rtscope doctor --undo`)
    std::string root = "/";
    JournalPaths journal;
    GuardianLaunch guardian; ///< how to start the guardian (the CLI: /proc/self/exe doctor guardian)
    std::string command;     ///< the owner's command line, for the journal

    /// @brief Every problem as a sentence naming the field and its range; empty when valid.
    std::vector<std::string> validate(const CpuTopology& topology) const;
};

enum class DoctorStage { Idle, Baseline, Diagnosis, Trials, Combined, Keeping, Done, Stopped, Failed };
/// @brief "idle", "baseline", …: for the progress line and the JSON.
const char* stageName(DoctorStage stage);

/// @brief What the loop is doing now (a copy; progress() may be called from any thread at any time).
struct DoctorProgress {
    DoctorStage stage = DoctorStage::Idle;
    std::string message;              ///< "trial 2 of 5: IRQ 38 (virtio2-input.0) · phase B 2 of 3"
    double fraction = 0;              ///< of the planned time, 0…1
    int64_t elapsedNs = 0;            ///< since start()
    std::string finding;              ///< the id of the finding being tried
    std::vector<PhaseFigures> phases; ///< the current trial's phases so far
};

class DoctorRun {
public:
    DoctorRun();
    /// @brief stop() and join.
    ~DoctorRun();
    DoctorRun(const DoctorRun&) = delete;
    DoctorRun& operator=(const DoctorRun&) = delete;

    /// @brief Validates @p plan and starts the loop; the Error (InvalidConfig) joins the plan's problems. Refused
    /// while running.
    [[nodiscard]] Error start(const DoctorPlan& plan, const CpuTopology& topology = CpuTopology::current());
    /// @brief Asks the loop to end (seen within 100 ms), waits for it: measurement stopped, every change reverted.
    void stop();
    /// @brief Waits for the loop to end by itself, at most @p timeoutMs (-1: for ever); true when it has.
    bool wait(int timeoutMs = -1);
    bool running() const { return m_running.load(); }
    DoctorProgress progress() const;
    /// @brief The report so far (facts, baseline, findings and the trials done); complete once the loop ended.
    std::shared_ptr<const DoctorReport> report() const;

    /// @brief Called on the loop's thread for every line worth showing as it happens ("baseline: p99 48.0 us"),
    /// and by the guardian's sentences. Set before start().
    void setLog(std::function<void(const std::string&)> log) { m_log = std::move(log); }

private:
    class Loop;
    void publish(const DoctorProgress& progress, std::shared_ptr<const DoctorReport> report);

    std::function<void(const std::string&)> m_log;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    DoctorProgress m_progress;
    std::shared_ptr<const DoctorReport> m_report;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    friend class Loop;
};

} // namespace rtscope::doctor
