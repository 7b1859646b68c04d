#pragma once
/// @file The undo journal (docs/doctor.md, "Safety"): a file under /run written and synced before each change is made
/// (write-ahead), naming its owner and, for every change, the value before it and whether it is applied. /run is
/// cleared at boot on most systems, as these knobs are reset; the boot id in the journal covers the others (here /run
/// is not a tmpfs).
///
/// One doctor at a time: a doctor holds an exclusive flock on the lock file beside the journal for as long as it may
/// change anything, and passes that same open file to its guardian, so the lock is held while either lives. A journal
/// without a lock holder was left behind (both died): `rtscope doctor --undo` restores it.
///
/// The journal is root-owned state an attacker may have planted. parseJournal() refuses, with one sentence, a file
/// that is not JSON, of another format or version, of an earlier boot, or with any change makeKnob() refuses (an
/// unknown kind, a path outside the allowed roots, a value the knob does not take); the file itself must be a regular
/// file (no link) of the effective user, not writable by group or others, in a directory of the same.
#include "engine/doctor/knob.h"

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rtscope::doctor {

inline constexpr const char* kDefaultJournalDir = "/run/rtscope";

struct JournalPaths {
    std::string dir = kDefaultJournalDir;
    std::string journal() const { return dir + "/doctor.journal"; }
    std::string lock() const { return dir + "/doctor.lock"; }
};

/// @brief A process as the doctor names it: PID and start time (a PID is reused; the pair is not).
struct ProcessIdentity {
    pid_t pid = 0;
    unsigned long long startTime = 0;
    static ProcessIdentity self();
    /// @brief The process @p pid now; nullopt when there is none.
    static std::optional<ProcessIdentity> of(pid_t pid);
    /// @brief Whether the process still runs (a zombie has exited).
    bool alive() const;
    bool operator==(const ProcessIdentity&) const = default;
};

enum class EntryState {
    Applying, ///< journaled, the change may or may not have been made: undo writes `from` (harmless either way)
    Applied,
    Reverted,
};
const char* entryStateName(EntryState s);

struct JournalEntry {
    KnobChange change;
    EntryState state = EntryState::Applying;
};

struct Journal {
    static constexpr int kVersion = 1;
    std::string bootId; ///< /proc/sys/kernel/random/boot_id when written
    ProcessIdentity owner;
    std::string command; ///< the owner's command line, for the sentences
    std::optional<ProcessIdentity> guardian;
    bool kept = false; ///< the owner left its changes applied on purpose (--keep)
    std::vector<JournalEntry> entries;

    /// @brief Entries not reverted yet.
    size_t pending() const;
    std::string toText() const;
};

/// @brief This boot's id (/proc/sys/kernel/random/boot_id).
std::string currentBootId();

/// @brief Reads and checks @p text (see the top of the file); every change goes through makeKnob(Journal) on @p fs.
/// The Error (InvalidConfig) is one sentence; nothing has been written.
[[nodiscard]] Expected<Journal> parseJournal(RootFs& fs, std::string_view text);

/// @brief Makes the directory (mode 0700) when missing and checks it: a directory, not a link, of this user, not
/// writable by others.
[[nodiscard]] Error prepareJournalDir(const JournalPaths& paths);
/// @brief The journal's text, nullopt when there is none; refused (InvalidConfig) when the file is a link, not a
/// regular file, another user's, writable by others, or larger than 1 MiB.
[[nodiscard]] Expected<std::optional<std::string>> readJournalFile(const JournalPaths& paths);
/// @brief Writes the whole journal atomically (temporary file, fsync, rename, fsync of the directory).
[[nodiscard]] Error writeJournal(const JournalPaths& paths, const Journal& journal);
[[nodiscard]] Error removeJournal(const JournalPaths& paths);

/// @brief The exclusive lock of one doctor; released when destroyed (and when every copy of its descriptor, such as
/// the guardian's, is closed).
class JournalLock {
public:
    /// @brief Takes the lock without waiting; Unavailable when another doctor or its guardian holds it. Once held, the
    /// temporaries a killed doctor left of its journal ("doctor.journal.partial-XXXXXX": only the lock's holder writes
    /// the journal, so none is anyone's now) are removed.
    [[nodiscard]] static Expected<JournalLock> tryAcquire(const JournalPaths& paths);
    JournalLock(JournalLock&& other) noexcept;
    JournalLock& operator=(JournalLock&& other) noexcept;
    ~JournalLock();
    JournalLock(const JournalLock&) = delete;
    JournalLock& operator=(const JournalLock&) = delete;
    int fd() const { return m_fd; }
    /// @brief Closes this descriptor (the lock is free once no other process holds a copy).
    void release();

private:
    explicit JournalLock(int fd)
        : m_fd(fd)
    {}
    int m_fd = -1;
};

enum class JournalState {
    None,       ///< nothing changed: a doctor may start
    Active,     ///< a doctor, or its guardian, holds the lock: it restores the machine itself
    LeftBehind, ///< a journal nobody holds: `rtscope doctor --undo` restores it
    Refused,    ///< a journal that parseJournal() refuses: a person must look at it
};

/// @brief What a second doctor, or the GUI, finds before it may start trials.
struct JournalStatus {
    JournalState state = JournalState::None;
    std::string sentence; ///< for every state but None: what it is and what to do
    std::optional<Journal> journal;
};
/// @p holdingLock: the caller holds the lock itself (a flock of another open file would see it as someone else's).
JournalStatus journalStatus(RootFs& fs, const JournalPaths& paths, bool holdingLock = false);

} // namespace rtscope::doctor
