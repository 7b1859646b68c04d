#include "ui/remote/target_connection.h"

#include "engine/io/recording.h"

#include <QTimer>

namespace rtscope {

TargetConnection::TargetConnection(QObject* parent)
    : QObject(parent)
    , m_watch(new QTimer(this))
{
    // The link is watched while no run polls it, so a dropped idle link is said at once, not at the next Start.
    m_watch->setInterval(250);
    connect(m_watch, &QTimer::timeout, this, &TargetConnection::watch);
}

TargetConnection::~TargetConnection()
{
    close();
}

Error TargetConnection::open(const QString& command)
{
    close();
    AgentProcess process;
    if (Error e = spawnAgentProcess(command.toStdString(), process))
        return e;
    auto client = std::make_shared<AgentClient>(process.fromAgent, process.toAgent);
    if (Error e = client->connect(kHelloMs)) {
        client->closeSending();
        reapAgentProcess(process.pid, kReapMs);
        return {e.kind, "'" + command.toStdString() + "': " + e.message};
    }
    m_command = command;
    m_client = std::move(client);
    m_pid = process.pid;
    m_hello = m_client->agentHello();
    std::vector<std::string> problems; // a field the probe lacks stays unknown: shown as the panel shows defaults
    m_probe = systemProbeFromJson(m_hello.value("probe", nlohmann::json::object()), problems);
    m_lost.clear();
    m_watch->start();
    return {};
}

void TargetConnection::close()
{
    m_watch->stop();
    if (!m_client)
        return;
    m_client->closeSending();
    reapAgentProcess(m_pid, kReapMs);
    m_pid = -1;
    m_client.reset();
}

bool TargetConnection::isOpen() const
{
    return m_client && m_client->connectionError().empty();
}

CpuTopology TargetConnection::topology() const
{
    CpuTopology t;
    t.online = m_probe.onlineCpus;
    t.allowed = m_probe.onlineCpus;
    t.isolated = m_probe.isolatedCpus;
    return t;
}

QString TargetConnection::machine() const
{
    const QString host = QString::fromStdString(m_hello.value("host", std::string()));
    QStringList about;
    if (!m_probe.machine.empty())
        about << QString::fromStdString(m_probe.machine);
    if (!m_probe.kernelRelease.empty())
        about << QString::fromStdString(m_probe.kernelRelease);
    return (host.isEmpty() ? tr("the target") : host) + (about.isEmpty() ? QString() : " (" + about.join(", ") + ")");
}

QString TargetConnection::lostText()
{
    if (m_lost.isEmpty() && m_client) {
        if (const std::string why = m_client->connectionError(); !why.empty())
            m_lost = tr("connection lost at %1 (%2)")
                         .arg(QTime::currentTime().toString("HH:mm:ss"), QString::fromStdString(why));
    }
    return m_lost;
}

void TargetConnection::watch()
{
    if (lostText().isEmpty())
        return;
    m_watch->stop();
    emit lost(m_lost);
}

} // namespace rtscope
