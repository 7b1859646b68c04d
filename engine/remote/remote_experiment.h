#pragma once
// The run of an experiment other than latency on a target (docs/remote.md): the one remote run the desktop app and
// the CLI share. A PolledExperimentPage drives it instead of its own experiment while a target is connected; an
// experiment subcommand given --target or --target-cmd drives it through the same runTable() as its local run
// (app/cli/remote_link.h). Start sends the config to the agent; the agent streams the run's snapshots as JSON
// (engine/remote/snapshot_json.h), which are read back into the engine's own snapshot type, so a remote run is
// drawn and printed exactly as a local one.
//
// By default nothing waits at Start (the GUI thread must not): the config is sent and the answer is looked for at
// each refresh (a snapshot of the run: it runs; an error frame: refused, shown as the run's error; no answer within
// kStartMs: said so). The CLI waits for the answer instead (setStartWaitMs), so a refusal is the command's error
// with its exit code. Stop waits at most stopWaitMs() for the run's final snapshot. A dropped link keeps the last
// snapshot received and says when the link was lost.
//
// Qt-free: the link comes from a RemoteSession (the GUI's TargetConnection, the CLI's CliTarget).
#include "engine/experiments/registry.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/snapshot_json.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/error.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace rtscope {

/// What a remote run needs of the link it runs on. The desktop app's TargetConnection and the CLI's CliTarget give it.
class RemoteSession {
public:
    virtual ~RemoteSession() = default;
    /// The link of the current session (null when closed); a run keeps its own reference.
    virtual std::shared_ptr<AgentClient> client() const = 0;
    /// Open and not lost.
    virtual bool isOpen() const = 0;
    /// Empty while the link is up, else the sentence that says when and why it was lost.
    virtual std::string lostText() = 0;
    /// "board-7 (aarch64, 6.12.0-rt)".
    virtual std::string machine() const = 0;
};

/// The part of a remote run that does not depend on the experiment's types: the start, its answer, the stop, and
/// the newest snapshot message of this run.
class RemoteRun {
public:
    /// How long the agent has to answer a start (checked at each refresh, never waited for).
    static constexpr int kStartMs = 10'000;
    /// How long Stop waits by default for the run's end (on the GUI thread: its threads are joined within 100 ms
    /// there).
    static constexpr int kStopWaitMs = 300;

    /// @p experiment is the registry's name ("drift"); @p session must outlive the run.
    RemoteRun(RemoteSession& session, std::string experiment);
    ~RemoteRun();
    RemoteRun(const RemoteRun&) = delete;
    RemoteRun& operator=(const RemoteRun&) = delete;

    /// Sends the start of @p config (the preset JSON) with the agent's view options @p view (window lengths, or
    /// null). With @p waitMs 0, an error only when nothing could be sent (not connected, the link lost); else waits
    /// that long for the answer and returns a refusal as the agent's error (its kind and sentence).
    Error start(const nlohmann::json& config, const nlohmann::json& view, int waitMs = 0);
    /// Asks the agent to stop and waits at most stopWaitMs() for the run's end.
    void stop();
    int stopWaitMs() const { return m_stopWaitMs; }
    void setStopWaitMs(int ms) { m_stopWaitMs = ms; }
    /// Between start() and stop(), whatever the target says.
    bool running() const { return m_running; }
    /// The run is over on the target: its final snapshot or its end came, it was refused, the link was lost, or
    /// the agent did not answer.
    bool over() const;
    /// Why the run is over other than by running to its end or a stop: the agent's refusal, the lost link or the
    /// silence; empty otherwise.
    std::string failure() const;
    /// The newest snapshot message of this run when it is newer than the last one this returned.
    std::optional<AgentSnapshotMessage> newSnapshot();
    /// The target's name at start() ("board-7 (aarch64, 6.12.0-rt)").
    std::string machine() const { return m_machine; }
    /// The run's label as the agent runs it (its Started frame; empty before the answer came).
    std::string label() const { return m_label; }

private:
    RemoteSession& m_session;
    std::string m_experiment;
    std::shared_ptr<AgentClient> m_client; ///< the link this run was started on
    std::string m_machine;
    std::string m_label;
    int m_stopWaitMs = kStopWaitMs;
    bool m_running = false;
    int64_t m_startSentNs = 0;
    uint64_t m_startedBefore = 0;  ///< the link's Started count before this start: the next one is this run's
    std::optional<uint64_t> m_run; ///< the agent's number of this run, once its Started arrived
    uint64_t m_snapshotsSeen = 0;
    bool m_finalSeen = false;
    uint64_t m_returnedSequence = 0;          ///< the client's sequence of the message newSnapshot() returned last
    std::optional<size_t> m_errorsBeforeStop; ///< set when a stop was sent: the errors that came before it
};

/// The remote counterpart of ExperimentTraits<Config>::Experiment, with the calls a PolledExperimentPage makes:
/// start(config, topology), stop(), running(), finished(), busyCpus() and snapshot().
template <class Config> class RemoteExperiment {
public:
    using Snapshot = typename decltype(snapshotFromJson(std::type_identity<Config>{}, std::declval<nlohmann::json>(),
                                                        std::declval<std::vector<std::string>&>()))::element_type;

    explicit RemoteExperiment(RemoteSession& session)
        : m_run(session, std::string(ExperimentTraits<Config>::kName))
    {}

    /// @p cpus is the target's; the page checked the config against them, and the agent checks it again there.
    Error start(const Config& config, const CpuTopology& cpus)
    {
        (void)cpus;
        if (m_run.running())
            return {ErrorKind::InvalidConfig, "the experiment is already running on the target"};
        if (Error e = m_run.start(toJson(config), m_view, m_startWaitMs))
            return e;
        m_config = config;
        m_started = true;
        m_received.reset();
        m_latest.reset();
        m_decodeError.clear();
        m_shownFailure.clear();
        return {};
    }
    void stop()
    {
        if (!m_run.running())
            return;
        pull(); // first what arrived before the stop
        m_run.stop();
        pull();
    }
    bool running() const { return m_run.running(); }
    /// The run ended on the target, or a snapshot of it could not be read (which ends it here: a page stops it).
    bool finished() const
    {
        pull();
        return m_run.over() || !m_decodeError.empty();
    }
    /// Nothing of this machine is measured: no CPU to keep the GUI off.
    std::vector<int> busyCpus() const { return {}; }
    std::shared_ptr<const Snapshot> snapshot() const
    {
        pull();
        return m_latest;
    }
    /// A view option of the agent's experiment for the next start ("series_window_ns": docs/remote.md).
    void setViewOption(const char* key, int64_t value) { m_view[key] = value; }
    /// How long start() waits for the agent's answer (0, the default: not at all, the answer is looked for later).
    void setStartWaitMs(int ms) { m_startWaitMs = ms; }
    /// How long stop() waits for the run's final snapshot.
    void setStopWaitMs(int ms) { m_run.setStopWaitMs(ms); }
    std::string machine() const { return m_run.machine(); }
    /// The run's label as the target runs it, once it answered the start.
    std::string label() const { return m_run.label(); }

private:
    /// Reads what arrived since the last call: the newest snapshot of this run, or the sentence that ends it.
    void pull() const
    {
        if (!m_started) // nothing was ever started: nothing to read (after a stop, the final snapshot still is)
            return;
        bool changed = false;
        if (std::optional<AgentSnapshotMessage> message = m_run.newSnapshot()) {
            std::vector<std::string> errors;
            if (std::shared_ptr<Snapshot> s =
                    snapshotFromJson(std::type_identity<Config>{}, message->snapshot, errors)) {
                s->generation = ++m_generation; // across runs, as a local experiment numbers its snapshots
                m_received = std::move(s);
                changed = true;
            } else if (m_decodeError.empty()) {
                m_decodeError = "the target's snapshot could not be read: " + joinErrors(errors);
                changed = true;
            }
        }
        std::string why = m_run.failure();
        if (why.empty())
            why = m_decodeError;
        if (!why.empty() && why != m_shownFailure) {
            m_shownFailure = why;
            changed = true;
        }
        if (!changed)
            return;
        if (m_shownFailure.empty()) {
            m_latest = m_received; // drawn as decoded: no copy of a large snapshot per message
            return;
        }
        // A failure ends the run: the last snapshot received (or the config sent, while none came) with its sentence.
        auto s = m_received ? std::make_shared<Snapshot>(*m_received) : std::make_shared<Snapshot>();
        if (!m_received)
            s->config = m_config;
        s->generation = ++m_generation;
        s->running = false;
        s->finished = true;
        s->error = m_shownFailure;
        m_latest = std::move(s);
    }

    mutable RemoteRun m_run;
    Config m_config; ///< as sent
    nlohmann::json m_view = nlohmann::json::object();
    int m_startWaitMs = 0;
    bool m_started = false; ///< a start was sent: from then on pull() reads the run, before and after its stop
    mutable std::shared_ptr<const Snapshot> m_received; ///< the newest snapshot read from the target
    mutable std::shared_ptr<const Snapshot> m_latest;   ///< what snapshot() gives
    mutable std::string m_decodeError;
    mutable std::string m_shownFailure;
    mutable uint64_t m_generation = 0;
};

} // namespace rtscope
