// `rtscope latency`: cyclictest's measurement with rtscope's summary, histogram and JSON output.
#include "app/cli/anatomy_output.h"
#include "app/cli/command_util.h"
#include "app/cli/fail_limit.h"
#include "app/cli/latency_options.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/latency/latency_flags.h"
#include "engine/export/latency_export.h"
#include "engine/export/report_json.h"
#include "engine/export/run_identity.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/formats/output_file.h"
#include "engine/formats/probe_json.h"
#include "engine/formats/scratch_dir.h"
#include "engine/recording/recording_writer.h"
#include "engine/remote/agent_auth.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace rtscope::cli {

namespace {

// The flags latency shares with monitor and sweep (app/cli/latency_options.h): policy, priority, period, hogs, CPU(s).
constexpr LatencyFlagSet kLatencyFlags{.policy = true,
                                       .deadline = true,
                                       .cpus = true,
                                       .hogsHelp = "CPU-hog threads on each measuring CPU (or on --hog-cpu), 0..256"};

struct LatencyOptions {
    LatencyThreadFlags thread; ///< --policy, -p, -i, --hogs, -a, --cpus
    int nice = 0;
    std::string runtime;  ///< --runtime, policy deadline
    std::string deadline; ///< --deadline, policy deadline (default: the period)
    std::string hogPolicy = "other";
    int hogNice = 0;
    int hogCpu = -1;
    std::string waiter = "abs";
    std::string duration;
    uint64_t samples = 0;
    const CLI::Option* samplesFlag = nullptr; ///< whether -l was given: 0 is "until stopped" inside
    int histogram = -1;
    std::string histfile;
    std::string json;
    std::string csv;
    std::string record;
    bool quiet = false;
    bool dmaLatency = false;
    bool trace = false;
    std::string traceThreshold;
    int traceTop = LatencyConfig{}.traceTop;
    std::string traceDat;
    const CLI::Option* traceThresholdFlag = nullptr; ///< whether they were given: without --trace they are refused
    const CLI::Option* traceTopFlag = nullptr;
    FailLimitOptions limit; ///< --fail-above, --fail-percentile (app/cli/fail_limit.h)
    RemoteTarget target;    ///< --target, --target-cmd, …: the run happens in an agent (app/cli/remote_latency.cpp)
};

constexpr int kDefaultHistogramUs = 10000;

// Builds the config from the flags. Unit and name errors are reported here; every range is validate()'s.
LatencyConfig toConfig(const LatencyOptions& o, std::vector<std::string>& problems)
{
    LatencyConfig c;
    readLatencyOptions(o.thread, kLatencyFlags, c, problems);
    c.nice = o.nice;
    if (!o.runtime.empty())
        readDuration("runtime", o.runtime, kNsPerUs, kBareMicroseconds, c.runtimeNs, problems);
    if (!o.deadline.empty())
        readDuration("deadline", o.deadline, kNsPerUs, kBareMicroseconds, c.deadlineNs, problems);
    if (auto p = parsePolicy(o.hogPolicy))
        c.hogPolicy = *p;
    else
        problems.push_back("hog-policy must be one of other, batch, idle (got '" + o.hogPolicy + "')");
    c.hogNice = o.hogNice;
    LatencyFlagText hogsAndWaiter;
    hogsAndWaiter.hogCpu = o.hogCpu;
    hogsAndWaiter.waiter = o.waiter;
    applyLatencyFlags(hogsAndWaiter, {}, c, problems);
    // 0 means "until stopped" inside; on the command line that is leaving -D and -l out, and a given 0 is a length
    // out of range.
    if (!o.duration.empty()) {
        const size_t before = problems.size();
        readDuration("duration", o.duration, kNsPerSec, "e.g. 10s, 500ms (bare numbers are seconds)", c.durationNs,
                     problems);
        if (problems.size() == before && c.durationNs == 0)
            problems.push_back(LatencyConfig::durationProblem(0));
    }
    c.maxSamples = o.samples;
    if (o.samplesFlag && o.samplesFlag->count() > 0 && o.samples == 0)
        problems.push_back(LatencyConfig::samplesProblem(0));
    const bool wantsBins = !o.histfile.empty() || !o.json.empty();
    c.histogramUs = o.histogram >= 0 ? o.histogram : (wantsBins ? kDefaultHistogramUs : 0);
    if (!o.histfile.empty() && c.histogramUs == 0)
        problems.push_back("histfile needs histogram bins: give --histogram US greater than 0");
    c.dmaLatency = o.dmaLatency;
    // The anatomy (docs/experiments/anatomy.md): the ranges are validate()'s; what only the command line can get
    // wrong is said here.
    c.trace = o.trace;
    const bool thresholdGiven = o.traceThresholdFlag && o.traceThresholdFlag->count() > 0;
    const bool topGiven = o.traceTopFlag && o.traceTopFlag->count() > 0;
    if (!o.trace && thresholdGiven)
        problems.push_back("trace-threshold needs --trace: it says which traced wake-ups to keep");
    if (!o.trace && topGiven)
        problems.push_back("trace-top needs --trace: it says how many traced wake-ups to keep");
    if (!o.trace && !o.traceDat.empty())
        problems.push_back(
            "trace-dat needs --trace: it writes the kernel trace that --trace records (got --trace-dat '" + o.traceDat +
            "' without --trace)");
    if (thresholdGiven) {
        const size_t before = problems.size();
        readDuration("trace-threshold", o.traceThreshold, kNsPerUs, kBareMicroseconds, c.traceThresholdNs, problems);
        // 0 is "no threshold" inside; on the command line that is leaving the flag out.
        if (problems.size() == before && c.traceThresholdNs == 0)
            problems.push_back("trace-threshold must be more than 0 (got 0); leave --trace-threshold out to keep only "
                               "the worst wake-ups (--trace-top)");
    }
    c.traceTop = o.traceTop;
    return c;
}

long us(int64_t ns)
{
    return long(ns / 1000);
} // truncated, as cyclictest's calcdiff

// One line per measuring thread, cyclictest's layout:
// "T: 0 ( 2604) P:95 I:1000 C: 349868 Min:      4 Act:    6 Avg:    5 Max:      35"
// (A --target-cmd run prints its agent's figures with the same line: latencyStatusLine below.)
std::string formatStatusLine(size_t thread, int tid, int priority, int64_t periodNs, uint64_t samples, int64_t minNs,
                             int64_t lastNs, double meanNs, int64_t maxNs)
{
    char buf[200];
    std::snprintf(buf, sizeof buf, "T:%2d (%5d) P:%2d I:%ld C:%7lu Min:%7ld Act:%5ld Avg:%5ld Max:%8ld", int(thread),
                  tid, priority, long(periodNs / 1000), (unsigned long)samples, us(minNs), us(lastNs),
                  long(meanNs / 1000), us(maxNs));
    return buf;
}

std::vector<std::string> statusLines(const LatencySnapshot& s)
{
    std::vector<std::string> lines;
    for (size_t i = 0; i < s.threads.size(); ++i) {
        const LatencyThreadStats& t = s.threads[i];
        lines.push_back(formatStatusLine(i, t.tid, s.config.priority, s.config.periodNs, t.samples, t.histogram.min(),
                                         t.lastNs, t.histogram.mean(), t.histogram.max()));
    }
    return lines;
}

void printStatusLines(const std::vector<std::string>& lines, bool tty, bool first)
{
    // On a terminal the block is redrawn in place (cursor up over the previous block), as cyclictest does.
    if (tty && !first)
        std::printf("\033[%zuA", lines.size());
    for (const auto& l : lines)
        std::printf("%s%s\n", l.c_str(), tty ? "\033[K" : "");
    std::fflush(stdout);
}

void printStatus(const LatencySnapshot& s, bool tty, bool first)
{
    printStatusLines(statusLines(s), tty, first);
}

std::string fmtUs(int64_t ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", double(ns) / 1000.0);
    return buf;
}

void printSummary(const LatencySnapshot& s)
{
    for (const auto& t : s.threads) {
        const Histogram& h = t.histogram;
        std::printf("\nSummary: %s, CPU %d, %llu samples in %.2f s\n", s.config.label().c_str(), t.cpu,
                    (unsigned long long)t.samples, double(s.publishedNs - s.startNs) / 1e9);
        if (h.count() == 0) {
            std::printf("  no samples\n");
            continue;
        }
        std::printf("  latency (us)  min %s  avg %.1f  max %s\n", fmtUs(h.min()).c_str(), h.mean() / 1000.0,
                    fmtUs(h.max()).c_str());
        std::printf("  percentiles   p50 %s  p90 %s  p99 %s  p99.9 %s  p99.99 %s\n", fmtUs(h.percentile(50)).c_str(),
                    fmtUs(h.percentile(90)).c_str(), fmtUs(h.percentile(99)).c_str(), fmtUs(h.percentile(99.9)).c_str(),
                    fmtUs(h.percentile(99.99)).c_str());
        std::printf("  skipped periods %llu   dropped samples %llu   sequence gaps %llu\n",
                    (unsigned long long)t.skipped, (unsigned long long)t.drops, (unsigned long long)t.seqGaps);
        if (const size_t i = size_t(&t - s.threads.data()); i < s.overruns.size())
            std::printf("  overruns      %s (SIGXCPU: the thread ran past its runtime in a period)\n",
                        s.overruns[i].counted ? std::to_string(s.overruns[i].overruns).c_str()
                                              : s.overruns[i].notCounted.c_str());
    }
    if (s.config.hogs > 0)
        std::printf("  hog work      %.3g iterations (%.3g per second, %d hogs)\n", double(s.hogIterations),
                    s.hogIterationsPerSec, s.config.hogs);
    std::printf("  memory        %s\n", s.memoryLock.c_str());
    std::printf("  cpu_dma_latency %s\n", s.dmaLatencyNote.c_str());
    if (!s.error.empty())
        std::printf("  error         %s\n", s.error.c_str());
}

int run(const LatencyOptions& o)
{
    std::vector<std::string> problems;
    const LatencyConfig config = toConfig(o, problems);
    const std::optional<LatencyLimit> limit = readFailLimit(o.limit, problems);
    const std::vector<std::string> targetProblems = remoteTargetProblems(o.target);
    problems.insert(problems.end(), targetProblems.begin(), targetProblems.end());
    if (o.target.given()) {
        // The agent checks the config against the target's CPUs and privileges (validate(), the same sentences).
        // --trace runs there and its anatomy comes back in the recording stream (docs/remote.md); --trace-dat would
        // need the target's raw trace here, which the link does not carry.
        if (o.trace && !o.traceDat.empty())
            problems.push_back("trace-dat cannot be used with a remote target: the raw kernel trace stays on the "
                               "target (got --trace-dat '" +
                               o.traceDat + "'); run `rtscope latency --trace --trace-dat FILE` there");
        if (!problems.empty())
            return reportInvalid("latency", problems);
        RunOutput out;
        out.quiet = o.quiet;
        out.json = o.json;
        out.csv = o.csv;
        out.histfile = o.histfile;
        out.record = o.record;
        return runRemoteLatency(config, out, limit, o.target, o.thread.cpus).exitCode;
    }
    return runIfValid("latency", config, std::move(problems), CpuTopology::current(), [&](const LatencyConfig& c) {
        return runLatency(c, RunOutput{o.quiet, o.json, o.csv, o.histfile, 0, o.record, o.traceDat, nullptr}, limit)
            .exitCode;
    });
}

// --csv without --record still goes through a recording (a temporary one): one path from samples to CSV. It lives in
// a scratch directory that names this process, so that what a run killed with -9 leaves is removed by the next.
std::string scratchPattern()
{
    return (std::filesystem::temp_directory_path() / "rtscope-latency-XXXXXX").string();
}

// --trace-dat: the run's raw kernel trace as a trace-cmd .dat, put in place as every output is (AtomicOutputFile).
bool writeTraceDat(const TraceDatCapture& capture, const std::string& path, bool quiet)
{
    if (const Error e = writeStreamed(path, [&](const ByteSink& sink) { return capture.writeDat(sink); })) {
        std::fprintf(stderr, "rtscope latency: cannot write %s: %s\n", path.c_str(), e.message.c_str());
        return false;
    }
    if (!quiet)
        std::printf("\nKernel trace: %s (trace-cmd report %s, or KernelShark)\n", path.c_str(), path.c_str());
    return true;
}

// What a recording whose writing failed (a full disk) kept: the run up to its last whole block written, a valid
// recording that `rtscope replay` reads (docs/recording-format.md). @p named: the file as the user named it.
void sayWhatWasKept(const RecordingWriter::Status& st, const std::string& named)
{
    if (!st.cutShort) {
        std::fprintf(stderr, "rtscope latency: nothing of the run could be kept in %s\n", named.c_str());
        return;
    }
    std::fprintf(stderr,
                 "rtscope latency: %s keeps the run's first %.3f s: %llu samples, cut at the last whole block written "
                 "before the failure and %s; the %llu samples after it are counted as not kept\n",
                 named.c_str(), double(st.keptUntilNs) / 1e9, (unsigned long long)st.samples,
                 st.endBlock ? "ended there (rtscope replay reads it)"
                             : "without its end block (rtscope replay reads it as truncated)",
                 (unsigned long long)st.lost);
}

bool finishRecording(const RecordingWriter& recorder, const RunOutput& out)
{
    const RecordingWriter::Status st = recorder.status();
    bool ok = st.complete;
    const std::string named = !out.record.empty() ? st.path : "the recording behind --csv";
    if (!st.error.empty()) {
        std::fprintf(stderr, "rtscope latency: recording: %s\n", st.error.c_str());
        sayWhatWasKept(st, named);
    }
    const bool haveFile = st.complete || st.cutShort;
    if (st.lostBehind) {
        std::fprintf(stderr, "rtscope latency: the recorder could not keep %llu samples (its writer fell behind)%s\n",
                     (unsigned long long)st.lostBehind,
                     !haveFile         ? ""
                     : out.csv.empty() ? "; the recording says so"
                                       : "; the recording and the CSV say so");
        ok = false;
    }
    if (!out.csv.empty() && haveFile) {
        bool fileOk = false;
        const RecordingReadResult r = writeRecordingCsvFile(st.path, out.csv, fileOk);
        if (!fileOk || !r.headerRead) {
            std::fprintf(stderr, "rtscope latency: cannot write %s%s%s\n", out.csv.c_str(), r.error.empty() ? "" : ": ",
                         r.error.c_str());
            ok = false;
        } else if (st.cutShort) {
            std::fprintf(stderr,
                         "rtscope latency: %s holds the %llu samples the recording kept, not the %llu after the "
                         "write failed (its first line says so)\n",
                         out.csv.c_str(), (unsigned long long)r.samples, (unsigned long long)st.lost);
        } else if (!r.ok) {
            ok = false;
        }
    } else if (!out.csv.empty()) {
        std::fprintf(stderr, "rtscope latency: %s was not written: it is made from the run's recording, and %s\n",
                     out.csv.c_str(),
                     st.error.empty() ? "the recording did not end" : "nothing of the recording could be kept");
        ok = false;
    }
    return ok;
}

} // namespace

void printLatencySummary(const LatencySnapshot& snapshot)
{
    printSummary(snapshot);
}

std::string latencyStatusLine(size_t thread, int tid, int priority, int64_t periodNs, uint64_t samples, int64_t minNs,
                              int64_t lastNs, double meanNs, int64_t maxNs)
{
    return formatStatusLine(thread, tid, priority, periodNs, samples, minNs, lastNs, meanNs, maxNs);
}

void printLatencyStatusLines(const std::vector<std::string>& lines, bool tty, bool first)
{
    printStatusLines(lines, tty, first);
}

RunResult runLatency(const LatencyConfig& config, const RunOutput& out, const std::optional<LatencyLimit>& limit)
{
    RunResult result;
    // --record/--csv: every raw sample goes to a recording, written by the recorder's own thread off the measuring
    // CPUs; declared before the experiment, which must stop before its sink goes.
    ScratchDir scratch;
    std::string temporary;
    if (out.record.empty() && !out.csv.empty()) {
        // Those of runs killed before they could remove theirs first; a live run's own is left alone.
        (void)removeStaleScratchDirs(scratchPattern());
        if (Error e = scratch.create(scratchPattern()))
            return notStarted("latency", e);
        temporary = scratch.path() + "/run" + kRecordingSuffix;
    }
    std::unique_ptr<RecordingWriter> recorder;
    if (!out.record.empty() || !out.csv.empty()) {
        recorder = std::make_unique<RecordingWriter>(probeSystem(), out.record.empty() ? temporary : out.record);
        recorder->setCommand(commandLine());
    }
    // --trace-dat: the trace session keeps its raw sub-buffers next to the final file, for the .dat after the run.
    std::shared_ptr<TraceDatCapture> traceCapture;
    if (config.trace && !out.traceDat.empty())
        traceCapture =
            std::make_shared<TraceDatCapture>(std::filesystem::absolute(out.traceDat).parent_path().string());
    LatencyExperiment exp;
    exp.setLockAllMemory(true);
    exp.setCompact(true); // never reconfigured: a small process (docs/BENCHMARKS.md, "The far tail")
    // Ctrl-C while many hogs start ends the start-up at the next hog (docs/cli.md, --hogs).
    exp.setStartInterrupt(stopSignalPending);
    exp.setRunSink(recorder.get());
    exp.setTraceCapture(traceCapture);
    Progress progress(out.quiet, Progress::InLog::EverySecond);
    // The loop below looks every 100 ms (a terminal) or once a second (a log, or -q): publish no more often, and
    // drain every 10 ms rather than every 1 ms (the GUI's pace), which costs the collector's CPU 100 wake-ups a
    // second instead of 1000.
    exp.setCollectorPace(10 * kNsPerMs, progress.tty() && !out.quiet ? 100 * kNsPerMs : kNsPerSec);
    const int64_t startUnix = int64_t(std::time(nullptr));
    // The main thread is not kept off any CPU before the run starts: its affinity is the process's.
    const CpuTopology topology = CpuTopology::current();
    warnAboutOtherMeasurements("latency", config.resolvedCpus(topology));
    if (Error e = exp.start(config, topology))
        return notStarted("latency", e);
    if (!out.quiet)
        printRunHeader("latency", exp.config().label());
    bool printed = false;
    bool unavailableSaid = false; // tracing asked for and not running: said on stderr as soon as a snapshot shows it
    result.signal = waitForExperiment(exp, [&] {
        if (config.trace && !unavailableSaid)
            if (auto snap = exp.snapshot(); snap && snap->tracing && !snap->tracing->unavailable.empty())
                printTracingUnavailable("latency", *snap, unavailableSaid);
        if (!progress.due())
            return;
        if (auto snap = exp.snapshot()) {
            printStatus(*snap, progress.tty(), !printed);
            printed = true;
            progress.shown();
        }
    });
    exp.stop();
    auto snap = exp.snapshot();
    if (!snap)
        return result;
    if (!out.quiet) {
        printStatus(*snap, progress.tty(), !printed);
        printStoppedBy(result.signal);
    }
    printSummary(*snap);
    // After the summary, so that what cyclictest users read first is where they expect it; -q keeps the summary only.
    if (!out.quiet)
        printAnatomy(*snap);
    printTracingUnavailable("latency", *snap, unavailableSaid);
    printTracingStopError("latency", *snap);
    if (snap->config.dmaLatency && !snap->dmaLatencyHeld)
        std::fprintf(stderr,
                     "rtscope latency: warning: /dev/cpu_dma_latency was NOT held (%s); the run measured with deep "
                     "idle states allowed, as the summary, --json and --histfile say\n",
                     snap->dmaLatencyNote.c_str());

    bool written = true;
    const int64_t endUnix = int64_t(std::time(nullptr));
    MeasuredMachine here;
    here.probe = probeSystem();
    here.probeJson = toJson(here.probe);
    LatencyRunOutputs outputs = latencyRunOutputs(*snap, here, commandLine(), startUnix, endUnix);
    if (!out.histfile.empty())
        written = writeFile(out.histfile, outputs.histfile) && written;
    if (recorder)
        written = finishRecording(*recorder, out) && written;
    if (traceCapture)
        written = writeTraceDat(*traceCapture, out.traceDat, out.quiet) && written;
    // The JSON last, so that its return_code is the exit code (but for the JSON's own write), and the verdict line
    // of --fail-above last on stdout, where a harness looks.
    result.report = std::move(outputs.report);
    const int code = finishWithLimit(limit, *snap, runExitCode(snap->error, written), result.report);
    written = writeJsonFile(out.json, result.report) && written;
    if (!snap->threads.empty() && snap->threads.front().histogram.count() > 0) {
        const Histogram& h = snap->threads.front().histogram;
        result.figures = {{"max latency", double(h.max()) / 1000.0, "us"},
                          {"p99 latency", double(h.percentile(99)) / 1000.0, "us"},
                          {"p50 latency", double(h.percentile(50)) / 1000.0, "us"}};
    }
    result.exitCode = written ? code : runExitCode(snap->error, written);
    return result;
}

namespace {
void addLatencyFlags(CLI::App* sub, LatencyOptions& o)
{
    addLatencyOptions(sub, o.thread, kLatencyFlags);
    sub->add_option("--nice", o.nice, "nice -20..19 for other/batch/idle (with fifo/rr use -p)");
    sub->add_option("--runtime", o.runtime,
                    "policy deadline: CPU time per period, 1us..deadline (required with it; bare number: us)");
    sub->add_option("--deadline", o.deadline,
                    "policy deadline: relative deadline, runtime..period (default: the period; bare number: us)");
    sub->add_option("--hog-policy", o.hogPolicy, "hog policy: other, batch or idle")->capture_default_str();
    sub->add_option("--hog-nice", o.hogNice, "hog nice -20..19")->capture_default_str();
    noValueBelow(sub->add_option("--hog-cpu", o.hogCpu, latency_flag_help::hogCpu()));
    sub->add_option("--waiter", o.waiter, latency_flag_help::waiter())->capture_default_str();
    auto* dur =
        sub->add_option("-D,--duration", o.duration, "run time 1ms..30 days, e.g. 10s or 500ms (bare number: seconds)");
    auto* smp = sub->add_option("-l,--samples", o.samples, "stop after N samples, 1..1e12");
    o.samplesFlag = smp;
    dur->excludes(smp);
    noValueBelow(sub->add_option("--histogram", o.histogram,
                                 "keep exact 1 us bins up to US, 0..1000000 (cyclictest -h); default 10000 when "
                                 "--histfile/--json is given"));
    outputFile(sub->add_option("--histfile", o.histfile, "write the histogram in cyclictest's -h text format"));
    outputFile(sub->add_option("--json", o.json, "write cyclictest's --json layout plus an \"rtscope\" object"));
    outputFile(
        sub->add_option("--csv", o.csv, "write every raw sample as CSV (cpu,seq,deadline_ns,wake_ns,latency_ns,...)"));
    outputFile(sub->add_option("--record", o.record,
                               "record the run (every raw sample, change and drop, and the probe) for rtscope replay "
                               "or the desktop app"));
    sub->add_flag("-q,--quiet", o.quiet, "no status line, only the summary (with --trace: no anatomy, see --json)");
    sub->add_flag("--dma-latency", o.dmaLatency, "hold /dev/cpu_dma_latency at 0 while running");
    sub->add_flag("--trace", o.trace,
                  "explain late wake-ups from the kernel's trace events (a private tracefs instance on the measured "
                  "CPUs): who delayed the measuring thread, and the anatomy of the worst wake-ups");
    o.traceThresholdFlag = sub->add_option(
        "--trace-threshold", o.traceThreshold,
        "with --trace, also keep every wake-up later than this, e.g. 100us or 1ms (bare number: us); default: none");
    o.traceTopFlag =
        sub->add_option("--trace-top", o.traceTop,
                        "with --trace, the worst wake-ups explained, 1.." + std::to_string(LatencyConfig::kMaxTraceTop))
            ->capture_default_str();
    addFailLimitOptions(sub, o.limit);
    addTargetOptions(sub, o.target);
    outputFile(sub->add_option("--trace-dat", o.traceDat,
                               "with --trace, also write the run's raw kernel trace as a trace-cmd .dat file "
                               "(trace-cmd report, KernelShark)"));
}

} // namespace

const OptionsCommand<LatencyOptions>
    kLatencyCommand("latency", 10, "Measure wake-up latency of a periodic thread (cyclictest's method)",
                    addLatencyFlags, run);
const HeadlessRegistration<LatencyConfig> kLatencyHeadless({
    .run = [](const LatencyConfig& c, const RunOutput& out) { return runLatency(c, out); },
    .firstThread =
        [](const LatencyConfig& c, const CpuTopology& topo) {
            ThreadSpec spec =
                threadSpec(c.policy, c.priority, c.nice, c.resolvedCpus(topo).front(), kMeasuringThreadName);
            if (isDeadline(c.policy))
                spec.deadline = c.deadlineParams();
            return spec;
        },
    .fitToPhase =
        [](LatencyConfig& c, RunOutput&, int64_t phaseNs, bool report) {
            if (c.durationNs == 0 && c.maxSamples == 0)
                c.durationNs = phaseNs;
            // The report's cyclictest histogram, as `rtscope latency --json` keeps it by default.
            if (report && c.histogramUs == 0)
                c.histogramUs = kDefaultHistogramUs;
        },
    .onTarget = [](CliTarget& link, const LatencyConfig& c,
                   const RunOutput& out) { return runLatencyOn(link, c, out); },
});

} // namespace rtscope::cli
