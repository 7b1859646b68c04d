#include "engine/remote/remote_experiment.h"

#include "engine/util/clock.h"

#include <utility>

namespace rtscope {

RemoteRun::RemoteRun(RemoteSession& session, std::string experiment)
    : m_session(session)
    , m_experiment(std::move(experiment))
{}

RemoteRun::~RemoteRun()
{
    stop();
}

Error RemoteRun::start(const nlohmann::json& config, const nlohmann::json& view, int waitMs)
{
    if (m_running)
        return {ErrorKind::InvalidConfig, "the " + m_experiment + " experiment is already running on the target"};
    if (!m_session.isOpen()) {
        const std::string lost = m_session.lostText();
        return {ErrorKind::System,
                lost.empty() ? std::string("not connected to a target") : lost + "; Reconnect first"};
    }
    std::shared_ptr<AgentClient> client = m_session.client();
    const uint64_t startedBefore = client->startedCount();
    // A zero timeout sends the start and looks once: the answer is newSnapshot()'s and failure()'s to find. Only a
    // refusal that is already there (not System: the "did not answer" sentence) or a lost link are errors now. A
    // caller that waits takes every error, the silence included.
    nlohmann::json started;
    if (Error e = client->start(m_experiment, config, waitMs, &started, view);
        e && (waitMs > 0 || e.kind != ErrorKind::System || !client->connectionError().empty())) {
        // Not answered in time on a link that is still up: the agent may start the run yet, and nobody would stop
        // it. It is told to stop now (it answers "nothing is running" if it never started).
        if (waitMs > 0 && e.kind == ErrorKind::System && client->connectionError().empty() &&
            client->startedCount() == startedBefore)
            (void)client->stop();
        return e;
    }
    m_label = started.is_object() ? started.value("label", std::string()) : std::string();
    m_client = std::move(client);
    m_machine = m_session.machine();
    m_startedBefore = startedBefore;
    m_run.reset();
    m_snapshotsSeen = 0;
    m_finalSeen = false;
    m_returnedSequence = 0;
    m_errorsBeforeStop.reset();
    m_startSentNs = nowNs();
    m_running = true;
    return {};
}

void RemoteRun::stop()
{
    if (!m_running)
        return;
    if (m_client && !m_client->ended() && !m_finalSeen && failure().empty()) {
        // A run that ends by itself just now answers this stop with "nothing is running": not the run's error.
        m_errorsBeforeStop = m_client->errors().size();
        (void)m_client->stop(); // a link that has gone shows as ended
        m_client->waitEnded(m_stopWaitMs);
    }
    m_running = false;
}

std::string RemoteRun::failure() const
{
    if (!m_client)
        return {};
    const std::vector<std::string> errors = m_client->errors(); // since this start: a refusal, or the run's trouble
    if (!errors.empty() && (!m_errorsBeforeStop || *m_errorsBeforeStop > 0))
        return errors.front();
    if (const std::string lost = m_client->connectionError(); !lost.empty() && !m_finalSeen) {
        const std::string text = m_session.client() == m_client ? m_session.lostText() : std::string();
        return (text.empty() ? "connection lost (" + lost + ")" : text) +
               (m_run ? "; the last snapshot received is kept" : "");
    }
    if (!m_run && m_client->startedCount() == m_startedBefore && m_running &&
        nowNs() - m_startSentNs > int64_t(kStartMs) * kNsPerMs)
        return "the agent did not answer the start within " + std::to_string(kStartMs / 1000) + " s";
    return {};
}

bool RemoteRun::over() const
{
    if (!m_client)
        return false;
    return m_finalSeen || !failure().empty() || (m_run && m_client->ended());
}

std::optional<AgentSnapshotMessage> RemoteRun::newSnapshot()
{
    if (!m_client)
        return std::nullopt;
    if (!m_run && m_client->startedCount() > m_startedBefore) {
        const nlohmann::json started = m_client->lastStarted();
        m_run = started.value("run", uint64_t(0));
        m_label = started.value("label", m_label);
    }
    if (!m_run)
        return std::nullopt;
    uint64_t count = 0;
    std::optional<AgentSnapshotMessage> message = m_client->snapshot(m_snapshotsSeen, count);
    if (!message)
        return std::nullopt;
    m_snapshotsSeen = count;
    if (message->run != *m_run) // the newest is another run's (a late one of an earlier run): take this run's own
        message = m_client->snapshotOfRun(*m_run);
    if (!message || message->sequence == m_returnedSequence) // nothing of this run, or only what was returned
        return std::nullopt;
    m_returnedSequence = message->sequence;
    if (message->final)
        m_finalSeen = true;
    return message;
}

} // namespace rtscope
