#pragma once
/// @file The guardian (docs/doctor.md, "Safety"): a process started before the doctor's first change that puts the
/// machine back from the journal within a second if the doctor dies, even by SIGKILL, and then removes the journal.
/// It never kills anything, and it changes nothing but what the journal names, through the same makeKnob() checks as
/// `--undo`. It exits without touching anything when the doctor releases it (after the doctor reverted everything
/// itself, or kept its changes on purpose).
///
/// Why a new program (posix_spawn of the rtscope binary with a hidden subcommand) and not a forked child: the doctor
/// is multithreaded when it starts one (measuring, collector, trace threads), and a forked child of a threaded
/// process may only call async-signal-safe functions (fork(2)) — no malloc, no JSON, no file writes — until it
/// execs; a lock another thread held at the fork stays locked in the child forever. An exec'd guardian starts with
/// none of the doctor's threads, locks, memory or real-time settings. It runs in a session of its own (setsid), so
/// the terminal's Ctrl-C and hang-up reach the doctor only, and as SCHED_FIFO 98 on every CPU it may use, so that a
/// real-time task the doctor was studying (with RT throttling off as a trial) cannot keep it from running.
///
/// How it learns that the doctor died: a pidfd of the doctor (pidfd_open(2)) becomes readable when the doctor has
/// exited, whatever killed it; no PID is polled and none can be reused under it. A stream socket carries "ready" from
/// the guardian (the doctor makes no change before it) and "release" to it. The journal lock is the same open file in
/// both, so it stays held until the guardian has restored and removed the journal.
#include "engine/doctor/journal.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rtscope::doctor {

/// @brief How to start the guardian: the program and its arguments before the ones start() adds.
struct GuardianLaunch {
    std::string executable;             ///< "/proc/self/exe" from the CLI (the running binary, even if replaced)
    std::vector<std::string> arguments; ///< after argv[0], e.g. {"doctor", "guardian"}
};

/// @brief The descriptors a guardian finds open when it starts (dup2'ed there by start()).
inline constexpr int kGuardianChannelFd = 3; ///< a stream socket to the doctor
inline constexpr int kGuardianPidFd = 4;     ///< a pidfd of the doctor
inline constexpr int kGuardianLockFd = 5;    ///< the doctor's journal lock

/// @brief The doctor's side: a started guardian.
class Guardian {
public:
    /// @brief Starts the guardian with @p launch's arguments plus "--journal-dir DIR --root ROOT", hands it
    /// @p lockFd, and waits up to @p readyTimeoutMs for its "ready". The Error says why it did not come.
    [[nodiscard]] static Expected<std::unique_ptr<Guardian>> start(const GuardianLaunch& launch,
                                                                   const JournalPaths& paths, const std::string& root,
                                                                   int lockFd, int readyTimeoutMs = 5000);
    /// @brief Without release(): closes the socket (the guardian keeps watching the doctor).
    ~Guardian();
    Guardian(const Guardian&) = delete;
    Guardian& operator=(const Guardian&) = delete;

    const ProcessIdentity& identity() const { return m_identity; }
    /// @brief Whether it still runs (a look at its pidfd, no wait).
    bool alive() const;
    /// @brief Tells it to leave without touching anything, and waits up to @p timeoutMs for it to exit.
    [[nodiscard]] Error release(int timeoutMs = 2000);

private:
    Guardian() = default;
    ProcessIdentity m_identity;
    int m_channel = -1;
    int m_pidfd = -1;
};

struct GuardianOptions {
    JournalPaths paths;
    std::string root = "/";
    /// @brief Where the guardian's sentences go (the CLI: standard error, which is the doctor's terminal).
    std::function<void(const std::string&)> say;
};

/// @brief The guardian's body (`rtscope doctor guardian`, hidden): expects the three descriptors above, answers
/// "ready", and waits. Returns the exit code: 0 released, or restored; 1 when the restore was refused or incomplete
/// (the journal then stays for `--undo`); 2 when it was not started by a doctor (the descriptors are missing).
int runGuardian(const GuardianOptions& options);

} // namespace rtscope::doctor
