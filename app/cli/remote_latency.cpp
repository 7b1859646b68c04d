// `rtscope latency --target URL` / `--target-cmd CMD`: the latency run happens in an `rtscope agent` reached over
// TCP, started by ssh, or started by CMD (in a container, through adb, …); this side prints it as a local run would
// (docs/remote.md). The transports differ only in how the two descriptors for AgentClient are obtained. The agent
// streams the run as a recording, so the summary, --histfile and --json come from replaying what was received,
// and --record saves the received bytes as they are.
#include "app/cli/anatomy_output.h"
#include "app/cli/command_util.h"
#include "app/cli/fail_limit.h"
#include "app/cli/remote_target.h"

#include "engine/export/latency_export.h"
#include "engine/export/report_json.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/formats/output_file.h"
#include "engine/formats/probe_json.h"
#include "engine/recording/recording_replay.h"
#include "engine/remote/agent_client.h"
#include "engine/util/printable.h"
#include "engine/util/units.h"

#include <cstdio>
#include <ctime>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace rtscope::cli {

// Defined in latency_command.cpp: the pieces of a local run's output a remote run prints the same way.
void printLatencySummary(const LatencySnapshot& snapshot);
std::string latencyStatusLine(size_t thread, int tid, int priority, int64_t periodNs, uint64_t samples, int64_t minNs,
                              int64_t lastNs, double meanNs, int64_t maxNs);
void printLatencyStatusLines(const std::vector<std::string>& lines, bool tty, bool first);

namespace {

std::vector<std::string> remoteStatusLines(const AgentLatencyStatus& s)
{
    std::vector<std::string> lines;
    for (size_t i = 0; i < s.threads.size(); ++i) {
        const AgentLatencyStatusThread& t = s.threads[i];
        lines.push_back(
            latencyStatusLine(i, t.tid, s.priority, s.periodNs, t.samples, t.minNs, t.lastNs, t.meanNs, t.maxNs));
    }
    return lines;
}

// --record: the received recording, copied from the client's spool file piece by piece (never whole in memory).
bool writeRemoteRecording(const AgentClient& client, const std::string& path)
{
    if (const Error e = writeStreamed(path, [&](const ByteSink& sink) { return client.copyRecording(sink); })) {
        std::fprintf(stderr, "rtscope: %s\n", e.message.c_str());
        return false;
    }
    return true;
}

} // namespace

RunResult runRemoteLatency(const LatencyConfig& config, const RunOutput& out, const std::optional<LatencyLimit>& limit,
                           const RemoteTarget& target, const std::string& cpuList)
{
    CliTarget link("latency");
    if (!link.open(target))
        return {};
    return runLatencyOn(link, config, out, limit, cpuList);
}

RunResult runLatencyOn(CliTarget& link, const LatencyConfig& config, const RunOutput& out,
                       const std::optional<LatencyLimit>& limit, const std::string& cpuList)
{
    RunResult result;
    AgentClient& client = link.agent();
    const nlohmann::json hello = link.hello();
    // --cpus stands for the target's CPUs: "all" is read again against its probe, not this machine's (an explicit CPU
    // the target lacks is refused by the agent's validate(), with a local run's sentence).
    LatencyConfig sent = config;
    if (!cpuList.empty()) {
        const CpuTopology topo = link.topology();
        if (const std::optional<std::vector<int>> cpus = parseCpuList(cpuList, topo.allowed)) {
            sent.cpus = *cpus;
        } else {
            result.exitCode = reportInvalid("latency", {"cpus: '" + printable(cpuList) +
                                                        "' cannot be read against the target's CPUs (its probe lists "
                                                        "none online); give numbers like 0,2-3"});
            return result;
        }
    }
    nlohmann::json started;
    if (Error e = client.start("latency", toJson(sent), CliTarget::kStartMs, &started)) {
        link.printError(e.message);
        result.exitCode = exitCodeFor(e.kind);
        return result;
    }
    const int64_t startUnix = int64_t(std::time(nullptr));
    if (!out.quiet) {
        printRunHeader("latency", printable(started.value("label", std::string())));
        std::printf("%s\n", link.targetLine().c_str());
    }
    Progress progress(out.quiet, Progress::InLog::EverySecond);
    uint64_t statusGeneration = 0;
    std::optional<AgentLatencyStatus> lastStatus;
    bool printed = false;
    bool unavailableSaid = false; // as a local run: tracing's refusal on stderr as soon as a status brings it
    const auto showStatus = [&] {
        uint64_t generation = 0;
        if (auto j = client.status(statusGeneration, generation)) {
            statusGeneration = generation;
            if (auto s = agentLatencyStatusFromJson(*j))
                lastStatus = std::move(s);
        }
        if (config.trace && lastStatus && !lastStatus->tracingUnavailable.empty() && !unavailableSaid) {
            LatencySnapshot said;
            auto tracing = std::make_shared<LatencyTracing>();
            tracing->unavailable = lastStatus->tracingUnavailable;
            said.tracing = std::move(tracing);
            printTracingUnavailable("latency", said, unavailableSaid);
        }
        if (!lastStatus || !progress.due())
            return;
        printLatencyStatusLines(remoteStatusLines(*lastStatus), progress.tty(), !printed);
        printed = true;
        progress.shown();
    };
    // Nothing of this machine is measured: no CPU to keep off.
    result.signal = waitForEnd(
        {}, [&] { return client.ended(); },
        [&] {
            showStatus();
            return true;
        });
    if (result.signal)
        (void)client.stop(); // a link that has gone is seen below
    client.waitEnded(CliTarget::kEndMs);
    const nlohmann::json ended = client.endedInfo();
    const std::string lost = ended.is_null() ? client.connectionError() : std::string();
    for (const std::string& e : client.errors())
        link.printError("agent: " + e);
    link.close();

    // The client spooled the recording to disk as it came (AgentClient::recordingPath): read from there, a block at a
    // time, as a local run's recording is.
    const std::string recording = client.recordingPath();
    RecordingReplayOptions replayOptions;
    replayOptions.histogramUs = 0; // as recorded: the bins the run kept, as a local run's summary has them
    ReplayedRun replayed;
    if (recording.empty())
        replayed.read.error = "no recording arrived";
    else
        replayed = replayRecordingFile(recording, replayOptions);
    if (!replayed.snapshot) {
        std::fprintf(stderr, "rtscope latency: the agent's recording stream cannot be read: %s%s%s\n",
                     printable(replayed.read.error).c_str(), lost.empty() ? "" : "; ", lost.c_str());
        return result;
    }
    LatencySnapshot snap = *replayed.snapshot;
    // What the recording does not carry comes with the Ended frame: the agent's own words about its run.
    if (!ended.is_null()) {
        snap.memoryLock = ended.value("memory_lock", snap.memoryLock);
        snap.dmaLatencyHeld = ended.value("dma_latency_held", false);
        snap.dmaLatencyNote = ended.value("dma_latency_note", snap.dmaLatencyNote);
        snap.error = ended.value("error", std::string());
    }
    if (!out.quiet) {
        // The final block as a local run prints it: the whole run's figures (the replay), the agent's thread ids.
        if (auto final = agentLatencyStatusFromJson(agentLatencyStatusJson(snap))) {
            for (size_t i = 0; lastStatus && i < final->threads.size() && i < lastStatus->threads.size(); ++i)
                final->threads[i].tid = lastStatus->threads[i].tid;
            printLatencyStatusLines(remoteStatusLines(*final), progress.tty(), !printed);
        }
        printStoppedBy(result.signal);
    }
    printLatencySummary(snap);
    // --trace: the agent's recording ends with the run's anatomy blocks (docs/recording-format.md, Anatomy), which
    // the replay put back in the snapshot; printed as a local run prints its own, and so is tracing's refusal there.
    if (!out.quiet)
        printAnatomy(snap);
    printTracingUnavailable("latency", snap, unavailableSaid);
    printTracingStopError("latency", snap);
    if (replayed.read.lost)
        std::printf("  recorder      %llu samples not kept (the agent's link fell behind)\n",
                    (unsigned long long)replayed.read.lost);
    bool complete = replayed.read.ok && replayed.read.lost == 0;
    if (!lost.empty()) {
        std::fprintf(stderr, "rtscope latency: connection lost: %s; the figures cover what was received\n",
                     printable(lost).c_str());
        complete = false;
    } else if (!replayed.read.ok) {
        std::fprintf(stderr, "rtscope latency: the agent's recording stream: %s\n",
                     printable(replayed.read.error).c_str());
    }
    if (snap.config.dmaLatency && !snap.dmaLatencyHeld)
        std::fprintf(stderr, "rtscope latency: warning: /dev/cpu_dma_latency was NOT held on the target (%s)\n",
                     printable(snap.dmaLatencyNote).c_str());

    // The same composition as a local run's (identity lines and object included), with the target's probe and host;
    // its kernel command line is not in the hello, so the identity says "unknown" rather than this machine's.
    MeasuredMachine measured;
    measured.probeJson = hello.value("probe", nlohmann::json::object());
    std::vector<std::string> probeErrors; // a field the probe lacks stays unknown in the identity
    measured.probe = systemProbeFromJson(measured.probeJson, probeErrors);
    measured.host = hello.value("host", std::string());
    measured.kernelCmdline = std::string();
    LatencyRunOutputs outputs =
        latencyRunOutputs(snap, measured, commandLine(), startUnix, int64_t(std::time(nullptr)));
    bool written = true;
    if (!out.histfile.empty())
        written = writeFile(out.histfile, outputs.histfile) && written;
    if (!out.record.empty())
        written = writeRemoteRecording(client, out.record) && written;
    if (!out.csv.empty()) {
        bool fileOk = false;
        const RecordingReadResult r = writeRecordingCsvFile(recording, out.csv, fileOk);
        if (!fileOk || !r.headerRead) {
            std::fprintf(stderr, "rtscope latency: cannot write %s%s%s\n", out.csv.c_str(), r.error.empty() ? "" : ": ",
                         r.error.c_str());
            written = false;
        }
    }
    result.report = std::move(outputs.report);
    describeTarget(result.report, link); // "target" names the host and the agent, as every command's remote report
    const int code = finishWithLimit(limit, snap, runExitCode(snap.error, written && complete), result.report);
    written = writeJsonFile(out.json, result.report) && written;
    if (!snap.threads.empty() && snap.threads.front().histogram.count() > 0) {
        const Histogram& h = snap.threads.front().histogram;
        result.figures = {{"max latency", double(h.max()) / 1000.0, "us"},
                          {"p99 latency", double(h.percentile(99)) / 1000.0, "us"},
                          {"p50 latency", double(h.percentile(50)) / 1000.0, "us"}};
    }
    result.exitCode = written ? code : runExitCode(snap.error, false);
    return result;
}

} // namespace rtscope::cli
