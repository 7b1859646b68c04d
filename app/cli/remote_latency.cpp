// `rtscope latency --target-cmd CMD`: the latency run happens in `rtscope agent --stdio` started by CMD (on a
// board through ssh, in a container, …); this side prints it as a local run would (docs/remote.md). The agent
// streams the run as a recording, so the summary, --histfile and --json come from replaying what was received,
// and --record saves the received bytes as they are.
#include "app/cli/command_util.h"
#include "app/cli/fail_limit.h"

#include "engine/io/agent_client.h"
#include "engine/io/cyclictest_format.h"
#include "engine/io/recording.h"
#include "engine/io/report_json.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
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

// How long the agent has to say hello (an ssh login may take a while), to answer a start, and to send the end of
// its run after a stop (its threads are joined within 100 ms; the rest is the link).
constexpr int kRemoteHelloMs = 30'000;
constexpr int kRemoteStartMs = 10'000;
constexpr int kRemoteEndMs = 5'000;
// After the end, the agent leaves when its stdin closes; past this it is killed.
constexpr int kRemoteReapMs = 2'000;

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

void printRemoteError(const std::string& message)
{
    // A multi-line refusal (validate()'s sentences joined) is one line each, as a local run prints them.
    std::istringstream lines(message);
    for (std::string line; std::getline(lines, line);)
        std::fprintf(stderr, "rtscope latency: %s\n", printable(line).c_str());
}

std::string targetLine(const nlohmann::json& hello)
{
    const nlohmann::json probe = hello.value("probe", nlohmann::json::object());
    const std::string host = hello.value("host", std::string("?"));
    const std::string kernel = probe.value("kernel_release", std::string("?"));
    return printable("# target: " + host + " (Linux " + kernel + "), rtscope " +
                     hello.value("version", std::string("?")) + " agent");
}

// --csv: the received recording, through a temporary file, as a local run converts its own.
bool writeRemoteCsv(const std::string& recording, const std::string& csvPath)
{
    std::string path = (std::filesystem::temp_directory_path() / "rtscope-remote-XXXXXX").string();
    const int fd = mkstemp(path.data());
    if (fd < 0) {
        std::fprintf(stderr, "rtscope latency: cannot create a temporary file for --csv\n");
        return false;
    }
    close(fd);
    bool ok = writeFile(path, recording);
    if (ok) {
        bool fileOk = false;
        const RecordingReadResult r = writeRecordingCsvFile(path, csvPath, fileOk);
        ok = fileOk && r.headerRead;
        if (!ok)
            std::fprintf(stderr, "rtscope latency: cannot write %s%s%s\n", csvPath.c_str(), r.error.empty() ? "" : ": ",
                         r.error.c_str());
    }
    std::filesystem::remove(path);
    return ok;
}

} // namespace

RunResult runRemoteLatency(const LatencyConfig& config, const RunOutput& out, const std::optional<LatencyLimit>& limit,
                           const std::string& targetCmd)
{
    RunResult result;
    AgentProcess process;
    if (Error e = spawnAgentProcess(targetCmd, process)) {
        std::fprintf(stderr, "rtscope latency: target-cmd: %s\n", e.message.c_str());
        return result;
    }
    AgentClient client(process.fromAgent, process.toAgent);
    const auto endAgent = [&] {
        client.closeSending(); // the agent sees EOF, stops anything still running and leaves
        const int status = reapAgentProcess(process.pid, kRemoteReapMs);
        if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
            std::fprintf(stderr, "rtscope latency: the agent exited with status %d\n", WEXITSTATUS(status));
    };
    if (Error e = client.connect(kRemoteHelloMs)) {
        std::fprintf(stderr, "rtscope latency: target-cmd '%s': %s\n", targetCmd.c_str(), e.message.c_str());
        endAgent();
        return result;
    }
    const nlohmann::json hello = client.agentHello();
    nlohmann::json started;
    if (Error e = client.start("latency", toJson(config), kRemoteStartMs, &started)) {
        printRemoteError(e.message);
        endAgent();
        result.exitCode = exitCodeFor(e.kind);
        return result;
    }
    const int64_t startUnix = int64_t(std::time(nullptr));
    if (!out.quiet) {
        printRunHeader("latency", printable(started.value("label", std::string())));
        std::printf("%s\n", targetLine(hello).c_str());
    }
    Progress progress(out.quiet, Progress::InLog::EverySecond);
    uint64_t statusGeneration = 0;
    std::optional<AgentLatencyStatus> lastStatus;
    bool printed = false;
    const auto showStatus = [&] {
        uint64_t generation = 0;
        if (auto j = client.status(statusGeneration, generation)) {
            statusGeneration = generation;
            if (auto s = agentLatencyStatusFromJson(*j))
                lastStatus = std::move(s);
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
    client.waitEnded(kRemoteEndMs);
    const nlohmann::json ended = client.endedInfo();
    const std::string lost = ended.is_null() ? client.connectionError() : std::string();
    for (const std::string& e : client.errors())
        printRemoteError("agent: " + e);
    endAgent();

    const std::string recording = client.recording();
    RecordingReplayOptions replayOptions;
    replayOptions.histogramUs = 0; // as recorded: the bins the run kept, as a local run's summary has them
    const ReplayedRun replayed = replayRecording(recording, replayOptions);
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

    bool written = true;
    if (!out.histfile.empty())
        written = writeFile(out.histfile, writeCyclictestHistogram(cyclictestDataFrom(snap))) && written;
    if (!out.record.empty())
        written = writeFile(out.record, recording) && written;
    if (!out.csv.empty())
        written = writeRemoteCsv(recording, out.csv) && written;
    result.report = latencyExportJson(snap, hello.value("probe", nlohmann::json::object()), commandLine(), startUnix,
                                      int64_t(std::time(nullptr)));
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
