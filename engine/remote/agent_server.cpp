// The agent's session loop (engine/remote/agent_server.h, docs/remote.md): one controller's frames answered, its
// experiments run (latency with its recording as the stream, every other one through AgentRunOf with its
// snapshots), and the run stopped when the controller leaves.
#include "engine/remote/agent_server.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/registry.h"
#include "engine/export/report_json.h"
#include "engine/formats/probe_json.h"
#include "engine/presets/preset.h"
#include "engine/recording/recording_writer.h"
#include "engine/remote/agent_protocol.h"
#include "engine/remote/snapshot_json.h"
#include "engine/rt/caller_affinity.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "engine/util/error.h"
#include "engine/util/exit_code.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rtscope {

namespace {

// How often the loop looks at the run when no frame comes: the end of a -D run and the status frames.
constexpr int kAgentLoopMs = 20;
// The live status line is redrawn at most this often on the controller's side: 4 times a second is enough for a
// progress line, and each status frame (about 160 bytes) is wire the samples pay for (docs/BENCHMARKS.md, "Agent
// link": at 100 ms they alone cost 1.6 bytes a sample at 1 kHz).
constexpr int64_t kAgentStatusNs = 250 * kNsPerMs;
// A thread list read less than this long ago is sent again instead of reading /proc anew.
constexpr int64_t kAgentThreadsReuseNs = 250 * kNsPerMs;
// How often the latency run publishes its snapshot, which the status frames read.
constexpr int64_t kAgentPublishNs = 100 * kNsPerMs;
// A live stream, not a file: sample blocks close every 50 ms (a sample waits for its block, so this sets the
// link's delay; 16 bytes of block framing 20 times a second cost 0.3 bytes a sample at 1 kHz, docs/BENCHMARKS.md
// "Agent link") and go to the wire as soon as they are encoded.
RecordingWriter::Limits agentStreamLimits()
{
    RecordingWriter::Limits l;
    l.blockSpanNs = 50 * kNsPerMs;
    l.writeEachBlock = true;
    return l;
}

// The Start frame's "view" (docs/remote.md, Start): what the controller's page keeps of a run rather than what is
// measured: the starvation lab's series window and the inversion lab's timeline window, which a local page sets on
// its own experiment. Unknown keys are a newer controller's and are ignored; a known key must be a whole number of
// nanoseconds from 1 ms to 10 min.
struct AgentView {
    std::optional<int64_t> seriesWindowNs;
    std::optional<int64_t> timelineWindowNs;
};

// Reads @p j (absent: nothing) into @p view; else the sentence naming the field.
std::string readAgentView(const nlohmann::json* j, AgentView& view)
{
    view = {};
    if (!j || j->is_null())
        return {};
    if (!j->is_object())
        return "start: view must be an object";
    const auto read = [&](const char* key, std::optional<int64_t>& out) -> std::string {
        const auto it = j->find(key);
        if (it == j->end())
            return {};
        if (!it->is_number_integer() || it->get<int64_t>() < kAgentViewMinNs || it->get<int64_t>() > kAgentViewMaxNs)
            return std::string("start: view.") + key + " must be an integer from " + std::to_string(kAgentViewMinNs) +
                   " to " + std::to_string(kAgentViewMaxNs) + " ns (got " + it->dump() + ")";
        out = it->get<int64_t>();
        return {};
    };
    if (std::string e = read("series_window_ns", view.seriesWindowNs); !e.empty())
        return e;
    return read("timeline_window_ns", view.timelineWindowNs);
}

// The experiments the agent runs by name: the registry's and the sweep, which has traits but no preset form
// (engine/experiments/registry.h). Calls @p f(std::type_identity<Config>{}); false for an unknown name.
template <class F> bool withAgentConfigType(std::string_view name, F&& f)
{
    if (name == ExperimentTraits<SweepConfig>::kName) {
        f(std::type_identity<SweepConfig>{});
        return true;
    }
    return withExperimentConfigType(name, f);
}

// The problems of @p config for the experiment @p name: validateExperimentConfig for the registry's; for the
// sweep the same path, the one `rtscope sweep` and the Sweep page take (its JSON reader, then validate() on the
// CPUs it is placed on).
std::vector<std::string> validateAgentConfig(const std::string& name, const nlohmann::json& config)
{
    if (name != ExperimentTraits<SweepConfig>::kName)
        return validateExperimentConfig(name, config);
    std::vector<std::string> errors;
    const SweepConfig c = ExperimentTraits<SweepConfig>::fromJson(config, errors);
    if (errors.empty())
        errors = c.validate(ExperimentTraits<SweepConfig>::placementTopology());
    return errors;
}

// An experiment other than latency, run by the agent: what the session needs of it, whatever its config type.
// One class template over the registry (AgentRunOf below) implements it for all six and the sweep; latency keeps
// its own path, whose stream is the recording.
class AgentRun {
public:
    virtual ~AgentRun() = default;
    virtual std::string_view name() const = 0;
    virtual bool running() const = 0;
    virtual bool finished() const = 0;
    virtual std::vector<int> busyCpus() const = 0;
    /// @brief Stops and joins every thread of the run (the host's stop: within kJoinBudgetMs).
    virtual void stop() = 0;
    /// @brief The newest snapshot as JSON (engine/remote/snapshot_json.h) when its generation is past
    /// @p afterGeneration, with that generation in @p generation; null otherwise.
    virtual nlohmann::json snapshotJson(uint64_t afterGeneration, uint64_t& generation) const = 0;
    /// @brief The config as run (CPUs resolved) and its label.
    virtual nlohmann::json config() const = 0;
    virtual std::string label() const = 0;
    /// @brief The snapshot's own words on how it ended: its error (or note) and memory lock.
    virtual nlohmann::json endedFields() const = 0;
};

template <class Config> class AgentRunOf final : public AgentRun {
public:
    /// @brief Starts @p c, validated by the caller, on the topology the CLI and the presets place it on, keeping
    /// what @p view asks of the experiments that have it.
    Error start(const Config& c, const AgentView& view)
    {
        if constexpr (ExperimentTraits<Config>::kTakesSeriesWindow)
            if (view.seriesWindowNs)
                m_experiment.setSeriesWindow(*view.seriesWindowNs);
        if constexpr (ExperimentTraits<Config>::kTakesTimelineWindow)
            if (view.timelineWindowNs)
                m_experiment.setTimelineWindow(*view.timelineWindowNs);
        return m_experiment.start(c, ExperimentTraits<Config>::placementTopology());
    }
    std::string_view name() const override { return ExperimentTraits<Config>::kName; }
    bool running() const override { return m_experiment.running(); }
    bool finished() const override { return m_experiment.finished(); }
    std::vector<int> busyCpus() const override { return m_experiment.busyCpus(); }
    void stop() override { m_experiment.stop(); }
    nlohmann::json snapshotJson(uint64_t afterGeneration, uint64_t& generation) const override
    {
        const auto snap = m_experiment.snapshot();
        if (!snap || snap->generation <= afterGeneration)
            return nullptr;
        generation = snap->generation;
        return toJson(*snap);
    }
    nlohmann::json config() const override { return toJson(m_experiment.config()); }
    std::string label() const override { return m_experiment.config().label(); }
    nlohmann::json endedFields() const override
    {
        nlohmann::json j = nlohmann::json::object();
        const auto snap = m_experiment.snapshot();
        if (!snap)
            return j;
        j["memory_lock"] = snap->memoryLock; // empty for a sweep: each setting locks its own, in its snapshot
        j["error"] = snap->error;
        return j;
    }

private:
    typename ExperimentTraits<Config>::Experiment m_experiment;
};

// The run of @p name (not latency) with @p config, read and validated as `rtscope run --preset` and the
// subcommands do (validateExperimentConfig: the config's JSON reader, then its validate() on the CPUs it is
// placed on), and started; or null with the refusal's kind and sentence.
std::unique_ptr<AgentRun> startAgentRun(const std::string& name, const nlohmann::json& config, const AgentView& view,
                                        std::string& kind, std::string& message)
{
    if (std::vector<std::string> problems = validateAgentConfig(name, config); !problems.empty()) {
        kind = "invalid-config";
        message = joinErrors(problems);
        return nullptr;
    }
    std::unique_ptr<AgentRun> run;
    withAgentConfigType(name, [&]<class Config>(std::type_identity<Config>) {
        if constexpr (!std::is_same_v<Config, LatencyConfig>) {
            std::vector<std::string> problems;
            const Config c = ExperimentTraits<Config>::fromJson(config, problems); // read without a problem above
            auto made = std::make_unique<AgentRunOf<Config>>();
            if (Error e = made->start(c, view)) {
                kind = agentErrorKind(e.kind);
                message = e.message;
                return;
            }
            run = std::move(made);
        }
    });
    return run;
}

// A command string from the wire would run with the agent's privileges (root, often) for whoever drives it; only
// an agent started with --allow-commands runs one. Empty when @p config (of @p name) holds none or it is allowed.
std::string agentCommandRefusal(const std::string& name, const nlohmann::json& config, bool allowCommands)
{
    if (allowCommands || name != ExperimentTraits<SweepConfig>::kName || !config.is_object())
        return {};
    const auto it = config.find("load_cmd");
    if (it == config.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
        return {}; // none, or not a string: the config's reader says what is wrong with it
    return "start: this agent runs no command sent by a controller (the sweep's load_cmd); start it with "
           "--allow-commands to let its controllers run one with its privileges";
}

} // namespace

// One controller's session, whatever carries it: frames are read from @p inFd and written to @p frameFd (the same
// socket for TCP or a Unix socket).
class AgentSession::Impl {
public:
    Impl(int inFd, int frameFd, const AgentSessionSettings& settings)
        : m_in(inFd)
        , m_listen(settings.listenFd)
        , m_allowCommands(settings.allowCommands)
        , m_out(frameFd)
        , m_probe(probeSystem())
        , m_recorder(
              m_probe, [this](std::string_view bytes) { return m_out.sendChunked(AgentFrameType::Recording, bytes); },
              agentStreamLimits())
    {
        m_recorder.setCommand("rtscope agent (started by a controller)");
        m_latency.setLockAllMemory(true);
        // A start with many hogs gives up at the next hog when the controller has gone or a stop signal came: the
        // loop then sees which, and leaves.
        m_latency.setStartInterrupt([this] { return stopSignalPending() || controllerGone(); });
        m_latency.setRunSink(&m_recorder);
        m_latency.setCollectorPace(10 * kNsPerMs, kAgentPublishNs);
        m_helloDone = settings.helloChecked;
    }
    ~Impl() { stopRun("the agent is leaving"); }

    /// @brief A stop signal (SIGINT, SIGTERM) ended the session: the agent leaves rather than wait for another
    /// controller.
    bool stoppedBySignal() const { return m_stoppedBySignal; }

    int run()
    {
        if (Error e = m_out.sendJson(AgentFrameType::Hello, agentHello(toJson(m_probe), m_probe.hostname))) {
            std::fprintf(stderr, "rtscope agent: cannot send the hello: %s\n", e.message.c_str());
            return ExitFailure;
        }
        std::string buffer(64 << 10, '\0');
        // A whole frame, not a byte, resets the clock: a client dribbling a byte every few seconds would otherwise
        // hold the session (the one-controller slot) as long as it liked. Frames come one after another, so this
        // also bounds each frame: it must be whole within the budget of the one before it.
        const int64_t frameBudgetNs = int64_t(kAgentHeartbeatTimeoutMs) * kNsPerMs;
        int64_t lastFrameNs = nowNs();
        for (;;) {
            pollfd fds[2] = {{m_in, POLLIN, 0}, {m_listen, POLLIN, 0}};
            const int r = ::poll(fds, m_listen >= 0 ? 2 : 1, kAgentLoopMs);
            if (r < 0 && errno != EINTR) {
                std::fprintf(stderr, "rtscope agent: cannot wait for the controller: %s\n", std::strerror(errno));
                return leave("the agent cannot read its input", ExitFailure);
            }
            const int64_t now = nowNs();
            if (r > 0 && m_listen >= 0 && (fds[1].revents & POLLIN))
                refuseSecondController();
            if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
                const ssize_t n = ::read(m_in, buffer.data(), buffer.size());
                if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                    const std::string why = m_decoder.pending() ? "the controller's connection ended inside a frame"
                                                                : std::string("the controller closed the connection");
                    return leave(why, ExitOk);
                }
                if (n > 0) {
                    m_decoder.feed(std::string_view(buffer.data(), size_t(n)));
                    if (readFrames() > 0)
                        lastFrameNs = now;
                }
            }
            if (now - lastFrameNs > frameBudgetNs)
                return leave("no whole frame from the controller for " +
                                 std::to_string(kAgentHeartbeatTimeoutMs / 1000) + " s (" +
                                 (m_decoder.pending() > 0
                                      ? std::to_string(m_decoder.pending()) + " bytes of an unfinished one came; "
                                      : std::string()) +
                                 "it sends a heartbeat every " + std::to_string(kAgentHeartbeatMs / 1000) + " s)",
                             ExitFailure);
            if (const int sig = waitForStopSignal(0)) {
                m_stoppedBySignal = true;
                return leave(std::string("stopped by ") + strsignal(sig), ExitOk);
            }
            if ((m_latency.running() && m_latency.finished()) || (m_run && m_run->finished()))
                stopRun({});
            sendStatus(now);
            sendSnapshot(now, false);
            if (m_out.failed())
                return leave("the controller stopped reading", ExitFailure);
            if (now - m_out.lastSentNs() >= int64_t(kAgentHeartbeatMs) * kNsPerMs)
                (void)m_out.send(AgentFrameType::Heartbeat, std::string_view()); // a failure is seen just above
        }
    }

private:
    // One controller at a time: two driving the same real-time threads would undo each other's commands. The
    // newcomer hears why; the session in progress is not disturbed.
    void refuseSecondController()
    {
        const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        (void)AgentFrameWriter(fd).sendJson(
            AgentFrameType::Error,
            agentError("protocol", "another controller is connected; this agent serves one at a time"));
        std::fprintf(stderr, "rtscope agent: refused a second controller (another controller is connected)\n");
        ::shutdown(fd, SHUT_WR);
        ::close(fd);
    }

    bool anyRunning() const { return m_latency.running() || m_run; }

    // The controller's end of the input is closed (a pipe's writer gone, a socket shut down or reset), seen without
    // reading: bytes still buffered are left for the loop, which reads them and then the end.
    bool controllerGone() const
    {
        pollfd fd{m_in, POLLIN | POLLRDHUP, 0};
        return ::poll(&fd, 1, 0) > 0 && (fd.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL));
    }

    int leave(const std::string& why, int code)
    {
        if (anyRunning()) {
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

    // Handles every whole frame buffered; returns how many there were (a bad one counts: it ended).
    size_t readFrames()
    {
        AgentFrame frame;
        std::string error;
        size_t frames = 0;
        for (AgentFrameDecoder::Result r; (r = m_decoder.next(frame, error)) != AgentFrameDecoder::Result::NeedMore;
             ++frames) {
            if (r == AgentFrameDecoder::Result::Bad)
                refuse("protocol", error);
            else
                handle(frame);
        }
        return frames;
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
            if (!anyRunning())
                return refuse("protocol", "stop: nothing is running");
            return stopRun({});
        case AgentFrameType::ThreadsRequest:
            if (!m_helloDone)
                return refuse("protocol", name + " before hello: the controller's hello comes first");
            return sendThreads(frame);
        default:
            return refuse("protocol", name + " frames are the agent's own; a controller sends hello, start, "
                                             "reconfigure, stop, threads-request and heartbeat");
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
        if (anyRunning())
            return refuse("protocol", "start: the " + std::string(m_run ? m_run->name() : "latency") +
                                          " experiment is running; stop it first");
        const auto experiment = j->find("experiment");
        if (experiment == j->end() || !experiment->is_string())
            return refuse("invalid-config", "start: experiment is missing or not a string");
        const std::string name = experiment->get<std::string>();
        bool latency = false;
        const bool known = withAgentConfigType(
            name, [&]<class Config>(std::type_identity<Config>) { latency = std::is_same_v<Config, LatencyConfig>; });
        if (!known) {
            std::string names;
            for (const std::string& n : experimentNames())
                names += (names.empty() ? "" : ", ") + n;
            names += ", " + std::string(ExperimentTraits<SweepConfig>::kName);
            return refuse("invalid-config", "start: unknown experiment '" + name + "'; the experiments are " + names);
        }
        const auto config = j->find("config");
        if (config == j->end())
            return refuse("invalid-config", "start: config is missing");
        if (std::string e = agentCommandRefusal(name, *config, m_allowCommands); !e.empty())
            return refuse("permission", e);
        const auto view = j->find("view");
        if (std::string e = readAgentView(view == j->end() ? nullptr : &*view, m_view); !e.empty())
            return refuse("invalid-config", e);
        if (!latency)
            return startOther(name, *config, false);
        std::vector<std::string> problems;
        const LatencyConfig c = latencyConfigFromJson(*config, problems);
        if (!problems.empty())
            return refuse("invalid-config", joinErrors(problems));
        const CpuTopology topology = CpuTopology::current();
        for (const std::string& w : otherMeasurementWarnings(c.resolvedCpus(topology), getpid()))
            std::fprintf(stderr, "rtscope agent: warning: %s\n", w.c_str());
        if (Error e = m_latency.start(c, topology))
            return refuse(agentErrorKind(e.kind), e.message);
        m_offBusyCpus.emplace(m_latency.busyCpus());
        m_lastStatusGeneration = 0;
        (void)m_out.sendJson(AgentFrameType::Started, nlohmann::json{{"experiment", name},
                                                                     {"config", toJson(m_latency.config())},
                                                                     {"label", m_latency.config().label()},
                                                                     {"run", ++m_runNumber}});
    }

    // Starts an experiment other than latency. @p restart: a reconfigure, which has validated @p config, stopped
    // the run it replaces and sent that run's final snapshot; the new run's Started says so.
    void startOther(const std::string& name, const nlohmann::json& config, bool restart)
    {
        std::string kind;
        std::string message;
        m_run = startAgentRun(name, config, m_view, kind, message); // a restart keeps the start's view
        if (!m_run) {
            refuse(kind, message);
            if (restart) // the old run is gone: after the refusal, the controller hears that nothing runs
                sendEnded("the new config could not start", false, nlohmann::json::object());
            return;
        }
        m_offBusyCpus.emplace(m_run->busyCpus());
        m_lastSnapshotGeneration = 0;
        m_lastSnapshotNs = 0;
        m_snapshotTooBig = false;
        (void)m_out.sendJson(AgentFrameType::Started, nlohmann::json{{"experiment", name},
                                                                     {"config", m_run->config()},
                                                                     {"label", m_run->label()},
                                                                     {"run", ++m_runNumber},
                                                                     {"reconfigured", restart}});
    }

    void reconfigure(const AgentFrame& frame)
    {
        std::string error;
        const auto j = frame.json(error);
        if (!j)
            return refuse("protocol", error);
        if (!anyRunning())
            return refuse("protocol", "reconfigure: nothing is running");
        const auto config = j->find("config");
        if (config == j->end())
            return refuse("invalid-config", "reconfigure: config is missing");
        if (m_run)
            return restartOther(*config);
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

    // The experiments other than latency change nothing in place: a new config is a new run. It is validated
    // first (with the agent's own CPUs unnarrowed, as at a start), so a bad one leaves the running one alone.
    void restartOther(const nlohmann::json& config)
    {
        const std::string name(m_run->name());
        if (std::string e = agentCommandRefusal(name, config, m_allowCommands); !e.empty())
            return refuse("permission", e);
        m_offBusyCpus.reset();
        if (std::vector<std::string> problems = validateAgentConfig(name, config); !problems.empty()) {
            m_offBusyCpus.emplace(m_run->busyCpus());
            return refuse("invalid-config", joinErrors(problems));
        }
        stopOther();
        startOther(name, config, true);
    }

    // Stops the run other than latency (every thread joined within kJoinBudgetMs) and sends its final snapshot.
    void stopOther()
    {
        // Whether it ended on its own, asked before the stop: some runs count a stopped run as done (contention).
        m_endedFinished = m_run->finished();
        m_offBusyCpus.reset();
        m_run->stop();
        sendSnapshot(nowNs(), true);
        m_endedFields = m_run->endedFields();
        m_run.reset();
    }

    void sendEnded(const std::string& why, bool finished, nlohmann::json fields)
    {
        fields["finished"] = finished;
        fields["reason"] = why;
        (void)m_out.sendJson(AgentFrameType::Ended, fields);
    }

    // Stops the run (every thread joined within kJoinBudgetMs, the recording's last bytes or the final snapshot
    // sent) and says how it ended. @p why, when given, is the reason the agent stopped it on its own.
    void stopRun(const std::string& why)
    {
        if (m_run) {
            stopOther();
            return sendEnded(why, m_endedFinished, m_endedFields);
        }
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

    // The snapshot of the experiment other than latency, when it changed, at most every kAgentSnapshotMs (less
    // often when it is large); @p final: the last one after the stop, whatever the time.
    void sendSnapshot(int64_t now, bool final)
    {
        if (!m_run || (!final && now - m_lastSnapshotNs < m_snapshotIntervalNs))
            return;
        uint64_t generation = 0;
        nlohmann::json snap = m_run->snapshotJson(final ? 0 : m_lastSnapshotGeneration, generation);
        if (snap.is_null())
            return;
        m_lastSnapshotGeneration = generation;
        m_lastSnapshotNs = now;
        const std::string text = nlohmann::json{
            {"experiment", m_run->name()},
            {"run", m_runNumber},
            {"final", final},
            {"snapshot", snap}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        m_snapshotIntervalNs = agentSnapshotIntervalNs(text.size());
        if (text.size() > kMaxAgentSnapshotBytes) {
            // Said once per run; the final one is refused the same way, and the Ended frame still comes.
            if (!m_snapshotTooBig)
                refuse("failure", "the " + std::string(m_run->name()) + " snapshot is " + std::to_string(text.size()) +
                                      " bytes, more than the " + std::to_string(kMaxAgentSnapshotBytes) +
                                      "-byte limit of a snapshot message; it is not sent (a shorter run fits)");
            m_snapshotTooBig = true;
            return;
        }
        (void)m_out.sendSplit(AgentFrameType::SnapshotPart, AgentFrameType::Snapshot, text);
    }

    // The machine's RT and interrupt threads, as `rtscope threads` lists them, at any time. Reading /proc takes
    // a few ms (more with many threads) on this loop, which no measuring thread waits for; a controller asking more
    // often than kAgentThreadsReuseNs gets the last list again, so it cannot keep the agent reading /proc.
    void sendThreads(const AgentFrame& frame)
    {
        std::string error;
        if (!frame.json(error))
            return refuse("protocol", error);
        const int64_t now = nowNs();
        if (m_threadsPayload.empty() || now - m_threadsReadNs >= kAgentThreadsReuseNs) {
            const std::vector<SystemThread> threads = listSystemThreads(true);
            m_threadsReadNs = nowNs();
            m_threadsPayload =
                agentThreadListPayload(threads, m_probe.hostname, double(m_threadsReadNs - now) / double(kNsPerMs));
        }
        (void)m_out.send(AgentFrameType::Threads, m_threadsPayload); // a dead controller is seen by the loop
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

    int m_in;
    AgentView m_view; ///< the latest Start's view, kept by a reconfigure's restart
    int m_listen;
    bool m_allowCommands;
    bool m_stoppedBySignal = false;
    AgentFrameWriter m_out;
    SystemProbe m_probe;
    AgentFrameDecoder m_decoder;
    bool m_helloDone = false;
    // Declared before the experiment, which must stop before its sink goes.
    RecordingWriter m_recorder;
    LatencyExperiment m_latency;
    std::unique_ptr<AgentRun> m_run; ///< the experiment other than latency, while it runs
    std::optional<ScopedCallerAffinity> m_offBusyCpus;
    uint64_t m_runNumber = 0; ///< counts the runs of the session (Started, Snapshot)
    uint64_t m_lastSnapshotGeneration = 0;
    int64_t m_lastSnapshotNs = 0;
    int64_t m_snapshotIntervalNs = int64_t(kAgentSnapshotMs) * kNsPerMs;
    bool m_snapshotTooBig = false;
    nlohmann::json m_endedFields;
    bool m_endedFinished = false;
    uint64_t m_lastStatusGeneration = 0;
    int64_t m_lastStatusNs = 0;
    std::string m_threadsPayload; ///< the last Threads frame's payload, sent again within kAgentThreadsReuseNs
    int64_t m_threadsReadNs = 0;
};

AgentSession::AgentSession(int inFd, int frameFd, const AgentSessionSettings& settings)
    : m_impl(std::make_unique<Impl>(inFd, frameFd, settings))
{}

AgentSession::~AgentSession() = default;

int AgentSession::run()
{
    return m_impl->run();
}

bool AgentSession::stoppedBySignal() const
{
    return m_impl->stoppedBySignal();
}

} // namespace rtscope
