#pragma once
// The Latency page's source while a remote target is connected (docs/remote.md, Desktop app): Start sends the
// page's config to the agent, and the snapshots are the received recording stream replayed as it arrives
// (RecordingStream), at the page's refresh rate. A dropped link keeps everything received; the last snapshot says
// when it was lost.
#include "engine/io/recording_stream.h"
#include "ui/common/latency_source.h"

#include <QString>

#include <memory>

namespace rtscope {

class AgentClient;
class TargetConnection;

class RemoteLatencySource final : public LatencySource {
public:
    /// How long the agent has to answer a start, and to send its run's end after a stop.
    static constexpr int kStartMs = 10'000;
    static constexpr int kEndMs = 5'000;

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
    void setSeriesWindow(int64_t ns) override { m_seriesWindowNs = ns; }
    std::shared_ptr<const LatencySnapshot> snapshot() const override;
    /// Nothing of this machine is measured: no CPU to keep the GUI off.
    std::vector<int> busyCpus() const override { return {}; }

    /// Bytes of the current run's recording received so far.
    uint64_t bytesReceived() const { return m_fed; }

private:
    /// Feeds what arrived since the last call to the stream and makes a new snapshot if anything changed.
    void pull() const;

    TargetConnection& m_connection;
    std::shared_ptr<AgentClient> m_client; ///< the link this run was started on
    int64_t m_seriesWindowNs = 10'000'000'000;
    bool m_running = false;
    mutable std::unique_ptr<RecordingStream> m_stream;
    mutable uint64_t m_fed = 0;
    mutable bool m_endSeen = false;
    mutable bool m_dirty = false;      ///< a new snapshot is due though no byte arrived (a reset)
    mutable uint64_t m_generation = 0; ///< across runs, as the live experiment numbers its snapshots
    mutable std::shared_ptr<const LatencySnapshot> m_latest;
};

} // namespace rtscope
