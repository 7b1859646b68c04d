// `rtscope replay FILE`: a recording (rtscope latency --record, or the desktop app's File > Save run as recording)
// replayed through the live aggregator, printed like the run's own summary and converted to cyclictest's formats.
#include "app/cli/anatomy_output.h"
#include "app/cli/command_util.h"

#include "engine/export/latency_export.h"
#include "engine/formats/output_file.h"
#include "engine/recording/recording_replay.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace rtscope::cli {

// Defined in latency_command.cpp: the summary `rtscope latency` prints at the end of a run.
void printLatencySummary(const LatencySnapshot& snapshot);

namespace {

struct ReplayOptions {
    std::string file;
    int histogram = 0;
    std::string histfile;
    std::string json;
    std::string csv;
    bool quiet = false;
};

std::string systemLine(const RecordingHeader& h)
{
    const SystemProbe& p = h.probe;
    std::string line = h.host.empty() ? std::string("an unnamed host") : h.host;
    line += " (Linux " + (p.kernelRelease.empty() ? std::string("?") : p.kernelRelease);
    if (!p.scheduler.empty())
        line += ", " + p.scheduler;
    if (!p.preemptModel.empty())
        line += ", preempt " + p.preemptModel;
    if (p.virtualMachine)
        line += ", VM";
    // Every part comes from the file: printable() keeps its escape sequences off the user's terminal.
    return printable(line + ")");
}

// Looks for a stop signal (kStopSignals) at most every 10 ms: cheap enough to be asked after every block of the file,
// every thread's figures and every 1024 rows of a histogram, so that each phase of a replay — the header (a thread's
// histogram set up at a time), the blocks, the threads' figures merged, the outputs — ends within ~10 ms of it.
class StopLook {
public:
    bool keepGoing()
    {
        if (m_signal)
            return false;
        const int64_t now = nowNs();
        if (now < m_nextLookNs)
            return true;
        m_nextLookNs = now + 10 * kNsPerMs;
        m_signal = waitForStopSignal(0);
        return m_signal == 0;
    }
    int signal() const { return m_signal; }

private:
    int m_signal = 0;
    int64_t m_nextLookNs = 0;
};

// The outputs of a replay, each in its temporary until all are done: a stop signal while any is written leaves none.
class Outputs {
public:
    /// A temporary for @p path (the flag @p flag), or null when it cannot be made (said on stderr).
    AtomicOutputFile* open(const std::string& path)
    {
        auto file = std::make_unique<AtomicOutputFile>();
        if (const Error e = file->open(path)) {
            std::fprintf(stderr, "rtscope replay: %s\n", e.message.c_str());
            return nullptr;
        }
        m_files.push_back(std::move(file));
        return m_files.back().get();
    }
    /// Writes @p text to a new output at @p path; false when it could not (said on stderr).
    bool add(const std::string& path, std::string_view text)
    {
        AtomicOutputFile* file = open(path);
        return file && check(*file, file->write(text));
    }
    /// Says @p e about @p file and drops it; true when there is no error.
    bool check(AtomicOutputFile& file, const Error& e)
    {
        if (!e)
            return true;
        std::fprintf(stderr, "rtscope replay: %s\n", e.message.c_str());
        file.discard();
        return false;
    }
    /// Syncs every output; then, unless @p stop says stop, puts them all in place. False when one failed; @p stopped
    /// when a stop signal came first (nothing is put in place then).
    bool commit(StopLook& stop, bool& stopped)
    {
        bool ok = true;
        for (auto& f : m_files)
            if (f->isOpen())
                ok = check(*f, f->sync()) && ok;
        stopped = !stop.keepGoing();
        if (stopped)
            return false;
        for (auto& f : m_files)
            if (f->isOpen())
                ok = check(*f, f->commit()) && ok;
        return ok;
    }

private:
    std::vector<std::unique_ptr<AtomicOutputFile>> m_files;
};

// "FILE: stopped after N samples (X of Y bytes read) by Terminated; nothing was written", and the same after the
// reading: "FILE: stopped while writing --csv by Terminated; …".
int stoppedWhile(const std::string& file, const std::string& what, int signal)
{
    std::fprintf(stderr, "rtscope replay: %s: %s by %s; nothing was written\n", file.c_str(), what.c_str(),
                 strsignal(signal));
    return ExitFailure;
}

int run(const ReplayOptions& o)
{
    if (o.histogram < 0 || o.histogram > LatencyConfig::kMaxHistogramUs)
        return reportInvalid("replay",
                             {"histogram must be between 1 and " + std::to_string(LatencyConfig::kMaxHistogramUs) +
                              " us (got " + std::to_string(o.histogram) + ")"});
    RecordingReplayOptions options;
    if (o.histogram > 0)
        options.histogramUs = o.histogram;
    // Stop signals are blocked (they are taken with sigtimedwait): every phase looks for one every 10 ms, so that
    // Ctrl-C ends a replay of a long recording at once instead of when it is done.
    StopLook stop;
    options.progress = [&](uint64_t, uint64_t) {
        return stop.keepGoing();
    };
    const ReplayedRun r = replayRecordingFile(o.file, options);
    // The file name, the header's texts, the marker labels and a read error (which may quote the file) all go
    // through printable(): a recording is not trusted to hold no terminal escapes.
    const std::string file = printable(o.file);
    if (r.read.cancelled)
        return stoppedWhile(file, r.read.error, stop.signal());
    if (!r.snapshot || (!r.read.ok && !r.read.truncated)) {
        std::fprintf(stderr, "rtscope replay: %s: %s\n", file.c_str(), printable(r.read.error).c_str());
        return ExitBadInput;
    }
    const RecordingHeader& h = r.header;
    if (!o.quiet) {
        std::printf("# replay of %s: recorded %s on %s\n", file.c_str(), printable(h.recordedAt).c_str(),
                    systemLine(h).c_str());
        std::printf("# started by: %s\n", printable(h.command).c_str());
        for (const RecordedMarker& m : r.markers)
            std::printf("#   %8.3f s  %s\n", double(m.tNs - h.startNs) / 1e9, printable(m.label).c_str());
    }
    printLatencySummary(*r.snapshot);
    if (r.read.lost)
        std::printf("  recorder      %llu samples not kept (the recording's writer fell behind, hit its cap or could "
                    "not write)\n",
                    (unsigned long long)r.read.lost);
    // The anatomy the run ended with, from the recording's anatomy blocks, printed as `rtscope latency --trace` did;
    // a run whose tracing could not start says why, as its own status line did.
    if (!o.quiet && r.snapshot->tracing) {
        if (r.snapshot->tracing->active)
            printAnatomy(*r.snapshot);
        else
            std::printf("\n%s", anatomyStatusText(*r.snapshot).c_str());
    }
    if (!r.read.ok)
        std::fprintf(stderr, "rtscope replay: %s: %s; the figures cover what was read\n", file.c_str(),
                     printable(r.read.error).c_str());
    std::fflush(stdout);

    Outputs outputs;
    bool written = true;
    const auto keepGoing = [&] {
        return stop.keepGoing();
    };
    if (!o.histfile.empty()) {
        const std::string text = replayedHistogramText(r, keepGoing);
        if (stop.signal())
            return stoppedWhile(file, "stopped while writing --histfile", stop.signal());
        written = outputs.add(o.histfile, text) && written;
    }
    if (!o.json.empty()) {
        const std::string text = replayedRunJson(r, o.file).dump(2) + "\n";
        if (!stop.keepGoing())
            return stoppedWhile(file, "stopped while writing --json", stop.signal());
        written = outputs.add(o.json, text) && written;
    }
    if (!o.csv.empty()) {
        AtomicOutputFile* csv = outputs.open(o.csv);
        const RecordingReadResult rows =
            csv ? writeRecordingCsv(o.file, csv->stream(), options.progress) : RecordingReadResult{};
        if (rows.cancelled)
            return stoppedWhile(file, "stopped while writing --csv", stop.signal());
        if (!csv || !rows.headerRead) {
            std::fprintf(stderr, "rtscope replay: cannot write %s\n", o.csv.c_str());
            if (csv)
                csv->discard();
            written = false;
        }
    }
    bool stopped = false;
    written = outputs.commit(stop, stopped) && written;
    if (stopped)
        return stoppedWhile(file, "stopped before its outputs were put in place", stop.signal());
    return written && r.read.ok && !r.read.lost ? ExitOk : ExitFailure;
}

void addReplayFlags(CLI::App* sub, ReplayOptions& o)
{
    inputFile(sub->add_option("file", o.file, "the recording")->required()->check(CLI::ExistingFile),
              "the recording FILE");
    noValueBelow(
        sub->add_option("--histogram", o.histogram,
                        "exact 1 us bins up to US, 1..1000000, for --histfile/--json (default: 10000, or the recorded "
                        "size if larger)"),
        1);
    outputFile(sub->add_option("--histfile", o.histfile, "write the histogram in cyclictest's -h text format"));
    outputFile(sub->add_option("--json", o.json, "write cyclictest's --json layout plus an \"rtscope\" object"));
    outputFile(sub->add_option("--csv", o.csv, "write every recorded sample as CSV"));
    sub->add_flag("-q,--quiet", o.quiet, "no header and marker lines, only the summary");
}

} // namespace

const OptionsCommand<ReplayOptions>
    kReplayCommand("replay", 15,
                   "Replay a recording (rtscope latency --record, or the desktop app's) "
                   "and convert it to cyclictest's formats",
                   addReplayFlags, run);

} // namespace rtscope::cli
