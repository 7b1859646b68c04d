#include "ui/common/rtkit_client.h"

#include <QCryptographicHash>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusVariant>
#include <QMessageBox>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>

namespace rtscope {

namespace {

const QString kRtkitService = QStringLiteral("org.freedesktop.RealtimeKit1");
const QString kRtkitPath = QStringLiteral("/org/freedesktop/RealtimeKit1");
const QString kRtkitInterface = QStringLiteral("org.freedesktop.RealtimeKit1");
constexpr int kRtkitTimeoutMs = 1000;

QString rtkitBusAddress(const QString& address)
{
    if (!address.isEmpty())
        return address;
    // The D-Bus specification's default system bus, unless the environment names another (as a test does).
    return qEnvironmentVariable("DBUS_SYSTEM_BUS_ADDRESS", QStringLiteral("unix:path=/run/dbus/system_bus_socket"));
}

// The grant the GUI installed, for offerRtkitCeiling.
std::shared_ptr<RtkitGrant>& installedRtkitGrant()
{
    static std::shared_ptr<RtkitGrant> grant;
    return grant;
}

} // namespace

RtkitClient::RtkitClient(const QString& address)
{
    const QString bus = rtkitBusAddress(address);
    // One named connection per address: Qt keeps connections by name process-wide.
    m_name = "rtscope-rtkit-" + QCryptographicHash::hash(bus.toUtf8(), QCryptographicHash::Sha1).toHex().left(12);
    QDBusConnection::connectToBus(bus, m_name);
}

RtkitClient::~RtkitClient()
{
    QDBusConnection::disconnectFromBus(m_name);
}

std::optional<RtkitLimits> RtkitClient::limits(std::string* why) const
{
    const QDBusConnection bus(m_name);
    if (!bus.isConnected()) {
        if (why)
            *why = "the system bus does not answer (" + bus.lastError().message().toStdString() + ")";
        return std::nullopt;
    }
    RtkitLimits out;
    const auto property = [&](const char* name, QVariant& value) {
        QDBusMessage call = QDBusMessage::createMethodCall(
            kRtkitService, kRtkitPath, QStringLiteral("org.freedesktop.DBus.Properties"), QStringLiteral("Get"));
        call << kRtkitInterface << QString::fromLatin1(name);
        const QDBusMessage reply = bus.call(call, QDBus::Block, kRtkitTimeoutMs);
        if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty()) {
            if (why)
                *why = "rtkit does not answer (" + reply.errorMessage().toStdString() + ")";
            return false;
        }
        value = reply.arguments().constFirst().value<QDBusVariant>().variant();
        return true;
    };
    QVariant max, nice, rttime;
    if (!property("MaxRealtimePriority", max) || !property("MinNiceLevel", nice) || !property("RTTimeUSecMax", rttime))
        return std::nullopt;
    out.maxPriority = max.toInt();
    out.minNice = nice.toInt();
    out.rttimeUsecMax = rttime.toLongLong();
    if (out.maxPriority < 1 || out.rttimeUsecMax <= 0) {
        if (why)
            *why = "rtkit gives no real-time priority (MaxRealtimePriority " + std::to_string(out.maxPriority) +
                   ", RTTimeUSecMax " + std::to_string(out.rttimeUsecMax) + ")";
        return std::nullopt;
    }
    return out;
}

Error RtkitClient::makeThreadRealtime(pid_t tid, int priority, int64_t usecMax) const
{
    // rtkit refuses a process whose RLIMIT_RTTIME hard limit (the one it reads in /proc/PID/limits) is unlimited or
    // above its RTTimeUSecMax, so both limits are lowered to it, as PipeWire does. Without privilege a lowered hard
    // limit cannot be raised again in this process; a real-time thread that runs that long without blocking gets
    // SIGXCPU, then SIGKILL (docs/rt-privileges.md, "rtkit").
    rlimit rt{};
    if (getrlimit(RLIMIT_RTTIME, &rt) != 0)
        return {ErrorKind::System, std::string("cannot read RLIMIT_RTTIME: ") + std::strerror(errno)};
    if (rt.rlim_max == RLIM_INFINITY || rt.rlim_max > rlim_t(usecMax)) {
        rt.rlim_max = rlim_t(usecMax);
        rt.rlim_cur = std::min(rt.rlim_cur, rt.rlim_max);
        if (setrlimit(RLIMIT_RTTIME, &rt) != 0)
            return {ErrorKind::System, "cannot set RLIMIT_RTTIME to " + std::to_string(usecMax) +
                                           " µs, as rtkit requires: " + std::strerror(errno)};
    }
    QDBusMessage call =
        QDBusMessage::createMethodCall(kRtkitService, kRtkitPath, kRtkitInterface, "MakeThreadRealtimeWithPID");
    call << QVariant::fromValue(quint64(getpid())) << QVariant::fromValue(quint64(tid))
         << QVariant::fromValue(quint32(priority));
    const QDBusMessage reply = QDBusConnection(m_name).call(call, QDBus::Block, kRtkitTimeoutMs);
    if (reply.type() != QDBusMessage::ReplyMessage)
        return {ErrorKind::Permission, reply.errorName().toStdString() + ": " + reply.errorMessage().toStdString()};
    return {};
}

RtkitGrant::RtkitGrant(std::shared_ptr<RtkitClient> client, RtkitLimits limits)
    : m_client(std::move(client))
    , m_limits(limits)
{}

Error RtkitGrant::makeRealtime(pid_t tid, int priority)
{
    if (priority > m_limits.maxPriority) {
        if (!m_useCeiling.load()) {
            m_refusedAbove.store(priority);
            return {ErrorKind::Permission, "it gives priorities up to " + std::to_string(m_limits.maxPriority) +
                                               " (its MaxRealtimePriority) and this asks for " +
                                               std::to_string(priority) + "; choose " +
                                               std::to_string(m_limits.maxPriority) + " or below."};
        }
        priority = m_limits.maxPriority; // the user agreed (offerRtkitCeiling); the thread's spec shows it
    }
    return m_client->makeThreadRealtime(tid, priority, m_limits.rttimeUsecMax);
}

std::string RtkitGrant::describe() const
{
    return "rtkit (priority ≤ " + std::to_string(m_limits.maxPriority) + ")";
}

std::shared_ptr<RtkitGrant> installRtkitGrant(SystemProbe& probe, const QString& address)
{
    if (probe.rtAvailable)
        return nullptr; // the kernel path works: rtkit is not asked
    auto client = std::make_shared<RtkitClient>(address);
    std::string why;
    const std::optional<RtkitLimits> limits = client->limits(&why);
    if (!limits) {
        probe.rtPath = "not available: " + probe.rtUnavailableReason + " Asked rtkit too: " + why + ".";
        return nullptr;
    }
    auto grant = std::make_shared<RtkitGrant>(std::move(client), *limits);
    setRealtimeGrant(grant);
    installedRtkitGrant() = grant;
    probe.rtPath = "rtkit, priority ≤ " + std::to_string(limits->maxPriority);
    return grant;
}

QString rtPathText(const SystemProbe& probe)
{
    if (!probe.rtPath.empty())
        return QString::fromStdString(probe.rtPath);
    // A probe from elsewhere (a recording, a target's hello) does not carry the path: say so rather than "not
    // available" next to an "available".
    if (probe.rtAvailable)
        return QObject::tr("available (path not recorded)");
    return QObject::tr("not available: %1").arg(QString::fromStdString(probe.rtUnavailableReason));
}

bool offerRtkitCeiling(QWidget* parent)
{
    const std::shared_ptr<RtkitGrant>& grant = installedRtkitGrant();
    if (!grant || grant->useCeiling())
        return false;
    const int asked = grant->takeRefusedAbove();
    if (asked == 0)
        return false;
    const int max = grant->limits().maxPriority;
    const auto answer = QMessageBox::question(
        parent, QObject::tr("Real-time priority from rtkit"),
        QObject::tr("This run asks for real-time priority %1, but rtkit gives at most %2. Run at priority %2 "
                    "instead? (For higher priorities, see docs/rt-privileges.md.)")
            .arg(asked)
            .arg(max));
    if (answer != QMessageBox::Yes)
        return false;
    grant->setUseCeiling(true);
    return true;
}

} // namespace rtscope
