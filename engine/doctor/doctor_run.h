#pragma once
/// @file `rtscope doctor`'s loop as an engine API (docs/doctor.md), for the CLI and the desktop app alike: measure a
/// traced baseline on one CPU under the user's load, read the machine's facts, diagnose (diagnosis.h), then try each
/// run-time fix temporarily through a DoctorSession (session.h: journal, guardian) alternated against the baseline
/// (trial.h), then the helpful ones together, putting the machine back after every trial; optionally keep the helpful
/// ones (--keep).
///
///     DoctorRun run;
///     run.setEvents([](const DoctorEvent& e) { … });                 // optional: on the loop's thread, as it happens
///     if (Error e = run.start(plan)) …one sentence…
///     while (run.running()) { DoctorProgress p = run.progress(); … }   // a snapshot, any thread
///     std::shared_ptr<const DoctorReport> r = run.report();
///
/// The loop runs in a thread of its own (not real-time): a caller with an event loop (the desktop app's Doctor page)
/// needs no thread of its own; it forwards the events to its own thread (a queued call) and polls progress() and
/// report(). The measuring threads are the latency experiment's. A stop — requestStop(), which returns at once, or
/// stop(), which also waits — is seen within 100 ms at any point (every wait is a bounded wait on the stop flag): the
/// experiment stops (its threads joined within 100 ms, engine/rt/rt_thread.h), the session reverts whatever is
/// applied, the Finished event says "stopped", and the report says what was done up to then.
#include "engine/doctor/doctor_report.h"
#include "engine/doctor/guardian.h"
#include "engine/doctor/journal.h"
#include "engine/doctor/knob.h"
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
    /// The workload polls (`--noise`): after the latency baseline, the noise lab measures the CPU with a busy
    /// poller (SCHED_OTHER, as osnoise's workload, traced) and its attribution is the diagnosis's evidence instead of
    /// the wake-up anatomy's. The trials still judge a fix by wake-up latency.
    bool noise = false;
    /// Only the findings with these ids are tried (empty: the plan's choice). The GUI's "Try" of one finding.
    std::vector<std::string> only;
    bool keep = false; ///< leave the helpful fixes applied (journal kept, `rtscope doctor --undo`)
    /// Leave the helpful fixes applied in a session the caller takes (DoctorRun::takeHeld()): its guardian goes on
    /// watching this process, so they are put back when the caller reverts, ends, or dies. The GUI's "Try".
    bool hold = false;
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
    /// What the measurement recorded so far, for a live view: the baseline as it grows, then in a trial its phases
    /// with the fix (B) and without it (A), the running phase included.
    Histogram live;
    Histogram liveWithout;
};

class DoctorSession;

/// @brief The helpful fixes of a DoctorPlan::hold run, still applied, with the session (journal, guardian) that
/// applied them. Destroying it puts them back, as revertAll() does; keepUntilReboot() hands them to the journal.
class HeldFixes {
public:
    HeldFixes(std::unique_ptr<RootFs> fs, std::unique_ptr<DoctorSession> session, std::vector<std::string> findings);
    ~HeldFixes();
    HeldFixes(const HeldFixes&) = delete;
    HeldFixes& operator=(const HeldFixes&) = delete;

    /// @brief The ids of the findings whose fixes these are.
    const std::vector<std::string>& findings() const { return m_findings; }
    /// @brief Each change as a person reads it: "IRQ 36 (virtio1-req.0) CPUs: 0-1 → 0".
    std::vector<std::string> changes() const;
    /// @brief Whether anything is still applied and held here (false after revertAll() or keepUntilReboot()).
    bool active() const;
    /// @brief Puts every change back and ends the session (journal removed, guardian released); the Error names
    /// what could not be put back (the journal then stays for `rtscope doctor --undo`).
    [[nodiscard]] Error revertAll();
    /// @brief Leaves the changes applied until reboot: the journal is marked kept (`rtscope doctor --undo` restores),
    /// the guardian released. Refused for a /dev/cpu_dma_latency request (it ends with this process).
    [[nodiscard]] Error keepUntilReboot();

private:
    std::unique_ptr<RootFs> m_fs;
    std::unique_ptr<DoctorSession> m_session;
    std::vector<std::string> m_findings;
};

/// @brief What the loop tells as it happens (DoctorRun::setEvents), in this order: BaselineDone once (the findings
/// are in report()); for each trial, PhaseStarted and PhaseFinished for each of its phases (A B A B …) then
/// TrialJudged; the same for the combined trial (finding "combined"); Finished last, whatever the end.
struct DoctorEvent {
    enum class Kind { BaselineDone, PhaseStarted, PhaseFinished, TrialJudged, Finished };
    Kind kind = Kind::BaselineDone;
    std::string finding;  ///< the id of the finding tried, "combined" for the helpful ones together; empty otherwise
    int phase = -1;       ///< PhaseStarted/Finished: the phase's index in its trial, from 0
    int phases = 0;       ///< PhaseStarted/Finished: the trial's number of phases (2 × pairs)
    PhaseFigures figures; ///< PhaseFinished: the phase's figures (withFix also set by PhaseStarted)
    Verdict verdict = Verdict::NotTried;   ///< TrialJudged
    std::string why;                       ///< TrialJudged: the verdict's reason; Finished: the error, if any
    DoctorStage stage = DoctorStage::Idle; ///< Finished: Done, Stopped or Failed
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
    /// @brief Asks the loop to end and returns at once (a GUI's Cancel): the loop stops and reverts by itself, then
    /// sends Finished (stage Stopped) and running() turns false; wait() or stop() join it.
    void requestStop();
    /// @brief Waits for the loop to end by itself, at most @p timeoutMs (-1: for ever); true when it has.
    bool wait(int timeoutMs = -1);
    bool running() const { return m_running.load(); }
    DoctorProgress progress() const;
    /// @brief The report so far (facts, baseline, findings and the trials done); complete once the loop ended.
    std::shared_ptr<const DoctorReport> report() const;

    /// @brief After a DoctorPlan::hold run that ended with helpful fixes: them, still applied (null otherwise, and
    /// after the first call). Whoever takes them decides: revert or keep.
    std::unique_ptr<HeldFixes> takeHeld();

    /// @brief Called on the loop's thread for every line worth showing as it happens ("baseline: p99 48.0 us"),
    /// and by the guardian's sentences. Set before start().
    void setLog(std::function<void(const std::string&)> log) { m_log = std::move(log); }
    /// @brief Called on the loop's thread for every DoctorEvent; it must return quickly (a queued call, a copy). Set
    /// before start().
    void setEvents(std::function<void(const DoctorEvent&)> events) { m_events = std::move(events); }

private:
    class Loop;
    void publish(const DoctorProgress& progress, std::shared_ptr<const DoctorReport> report);

    std::function<void(const std::string&)> m_log;
    std::function<void(const DoctorEvent&)> m_events;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    DoctorProgress m_progress;
    std::shared_ptr<const DoctorReport> m_report;
    std::unique_ptr<HeldFixes> m_held;
    std::atomic<bool> m_running{false};
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    friend class Loop;
};

} // namespace rtscope::doctor
