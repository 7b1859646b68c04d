// `rtscope doctor`: measure the machine, diagnose, try each run-time fix with an alternated measurement, keep or revert
// (docs/doctor.md). Built so far: the safety underneath every trial (engine/doctor: knobs, the undo journal, the
// guardian) and its two entry points here:
//   rtscope doctor --undo      restores the machine from a journal left behind (exit 0: nothing to do or restored)
//   rtscope doctor guardian    hidden: the guardian a doctor session starts (engine/doctor/guardian.h)
// The measuring, diagnosis and trial loop come next: runTrials() below, on a DoctorSession (session.h), with its
// flags added to DoctorOptions and addDoctorCommand().
#include "app/cli/cli.h"

#include "engine/doctor/guardian.h"
#include "engine/doctor/session.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <memory>

namespace rtscope::cli {

namespace {

struct DoctorOptions {
    bool undo = false;
    // Hidden, for the tests: another journal directory and another root (a fake /proc and /sys).
    std::string journalDir = doctor::kDefaultJournalDir;
    std::string root = "/";
    CLI::App* guardian = nullptr; ///< the hidden subcommand, parsed or not
};

void say(const std::string& line)
{
    std::fprintf(stderr, "rtscope doctor: %s\n", printable(line).c_str());
}

int runUndo(const DoctorOptions& o)
{
    doctor::RootFs fs(o.root);
    doctor::JournalPaths paths;
    paths.dir = o.journalDir;
    const doctor::UndoReport r = doctor::undoJournal(fs, paths);
    for (const std::string& line : r.lines)
        std::printf("%s\n", printable(line).c_str());
    switch (r.outcome) {
    case doctor::UndoReport::Outcome::NothingToDo:
        std::printf("Nothing to undo: no change of the doctor is left on this machine.\n");
        return ExitOk;
    case doctor::UndoReport::Outcome::Restored:
        std::printf("Restored %zu setting(s); the journal %s is removed.\n", r.lines.size(), paths.journal().c_str());
        return ExitOk;
    case doctor::UndoReport::Outcome::Refused:
        say(r.sentence);
        return ExitBadInput;
    case doctor::UndoReport::Outcome::Active:
    case doctor::UndoReport::Outcome::Incomplete:
        say(r.sentence);
        return ExitFailure;
    }
    return ExitFailure;
}

int runGuardianCommand(const DoctorOptions& o)
{
    doctor::GuardianOptions g;
    g.paths.dir = o.journalDir;
    g.root = o.root;
    g.say = [](const std::string& line) {
        std::fprintf(stderr, "rtscope doctor guardian: %s\n", printable(line).c_str());
    };
    return doctor::runGuardian(g);
}

// The measurement, diagnosis and trials (issue: `rtscope doctor` with --cpu, --load, --keep, --json, --report).
int runTrials(const DoctorOptions&)
{
    say("only --undo is available so far: the measurement, diagnosis and trials are not built yet");
    return ExitBadInput;
}

Command addDoctorCommand(CLI::App& app)
{
    auto o = std::make_shared<DoctorOptions>();
    auto* sub = app.add_subcommand("doctor", "Diagnose this machine's real-time latency and try fixes (--undo: put "
                                             "back what a doctor left changed)");
    sub->add_flag("--undo", o->undo,
                  "restore every setting a doctor left changed (a journal in /run/rtscope), then remove the journal");
    sub->add_option("--journal-dir", o->journalDir, "the journal's directory")->group("");
    sub->add_option("--root", o->root, "the root of /proc and /sys")->group("");
    o->guardian = sub->add_subcommand("guardian", "")->group("");
    o->guardian->add_option("--journal-dir", o->journalDir)->required();
    o->guardian->add_option("--root", o->root)->required();
    return {sub, [o] {
                if (o->guardian->parsed())
                    return runGuardianCommand(*o);
                return o->undo ? runUndo(*o) : runTrials(*o);
            }};
}

} // namespace

const CommandRegistration kDoctorRegistration("doctor", 75, &addDoctorCommand);

} // namespace rtscope::cli
