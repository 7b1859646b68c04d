// `rtscope agent --stdio`: runs experiments for a controller on the other end of stdin/stdout (docs/remote.md).
// The agent protocol's frames are the only thing on stdout; every message for a person goes to stderr, which ssh
// and `--target-cmd` pass through to the controller's terminal.
#include "app/cli/command_util.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/registry.h"
#include "engine/io/agent_protocol.h"
#include "engine/io/recording.h"
#include "engine/io/report_json.h"
#include "engine/rt/caller_affinity.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rtscope::cli {

namespace {

// How often the loop looks at the run when no frame comes: the end of a -D run and the status frames.
constexpr int kAgentLoopMs = 20;
// The live status line is redrawn at most this often on the controller's side.
constexpr int64_t kAgentStatusNs = 100 * kNsPerMs;

struct AgentOptions {
    bool stdio = false;
};

// The descriptor the frames go to. stdout itself is pointed at stderr, so that a stray printf anywhere in the
// engine lands on the controller's terminal instead of corrupting the frame stream.
int takeStdoutForFrames()
{
    const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return -1;
    dup2(STDERR_FILENO, STDOUT_FILENO);
    // Non-blocking when it is a pipe or a socket (never a terminal, whose flags the shell shares): a controller
    // that stops reading makes a write fail after the heartbeat timeout instead of hanging the agent.
    struct stat st {};
    if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

class Agent {
public:
    explicit Agent(int frameFd)
        : m_out(frameFd)
        , m_probe(probeSystem())
        , m_recorder(
              m_probe, [this](std::string_view bytes) { return m_out.sendChunked(AgentFrameType::Recording, bytes); },
              RecordingWriter::Limits{})
    {
        m_recorder.setCommand("rtscope agent (started by a controller)");
        m_latency.setLockAllMemory(true);
        m_latency.setRunSink(&m_recorder);
        m_latency.setCollectorPace(10 * kNsPerMs, kAgentStatusNs);
    }
    ~Agent() { stopRun("the agent is leaving"); }

    int run()
    {
        if (Error e = m_out.sendJson(AgentFrameType::Hello, agentHello(toJson(m_probe), m_probe.hostname))) {
            std::fprintf(stderr, "rtscope agent: cannot send the hello: %s\n", e.message.c_str());
            return ExitFailure;
        }
        std::string buffer(64 << 10, '\0');
        int64_t lastReceivedNs = nowNs();
        for (;;) {
            pollfd in{STDIN_FILENO, POLLIN, 0};
            const int r = ::poll(&in, 1, kAgentLoopMs);
            if (r < 0 && errno != EINTR) {
                std::fprintf(stderr, "rtscope agent: cannot wait for the controller: %s\n", std::strerror(errno));
                return leave("the agent cannot read its input", ExitFailure);
            }
            const int64_t now = nowNs();
            if (r > 0) {
                const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
                if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                    const std::string why = m_decoder.pending() ? "the controller's connection ended inside a frame"
                                                                : std::string("the controller closed the connection");
                    return leave(why, ExitOk);
                }
                if (n > 0) {
                    lastReceivedNs = now;
                    m_decoder.feed(std::string_view(buffer.data(), size_t(n)));
                    readFrames();
                }
            }
            if (now - lastReceivedNs > int64_t(kAgentHeartbeatTimeoutMs) * kNsPerMs)
                return leave("no frame from the controller for " + std::to_string(kAgentHeartbeatTimeoutMs / 1000) +
                                 " s (it sends a heartbeat every " + std::to_string(kAgentHeartbeatMs / 1000) + " s)",
                             ExitFailure);
            if (const int sig = waitForStopSignal(0))
                return leave(std::string("stopped by ") + strsignal(sig), ExitOk);
            if (m_latency.running() && m_latency.finished())
                stopRun({});
            sendStatus(now);
            if (m_out.failed())
                return leave("the controller stopped reading", ExitFailure);
            if (now - m_out.lastSentNs() >= int64_t(kAgentHeartbeatMs) * kNsPerMs)
                (void)m_out.send(AgentFrameType::Heartbeat, std::string_view()); // a failure is seen just above
        }
    }

private:
    int leave(const std::string& why, int code)
    {
        if (m_latency.running()) {
            const int64_t t0 = nowNs();
            stopRun(why);
            std::fprintf(stderr, "rtscope agent: %s: the run was stopped and its threads joined in %.1f ms\n",
                         why.c_str(), double(nowNs() - t0) / 1e6);
        } else if (code != ExitOk) {
            std::fprintf(stderr, "rtscope agent: %s\n", why.c_str());
        }
        return code;
    }

    void refuse(std::string_view kind, const std::string& message)
    {
        std::fprintf(stderr, "rtscope agent: %s\n", message.c_str());
        (void)m_out.sendJson(AgentFrameType::Error, agentError(kind, message)); // a dead controller is seen by the loop
    }

    void readFrames()
    {
        AgentFrame frame;
        std::string error;
        for (AgentFrameDecoder::Result r; (r = m_decoder.next(frame, error)) != AgentFrameDecoder::Result::NeedMore;) {
            if (r == AgentFrameDecoder::Result::Bad)
                refuse("protocol", error);
            else
                handle(frame);
        }
    }

    void handle(const AgentFrame& frame)
    {
        const std::string name = agentFrameName(uint8_t(frame.type));
        switch (frame.type) {
        case AgentFrameType::Heartbeat:
            return;
        case AgentFrameType::Hello:
            return hello(frame);
        case AgentFrameType::Start:
        case AgentFrameType::Reconfigure:
        case AgentFrameType::Stop:
            if (!m_helloDone)
                return refuse("protocol", name + " before hello: the controller's hello comes first");
            if (frame.type == AgentFrameType::Start)
                return start(frame);
            if (frame.type == AgentFrameType::Reconfigure)
                return reconfigure(frame);
            if (!m_latency.running())
                return refuse("protocol", "stop: nothing is running");
            return stopRun({});
        default:
            return refuse("protocol", name + " frames are the agent's own; a controller sends hello, start, "
                                             "reconfigure, stop and heartbeat");
        }
    }

    void hello(const AgentFrame& frame)
    {
        std::string error;
        const auto j = frame.json(error);
        if (!j)
            return refuse("protocol", error);
        if (std::string mismatch = agentProtocolMismatch(*j, "controller"); !mismatch.empty())
            return refuse("protocol", mismatch);
        m_helloDone = true;
    }

    void start(const AgentFrame& frame)
    {
        std::string error;
        const auto j = frame.json(error);
        if (!j)
            return refuse("protocol", error);
        if (m_latency.running())
            return refuse("protocol", "start: the latency experiment is running; stop it first");
        const auto experiment = j->find("experiment");
        if (experiment == j->end() || !experiment->is_string())
            return refuse("invalid-config", "start: experiment is missing or not a string");
        const std::string name = experiment->get<std::string>();
        bool latency = false;
        const bool known = withExperimentConfigType(
            name, [&]<class Config>(std::type_identity<Config>) { latency = std::is_same_v<Config, LatencyConfig>; });
        if (!known) {
            std::string names;
            for (const std::string& n : experimentNames())
                names += (names.empty() ? "" : ", ") + n;
            return refuse("invalid-config", "start: unknown experiment '" + name + "'; the experiments are " + names);
        }
        if (!latency)
            return refuse("invalid-config", "start: this agent runs the latency experiment only so far (asked for '" +
                                                name + "'; docs/remote.md says what is not built yet)");
        const auto config = j->find("config");
        if (config == j->end())
            return refuse("invalid-config", "start: config is missing");
        std::vector<std::string> problems;
        const LatencyConfig c = latencyConfigFromJson(*config, problems);
        if (!problems.empty())
            return refuse("invalid-config", joinErrors(problems));
        const CpuTopology topology = CpuTopology::current();
        warnAboutOtherMeasurements("agent", c.resolvedCpus(topology));
        if (Error e = m_latency.start(c, topology))
            return refuse(agentErrorKind(e.kind), e.message);
        m_offBusyCpus.emplace(m_latency.busyCpus());
        m_lastStatusGeneration = 0;
        (void)m_out.sendJson(AgentFrameType::Started, nlohmann::json{{"experiment", name},
                                                                     {"config", toJson(m_latency.config())},
                                                                     {"label", m_latency.config().label()}});
    }

    void reconfigure(const AgentFrame& frame)
    {
        std::string error;
        const auto j = frame.json(error);
        if (!j)
            return refuse("protocol", error);
        if (!m_latency.running())
            return refuse("protocol", "reconfigure: nothing is running");
        const auto config = j->find("config");
        if (config == j->end())
            return refuse("invalid-config", "reconfigure: config is missing");
        std::vector<std::string> problems;
        const LatencyConfig c = latencyConfigFromJson(*config, problems);
        if (!problems.empty())
            return refuse("invalid-config", joinErrors(problems));
        // The change is confirmed by the marker it adds to the recording stream.
        m_offBusyCpus.reset();
        if (Error e = m_latency.reconfigure(c))
            refuse(agentErrorKind(e.kind), e.message);
        if (m_latency.running())
            m_offBusyCpus.emplace(m_latency.busyCpus());
    }

    // Stops the run (every thread joined within kJoinBudgetMs, the recording's last bytes sent) and says how it
    // ended. @p why, when given, is the reason the agent stopped it on its own.
    void stopRun(const std::string& why)
    {
        if (!m_latency.running())
            return;
        m_offBusyCpus.reset(); // restored before the stop, as waitForEnd() does
        m_latency.stop();
        const auto snap = m_latency.snapshot();
        nlohmann::json ended{{"finished", m_latency.finished()}, {"reason", why}};
        if (snap) {
            ended["error"] = snap->error;
            ended["memory_lock"] = snap->memoryLock;
            ended["dma_latency_held"] = snap->dmaLatencyHeld;
            ended["dma_latency_note"] = snap->dmaLatencyNote;
        }
        const RecordingWriter::Status st = m_recorder.status();
        ended["recording_error"] = st.error;
        ended["samples_not_kept"] = st.lost;
        (void)m_out.sendJson(AgentFrameType::Ended, ended);
    }

    void sendStatus(int64_t now)
    {
        if (!m_latency.running() || now - m_lastStatusNs < kAgentStatusNs)
            return;
        const auto snap = m_latency.snapshot();
        if (!snap || snap->generation == m_lastStatusGeneration)
            return;
        m_lastStatusGeneration = snap->generation;
        m_lastStatusNs = now;
        (void)m_out.sendJson(AgentFrameType::Status, agentLatencyStatusJson(*snap));
    }

    AgentFrameWriter m_out;
    SystemProbe m_probe;
    AgentFrameDecoder m_decoder;
    bool m_helloDone = false;
    // Declared before the experiment, which must stop before its sink goes.
    RecordingWriter m_recorder;
    LatencyExperiment m_latency;
    std::optional<ScopedCallerAffinity> m_offBusyCpus;
    uint64_t m_lastStatusGeneration = 0;
    int64_t m_lastStatusNs = 0;
};

int runAgentStdio()
{
    // A controller that has gone makes a write fail with EPIPE; the agent then stops its run and leaves.
    std::signal(SIGPIPE, SIG_IGN);
    const int frameFd = takeStdoutForFrames();
    if (frameFd < 0) {
        std::fprintf(stderr, "rtscope agent: cannot use stdout: %s\n", std::strerror(errno));
        return ExitFailure;
    }
    Agent agent(frameFd);
    return agent.run();
}

Command addAgentCommand(CLI::App& app)
{
    auto o = std::make_shared<AgentOptions>();
    auto* sub = app.add_subcommand("agent", "Run experiments for a controller on another machine (rtscope latency "
                                            "--target-cmd, docs/remote.md)");
    sub->add_flag("--stdio", o->stdio,
                  "speak the agent protocol on stdin/stdout (run it through ssh or any command that carries both)");
    return {sub, [o] {
                if (!o->stdio)
                    return reportInvalid("agent", {"agent needs --stdio: it is the only transport built so far "
                                                   "(docs/remote.md)"});
                return runAgentStdio();
            }};
}

} // namespace

const CommandRegistration kAgentRegistration("agent", 90, &addAgentCommand);

} // namespace rtscope::cli
