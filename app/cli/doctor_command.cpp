// `rtscope doctor` (docs/doctor.md): measures this machine on one CPU, names what makes a real-time thread late, tries
// each run-time fix with an alternated before/after measurement and puts the machine back (engine/doctor/doctor_run.h);
// and its two other entry points:
//   rtscope doctor --undo      restores the machine from a journal left behind (exit 0: nothing to do or restored)
//   rtscope doctor guardian    hidden: the guardian a doctor session starts (engine/doctor/guardian.h)
#include "app/cli/cli.h"
#include "app/cli/command_util.h"

#include "engine/doctor/doctor_run.h"
#include "engine/doctor/guardian.h"
#include "engine/doctor/recipe.h"
#include "engine/doctor/session.h"
#include "engine/formats/output_file.h"
#include "engine/util/clock.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace rtscope::cli {

namespace {

struct DoctorOptions {
    bool undo = false;
    int cpu = -1;
    int priority = 80;
    std::string period = "1ms";
    std::string load;
    bool quick = false;
    bool thorough = false;
    bool noTrials = false;
    bool noise = false;
    std::vector<std::string> only;
    bool keep = false;
    std::string json;
    std::string report;
    std::string recipe;
    bool quiet = false;
    // Hidden, for the tests: another journal directory and another root (a fake /proc and /sys), shorter phases.
    std::string journalDir = doctor::kDefaultJournalDir;
    std::string root = "/";
    std::string baseline;
    std::string phase;
    int pairs = 0;
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

// --recipe DIR: an existing directory that is not a link, or a new one in an existing directory; its files are
// checked like every output before anything runs.
std::vector<std::string> recipeDirProblems(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(dir, ec);
    if (fs::is_symlink(st))
        return {"recipe: '" + dir + "' is a symbolic link; give a directory"};
    if (fs::exists(st) && !fs::is_directory(st))
        return {"recipe: '" + dir + "' exists and is not a directory"};
    if (!fs::exists(st)) {
        const fs::path parent = fs::absolute(dir).parent_path();
        if (!fs::is_directory(parent))
            return {"recipe: the directory '" + parent.string() + "' for '" + dir + "' does not exist"};
        return {};
    }
    std::vector<std::string> problems;
    for (const char* name :
         {"99-rtscope-doctor.conf", "rtscope-doctor-irq.service", "kernel-cmdline.txt", "README.txt"})
        for (const std::string& p : checkOutput("recipe", dir + "/" + name))
            problems.push_back(p);
    return problems;
}

bool writeRecipe(const std::string& dir, const doctor::DoctorReport& report)
{
    namespace fs = std::filesystem;
    bool ok = true;
    for (const doctor::RecipeFile& f : doctor::recipeFiles(report)) {
        const fs::path path = fs::path(dir) / f.name;
        std::error_code ec;
        for (fs::path d = path.parent_path(); !d.empty() && d != fs::path(dir).parent_path(); d = d.parent_path())
            if (fs::is_symlink(fs::symlink_status(d, ec))) {
                say("recipe: " + d.string() + " is a symbolic link; not written");
                return false;
            }
        fs::create_directories(path.parent_path(), ec);
        ok = writeFile(path.string(), f.text) && ok;
    }
    if (ok)
        std::printf("Recipe: %s (nothing installed; README.txt says how)\n", printable(dir).c_str());
    return ok;
}

doctor::DoctorPlan toPlan(const DoctorOptions& o, std::vector<std::string>& problems)
{
    doctor::DoctorPlan p;
    p.cpu = o.cpu;
    p.priority = o.priority;
    readDuration("period", o.period, kNsPerUs, kBareMicroseconds, p.periodNs, problems);
    if (o.load.empty() || o.load == "none")
        p.load = doctor::DoctorLoadKind::None;
    else if (o.load == "hogs")
        p.load = doctor::DoctorLoadKind::Hogs;
    else if (o.load == "io")
        p.load = doctor::DoctorLoadKind::Io;
    else {
        p.load = doctor::DoctorLoadKind::Command;
        p.loadCommand = o.load;
    }
    if (o.quick && o.thorough)
        problems.push_back("quick and thorough exclude each other: give one");
    p.depth = o.quick      ? doctor::DoctorDepth::Quick
              : o.thorough ? doctor::DoctorDepth::Thorough
                           : doctor::DoctorDepth::Default;
    p.phases = doctor::phasePlan(p.depth);
    if (!o.baseline.empty())
        readDuration("baseline-length", o.baseline, kNsPerSec, "e.g. 5s", p.phases.baselineNs, problems);
    if (!o.phase.empty())
        readDuration("phase-length", o.phase, kNsPerSec, "e.g. 1s", p.phases.phaseNs, problems);
    if (o.pairs > 0)
        p.phases.pairs = o.pairs;
    p.tryFixes = !o.noTrials;
    p.noise = o.noise;
    p.only = o.only;
    p.keep = o.keep;
    p.root = o.root;
    p.journal.dir = o.journalDir;
    p.guardian.executable = "/proc/self/exe";
    p.guardian.arguments = {"doctor", "guardian"};
    p.command = commandLine();
    return p;
}

int runDoctor(const DoctorOptions& o)
{
    std::vector<std::string> problems;
    doctor::DoctorPlan plan = toPlan(o, problems);
    const CpuTopology topology = CpuTopology::current();
    for (const std::string& p : plan.validate(topology))
        problems.push_back(p);
    if (!o.recipe.empty())
        for (const std::string& p : recipeDirProblems(o.recipe))
            problems.push_back(p);
    if (!problems.empty())
        return reportInvalid("doctor", problems);

    doctor::DoctorRun run;
    run.setLog([&](const std::string& line) {
        if (!o.quiet)
            say(line);
    });
    if (Error e = run.start(plan, topology)) {
        say(e.message);
        return exitCodeFor(e.kind);
    }
    const int cpu = plan.cpu >= 0 ? plan.cpu : topology.lastUsable();
    std::string shown;
    const int signal = waitForEnd(
        {cpu}, [&] { return !run.running(); },
        [&] {
            const doctor::DoctorProgress p = run.progress();
            if (!o.quiet && p.message != shown && !p.message.empty()) {
                std::fprintf(stderr, "rtscope doctor: [%3.0f %%] %s\n", p.fraction * 100, printable(p.message).c_str());
                shown = p.message;
            }
            return true;
        });
    if (signal)
        say("stopped by signal " + std::to_string(signal) + ": putting everything back");
    run.stop();
    const auto report = run.report();
    if (!report)
        return ExitFailure;
    std::printf("%s", reportTable(*report).c_str());
    bool written = writeJsonFile(o.json, doctor::reportJson(*report));
    if (!o.report.empty())
        written = writeFile(o.report, doctor::reportHtml(*report)) && written;
    if (!o.recipe.empty() && report->baselineDone)
        written = writeRecipe(o.recipe, *report) && written;
    if (!report->error.empty() || !report->restore.empty() || !written)
        return ExitFailure;
    if (signal || report->stopped)
        return ExitFailure;
    // Diagnosed, but the trials this machine needed could not run: without the privilege, 3 like the other
    // commands; refused (a journal appeared meanwhile), 1.
    if (plan.tryFixes && !report->trialsRun && report->trialsWanted > 0)
        return ::geteuid() != 0 ? ExitNoPrivilege : ExitFailure;
    return ExitOk;
}

int run(const DoctorOptions& o)
{
    if (o.guardian->parsed())
        return runGuardianCommand(o);
    return o.undo ? runUndo(o) : runDoctor(o);
}

void addDoctorFlags(CLI::App* sub, DoctorOptions& o)
{
    sub->add_flag("--undo", o.undo,
                  "restore every setting a doctor left changed (a journal in /run/rtscope), then remove the journal");
    noValueBelow(sub->add_option("-a,--cpu", o.cpu, "the CPU to measure and tune (default: the highest usable)"));
    sub->add_option("-p,--priority", o.priority, "the measuring thread's SCHED_FIFO priority, 1..98")
        ->capture_default_str();
    sub->add_option("-i,--period", o.period, "the measuring period, 100us..100ms (bare number: us)")
        ->capture_default_str();
    sub->add_option("--load", o.load,
                    "the load during the whole run: hogs (a CPU hog on the measured CPU), io (a file written and "
                    "synced in a loop) or a shell command (default: what the machine is doing)");
    auto* quick = sub->add_flag("--quick", o.quick, "shorter: 5 s baseline, 3 trials of 3 pairs of 1 s phases");
    sub->add_flag("--thorough", o.thorough,
                  "longer: 30 s baseline, every run-time fix (also those that explained nothing), 5 pairs of 3 s")
        ->excludes(quick);
    sub->add_flag("--no-trials", o.noTrials, "diagnose only: change nothing");
    sub->add_flag("--noise", o.noise,
                  "the workload polls: take the evidence from the noise lab (who takes the CPU from a busy poller) "
                  "instead of the wake-up anatomy");
    sub->add_option("--only", o.only, "try only the finding with this id (repeatable), e.g. irq-36");
    sub->add_flag("--keep", o.keep,
                  "leave the fixes that helped applied until reboot (rtscope doctor --undo puts them back)");
    outputFile(sub->add_option("--json", o.json, "write the findings, fixes and trials as JSON (docs/doctor.md)"));
    outputFile(sub->add_option("--report", o.report,
                               "write a self-contained HTML page (facts, findings, before/after histograms)"));
    sub->add_option("--recipe", o.recipe,
                    "write into this directory what would make the helpful fixes permanent (sysctl.d, a systemd "
                    "unit, kernel command-line words, a tuned profile); nothing is installed");
    sub->add_flag("-q,--quiet", o.quiet, "no progress on standard error, only the table");
    sub->add_option("--journal-dir", o.journalDir, "the journal's directory")->group("");
    sub->add_option("--root", o.root, "the root of /proc and /sys")->group("");
    sub->add_option("--baseline-length", o.baseline, "")->group("");
    sub->add_option("--phase-length", o.phase, "")->group("");
    sub->add_option("--pairs", o.pairs, "")->group("");
    o.guardian = sub->add_subcommand("guardian", "")->group("");
    o.guardian->add_option("--journal-dir", o.journalDir)->required();
    o.guardian->add_option("--root", o.root)->required();
}

} // namespace

const OptionsCommand<DoctorOptions>
    kDoctorCommand("doctor", 75,
                   "Diagnose this machine's real-time latency, try each fix temporarily "
                   "against the baseline, put everything back (--undo: what a doctor left)",
                   addDoctorFlags, run);

} // namespace rtscope::cli
