#pragma once
// What the experiment subcommands share, so that `latency`, `starve`, `drift`, `sleep-floor`, `locks`, `inversion`
// and `sweep` read the same flags the same way and end a run the same way: the flags every one of them has, the
// loop that waits for the end of a run (off the CPUs the run loads), the progress line, and the exports and exit
// code at the end.
#include "app/cli/cli.h"
#include "app/cli/experiment_runs.h"

#include "engine/export/latency_export.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/sched_policy.h"
#include "engine/util/error.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace rtscope::cli {

// ---- Flags ----

/// --json, --csv and -q: the outputs of every experiment subcommand but latency (which has more).
struct TableOutputOptions {
    std::string json;
    std::string csv;
    bool quiet = false;

    RunOutput runOutput() const;
};
/// Registers --json, --csv and -q,--quiet, in that order (last in every subcommand's help).
void addTableOutputOptions(CLI::App* sub, TableOutputOptions& o, const std::string& jsonHelp,
                           const std::string& csvHelp, const std::string& quietHelp);

/// Holds the values of every flag of every subcommand of @p app to the same rules before CLI11 converts them
/// (docs/cli.md, "Flag values"): an explicitly empty text is refused rather than taken for "not given", and an
/// integer flag takes a whole number that fits. Each refusal is one sentence naming the flag and the value, with
/// the flag's own help (its range or rule). Called once, after every subcommand has registered its flags.
void checkFlagValues(CLI::App& app);
/// For a flag whose default rtscope chooses, held inside as a value below @p min ("-1: automatic"): a given value
/// below @p min is refused with the flag's help, so that the internal value cannot be typed. Returns @p option.
CLI::Option* noValueBelow(CLI::Option* option, long long min = 0);

/// The --policy help of the subcommands that run one measuring thread.
/// "other, batch, idle, fifo or rr (default: other; fifo if -p is given)"; with @p deadline, "… rr or deadline …".
std::string policyHelp(bool deadline = false);
/// Registers --policy and -p,--priority.
void addPolicyOptions(CLI::App* sub, std::string& policy, int& priority, const std::string& help = policyHelp());
/// --policy and -p as every subcommand reads them: a known name is taken, an unknown one gets its sentence, and no
/// name with a priority means SCHED_FIFO (as cyclictest -p); otherwise @p dst keeps its default. @p deadline: the
/// subcommand implements SCHED_DEADLINE and takes "deadline" too (latency).
void readPolicy(const std::string& text, int priority, Policy& dst, std::vector<std::string>& problems,
                bool deadline = false);

/// How a duration flag is written, for the sentence when it does not parse.
inline constexpr const char* kBareMicroseconds = "a number with ns, us, ms or s (bare numbers are microseconds)";
/// "FIELD: 'TEXT' is not a duration; use HOW".
std::string notADuration(const std::string& field, const std::string& text, const std::string& how);
/// Parses @p text (a bare number counts @p bareUnitNs) into @p dst, or adds notADuration() to @p problems.
void readDuration(const std::string& field, const std::string& text, int64_t bareUnitNs, const std::string& how,
                  int64_t& dst, std::vector<std::string>& problems);

/// Parses a CPU list flag ("all", or numbers and ranges like 0,2-3, against @p topology's allowed CPUs) into @p dst,
/// or adds "FIELD: 'TEXT' is not a CPU list; …" to @p problems. Whether the CPUs are usable is validate()'s.
void readCpuList(const std::string& field, const std::string& text, const CpuTopology& topology, std::vector<int>& dst,
                 std::vector<std::string>& problems);

/// Adds @p config.validate(@p cpus) to the flags' own @p problems; with any, prints them all ("rtscope CMD: …")
/// and returns exit code 2, else returns @p run(config).
template <class Config, class Run>
int runIfValid(const std::string& command, const Config& config, std::vector<std::string> problems,
               const CpuTopology& cpus, Run&& run)
{
    for (auto& p : config.validate(cpus))
        problems.push_back(std::move(p));
    if (!problems.empty())
        return reportInvalid(command, problems);
    return run(config);
}

// ---- A run ----

/// Prints otherMeasurementWarnings() for @p cpus on stderr ("rtscope CMD: warning: another rtscope (PID …) …").
void warnAboutOtherMeasurements(const std::string& command, const std::vector<int>& cpus);

/// Prints "rtscope CMD: why" for an experiment that did not start; the result carries exitCodeFor(its kind). A start
/// interrupted by a stop signal (ErrorKind::Interrupted) takes the signal, names it and exits 0, nothing written.
RunResult notStarted(const std::string& command, const Error& e);
/// A thread as an experiment starts it (policy, priority, nice, CPU, name), for HeadlessRun::firstThread.
ThreadSpec threadSpec(Policy policy, int priority, int nice, int cpu, const char* name);
/// "# rtscope VERSION CMD: LABEL", the first line of a run.
void printRunHeader(const std::string& command, const std::string& label);

/// How often the wait loop of a run looks at the experiment and for a stop signal.
inline constexpr int kPollMs = 100;
/// Waits until @p done() or a stop signal (kStopSignals: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2), calling
/// @p poll every kPollMs meanwhile;
/// @p poll returning false ends the wait as well. All the while the calling thread is kept off @p busyCpus
/// (ScopedCallerAffinity, which says why: a thread that wakes on a loaded CPU changes what is measured there);
/// its own affinity is back when this returns. Returns the signal, or 0.
int waitForEnd(const std::vector<int>& busyCpus, const std::function<bool()>& done, const std::function<bool()>& poll);
/// waitForEnd() for an engine experiment: until @p exp.finished(), off @p exp.busyCpus(). @p poll returns void
/// (go on) or bool (false: stop waiting).
template <class Experiment, class Poll> int waitForExperiment(const Experiment& exp, Poll&& poll)
{
    return waitForEnd(
        exp.busyCpus(), [&] { return exp.finished(); },
        [&] {
            if constexpr (std::is_void_v<std::invoke_result_t<Poll&>>) {
                poll();
                return true;
            } else {
                return bool(poll());
            }
        });
}

/// The progress shown on stdout while a run lasts: nothing with -q; on a terminal a line redrawn in place at every
/// poll; in a log (stdout not a terminal) a line a second, or nothing for the subcommands that show progress on a
/// terminal only.
class Progress {
public:
    enum class InLog { Nothing, EverySecond };
    Progress(bool quiet, InLog inLog);

    bool tty() const { return m_tty; }
    /// Whether progress is to be shown now.
    bool due() const;
    /// Notes that progress was shown now (by a subcommand that prints its own block, as latency does).
    void shown();
    /// Shows @p line (nothing when it is empty): "\r…\033[K" on a terminal, a line of its own in a log.
    void showLine(const std::string& line);
    /// Erases the progress line on a terminal before the results; nothing with -q.
    void erase() const;

private:
    bool m_quiet;
    bool m_tty;
    InLog m_inLog;
    int64_t m_lastNs = 0;
};

/// "# stopped by Interrupt: partial results follow" when @p signal (non-zero) cut the run short.
void printStoppedBy(int signal);

// ---- Exports and exit code ----

/// @p report with the machine's probe and this command line added ("probe", "cmdline").
nlohmann::json withProbeAndCommandLine(nlohmann::json report);
/// Writes @p report as --json files are written (indented, one newline at the end); true for an empty @p path.
/// On failure says why on stderr and returns false.
bool writeJsonFile(const std::string& path, const nlohmann::json& report);
/// Converts @p recording to CSV in @p csvPath (writeRecordingCsv). @p fileOk is false when the file could not be
/// opened or written; the result says what the reading of the recording gave.
RecordingReadResult writeRecordingCsvFile(const std::string& recording, const std::string& csvPath, bool& fileOk);
/// A sink for the pieces of an output written as it is made.
using ByteSink = std::function<Error(std::string_view bytes)>;
/// Writes what @p produce hands its sink to @p path through an AtomicOutputFile (all of it, or nothing changed): for
/// outputs too large to hold whole (a kernel trace, a received recording). Returns the first error.
[[nodiscard]] Error writeStreamed(const std::string& path, const std::function<Error(const ByteSink&)>& produce);
/// A run's exit code: 1 when it reported @p runError or a file was not @p written, else 0.
int runExitCode(const std::string& runError, bool written);
/// The end of a run with table outputs: writes @p out.json (@p report) and @p out.csv (@p csv(), only built when
/// asked for) and returns runExitCode(@p runError, …).
int writeTableOutputs(const RunOutput& out, const nlohmann::json& report, const std::function<std::string()>& csv,
                      const std::string& runError);

// ---- The whole run ----

/// What a subcommand that ends with a table (drift, sleep-floor, locks, inversion) gives runTable(): the parts
/// of its run that are its own. @p Snapshot is the experiment's.
template <class Snapshot> struct TableRun {
    std::string command;                 ///< "drift": messages say "rtscope drift: …"
    std::function<std::string()> header; ///< after "# rtscope VERSION CMD: ", once started
    std::string headerNote = {}; ///< a line of its own after the header (a remote run's "# target: …"); empty: none
    std::function<RunResult(const Error&)> startError = {};   ///< a start's refusal; empty: notStarted(command, …)
    Progress::InLog progressInLog = Progress::InLog::Nothing; ///< progress when stdout is not a terminal
    std::function<std::string(const Snapshot&)> progress;     ///< the progress line; empty: none this time
    bool stoppedLineWhenQuiet = false; ///< say that a signal cut the run short even with -q (the timer lab does)
    std::function<void(const Snapshot&)> printTable;
    std::function<nlohmann::json(const Snapshot&)> report; ///< what --json writes (RunResult::report)
    std::function<std::string(const Snapshot&)> csv;       ///< what --csv writes
    std::function<std::vector<RunFigure>(const Snapshot&)> figures;
    /// The command's other files (noise's --histfile), after --json and --csv; false when one could not be written.
    std::function<bool(const Snapshot&)> moreOutputs = {};
};

/// A run of @p exp with @p config from start to exit code, the same for every table subcommand: "rtscope CMD:
/// why" if it does not start; the header; progress while waitForExperiment() waits; then the experiment is
/// stopped and the partial or complete results are printed and written (writeTableOutputs()).
template <class Experiment, class Config, class Snapshot>
RunResult runTable(Experiment& exp, const Config& config, const RunOutput& out, const TableRun<Snapshot>& run)
{
    // The main thread is not kept off any CPU before the run starts: its affinity is the process's.
    const CpuTopology topology = CpuTopology::current();
    if (Error e = exp.start(config, topology))
        return run.startError ? run.startError(e) : notStarted(run.command, e);
    RunResult result;
    Progress progress(out.quiet, run.progressInLog);
    if (!out.quiet) {
        printRunHeader(run.command, run.header());
        if (!run.headerNote.empty())
            std::printf("%s\n", run.headerNote.c_str());
    }
    result.signal = waitForExperiment(exp, [&] {
        if (!progress.due())
            return;
        if (auto snap = exp.snapshot())
            progress.showLine(run.progress(*snap));
    });
    exp.stop();
    const auto snap = exp.snapshot();
    if (!snap)
        return result;
    progress.erase();
    if (!out.quiet || run.stoppedLineWhenQuiet)
        printStoppedBy(result.signal);
    run.printTable(*snap);
    result.report = run.report(*snap);
    result.exitCode = writeTableOutputs(
        out, result.report, [&] { return run.csv(*snap); }, snap->error);
    if (run.moreOutputs && !run.moreOutputs(*snap) && result.exitCode == ExitOk)
        result.exitCode = ExitFailure;
    result.figures = run.figures(*snap);
    return result;
}

} // namespace rtscope::cli
