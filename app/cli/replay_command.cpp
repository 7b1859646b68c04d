// `rtscope replay FILE`: a recording (rtscope latency --record, or the desktop app's File > Save run as recording)
// replayed through the live aggregator, printed like the run's own summary and converted to cyclictest's formats.
#include "app/cli/anatomy_output.h"
#include "app/cli/command_util.h"

#include "engine/export/latency_export.h"
#include "engine/recording/recording_replay.h"
#include "engine/util/clock.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <cstring>
#include <memory>

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

int run(const ReplayOptions& o)
{
    if (o.histogram < 0 || o.histogram > LatencyConfig::kMaxHistogramUs)
        return reportInvalid("replay",
                             {"histogram must be between 1 and " + std::to_string(LatencyConfig::kMaxHistogramUs) +
                              " us (got " + std::to_string(o.histogram) + ")"});
    RecordingReplayOptions options;
    if (o.histogram > 0)
        options.histogramUs = o.histogram;
    // Stop signals are blocked (they are taken with sigtimedwait): the reader looks for one every 10 ms, so that
    // Ctrl-C ends a replay of a long recording at once instead of when it is done.
    int stopSignal = 0;
    int64_t nextLookNs = 0;
    options.progress = [&](uint64_t, uint64_t) {
        const int64_t now = nowNs();
        if (now < nextLookNs)
            return true;
        nextLookNs = now + 10 * kNsPerMs;
        stopSignal = waitForStopSignal(0);
        return stopSignal == 0;
    };
    const ReplayedRun r = replayRecordingFile(o.file, options);
    if (r.read.cancelled) {
        std::fprintf(stderr, "rtscope replay: %s: %s by %s; nothing was written\n", printable(o.file).c_str(),
                     r.read.error.c_str(), strsignal(stopSignal));
        return ExitFailure;
    }
    // The file name, the header's texts, the marker labels and a read error (which may quote the file) all go
    // through printable(): a recording is not trusted to hold no terminal escapes.
    const std::string file = printable(o.file);
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
        std::printf("  recorder      %llu samples not kept (the recording's writer fell behind or hit its cap)\n",
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

    bool written = true;
    if (!o.histfile.empty())
        written = writeFile(o.histfile, replayedHistogramText(r)) && written;
    if (!o.json.empty())
        written = writeJsonFile(o.json, replayedRunJson(r, o.file)) && written;
    if (!o.csv.empty()) {
        bool fileOk = false;
        const RecordingReadResult csv = writeRecordingCsvFile(o.file, o.csv, fileOk);
        if (!fileOk || !csv.headerRead) {
            std::fprintf(stderr, "rtscope replay: cannot write %s\n", o.csv.c_str());
            written = false;
        }
    }
    return written && r.read.ok && !r.read.lost ? ExitOk : ExitFailure;
}

Command addReplayCommand(CLI::App& app)
{
    auto o = std::make_shared<ReplayOptions>();
    auto* sub = app.add_subcommand("replay", "Replay a recording (rtscope latency --record, or the desktop app's) "
                                             "and convert it to cyclictest's formats");
    inputFile(sub->add_option("file", o->file, "the recording")->required()->check(CLI::ExistingFile),
              "the recording FILE");
    noValueBelow(
        sub->add_option("--histogram", o->histogram,
                        "exact 1 us bins up to US, 1..1000000, for --histfile/--json (default: 10000, or the recorded "
                        "size if larger)"),
        1);
    outputFile(sub->add_option("--histfile", o->histfile, "write the histogram in cyclictest's -h text format"));
    outputFile(sub->add_option("--json", o->json, "write cyclictest's --json layout plus an \"rtscope\" object"));
    outputFile(sub->add_option("--csv", o->csv, "write every recorded sample as CSV"));
    sub->add_flag("-q,--quiet", o->quiet, "no header and marker lines, only the summary");
    return {sub, [o] {
                return run(*o);
            }};
}

} // namespace

const CommandRegistration kReplayRegistration("replay", 15, &addReplayCommand);

} // namespace rtscope::cli
