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
#include "engine/remote/agent_child_exit.h"
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

// --record: the received recording, copied from the client's spool file piece by piece (never whole in memory).
bool writeRemoteRecording(const AgentClient& client, const std::string& path)
{
    if (const Error e = writeStreamed(path, [&](const ByteSink& sink) { return client.copyRecording(sink); })) {
        std::fprintf(stderr, "rtscope: %s\n", e.message.c_str());
        return false;
    }
    return true;
}

// How long a TCP connection may take to be accepted.
constexpr int kRemoteTcpConnectMs = 10'000;

// The two descriptors of a link to the agent, and the child (ssh, the --target-cmd shell) that carries them, if any.
struct RemoteLink {
    std::string name;     ///< for messages: "target tcp://…", "target-cmd '…'"
    bool ssh = false;     ///< the child is ssh: its exit status 255 is its own failure
    AgentProcess process; ///< pid -1 for TCP
    int readFd = -1;
    int writeFd = -1;
    std::string token; ///< a tcp:// agent's token, shown in the hello
};

bool openRemoteLink(const RemoteTarget& target, RemoteLink& link)
{
    if (!target.cmd.empty()) {
        link.name = "target-cmd '" + target.cmd + "'";
        if (Error e = spawnAgentProcess(target.cmd, link.process)) {
            std::fprintf(stderr, "rtscope latency: target-cmd: %s\n", e.message.c_str());
            return false;
        }
    } else {
        link.name = "target " + target.url;
        std::string why;
        const std::optional<AgentTarget> t = parseAgentTarget(target.url, why); // checked before: see the problems
        if (!t)
            return false;
        if (t->kind != AgentTarget::Kind::Ssh) {
            // Only a TCP agent asks for the token: on a Unix socket the kernel tells it who connects.
            if (t->kind == AgentTarget::Kind::Tcp)
                if (Error e = tryControllerToken(target.tokenFile, link.token)) {
                    std::fprintf(stderr, "rtscope latency: target-token: %s\n", e.message.c_str());
                    return false;
                }
            int fd = -1;
            if (Error e = connectAgentSocket(*t, kRemoteTcpConnectMs, fd)) {
                std::fprintf(stderr, "rtscope latency: %s: %s\n", link.name.c_str(), e.message.c_str());
                return false;
            }
            link.readFd = link.writeFd = fd;
            return true;
        }
        link.ssh = true;
        if (Error e = spawnAgentArgv(sshAgentArgv(*t, target.agentPath, target.sshOptions), link.process)) {
            std::fprintf(stderr, "rtscope latency: %s: %s\n", link.name.c_str(), e.message.c_str());
            return false;
        }
    }
    link.readFd = link.process.fromAgent;
    link.writeFd = link.process.toAgent;
    return true;
}

// Why the child carrying the link ended, in words, when that is the reason the agent could not be reached.
std::string remoteChildEnd(const RemoteLink& link, int status)
{
    return agentChildExitReason(status, link.ssh, "name it with --target-agent PATH");
}

} // namespace

std::vector<std::string> remoteTargetProblems(const RemoteTarget& target, bool agentPathGiven)
{
    std::vector<std::string> problems;
    if (!target.url.empty() && !target.cmd.empty())
        problems.push_back("target and --target-cmd name the target twice; give one of them");
    bool ssh = false;
    bool tcp = false;
    if (!target.url.empty()) {
        std::string why;
        const std::optional<AgentTarget> t = parseAgentTarget(target.url, why);
        if (!t)
            problems.push_back("target '" + printable(target.url) + "' is not a target: " + why + "; give " +
                               kAgentTargetForms);
        ssh = t && t->kind == AgentTarget::Kind::Ssh;
        tcp = t && t->kind == AgentTarget::Kind::Tcp;
    }
    if (!target.tokenFile.empty()) {
        std::string token;
        if (!tcp)
            problems.push_back("target-token is the token of an agent listening on TCP; give --target tcp://…");
        else if (Error e = tryControllerToken(target.tokenFile, token))
            problems.push_back("target-" + e.message);
    }
    if (!ssh && agentPathGiven)
        problems.push_back("target-agent names the agent binary of an ssh:// target; give --target ssh://…");
    if (!ssh && !target.sshOptions.empty())
        problems.push_back("target-ssh-option is passed to ssh; give --target ssh://…");
    for (const std::string& o : target.sshOptions)
        if (o.find('=') == std::string::npos || o.front() == '-')
            problems.push_back("target-ssh-option '" + printable(o) + "' is not KEY=VALUE (e.g. IdentityFile=key)");
    if (target.agentPath.empty())
        problems.push_back("target-agent is empty; give the agent binary's path on the target");
    return problems;
}

RunResult runRemoteLatency(const LatencyConfig& config, const RunOutput& out, const std::optional<LatencyLimit>& limit,
                           const RemoteTarget& target, const std::string& cpuList)
{
    RunResult result;
    RemoteLink link;
    if (!openRemoteLink(target, link))
        return result;
    AgentClient client(link.readFd, link.writeFd);
    client.setToken(link.token);
    int childStatus = -1;
    const auto endAgent = [&] {
        client.closeSending(); // the agent sees EOF, stops anything still running and leaves (or, over TCP, waits)
        if (link.process.pid <= 0)
            return;
        childStatus = reapAgentProcess(link.process.pid, kRemoteReapMs);
        link.process.pid = -1;
        if (std::string why = remoteChildEnd(link, childStatus); !why.empty())
            std::fprintf(stderr, "rtscope latency: %s: %s\n", link.name.c_str(), why.c_str());
    };
    if (Error e = client.connect(kRemoteHelloMs)) {
        std::fprintf(stderr, "rtscope latency: %s: %s\n", link.name.c_str(), e.message.c_str());
        endAgent();
        return result;
    }
    const nlohmann::json hello = client.agentHello();
    // --cpus stands for the target's CPUs: "all" is read again against its probe, not this machine's (an explicit CPU
    // the target lacks is refused by the agent's validate(), with a local run's sentence).
    LatencyConfig sent = config;
    if (!cpuList.empty()) {
        std::vector<std::string> probeProblems;
        const CpuTopology topo =
            targetTopology(systemProbeFromJson(hello.value("probe", nlohmann::json::object()), probeProblems));
        if (const std::optional<std::vector<int>> cpus = parseCpuList(cpuList, topo.allowed)) {
            sent.cpus = *cpus;
        } else {
            result.exitCode = reportInvalid("latency", {"cpus: '" + printable(cpuList) +
                                                        "' cannot be read against the target's CPUs (its probe lists "
                                                        "none online); give numbers like 0,2-3"});
            endAgent();
            return result;
        }
    }
    nlohmann::json started;
    if (Error e = client.start("latency", toJson(sent), kRemoteStartMs, &started)) {
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
    client.waitEnded(kRemoteEndMs);
    const nlohmann::json ended = client.endedInfo();
    const std::string lost = ended.is_null() ? client.connectionError() : std::string();
    for (const std::string& e : client.errors())
        printRemoteError("agent: " + e);
    endAgent();

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

    bool written = true;
    if (!out.histfile.empty())
        written = writeFile(out.histfile, writeCyclictestHistogram(cyclictestDataFrom(snap))) && written;
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
    result.report = latencyExportJson(snap, hello.value("probe", nlohmann::json::object()), commandLine(), startUnix,
                                      int64_t(std::time(nullptr)));
    describeMeasuredMachine(result.report, hello.value("probe", nlohmann::json::object()),
                            hello.value("host", std::string()));
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
