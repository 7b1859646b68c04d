#include "engine/doctor/journal.h"

#include "engine/formats/output_file.h"
#include "engine/rt/system_threads.h"
#include "engine/util/json_fields.h"
#include "engine/util/json_text.h"
#include "engine/util/name_list.h"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace rtscope::doctor {

namespace {

constexpr const char* kFormat = "rtscope-doctor-journal";
constexpr size_t kMaxJournalBytes = 1 << 20;
constexpr size_t kMaxEntries = 4096;

std::string readSmallFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::optional<EntryState> entryStateFrom(std::string_view name)
{
    for (EntryState s : {EntryState::Applying, EntryState::Applied, EntryState::Reverted})
        if (name == entryStateName(s))
            return s;
    return std::nullopt;
}

Error refusedJournal(const std::string& sentence)
{
    return failure(ErrorKind::InvalidConfig, sentence);
}

// The directory or file at @p path belongs to this user and no one else may write it.
std::string ownershipProblem(const struct stat& st, const std::string& path)
{
    if (st.st_uid != ::geteuid())
        return path + " belongs to user " + std::to_string(st.st_uid) + ", not to this one (" +
               std::to_string(::geteuid()) + ")";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return path + " is writable by its group or by others";
    return {};
}

} // namespace

ProcessIdentity ProcessIdentity::self()
{
    return of(::getpid()).value_or(ProcessIdentity{::getpid(), 0});
}

std::optional<ProcessIdentity> ProcessIdentity::of(pid_t pid)
{
    SystemThread t;
    if (pid <= 0 || !parseProcStat(readSmallFile("/proc/" + std::to_string(pid) + "/stat"), t))
        return std::nullopt;
    return ProcessIdentity{pid, t.startTime};
}

bool ProcessIdentity::alive() const
{
    SystemThread t;
    return pid > 0 && parseProcStat(readSmallFile("/proc/" + std::to_string(pid) + "/stat"), t) &&
           t.startTime == startTime && t.state != 'Z' && t.state != 'X';
}

const char* entryStateName(EntryState s)
{
    return enumName<EntryState::Reverted>(s, {"applying", "applied", "reverted"});
}

size_t Journal::pending() const
{
    return size_t(std::count_if(entries.begin(), entries.end(),
                                [](const JournalEntry& e) { return e.state != EntryState::Reverted; }));
}

std::string Journal::toText() const
{
    nlohmann::json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["boot_id"] = bootId;
    j["owner"] = {{"pid", owner.pid}, {"start_time", owner.startTime}, {"command", command}};
    if (guardian)
        j["guardian"] = {{"pid", guardian->pid}, {"start_time", guardian->startTime}};
    j["kept"] = kept;
    nlohmann::json changes = nlohmann::json::array();
    for (const JournalEntry& e : entries)
        changes.push_back({{"kind", kindName(e.change.kind)},
                           {"target", e.change.target},
                           {"path", e.change.path},
                           {"from", e.change.from},
                           {"to", e.change.to},
                           {"state", entryStateName(e.state)}});
    j["changes"] = std::move(changes);
    // The replacement character keeps a stray byte in a command line from making the whole journal unwritable.
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string currentBootId()
{
    std::string id = readSmallFile("/proc/sys/kernel/random/boot_id");
    while (!id.empty() && (id.back() == '\n' || id.back() == ' '))
        id.pop_back();
    return id;
}

Expected<Journal> parseJournal(RootFs& fs, std::string_view text)
{
    const ParsedJson parsed = parseJsonText(text, "it");
    if (!parsed.ok())
        return refusedJournal(parsed.error("it is not JSON"));
    const nlohmann::json& j = parsed.value;
    std::vector<std::string> problems;
    JsonFields f(j, problems, "the journal");
    std::string format;
    int version = 0;
    f.string({"format", Presence::Required}, format);
    if (problems.empty() && format != kFormat)
        return refusedJournal("its format is '" + format + "', not " + kFormat);
    f.integer({"version", Presence::Required}, version);
    if (problems.empty() && version != Journal::kVersion)
        return refusedJournal("it is of version " + std::to_string(version) + ", and this rtscope reads version " +
                              std::to_string(Journal::kVersion) + " only");
    Journal journal;
    f.string({"boot_id", Presence::Required}, journal.bootId);
    f.boolean({"kept", Presence::Required}, journal.kept);
    JsonFields owner = f.object({"owner", Presence::Required});
    owner.integer({"pid", Presence::Required}, journal.owner.pid, 1);
    owner.integer({"start_time", Presence::Required}, journal.owner.startTime);
    owner.string({"command"}, journal.command);
    if (f.find({"guardian"})) {
        JsonFields g = f.object({"guardian"});
        ProcessIdentity guardian;
        g.integer({"pid", Presence::Required}, guardian.pid, 1);
        g.integer({"start_time", Presence::Required}, guardian.startTime);
        journal.guardian = guardian;
    }
    f.rejectUnknown({"format", "version", "boot_id", "kept", "owner", "guardian", "changes"});
    f.list(
        {"changes", Presence::Required},
        [&](const nlohmann::json&, size_t i) {
            JsonFields c = f.element("changes", i);
            std::string kind, state;
            JournalEntry e;
            c.string({"kind", Presence::Required}, kind);
            c.string({"target", Presence::Required}, e.change.target);
            c.string({"path", Presence::Required}, e.change.path);
            c.string({"from", Presence::Required}, e.change.from);
            c.string({"to", Presence::Required}, e.change.to);
            c.string({"state", Presence::Required}, state);
            c.rejectUnknown({"kind", "target", "path", "from", "to", "state"});
            if (!problems.empty())
                return false;
            const std::string where = "change " + std::to_string(i + 1) + " (" + kind + " " + e.change.target + ")";
            const std::optional<KnobKind> k = kindFromName(kind);
            const std::optional<EntryState> s = entryStateFrom(state);
            if (!k) {
                problems.push_back("change " + std::to_string(i + 1) + " is of kind '" + kind +
                                   "', which is no kind of knob this rtscope knows");
                return false;
            }
            if (!s) {
                problems.push_back(where + " is in state '" + state + "', not applying, applied or reverted");
                return false;
            }
            e.change.kind = *k;
            e.state = *s;
            Expected<std::unique_ptr<Knob>> knob = makeKnob(fs, e.change, KnobOrigin::Journal);
            if (!knob) {
                problems.push_back(where + ": " + knob.error().message);
                return false;
            }
            e.change = (*knob)->change(); // the canonical form
            journal.entries.push_back(std::move(e));
            return true;
        },
        0, kMaxEntries);
    if (!problems.empty())
        return refusedJournal(problems.front());
    const std::string boot = currentBootId();
    if (journal.bootId != boot)
        return refusedJournal("it was written during another boot (boot id " + journal.bootId + ", now " + boot +
                              "): the kernel has reset what it names since");
    return journal;
}

Error prepareJournalDir(const JournalPaths& paths)
{
    if (::mkdir(paths.dir.c_str(), 0700) != 0 && errno != EEXIST)
        return failure(errno == EACCES || errno == EPERM ? ErrorKind::Permission : ErrorKind::System,
                       "cannot make " + paths.dir + ": " + errnoText(errno));
    struct stat st {};
    if (::lstat(paths.dir.c_str(), &st) != 0)
        return failure(ErrorKind::System, paths.dir + ": " + errnoText(errno));
    if (!S_ISDIR(st.st_mode))
        return failure(ErrorKind::InvalidConfig, paths.dir + " is not a directory (a link, or a file): refused");
    if (const std::string p = ownershipProblem(st, paths.dir); !p.empty())
        return failure(ErrorKind::InvalidConfig, p + ": refused");
    return Error::none();
}

Expected<std::optional<std::string>> readJournalFile(const JournalPaths& paths)
{
    const std::string path = paths.journal();
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT)
        return std::optional<std::string>();
    if (fd < 0 && errno == ELOOP)
        return refusedJournal(path + " is a symbolic link");
    if (fd < 0)
        return failure(errorKindOf(errno), path + ": " + errnoText(errno));
    struct stat st {};
    std::string problem;
    if (::fstat(fd, &st) != 0)
        problem = path + ": " + errnoText(errno);
    else if (!S_ISREG(st.st_mode))
        problem = path + " is not a regular file";
    else if (size_t(st.st_size) > kMaxJournalBytes)
        problem = path + " is larger than 1 MiB";
    else
        problem = ownershipProblem(st, path);
    std::string text;
    if (problem.empty()) {
        text.resize(size_t(st.st_size));
        const ssize_t n = ::read(fd, text.data(), text.size());
        if (n != ssize_t(text.size()))
            problem = path + ": read: " + (n < 0 ? errnoText(errno) : "short");
    }
    ::close(fd);
    if (!problem.empty())
        return refusedJournal(problem);
    return std::optional<std::string>(std::move(text));
}

Error writeJournal(const JournalPaths& paths, const Journal& journal)
{
    return writeFileAtomically(paths.journal(), journal.toText());
}

Error removeJournal(const JournalPaths& paths)
{
    if (::unlink(paths.journal().c_str()) != 0 && errno != ENOENT)
        return failure(ErrorKind::System, "removing " + paths.journal() + ": " + errnoText(errno));
    if (const int dir = ::open(paths.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
        ::fsync(dir); // the removal survives a crash as the writes did
        ::close(dir);
    }
    return Error::none();
}

namespace {

// The journal's temporaries that a doctor killed between writing one and renaming it left behind (AtomicOutputFile
// names them NAME.partial- and six letters): regular files only, in the journal's directory only.
void removeStaleJournalTemporaries(const JournalPaths& paths)
{
    const int dir = ::open(paths.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    const std::string prefix = "doctor.journal.partial-";
    if (DIR* d = ::fdopendir(dir)) {
        std::vector<std::string> stale;
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            struct stat st {};
            if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0 &&
                ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
                stale.push_back(name);
        }
        for (const std::string& name : stale)
            ::unlinkat(dir, name.c_str(), 0);
        ::closedir(d); // closes dir too
    } else {
        ::close(dir);
    }
}

} // namespace

Expected<JournalLock> JournalLock::tryAcquire(const JournalPaths& paths)
{
    const int fd = ::open(paths.lock().c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return failure(errorKindOf(errno), paths.lock() + ": " + errnoText(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(fd);
        return failure(
            err == EWOULDBLOCK ? ErrorKind::Unavailable : ErrorKind::System,
            paths.lock() + ": " +
                (err == EWOULDBLOCK ? std::string("held by another doctor or its guardian") : errnoText(err)));
    }
    removeStaleJournalTemporaries(paths);
    return JournalLock(fd);
}

JournalLock::JournalLock(JournalLock&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
{}

JournalLock& JournalLock::operator=(JournalLock&& other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

JournalLock::~JournalLock()
{
    release();
}

void JournalLock::release()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

JournalStatus journalStatus(RootFs& fs, const JournalPaths& paths, bool holdingLock)
{
    JournalStatus status;
    const std::string journalPath = paths.journal();
    const auto describeOwner = [](const Journal& j) {
        return "PID " + std::to_string(j.owner.pid) + (j.command.empty() ? "" : " (" + j.command + ")");
    };
    // A shared lock taken and dropped at once: it fails only while a doctor (or its guardian) holds its exclusive one.
    bool held = false;
    if (const int fd = holdingLock ? -1 : ::open(paths.lock().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC); fd >= 0) {
        held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        ::close(fd);
    }
    Expected<std::optional<std::string>> text = readJournalFile(paths);
    std::optional<Journal> journal;
    std::string refusal;
    if (!text)
        refusal = text.error().message;
    else if (*text) {
        Expected<Journal> parsed = parseJournal(fs, **text);
        if (parsed)
            journal = std::move(parsed).value();
        else
            refusal = parsed.error().message;
    }
    if (held) {
        status.state = JournalState::Active;
        status.sentence = journal
                              ? "a doctor (" + describeOwner(*journal) + ") has " + std::to_string(journal->pending()) +
                                    " change(s) applied; it, or its guardian, puts them back when it ends"
                              : "a doctor is starting or finishing (" + paths.lock() + " is locked)";
    } else if (!refusal.empty()) {
        status.state = JournalState::Refused;
        status.sentence = "the journal " + journalPath + " is refused: " + refusal +
                          "; nothing was changed. Look at it, put back by hand what it names (docs/doctor.md), "
                          "then remove it";
    } else if (journal) {
        status.state = JournalState::LeftBehind;
        status.sentence = "a journal of " + std::to_string(journal->pending()) + " change(s) was left by " +
                          describeOwner(*journal) + (journal->kept ? ", kept on purpose" : ", which has ended") +
                          ": 'rtscope doctor --undo' puts them back";
    }
    status.journal = std::move(journal);
    return status;
}

} // namespace rtscope::doctor
