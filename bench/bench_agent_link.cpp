// The agent link (docs/remote.md): `rtscope agent` on this machine, driven through AgentClient over its two
// transports, the stdio pipes of a child (`agent --stdio`) and loopback TCP (`agent --listen 127.0.0.1:0`), at 1 kHz
// and 20 kHz. Per run it measures:
//  - bytes on the wire per sample and per second (AgentClient::bytesReceived: every byte read, frame headers,
//    hello, status and heartbeat frames included), against the peer measured in the same round: a local
//    `rtscope latency --record` file of the same configuration (bytes per sample of the recording format itself);
//  - samples lost: the stream's samples against the agent's own end-of-run counts (the end block's samples and
//    lost, the ended frame's samples_not_kept), its drop blocks and gaps in the sequence numbers;
//  - the delay from a sample's wake-up on the target to its arrival in the client. The wake-up is on the wire: a
//    sample carries its deadline, latency and wake correction (docs/recording-format.md), so wake = deadline +
//    latency + correction, exactly, on the agent's CLOCK_MONOTONIC, which is this machine's. Arrival is when the
//    read() that completed the sample's block returned (the RecordingObserver's time). The delay is split in two
//    measured parts: waiting for its block to close (the last wake-up of the block less its own) and the block's
//    last wake-up to arrival (the collector's drain, the recorder's writer pass, the transport).
// Targets (issue 17): ≤ 12 bytes per sample, 0 lost. Printed with PASS/MISS, not asserted.
// --agent-cmd runs the agent (and the peer) through a command instead of the --rtscope binary, e.g. the arm64 build
// under qemu-user (scripts/bench agent-qemu, docs/remote.md "Cross-built agent"): qemu hands every system call to
// this kernel, so the wake-ups are still on this machine's CLOCK_MONOTONIC and the delay is measured the same way.
#include "engine/experiments/latency/latency_config.h"
#include "engine/recording/recording_reader.h"
#include "engine/remote/agent_auth.h"
#include "engine/remote/agent_client.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;
using namespace rtscope;

namespace {

struct LinkOptions {
    std::string rtscope = "build/bench/app/rtscope";
    std::string agentCmd; ///< runs rtscope (the agent's arguments are appended); empty: the --rtscope binary
    int seconds = 5;
    int rounds = 3;
    int cpu = 1;
    int priority = 80;
};

enum class Transport { Stdio, Tcp };

const char* transportName(Transport t)
{
    return t == Transport::Stdio ? "stdio" : "tcp";
}

// One observer call: a Recording frame appended to the client's copy of the stream.
struct Arrival {
    uint64_t recordingBytes = 0; ///< the stream's length after this frame
    int64_t arrivalNs = 0;       ///< when the read() that brought it returned
    uint64_t wireBytes = 0;      ///< AgentClient::bytesReceived() then (that read included)
};

// What one run over the link gave.
struct LinkRun {
    bool ok = false;
    std::string problem;
    std::string machine;             ///< the agent's probe in its hello: uname's machine (aarch64 under qemu)
    uint64_t samples = 0;            ///< samples in the received stream
    uint64_t endSamples = 0;         ///< the agent's end block: samples it wrote
    uint64_t endLost = 0;            ///< the end block and lost blocks: samples it did not keep
    uint64_t notKept = 0;            ///< the ended frame's samples_not_kept
    uint64_t ringDrops = 0;          ///< drop blocks: samples the measuring thread's ring refused
    uint64_t seqGaps = 0;            ///< samples missing from the sequence numbers
    uint64_t wireBytes = 0;          ///< everything read from the agent
    uint64_t recordingBytes = 0;     ///< the .rtrec stream alone
    uint64_t recordingFrames = 0;    ///< Recording frames (5 bytes of frame header each)
    uint64_t helloBytes = 0;         ///< the hello frame (with the probe): read by the time connect() returned
    uint64_t headerBytes = 0;        ///< the stream's signature and header block (the probe again, the config)
    double seconds = 0;              ///< first to last sample's wake-up
    double steadyBytesPerSample = 0; ///< wire bytes over samples between the first and the last samples frame
    double steadyBytesPerSecond = 0;
    std::vector<int64_t> delayNs;       ///< per sample: wake-up to arrival
    std::vector<int64_t> inBlockNs;     ///< per sample: wake-up to the last wake-up of its block
    std::vector<int64_t> blockToArrive; ///< per block: its last wake-up to arrival
    std::vector<int64_t> blockSpanNs;   ///< per block: first to last wake-up
    uint64_t blocks = 0;
    uint64_t lost() const
    {
        return endLost + notKept + ringDrops + seqGaps + (endSamples - std::min(endSamples, samples));
    }
};

// Walks the received stream block by block (the reader's progress callback gives each block's end offset) and puts
// each sample's wake-up beside the arrival of the frame that completed its block.
class LinkStreamVisitor : public RecordingVisitor {
public:
    LinkStreamVisitor(const std::vector<Arrival>& arrivals, LinkRun& run)
        : m_arrivals(arrivals)
        , m_run(run)
    {}
    void samples(size_t thread, std::span<const LatencySample> batch) override
    {
        for (const LatencySample& s : batch) {
            auto [it, fresh] = m_nextSeq.try_emplace(thread, 0);
            if (s.seq > it->second)
                m_run.seqGaps += s.seq - it->second;
            it->second = s.seq + 1;
            m_pendingWakes.push_back(s.wakeNs);
        }
        m_run.samples += batch.size();
    }
    void header(const RecordingHeader&) override { m_headerPending = true; }
    void drops(size_t thread, uint64_t total) override { m_drops[thread] = total; }
    // Called after each block with the bytes read so far: the end of that block in the stream.
    bool blockRead(uint64_t endOffset)
    {
        if (m_headerPending)
            m_run.headerBytes = endOffset;
        m_headerPending = false;
        if (m_pendingWakes.empty())
            return true;
        if (m_firstWakeNs < 0)
            m_firstWakeNs = m_pendingWakes.front();
        m_run.seconds = double(m_pendingWakes.back() - m_firstWakeNs) / 1e9;
        const auto at = std::lower_bound(m_arrivals.begin(), m_arrivals.end(), endOffset,
                                         [](const Arrival& a, uint64_t off) { return a.recordingBytes < off; });
        if (at == m_arrivals.end()) { // cannot happen: every byte came with some frame
            m_run.problem = "a samples block ends after the last frame observed";
            return false;
        }
        const int64_t last = m_pendingWakes.back();
        for (int64_t wake : m_pendingWakes) {
            m_run.delayNs.push_back(at->arrivalNs - wake);
            m_run.inBlockNs.push_back(last - wake);
        }
        m_run.blockToArrive.push_back(at->arrivalNs - last);
        m_run.blockSpanNs.push_back(last - m_pendingWakes.front());
        ++m_run.blocks;
        m_samplesAt[size_t(at - m_arrivals.begin())] += m_pendingWakes.size();
        m_pendingWakes.clear();
        return true;
    }
    uint64_t drops() const
    {
        uint64_t n = 0;
        for (const auto& [thread, total] : m_drops)
            n += total;
        return n;
    }
    /// Samples that arrived with observer call i.
    const std::map<size_t, uint64_t>& samplesAt() const { return m_samplesAt; }

private:
    const std::vector<Arrival>& m_arrivals;
    LinkRun& m_run;
    std::map<size_t, uint64_t> m_nextSeq;
    std::map<size_t, uint64_t> m_drops;
    std::vector<int64_t> m_pendingWakes;
    std::map<size_t, uint64_t> m_samplesAt;
    bool m_headerPending = false;
    int64_t m_firstWakeNs = -1;
};

std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The shell words that run rtscope: the --agent-cmd as given, or the --rtscope binary quoted.
std::string rtscopeCommand(const LinkOptions& o)
{
    return o.agentCmd.empty() ? "'" + o.rtscope + "'" : o.agentCmd;
}

// Runs `exec <rtscope command> <args>` through /bin/sh (so an --agent-cmd is split as a shell would), with the given
// files (null: inherited) as its stdin, stdout and stderr. exec makes the pid the agent's (or qemu's) own, so SIGTERM
// reaches it. -1 when the shell could not be started.
pid_t spawnRtscope(const LinkOptions& o, const std::string& args, const char* in, const char* out, const char* err)
{
    const std::string command = "exec " + rtscopeCommand(o) + " " + args;
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in)
        posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, in, O_RDONLY, 0);
    if (out)
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err)
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

// Starts `rtscope agent --listen 127.0.0.1:0` with its stderr in @p errPath and reads the port it picked from its
// "listening on 127.0.0.1:PORT" line, and its token from the file it names; 0 when it did not say within 5 s.
int startTcpAgent(const LinkOptions& o, const std::string& errPath, pid_t& pid, std::string& token)
{
    pid = spawnRtscope(o, "agent --listen 127.0.0.1:0", "/dev/null", nullptr, errPath.c_str());
    if (pid <= 0)
        return 0;
    const std::string key = "listening on 127.0.0.1:";
    for (int i = 0; i < 500; ++i) {
        const std::string err = readText(errPath);
        const std::string tokenKey = "shows the token in ";
        const size_t at = err.find(key);
        const size_t tokenAt = err.find(tokenKey);
        if (at == std::string::npos || tokenAt == std::string::npos) {
            usleep(10'000);
            continue;
        }
        const size_t pathAt = tokenAt + tokenKey.size();
        const std::string tokenPath = err.substr(pathAt, err.find(" (", pathAt) - pathAt);
        if (Error e = tryReadAgentTokenFile(tokenPath, token))
            return 0; // the caller prints the agent's stderr
        return std::atoi(err.c_str() + at + key.size());
    }
    return 0;
}

void stopTcpAgent(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
}

nlohmann::json linkConfig(const LinkOptions& o, int periodUs)
{
    LatencyConfig c;
    c.policy = Policy::Fifo;
    c.priority = o.priority;
    c.cpu = o.cpu;
    c.periodNs = int64_t(periodUs) * 1000;
    c.durationNs = int64_t(o.seconds) * kNsPerSec;
    return toJson(c);
}

LinkRun runOverLink(const LinkOptions& o, Transport transport, int periodUs)
{
    LinkRun run;
    pid_t child = -1;
    pid_t tcpAgent = -1;
    int readFd = -1;
    int writeFd = -1;
    std::string token;
    const std::string errPath = "/tmp/bench_agent_link.agent.err";
    if (transport == Transport::Stdio) {
        AgentProcess p;
        if (Error e = spawnAgentProcess("exec " + rtscopeCommand(o) + " agent --stdio", p)) {
            run.problem = e.message;
            return run;
        }
        child = p.pid;
        readFd = p.fromAgent;
        writeFd = p.toAgent;
    } else {
        const int port = startTcpAgent(o, errPath, tcpAgent, token);
        if (port <= 0) {
            run.problem = "the agent did not say which port it listens on: " + readText(errPath);
            stopTcpAgent(tcpAgent);
            return run;
        }
        if (Error e = connectAgentTcp("127.0.0.1", port, 5000, readFd)) {
            run.problem = e.message;
            stopTcpAgent(tcpAgent);
            return run;
        }
        writeFd = readFd;
    }
    std::vector<Arrival> arrivals;
    arrivals.reserve(size_t(o.seconds) * 64 + 64);
    std::string recording;
    nlohmann::json ended;
    {
        AgentClient client(readFd, writeFd);
        client.setToken(token);
        client.setRecordingObserver([&](uint64_t bytes, int64_t at) {
            arrivals.push_back({bytes, at, client.bytesReceived()});
        });
        nlohmann::json started;
        // The hello alone: the agent sends nothing else before it is asked to start. What was read by the time
        // start() returns is not a fixed size: the started frame and the stream's first frames can come in either
        // order and in one read (the agent under qemu showed both), so the started frame counts with the status
        // frames below.
        if (Error e = client.connect(5000))
            run.problem = "connect: " + e.message;
        run.helloBytes = client.bytesReceived();
        if (run.problem.empty())
            if (Error e2 = client.start("latency", linkConfig(o, periodUs), 5000, &started))
                run.problem = "start: " + e2.message;
        const nlohmann::json hello = client.agentHello();
        if (hello.is_object() && hello.contains("probe") && hello["probe"].is_object())
            run.machine = hello["probe"].value("machine", "");
        if (run.problem.empty() && (!client.waitEnded(o.seconds * 1000 + 10'000) || client.endedInfo().is_null()))
            run.problem = "no ended frame: " + client.connectionError();
        ended = client.endedInfo();
        client.closeSending();
        if (child > 0)
            reapAgentProcess(child, 2000);
        // The reading thread is joined by the destructor below; the stream and counts are complete once Ended came.
        recording = client.recording();
        run.wireBytes = client.bytesReceived();
    }
    stopTcpAgent(tcpAgent);
    if (!run.problem.empty())
        return run;

    run.recordingBytes = recording.size();
    run.recordingFrames = arrivals.size();
    LinkStreamVisitor visitor(arrivals, run);
    const RecordingReadResult read =
        readRecording(recording, visitor, [&](uint64_t bytesRead, uint64_t) { return visitor.blockRead(bytesRead); });
    if (!read.ok) {
        run.problem = "the received stream does not read: " + read.error;
        return run;
    }
    run.endSamples = read.samples;
    run.endLost = read.lost;
    run.notKept = ended.value("samples_not_kept", uint64_t(0));
    run.ringDrops = visitor.drops();
    // Steady state: from the first frame that brought samples to the last one before the final frame (which carries
    // the end block and whatever the stop flushed), so the hello, the header and the ended frame are left out.
    const auto& at = visitor.samplesAt();
    if (at.size() >= 3) {
        const size_t first = at.begin()->first;
        const size_t last = std::prev(at.end(), 2)->first;
        uint64_t samples = 0;
        for (auto it = std::next(at.begin()); it != at.end() && it->first <= last; ++it)
            samples += it->second;
        const double bytes = double(arrivals[last].wireBytes - arrivals[first].wireBytes);
        const double seconds = double(arrivals[last].arrivalNs - arrivals[first].arrivalNs) / 1e9;
        if (samples > 0 && seconds > 0) {
            run.steadyBytesPerSample = bytes / double(samples);
            run.steadyBytesPerSecond = bytes / seconds;
        }
    }
    run.ok = true;
    return run;
}

// The peer: `rtscope latency --record` of the same configuration on this machine, no link.
struct FileRun {
    bool ok = false;
    uint64_t samples = 0;
    uint64_t bytes = 0;
};

FileRun runLocalRecording(const LinkOptions& o, int periodUs)
{
    FileRun f;
    const std::string path = "/tmp/bench_agent_link.rtrec";
    const std::string args = "latency -q --cpu " + std::to_string(o.cpu) + " -p " + std::to_string(o.priority) +
                             " -i " + std::to_string(periodUs) + " -D " + std::to_string(o.seconds) + "s --record " +
                             path;
    const pid_t pid = spawnRtscope(o, args, nullptr, "/dev/null", nullptr);
    if (pid <= 0)
        return f;
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return f;
    const std::string bytes = readText(path);
    RecordingVisitor count;
    const RecordingReadResult read = readRecording(bytes, count);
    std::remove(path.c_str());
    f.ok = read.ok;
    f.samples = read.samples;
    f.bytes = bytes.size();
    return f;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Percentile @p p of @p v (nearest rank), in µs.
double percentileUs(std::vector<int64_t> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t rank = std::min(v.size() - 1, size_t(p / 100.0 * double(v.size())));
    return double(v[rank]) / 1000.0;
}

std::string list(const std::vector<double>& v, const char* fmt)
{
    std::string out;
    for (double x : v) {
        char buf[48];
        std::snprintf(buf, sizeof buf, fmt, x);
        out += (out.empty() ? "" : " ") + std::string(buf);
    }
    return out;
}

// Per round figures of one rate and transport, and what was pooled over the rounds.
struct Series {
    std::vector<double> totalBps, steadyBps, steadyRate, recBps, fileBps, ratio;
    std::vector<double> p50, p99, max, inBlockP50, arriveP50, arriveP99, arriveMax, spanMs;
    std::vector<double> rate, fixedBytes, framingBps, otherBps;
    uint64_t samples = 0;
    uint64_t lost = 0;
    int failed = 0;
};

LinkOptions parseLinkArgs(int argc, char** argv)
{
    LinkOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", k.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        const auto number = [&](int lo, int hi) {
            const std::string v = value();
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < lo || n > hi) {
                std::fprintf(stderr, "%s: '%s' is not a whole number from %d to %d\n", k.c_str(), v.c_str(), lo, hi);
                std::exit(2);
            }
            return int(n);
        };
        if (k == "--rtscope")
            o.rtscope = value();
        else if (k == "--agent-cmd") {
            o.agentCmd = value();
            if (o.agentCmd.find_first_not_of(" \t") == std::string::npos) {
                std::fprintf(stderr,
                             "--agent-cmd: '%s' is empty; give the command that runs rtscope, its arguments are "
                             "appended (e.g. \"qemu-aarch64-static build/arm64/app/rtscope\")\n",
                             o.agentCmd.c_str());
                std::exit(2);
            }
        } else if (k == "--seconds")
            o.seconds = number(1, 600);
        else if (k == "--rounds")
            o.rounds = number(1, 100);
        else if (k == "--cpu")
            o.cpu = number(0, 4095);
        else if (k == "--priority")
            o.priority = number(1, 99);
        else {
            std::fprintf(stderr,
                         "usage: bench_agent_link [--rtscope PATH | --agent-cmd \"COMMAND\"] [--seconds S (1-600)] "
                         "[--rounds R (1-100)] [--cpu N] [--priority 1-99]\n");
            std::exit(2);
        }
    }
    return o;
}

// `<rtscope command> --version`'s first line ("rtscope 0.1.0"), or one sentence naming the flag when the command does
// not run rtscope: checked once, so a wrong --agent-cmd or --rtscope is not reported by every run.
std::string checkRtscope(const LinkOptions& o)
{
    const std::string outPath = "/tmp/bench_agent_link.version";
    const pid_t pid = spawnRtscope(o, "--version", "/dev/null", outPath.c_str(), "/dev/null");
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    std::string out = readText(outPath);
    std::remove(outPath.c_str());
    out = out.substr(0, out.find('\n'));
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.starts_with("rtscope "))
        return out;
    const bool cmd = !o.agentCmd.empty();
    std::fprintf(
        stderr, "%s: '%s' does not run rtscope (`%s --version` %s%s%s); give %s\n", cmd ? "--agent-cmd" : "--rtscope",
        cmd ? o.agentCmd.c_str() : o.rtscope.c_str(), rtscopeCommand(o).c_str(),
        pid <= 0 ? "could not be started" : "printed '", pid <= 0 ? "" : out.c_str(),
        pid <= 0 ? "" : ("' and exited " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1)).c_str(),
        cmd ? "a command that runs an rtscope binary, e.g. \"qemu-aarch64-static build/arm64/app/rtscope\""
            : "the path of an rtscope binary");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv)
{
    const LinkOptions o = parseLinkArgs(argc, argv);
    std::signal(SIGPIPE, SIG_IGN);
    const std::string version = checkRtscope(o);
    if (o.agentCmd.empty())
        std::printf("# agent: native, %s (%s)\n", o.rtscope.c_str(), version.c_str());
    else
        std::printf("# agent: `%s` (--agent-cmd, %s); the peer --record run goes through it too\n", o.agentCmd.c_str(),
                    version.c_str());
    std::printf(
        "# agent link: rtscope agent on this machine, SCHED_FIFO %d on CPU %d, %d s per run, %d rounds;\n"
        "# each round: per rate, a local `rtscope latency --record` (the peer: the recording format's own\n"
        "# bytes/sample), then the agent over stdio pipes and over loopback TCP. Figures: medians of the rounds.\n"
        "# wire B/sample: every byte read from the agent over the whole session (hello with the probe, header,\n"
        "#   status and heartbeat frames, frame headers) / samples received; steady: the same between the\n"
        "#   first and the last samples frame (no hello, header or ended frame). ratio: steady wire / file.\n"
        "# lost: end-block samples not received + samples not kept + ring drops + sequence gaps.\n"
        "# delay: a sample's wake-up (deadline + latency + correction, carried exactly in the stream, same\n"
        "#   CLOCK_MONOTONIC) to the read() that completed its block in the client. Made of: waiting for its\n"
        "#   block to close (the agent's recorder closes a samples block when it spans 50 ms or holds 4096\n"
        "#   samples, agentStreamLimits in engine/remote/agent_server.cpp) + the block's last wake-up to arrival\n"
        "#   (the agent's 10 ms collector drain, the writer, the transport). Both parts are measured and printed; the\n"
        "#   delay is printed relative to the measured block span (first to last wake-up of a block).\n",
        o.priority, o.cpu, o.seconds, o.rounds);
    const int rates[] = {1000, 50};
    const Transport transports[] = {Transport::Stdio, Transport::Tcp};
    std::map<std::pair<int, int>, Series> series;
    for (int round = 0; round < o.rounds; ++round) {
        for (int periodUs : rates) {
            const FileRun file = runLocalRecording(o, periodUs);
            if (!file.ok || file.samples == 0)
                std::fprintf(stderr, "round %d, %d us: the local --record run failed\n", round + 1, periodUs);
            const double fileBps = file.ok && file.samples ? double(file.bytes) / double(file.samples) : 0;
            for (Transport t : transports) {
                Series& s = series[{periodUs, int(t)}];
                const LinkRun r = runOverLink(o, t, periodUs);
                if (!r.ok) {
                    ++s.failed;
                    std::fprintf(stderr, "round %d, %d us, %s: %s\n", round + 1, periodUs, transportName(t),
                                 r.problem.c_str());
                    continue;
                }
                s.samples += r.samples;
                s.lost += r.lost();
                s.totalBps.push_back(double(r.wireBytes) / double(std::max<uint64_t>(1, r.samples)));
                s.steadyBps.push_back(r.steadyBytesPerSample);
                s.steadyRate.push_back(r.steadyBytesPerSecond / 1000.0);
                s.recBps.push_back(double(r.recordingBytes) / double(std::max<uint64_t>(1, r.samples)));
                s.fileBps.push_back(fileBps);
                s.ratio.push_back(fileBps > 0 ? r.steadyBytesPerSample / fileBps : 0);
                s.p50.push_back(percentileUs(r.delayNs, 50));
                s.p99.push_back(percentileUs(r.delayNs, 99));
                s.max.push_back(percentileUs(r.delayNs, 100));
                s.inBlockP50.push_back(percentileUs(r.inBlockNs, 50));
                s.arriveP50.push_back(percentileUs(r.blockToArrive, 50));
                s.arriveP99.push_back(percentileUs(r.blockToArrive, 99));
                s.arriveMax.push_back(percentileUs(r.blockToArrive, 100));
                s.rate.push_back(r.seconds > 0 ? double(r.samples) / r.seconds : 0);
                s.fixedBytes.push_back(double(r.helloBytes + r.headerBytes));
                const double n = double(std::max<uint64_t>(1, r.samples));
                s.framingBps.push_back(5.0 * double(r.recordingFrames) / n);
                s.otherBps.push_back(double(r.wireBytes - r.recordingBytes - 5 * r.recordingFrames - r.helloBytes) / n);
                std::vector<int64_t> spans = r.blockSpanNs;
                if (spans.size() > 1)
                    spans.pop_back(); // the last block is cut by the stop
                s.spanMs.push_back(percentileUs(spans, 50) / 1000.0);
                std::printf(
                    "round %d  %4d us  %-5s  %s  %7llu samples (%.0f/s)  %llu lost  wire %.2f B/sample = stream "
                    "%.2f (file %.2f) + frame headers %.2f + hello %llu B + started, status, heartbeat, ended %.2f; "
                    "steady %.2f (%.1f kB/s)  delay p50 %.0f p99 %.0f max %.0f us  %llu blocks\n",
                    round + 1, periodUs, transportName(t), r.machine.empty() ? "?" : r.machine.c_str(),
                    (unsigned long long)r.samples, s.rate.back(), (unsigned long long)r.lost(), s.totalBps.back(),
                    s.recBps.back(), fileBps, s.framingBps.back(), (unsigned long long)r.helloBytes, s.otherBps.back(),
                    s.steadyBps.back(), s.steadyRate.back(), s.p50.back(), s.p99.back(), s.max.back(),
                    (unsigned long long)r.blocks);
                std::fflush(stdout);
            }
        }
    }
    std::printf(
        "\n| period | transport | samples (all rounds) | samples/s | lost | wire B/sample (whole session) | "
        "fixed: hello + stream header (B) | wire B/sample (steady) | wire kB/s (steady) | file B/sample (peer) "
        "| steady wire / file | started, status, heartbeat, ended frames (B/sample) | delay p50 / p99 / max (ms) | "
        "of which waiting in its block, p50 (ms) | block close → arrival p50 / p99 / max (ms) | block span "
        "(ms) | delay p50 / block span |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- "
        "| ---: | ---: |\n");
    bool pass = true;
    for (int periodUs : rates) {
        const char* period = periodUs == 1000 ? "1 ms" : "50 µs";
        for (Transport t : transports) {
            const Series& s = series[{periodUs, int(t)}];
            if (s.totalBps.empty()) {
                std::printf("| %s | %s | — (every run failed) |\n", period, transportName(t));
                pass = false;
                continue;
            }
            const double span = median(s.spanMs);
            pass = pass && median(s.steadyBps) <= 12.0 && s.lost == 0 && s.failed == 0;
            std::printf("| %s | %s | %llu | %.0f | %llu | %.2f | %.0f | %.2f | %.1f | %.2f | %.2f× | %.2f | %.1f / "
                        "%.1f / %.1f | %.1f | %.1f / %.1f / %.1f | %.1f | %.2f× |\n",
                        period, transportName(t), (unsigned long long)s.samples, median(s.rate),
                        (unsigned long long)s.lost, median(s.totalBps), median(s.fixedBytes), median(s.steadyBps),
                        median(s.steadyRate), median(s.fileBps), median(s.ratio), median(s.otherBps),
                        median(s.p50) / 1000, median(s.p99) / 1000, median(s.max) / 1000, median(s.inBlockP50) / 1000,
                        median(s.arriveP50) / 1000, median(s.arriveP99) / 1000, median(s.arriveMax) / 1000, span,
                        span > 0 ? median(s.p50) / (span * 1000.0) : 0.0);
            std::printf("#   per round: steady B/sample %s; delay p99 µs %s\n", list(s.steadyBps, "%.2f").c_str(),
                        list(s.p99, "%.0f").c_str());
        }
    }
    std::printf("\ntargets: steady wire ≤ 12 B/sample (median of rounds) and 0 lost in every run: %s\n",
                pass ? "PASS" : "MISS");
    return 0;
}
