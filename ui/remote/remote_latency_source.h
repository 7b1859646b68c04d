#pragma once
// The Latency page's source while a remote target is connected (docs/remote.md, Desktop app): Start sends the
// page's config to the agent, and the snapshots are the received recording stream replayed as it arrives
// (RecordingStream), at the page's refresh rate. A dropped link keeps everything received; the last snapshot says
// when it was lost.
//
// Start does not wait for the agent's answer on the GUI thread: it sends the config and returns; the answer is
// looked for at each refresh (the first recording bytes: started; an error frame: refused, shown as the run's error;
// nothing within kStartMs: said so). Stop waits at most kStopWaitMs for the run's end (on a live link it comes
// within ~100 ms); what arrives later is still kept in the link's recording, for Save run as recording.
//
// Explain spikes (config.trace) runs on the target; the run's anatomy arrives at its end, in the recording's anatomy
// blocks, and the replay puts it in the snapshot as a local run's is (docs/remote.md). While it runs, only a refusal
// of tracing there is known: the Status frames carry its reason, which the snapshot's tracing shows at once.
#include "engine/recording/recording_stream.h"
#include "ui/common/latency_source.h"

#include <QString>

#include <functional>
#include <memory>
#include <string_view>

namespace rtscope {

class AgentClient;
class TargetConnection;

class RemoteLatencySource final : public LatencySource {
public:
    /// How long the agent has to answer a start (checked at each refresh, never waited for).
    static constexpr int kStartMs = 10'000;
    /// How long Stop waits on the GUI thread for the run's end (its threads are joined within 100 ms there).
    static constexpr int kStopWaitMs = 300;

    /// @p connection must outlive the source.
    explicit RemoteLatencySource(TargetConnection& connection);
    ~RemoteLatencySource() override;

    /// @p cpus is the target's (TargetConnection::topology()); the agent validates the config again there.
    Error start(const LatencyConfig& config, const CpuTopology& cpus) override;
    void stop() override;
    Error reconfigure(const LatencyConfig& config) override;
    /// The protocol has no reset frame: the figures shown are cleared here, at the latest sample received; the
    /// agent's run and its recording go on unchanged.
    void resetStatistics() override;
    bool running() const override { return m_running; }
    /// As sent: the target resolves the CPUs, and its samples show them.
    LatencyConfig config() const override { return m_config; }
    void setSeriesWindow(int64_t ns) override { m_seriesWindowNs = ns; }
    std::shared_ptr<const LatencySnapshot> snapshot() const override;
    /// Nothing of this machine is measured: no CPU to keep the GUI off.
    std::vector<int> busyCpus() const override { return {}; }
    std::string measuredOn() const override { return m_machine.toStdString(); }

    /// Bytes of the current run's recording received so far.
    uint64_t bytesReceived() const { return m_fed; }
    /// Hands the run's recording as received so far (an .rtrec; without its end block if the link was lost) to
    /// @p sink, a piece of at most 1 MiB at a time, from the link's spool file (AgentClient::copyRecording): nothing
    /// before the first start.
    [[nodiscard]] Error copyRecording(const std::function<Error(std::string_view)>& sink) const;
    /// Samples of the current run received so far.
    uint64_t samplesReceived() const;
    /// The machine the current (or last) run was measured on, as TargetConnection::machine() named it at Start.
    QString machine() const { return m_machine; }

private:
    /// Feeds what arrived since the last call to the stream and makes a new snapshot if anything changed.
    void pull() const;
    /// The snapshot of a start that did not happen: no sample, the run over, @p why as its error.
    std::shared_ptr<LatencySnapshot> startFailure(const std::string& why) const;

    TargetConnection& m_connection;
    std::shared_ptr<AgentClient> m_client; ///< the link this run was started on
    QString m_machine;
    LatencyConfig m_config;               ///< as sent: the config of a refused start's snapshot
    mutable bool m_awaitingStart = false; ///< sent, no answer yet
    int64_t m_startSentNs = 0;
    int64_t m_seriesWindowNs = 10'000'000'000;
    bool m_running = false;
    mutable std::unique_ptr<RecordingStream> m_stream;
    mutable uint64_t m_fed = 0;
    mutable bool m_endSeen = false;
    mutable bool m_dirty = false;      ///< a new snapshot is due though no byte arrived (a reset)
    mutable uint64_t m_generation = 0; ///< across runs, as the live experiment numbers its snapshots
    mutable std::shared_ptr<const LatencySnapshot> m_latest;
    mutable uint64_t m_statusGeneration = 0;  ///< the client's last Status frame looked at
    mutable std::string m_tracingUnavailable; ///< the target's reason why tracing could not start, from a Status
};

} // namespace rtscope
