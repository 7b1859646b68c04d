#pragma once
// Real-time priority the desktop way: asking rtkit (RealtimeKit, org.freedesktop.RealtimeKit1 on the system bus)
// to make a thread SCHED_FIFO/RR when the kernel refuses this process (no CAP_SYS_NICE, RLIMIT_RTPRIO 0), as
// PipeWire does. The engine only knows RealtimeGrant (engine/rt/rt_thread.h); this is the UI's one, over Qt D-Bus.
// docs/rt-privileges.md, "rtkit", says what it gives and what it costs (RLIMIT_RTTIME).
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>

class QWidget;

namespace rtscope {

/// @brief rtkit's limits, read from its properties.
struct RtkitLimits {
    int maxPriority = 0;       ///< MaxRealtimePriority: the highest priority it gives
    int minNice = 0;           ///< MinNiceLevel
    int64_t rttimeUsecMax = 0; ///< RTTimeUSecMax: RLIMIT_RTTIME must be set at or below it
};

/// @brief One private connection to the bus rtkit is on. Thread-safe: the calls block (a timeout of 1 s) and may be
/// made from any thread once a QCoreApplication exists.
class RtkitClient {
public:
    /// @p address: a D-Bus address; empty = $DBUS_SYSTEM_BUS_ADDRESS, else the standard system bus socket.
    explicit RtkitClient(const QString& address = {});
    ~RtkitClient();
    RtkitClient(const RtkitClient&) = delete;
    RtkitClient& operator=(const RtkitClient&) = delete;

    /// @brief rtkit's limits, or nullopt with the reason in @p why (not on the bus, no such service, …).
    std::optional<RtkitLimits> limits(std::string* why) const;
    /// @brief Lowers this process's soft RLIMIT_RTTIME to @p usecMax when it is above (rtkit refuses a process
    /// without it), then asks MakeThreadRealtimeWithPID for thread @p tid at @p priority.
    Error makeThreadRealtime(pid_t tid, int priority, int64_t usecMax) const;

private:
    QString m_name;
};

/// @brief The RealtimeGrant the GUI installs: rtkit within its limits. A priority above rtkit's maximum is refused
/// (and remembered for offerRtkitCeiling) unless the user agreed to run at the maximum (setUseCeiling).
class RtkitGrant final : public RealtimeGrant {
public:
    RtkitGrant(std::shared_ptr<RtkitClient> client, RtkitLimits limits);
    Error makeRealtime(pid_t tid, int priority) override;
    std::string describe() const override;

    const RtkitLimits& limits() const { return m_limits; }
    void setUseCeiling(bool on) { m_useCeiling.store(on); }
    bool useCeiling() const { return m_useCeiling.load(); }
    /// @brief The priority last refused for being above the maximum (0 = none), and forgets it.
    int takeRefusedAbove() { return m_refusedAbove.exchange(0); }

private:
    std::shared_ptr<RtkitClient> m_client;
    RtkitLimits m_limits;
    std::atomic<bool> m_useCeiling{false};
    std::atomic<int> m_refusedAbove{0};
};

/// @brief Where the kernel refuses real-time priority and rtkit answers, installs an RtkitGrant (setRealtimeGrant)
/// and sets @p probe.rtPath to "rtkit, priority ≤ N"; otherwise says in rtPath why not ("not available: …").
/// Returns the grant it installed, or null.
std::shared_ptr<RtkitGrant> installRtkitGrant(SystemProbe& probe, const QString& address = {});

/// @brief The System panel's text for the RT path: "CAP_SYS_NICE", "rtprio limit", "rtkit, priority ≤ 20" or
/// "not available: <reason>".
QString rtPathText(const SystemProbe& probe);

/// @brief After a start failed: when rtkit refused a priority above its maximum, asks the user whether to run at
/// the maximum instead. True when the user agreed (start again); false otherwise, and when nothing was refused.
bool offerRtkitCeiling(QWidget* parent);

} // namespace rtscope
