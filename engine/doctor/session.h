#pragma once
/// @file A doctor's changes to the machine, made safe (docs/doctor.md, "Safety"): the one object through which the
/// trial loop (and the GUI) applies and reverts knobs.
///
///     RootFs fs;                                          // the machine
///     auto session = DoctorSession::begin(fs, options);   // lock, journal, guardian; refused while one is active
///     if (!session) …session.error().message…
///     (*session)->apply(std::move(knob));                 // capture `from`, journal, apply, journal
///     … measure …
///     (*session)->revert(id);                             // or revertAll()
///     (*session)->finish();                               // revert the rest, remove the journal, release the guardian
///
/// Every change is journaled and synced before it is made (write-ahead): whatever kills the process, at whatever
/// instant, the journal names every setting that may differ from what it was, with its value before. While the
/// session lives a guardian (guardian.h) waits to restore that journal should the process die.
#include "engine/doctor/guardian.h"
#include "engine/doctor/journal.h"
#include "engine/doctor/knob.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rtscope::doctor {

class DoctorSession {
public:
    struct Options {
        JournalPaths paths;
        GuardianLaunch guardian;
        std::string command; ///< the owner's command line, for the journal and the sentences of others
        int guardianReadyTimeoutMs = 5000;
        /// @brief Where the destructor reports a revert that failed (it cannot return it); the journal keeps it.
        std::function<void(const std::string&)> report;
    };

    /// @brief Takes the lock, refuses when a journal is active, left behind or refused (the JournalStatus sentence),
    /// writes the empty journal, starts the guardian and waits for it. Nothing of the machine is changed.
    [[nodiscard]] static Expected<std::unique_ptr<DoctorSession>> begin(RootFs& fs, Options options);
    /// @brief finish() unless done; its Error goes to Options::report.
    ~DoctorSession();
    DoctorSession(const DoctorSession&) = delete;
    DoctorSession& operator=(const DoctorSession&) = delete;

    /// @brief capture(), journal "applying", apply(), journal "applied". When apply() fails the knob is reverted at
    /// once (a kernel may take part of a value) and the Error says why; the session then does not hold it. Refused
    /// while the guardian is not running, and for a knob whose id is applied already.
    [[nodiscard]] Error apply(std::unique_ptr<Knob> knob);
    /// @brief Applies @p knobs in order; on the first failure reverts those of them it applied (reverse order).
    [[nodiscard]] Error applyAll(std::vector<std::unique_ptr<Knob>> knobs);
    /// @brief Reverts one applied knob and journals it.
    [[nodiscard]] Error revert(const std::string& id);
    /// @brief Reverts every applied knob, last applied first; the Error joins the sentences of those that failed
    /// (they stay applied and journaled).
    [[nodiscard]] Error revertAll();
    /// @brief revertAll(), then removes the journal, releases the guardian and the lock. When a revert failed the
    /// journal stays (for `--undo` and a person) and the Error says what is left.
    [[nodiscard]] Error finish();
    /// @brief Leaves everything applied (--keep): the journal is marked kept and stays, the guardian is released,
    /// the lock dropped; `rtscope doctor --undo` restores later. Refused while a /dev/cpu_dma_latency request is
    /// applied: it ends with this process (revert it first).
    [[nodiscard]] Error keep();

    /// @brief The knobs applied now, in the order they were.
    std::vector<const Knob*> applied() const;
    const Journal& journal() const { return m_journal; }
    const Guardian& guardian() const { return *m_guardian; }
    bool finished() const { return m_finished; }

private:
    DoctorSession(RootFs& fs, Options options, JournalLock lock);
    [[nodiscard]] Error save();
    JournalEntry* entryOf(const std::string& id);
    [[nodiscard]] Error end(bool kept);

    RootFs& m_fs;
    Options m_options;
    JournalLock m_lock;
    Journal m_journal;
    std::unique_ptr<Guardian> m_guardian;
    std::vector<std::unique_ptr<Knob>> m_applied;
    bool m_finished = false;
};

/// @brief What restoring a journal did.
struct UndoReport {
    enum class Outcome {
        NothingToDo, ///< no journal, or nothing in it still applied (the journal is removed)
        Restored,    ///< every change put back; the journal is removed
        Refused,     ///< parseJournal() refused it: nothing was written
        Active,      ///< a doctor or its guardian holds the lock: it restores the machine itself
        Incomplete,  ///< some changes could not be put back: the journal stays, naming them
    };
    Outcome outcome = Outcome::NothingToDo;
    std::vector<std::string> lines; ///< one per change: "kernel.timer_migration: 0 -> 1 (restored)"
    std::string sentence;           ///< for Refused, Active and Incomplete: why, and what to do
};

/// @brief `rtscope doctor --undo`: restores any journal found in @p paths.dir (last change first) after taking the
/// lock. @p guardianOf: the guardian's call, which holds the lock already (inherited) and restores only a journal
/// whose owner is the doctor it watched.
UndoReport undoJournal(RootFs& fs, const JournalPaths& paths,
                       const std::optional<ProcessIdentity>& guardianOf = std::nullopt);

} // namespace rtscope::doctor
