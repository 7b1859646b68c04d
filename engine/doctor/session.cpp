#include "engine/doctor/session.h"

#include <algorithm>
#include <unistd.h>

namespace rtscope::doctor {

namespace {

std::string changeText(const KnobChange& c)
{
    return std::string(kindName(c.kind)) + " " + c.target + ": " + (c.from.empty() ? "''" : c.from) + " -> " +
           (c.to.empty() ? "''" : c.to);
}

Error joined(const std::vector<std::string>& sentences)
{
    if (sentences.empty())
        return Error::none();
    return failure(ErrorKind::System, joinErrors(sentences));
}

} // namespace

DoctorSession::DoctorSession(RootFs& fs, Options options, JournalLock lock)
    : m_fs(fs)
    , m_options(std::move(options))
    , m_lock(std::move(lock))
{}

Expected<std::unique_ptr<DoctorSession>> DoctorSession::begin(RootFs& fs, Options options)
{
    if (Error e = prepareJournalDir(options.paths))
        return e;
    Expected<JournalLock> lock = JournalLock::tryAcquire(options.paths);
    if (!lock) {
        if (lock.error().kind != ErrorKind::Unavailable)
            return lock.error();
        const JournalStatus status = journalStatus(fs, options.paths);
        return failure(ErrorKind::Unavailable, status.sentence.empty() ? lock.error().message : status.sentence);
    }
    // Under the lock: a journal here was left behind, or is refused; either way a person (or --undo) goes first.
    const JournalStatus status = journalStatus(fs, options.paths, true);
    if (status.state == JournalState::LeftBehind || status.state == JournalState::Refused)
        return failure(ErrorKind::Unavailable, status.sentence);

    std::unique_ptr<DoctorSession> s(new DoctorSession(fs, std::move(options), std::move(lock).value()));
    s->m_journal.bootId = currentBootId();
    s->m_journal.owner = ProcessIdentity::self();
    s->m_journal.command = s->m_options.command;
    if (Error e = s->save())
        return e;
    Expected<std::unique_ptr<Guardian>> guardian = Guardian::start(s->m_options.guardian, s->m_options.paths, fs.root(),
                                                                   s->m_lock.fd(), s->m_options.guardianReadyTimeoutMs);
    if (!guardian) {
        s->m_finished = true;
        (void)removeJournal(s->m_options.paths); // nothing was changed; a failed removal leaves an empty journal
        return guardian.error();
    }
    s->m_guardian = std::move(guardian).value();
    s->m_journal.guardian = s->m_guardian->identity();
    if (Error e = s->save()) {
        s->m_finished = true;
        (void)s->m_guardian->release(); // nothing changed: its exit code says nothing more than e
        return e;
    }
    return s;
}

DoctorSession::~DoctorSession()
{
    if (m_finished)
        return;
    if (Error e = finish(); e && m_options.report)
        m_options.report(e.message);
}

Error DoctorSession::save()
{
    return writeJournal(m_options.paths, m_journal);
}

JournalEntry* DoctorSession::entryOf(const std::string& id)
{
    // The last entry of that id: a knob reverted and applied again has two.
    for (auto it = m_journal.entries.rbegin(); it != m_journal.entries.rend(); ++it)
        if (std::string(kindName(it->change.kind)) + ":" + it->change.target == id)
            return &*it;
    return nullptr;
}

Error DoctorSession::apply(std::unique_ptr<Knob> knob)
{
    if (m_finished)
        return failure(ErrorKind::System, "the doctor's session has ended: nothing more is changed");
    if (!m_guardian->alive())
        return failure(ErrorKind::System, "the guardian (PID " + std::to_string(m_guardian->identity().pid) +
                                              ") has exited: nothing more is changed without it");
    const std::string id = knob->id();
    if (std::any_of(m_applied.begin(), m_applied.end(), [&](const auto& k) { return k->id() == id; }))
        return failure(ErrorKind::InvalidConfig, knob->label() + " is applied already");
    if (Error e = knob->capture())
        return e;
    m_journal.entries.push_back({knob->change(), EntryState::Applying});
    if (Error e = save()) {
        m_journal.entries.pop_back(); // not journaled, so not made
        return e;
    }
    JournalEntry& entry = m_journal.entries.back();
    if (Error e = knob->apply()) {
        // A refused write changed nothing, but a value that reads back otherwise (an invalid partition) did.
        if (Error r = knob->revert()) {
            entry.state = EntryState::Applied;
            (void)save(); // the entry stays "applying" if this fails: --undo treats both alike
            m_applied.push_back(std::move(knob));
            return failure(e.kind, e.message + "; putting it back failed too: " + r.message);
        }
        entry.state = EntryState::Reverted;
        if (Error s = save())
            return failure(e.kind, e.message + "; " + s.message);
        return e;
    }
    entry.state = EntryState::Applied;
    m_applied.push_back(std::move(knob));
    return save();
}

Error DoctorSession::applyAll(std::vector<std::unique_ptr<Knob>> knobs)
{
    std::vector<std::string> done;
    for (std::unique_ptr<Knob>& k : knobs) {
        const std::string id = k->id();
        if (Error e = apply(std::move(k))) {
            std::vector<std::string> problems{e.message};
            for (auto it = done.rbegin(); it != done.rend(); ++it)
                if (Error r = revert(*it))
                    problems.push_back(r.message);
            return failure(e.kind, joinErrors(problems));
        }
        done.push_back(id);
    }
    return Error::none();
}

Error DoctorSession::revert(const std::string& id)
{
    const auto it = std::find_if(m_applied.begin(), m_applied.end(), [&](const auto& k) { return k->id() == id; });
    if (it == m_applied.end())
        return failure(ErrorKind::InvalidConfig, "'" + id + "' is not applied");
    if (Error e = (*it)->revert())
        return failure(e.kind, e.message + " (by hand: " + (*it)->undoCommand() + ")");
    if (JournalEntry* entry = entryOf(id))
        entry->state = EntryState::Reverted;
    m_applied.erase(it);
    return save();
}

Error DoctorSession::revertAll()
{
    std::vector<std::string> problems;
    std::vector<std::string> ids;
    for (const auto& k : m_applied)
        ids.push_back(k->id());
    for (auto it = ids.rbegin(); it != ids.rend(); ++it)
        if (Error e = revert(*it))
            problems.push_back(e.message);
    return joined(problems);
}

Error DoctorSession::finish()
{
    return end(false);
}

Error DoctorSession::keep()
{
    for (const auto& k : m_applied)
        if (k->kind() == KnobKind::CpuDmaLatency)
            return failure(ErrorKind::InvalidConfig,
                           k->label() + " ends with this process: revert it before keeping the other changes");
    return end(true);
}

Error DoctorSession::end(bool kept)
{
    if (m_finished)
        return Error::none();
    std::vector<std::string> problems;
    if (!kept) {
        if (Error e = revertAll())
            problems.push_back(e.message);
    } else {
        m_journal.kept = true;
        if (Error e = save())
            problems.push_back(e.message);
    }
    // The journal goes only when nothing it names is still applied (or kept on purpose): otherwise it is the record
    // --undo and a person work from.
    if (!kept && m_applied.empty())
        if (Error e = removeJournal(m_options.paths))
            problems.push_back(e.message);
    if (Error e = m_guardian->release())
        problems.push_back(e.message);
    m_finished = true;
    m_lock.release();
    if (!kept && !m_applied.empty()) {
        std::vector<std::string> left;
        for (const auto& k : m_applied)
            left.push_back(changeText(k->change()) + " (by hand: " + k->undoCommand() + ")");
        problems.push_back("still applied, and in the journal " + m_options.paths.journal() + ": " + joinErrors(left));
    }
    return joined(problems);
}

std::vector<const Knob*> DoctorSession::applied() const
{
    std::vector<const Knob*> out;
    for (const auto& k : m_applied)
        out.push_back(k.get());
    return out;
}

UndoReport undoJournal(RootFs& fs, const JournalPaths& paths, const std::optional<ProcessIdentity>& guardianOf)
{
    UndoReport report;
    std::optional<JournalLock> lock;
    if (!guardianOf) {
        if (::access(paths.dir.c_str(), F_OK) != 0)
            return report; // no directory: nothing was ever journaled here
        Expected<JournalLock> l = JournalLock::tryAcquire(paths);
        if (!l) {
            report.outcome = l.error().kind == ErrorKind::Unavailable ? UndoReport::Outcome::Active
                                                                      : UndoReport::Outcome::Incomplete;
            const JournalStatus status = journalStatus(fs, paths);
            report.sentence = status.state == JournalState::Active ? status.sentence : l.error().message;
            return report;
        }
        lock = std::move(l).value();
    }
    Expected<std::optional<std::string>> text = readJournalFile(paths);
    Expected<Journal> journal = text && *text ? parseJournal(fs, **text) : Expected<Journal>(Journal{});
    if (!text || !journal) {
        report.outcome = UndoReport::Outcome::Refused;
        report.sentence = "the journal " + paths.journal() +
                          " is refused: " + (!text ? text.error() : journal.error()).message + "; nothing was changed";
        return report;
    }
    if (!*text)
        return report;
    if (guardianOf && journal->owner != *guardianOf) {
        report.outcome = UndoReport::Outcome::Refused;
        report.sentence = "the journal " + paths.journal() + " belongs to PID " + std::to_string(journal->owner.pid) +
                          ", not to the doctor this guardian watched (PID " + std::to_string(guardianOf->pid) +
                          "); nothing was changed";
        return report;
    }
    std::vector<std::string> problems;
    bool any = false;
    for (auto it = journal->entries.rbegin(); it != journal->entries.rend(); ++it) {
        if (it->state == EntryState::Reverted)
            continue;
        any = true;
        Expected<std::unique_ptr<Knob>> knob = makeKnob(fs, it->change, KnobOrigin::Journal);
        if (!knob) { // parseJournal() made the same check: only a changed machine gets here
            problems.push_back(changeText(it->change) + ": " + knob.error().message);
            continue;
        }
        if (Error e = (*knob)->revert()) {
            problems.push_back(e.message + " (by hand: " + (*knob)->undoCommand() + ")");
            report.lines.push_back(changeText(it->change) + " (NOT restored)");
            continue;
        }
        it->state = EntryState::Reverted;
        report.lines.push_back(std::string(kindName(it->change.kind)) + " " + it->change.target + ": " + it->change.to +
                               " -> " + it->change.from + " (restored)");
        if (Error e = writeJournal(paths, *journal))
            problems.push_back(e.message);
    }
    if (!problems.empty()) {
        report.outcome = UndoReport::Outcome::Incomplete;
        report.sentence = "not everything could be put back; the journal " + paths.journal() +
                          " stays and names what is left: " + joinErrors(problems);
        return report;
    }
    if (Error e = removeJournal(paths)) {
        report.outcome = UndoReport::Outcome::Incomplete;
        report.sentence = e.message;
        return report;
    }
    report.outcome = any ? UndoReport::Outcome::Restored : UndoReport::Outcome::NothingToDo;
    return report;
}

} // namespace rtscope::doctor
