#include "ui/remote/remote_latency_source.h"

#include "engine/remote/agent_client.h"
#include "engine/remote/agent_protocol.h"
#include "engine/util/clock.h"
#include "ui/remote/target_connection.h"

#include <utility>

namespace rtscope {

RemoteLatencySource::RemoteLatencySource(TargetConnection& connection)
    : m_connection(connection)
{}

RemoteLatencySource::~RemoteLatencySource()
{
    stop();
}

Error RemoteLatencySource::start(const LatencyConfig& config, const CpuTopology& cpus)
{
    (void)cpus; // the page checked the config against the target's CPUs; the agent checks it again
    if (m_running)
        return {ErrorKind::InvalidConfig, "the latency experiment is already running"};
    if (!m_connection.isOpen()) {
        const QString lost = m_connection.lostText();
        return {ErrorKind::System,
                lost.isEmpty() ? std::string("not connected to a target") : lost.toStdString() + "; Reconnect first"};
    }
    std::shared_ptr<AgentClient> client = m_connection.client();
    // A zero timeout sends the start and looks once: the answer is pull()'s to find. Only a refusal that is already
    // there (not System: the "did not answer" sentence) or a lost link are errors now.
    if (Error e = client->start("latency", toJson(config), 0, nullptr);
        e && (e.kind != ErrorKind::System || !client->connectionError().empty()))
        return e;
    m_machine = m_connection.machine();
    m_config = config;
    m_awaitingStart = true;
    m_startSentNs = nowNs();
    m_tracingUnavailable.clear();
    m_statusGeneration = 0;
    (void)client->status(0, m_statusGeneration); // a Status of an earlier run on this link is not this run's
    m_client = std::move(client);
    RecordingReplayOptions options;
    options.histogramUs = 0; // as the run keeps it, as the live page shows it
    options.seriesWindowNs = m_seriesWindowNs;
    m_stream = std::make_unique<RecordingStream>(options);
    m_fed = 0;
    m_endSeen = false;
    m_latest.reset();
    m_running = true;
    return {};
}

void RemoteLatencySource::stop()
{
    if (!m_running)
        return;
    pull();
    const bool refused = m_latest && m_awaitingStart; // pull() made the refusal's snapshot: nothing runs there
    if (m_client && !m_client->ended() && !refused) {
        (void)m_client->stop(); // a link that has gone shows as ended below
        m_client->waitEnded(kStopWaitMs);
    }
    pull();
    m_awaitingStart = false;
    m_running = false;
}

Error RemoteLatencySource::reconfigure(const LatencyConfig& config)
{
    if (!m_running || !m_client)
        return {ErrorKind::InvalidConfig, "the latency experiment is not running"};
    return m_client->reconfigure(toJson(config)); // the agent's marker in the stream confirms it
}

void RemoteLatencySource::resetStatistics()
{
    if (!m_stream)
        return;
    pull(); // first what arrived before the reset
    m_stream->resetStatistics();
    m_dirty = true;
}

std::shared_ptr<const LatencySnapshot> RemoteLatencySource::snapshot() const
{
    pull();
    return m_latest;
}

Error RemoteLatencySource::copyRecording(const std::function<Error(std::string_view)>& sink) const
{
    return m_client ? m_client->copyRecording(sink) : Error{};
}

uint64_t RemoteLatencySource::samplesReceived() const
{
    pull();
    return m_stream ? m_stream->samples() : 0;
}

std::shared_ptr<LatencySnapshot> RemoteLatencySource::startFailure(const std::string& why) const
{
    auto snap = std::make_shared<LatencySnapshot>();
    snap->config = m_config;
    snap->running = false;
    snap->finished = true;
    snap->error = why;
    snap->generation = ++m_generation;
    return snap;
}

void RemoteLatencySource::pull() const
{
    if (!m_client || !m_stream)
        return;
    if (m_awaitingStart) {
        if (m_client->recordingBytes() == 0) {
            // No byte of the run yet: refused, lost, too slow, or not yet.
            std::string why;
            if (const std::vector<std::string> errors = m_client->errors(); !errors.empty())
                why = errors.front();
            else if (m_client->ended())
                why = m_connection.lostText().toStdString();
            else if (nowNs() - m_startSentNs > int64_t(kStartMs) * kNsPerMs)
                why = "the agent did not answer the start within " + std::to_string(kStartMs / 1000) + " s";
            if (!why.empty() && !m_latest)
                m_latest = startFailure(why);
            return;
        }
        m_awaitingStart = false;
    }
    bool changed = std::exchange(m_dirty, false);
    if (m_config.trace && m_tracingUnavailable.empty())
        if (const auto j = m_client->status(m_statusGeneration, m_statusGeneration))
            if (const auto status = agentLatencyStatusFromJson(*j); status && !status->tracingUnavailable.empty()) {
                m_tracingUnavailable = status->tracingUnavailable;
                changed = true;
            }
    if (const std::string fresh = m_client->recordingFrom(m_fed); !fresh.empty()) {
        m_stream->feed(fresh);
        m_fed += fresh.size();
        changed = true;
    }
    const bool ended = m_client->ended();
    if (ended && !m_endSeen) {
        m_endSeen = true;
        changed = true;
    }
    if (!changed && m_latest)
        return;
    std::shared_ptr<LatencySnapshot> snap = m_stream->snapshot();
    if (!snap)
        return;
    snap->generation = ++m_generation;
    if (!snap->tracing && !m_tracingUnavailable.empty()) {
        // Until the recording's anatomy block brings the same reason at the end.
        auto tracing = std::make_shared<LatencyTracing>();
        tracing->unavailable = m_tracingUnavailable;
        tracing->top = m_config.traceTop;
        tracing->thresholdNs = m_config.traceThresholdNs;
        snap->tracing = std::move(tracing);
    }
    if (m_endSeen) {
        // The run is over on the target (or the link is gone): the page stops, keeping what it drew.
        snap->running = false;
        snap->finished = true;
        const nlohmann::json info = m_client->endedInfo();
        if (!info.is_null()) {
            snap->memoryLock = info.value("memory_lock", snap->memoryLock);
            snap->dmaLatencyHeld = info.value("dma_latency_held", false);
            snap->dmaLatencyNote = info.value("dma_latency_note", snap->dmaLatencyNote);
            snap->error = info.value("error", std::string());
        } else {
            snap->error = m_connection.lostText().toStdString() + "; everything received is kept (" +
                          std::to_string(m_stream->samples()) + " samples)";
        }
    }
    if (snap->error.empty() && !m_stream->error().empty())
        snap->error = m_stream->error();
    m_latest = std::move(snap);
}

} // namespace rtscope
