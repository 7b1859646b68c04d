#include "app/cli/command_util.h"

#include "engine/experiments/latency/latency_flags.h"
#include "engine/export/report_json.h"
#include "engine/formats/output_file.h"
#include "engine/formats/probe_json.h"
#include "engine/rt/caller_affinity.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <unistd.h>

namespace rtscope::cli {

RunOutput TableOutputOptions::runOutput() const
{
    // Field by field rather than aggregate initialisation: a field added to RunOutput needs no edit here.
    RunOutput out;
    out.quiet = quiet;
    out.json = json;
    out.csv = csv;
    return out;
}

void addTableOutputOptions(CLI::App* sub, TableOutputOptions& o, const std::string& jsonHelp,
                           const std::string& csvHelp, const std::string& quietHelp)
{
    outputFile(sub->add_option("--json", o.json, jsonHelp));
    outputFile(sub->add_option("--csv", o.csv, csvHelp));
    sub->add_flag("-q,--quiet", o.quiet, quietHelp);
}

namespace {

// " (its help)": the range or rule a refusal gives, in the words of the flag's --help.
std::string ruleOf(const CLI::Option* option)
{
    const std::string help = option->get_description();
    return help.empty() ? std::string() : " (" + help + ")";
}

// The whole number @p text holds: an optional '-' and digits, nothing else (not "1,1", "0x10" or " 5").
std::optional<long long> wholeNumber(const std::string& text, bool& outOfRange)
{
    long long value = 0;
    const char* end = text.data() + text.size();
    const auto [p, ec] = std::from_chars(text.data(), end, value);
    outOfRange = ec == std::errc::result_out_of_range;
    if (ec != std::errc() || p != end)
        return std::nullopt;
    return value;
}

std::string inQuotes(const std::string& text)
{
    return "'" + text + "'";
}

} // namespace

void checkFlagValues(CLI::App& app)
{
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        for (CLI::Option* option : sub->get_options([](const CLI::Option*) { return true; })) {
            const std::string type = option->get_type_name();
            if (type != "TEXT" && type != "INT" && type != "UINT")
                continue; // flags without a value, --help
            option->check(CLI::Validator(
                [option, type](std::string& text) -> std::string {
                    if (text.empty())
                        return "an empty value is not allowed; leave the flag out for its default" + ruleOf(option);
                    if (type == "TEXT")
                        return {};
                    bool outOfRange = false;
                    const std::optional<long long> v = wholeNumber(text, outOfRange);
                    // Every integer flag's range lies well inside int, whatever the variable behind it.
                    if (outOfRange || (v && type == "INT" && (*v > INT_MAX || *v < INT_MIN)))
                        return inQuotes(text) + " is out of range" + ruleOf(option);
                    if (!v)
                        return inQuotes(text) + " is not a whole number" + ruleOf(option);
                    if (type == "UINT" && *v < 0)
                        return inQuotes(text) + " is negative" + ruleOf(option);
                    return {};
                },
                "", "flag value"));
        }
}

CLI::Option* noValueBelow(CLI::Option* option, long long min)
{
    return option->check(CLI::Validator(
        [option, min](std::string& text) -> std::string {
            bool outOfRange = false;
            const std::optional<long long> v = wholeNumber(text, outOfRange);
            if (v && *v < min)
                return inQuotes(text) + " is below " + std::to_string(min) + ruleOf(option) +
                       "; leave the flag out for the default";
            return {};
        },
        "", "no automatic value"));
}

std::string policyHelp(bool deadline)
{
    return latency_flag_help::policy(deadline);
}

void addPolicyOptions(CLI::App* sub, std::string& policy, int& priority, const std::string& policyHelp)
{
    sub->add_option("--policy", policy, policyHelp);
    sub->add_option("-p,--priority", priority, latency_flag_help::priority());
}

void readPolicy(const std::string& text, int priority, Policy& dst, std::vector<std::string>& problems, bool deadline)
{
    if (!text.empty()) {
        if (auto p = deadline ? parseLatencyPolicy(text) : parsePolicy(text))
            dst = *p;
        else
            problems.push_back("policy must be one of " + policyNameList(deadline) + " (got '" + text + "')");
    } else if (priority > 0) {
        dst = Policy::Fifo;
    }
}

std::string notADuration(const std::string& field, const std::string& text, const std::string& how)
{
    return field + ": '" + text + "' is not a duration; use " + how;
}

void readCpuList(const std::string& field, const std::string& text, const CpuTopology& topology, std::vector<int>& dst,
                 std::vector<std::string>& problems)
{
    if (auto list = parseCpuList(text, topology.allowed))
        dst = *list;
    else
        problems.push_back(field + ": '" + text + "' is not a CPU list; use all, or numbers and ranges like 0,2-3");
}

void readDuration(const std::string& field, const std::string& text, int64_t bareUnitNs, const std::string& how,
                  int64_t& dst, std::vector<std::string>& problems)
{
    if (auto d = parseDuration(text, bareUnitNs))
        dst = *d;
    else
        problems.push_back(notADuration(field, text, how));
}

CommandRunner catchingExceptions(const std::string& command, CommandRunner run)
{
    return [command, run = std::move(run)]() -> int {
        try {
            return run();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "rtscope %s: %s\n", command.c_str(), e.what());
            return ExitFailure;
        }
    };
}

void warnAboutOtherMeasurements(const std::string& command, const std::vector<int>& cpus)
{
    for (const std::string& w : otherMeasurementWarnings(cpus, getpid()))
        std::fprintf(stderr, "rtscope %s: warning: %s\n", command.c_str(), w.c_str());
}

ThreadSpec threadSpec(Policy policy, int priority, int nice, int cpu, const char* name)
{
    ThreadSpec spec;
    spec.policy = policy;
    spec.priority = priority;
    spec.nice = nice;
    spec.cpu = cpu;
    spec.name = name;
    return spec;
}

RunResult notStarted(const std::string& command, const Error& e)
{
    RunResult result;
    if (e.kind == ErrorKind::Interrupted) {
        // The signal that interrupted the start is still pending: taken here, so that it is named.
        result.signal = waitForStopSignal(0);
        std::fprintf(stderr, "rtscope %s: stopped by %s before the run started; nothing was measured. %s\n",
                     command.c_str(), result.signal ? strsignal(result.signal) : "a stop request", e.message.c_str());
        result.exitCode = exitCodeFor(e.kind);
        return result;
    }
    std::fprintf(stderr, "rtscope %s: %s\n", command.c_str(), e.message.c_str());
    result.exitCode = exitCodeFor(e.kind);
    return result;
}

void printRunHeader(const std::string& command, const std::string& label)
{
    std::printf("# rtscope %s %s: %s\n", RTSCOPE_VERSION, command.c_str(), label.c_str());
}

int waitForEnd(const std::vector<int>& busyCpus, const std::function<bool()>& done, const std::function<bool()>& poll)
{
    // Restored before the caller stops the experiment, and before the next phase of a preset reads the topology.
    const ScopedCallerAffinity offTheBusyCpus(busyCpus);
    while (!done()) {
        if (const int signal = waitForStopSignal(kPollMs))
            return signal;
        if (!poll())
            break;
    }
    return 0;
}

Progress::Progress(bool quiet, InLog inLog)
    : m_quiet(quiet)
    , m_tty(isatty(STDOUT_FILENO))
    , m_inLog(inLog)
{}

bool Progress::due() const
{
    if (m_quiet)
        return false;
    return m_tty || (m_inLog == InLog::EverySecond && nowNs() - m_lastNs >= kNsPerSec);
}

void Progress::shown()
{
    m_lastNs = nowNs();
}

void Progress::showLine(const std::string& line)
{
    if (line.empty())
        return;
    if (m_tty)
        std::printf("\r%s\033[K", line.c_str());
    else
        std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    shown();
}

void Progress::erase() const
{
    if (m_tty && !m_quiet)
        std::printf("\r\033[K");
}

void printStoppedBy(int signal)
{
    if (signal)
        std::printf("# stopped by %s: partial results follow\n", strsignal(signal));
}

nlohmann::json withProbeAndCommandLine(nlohmann::json report)
{
    report["probe"] = toJson(probeSystem());
    report["cmdline"] = commandLine();
    return report;
}

bool writeJsonFile(const std::string& path, const nlohmann::json& report)
{
    return path.empty() || writeFile(path, report.dump(2) + "\n");
}

RecordingReadResult writeRecordingCsvFile(const std::string& recording, const std::string& csvPath, bool& fileOk)
{
    AtomicOutputFile csv;
    Error e = csv.open(csvPath);
    const RecordingReadResult r = e ? RecordingReadResult{} : writeRecordingCsv(recording, csv.stream());
    // A recording that could not be read at all leaves no CSV (nor replaces an older one).
    if (!e && !r.headerRead)
        csv.discard();
    else if (!e)
        e = csv.commit();
    if (e)
        std::fprintf(stderr, "rtscope: %s\n", e.message.c_str());
    fileOk = !e;
    return r;
}

Error writeStreamed(const std::string& path, const std::function<Error(const ByteSink&)>& produce)
{
    AtomicOutputFile file;
    Error e = file.open(path);
    if (!e)
        e = produce([&](std::string_view bytes) { return file.write(bytes); });
    if (!e)
        e = file.commit();
    if (e)
        file.discard();
    return e;
}

int runExitCode(const std::string& runError, bool written)
{
    return runError.empty() && written ? ExitOk : ExitFailure;
}

int writeTableOutputs(const RunOutput& out, const nlohmann::json& report, const std::function<std::string()>& csv,
                      const std::string& runError)
{
    bool written = writeJsonFile(out.json, report);
    if (!out.csv.empty())
        written = writeFile(out.csv, csv()) && written;
    return runExitCode(runError, written);
}

} // namespace rtscope::cli
