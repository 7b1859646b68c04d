#pragma once
// The desktop app's link to `rtscope agent` on another machine (docs/remote.md, Desktop app): a command that runs
// the agent (ssh, qemu-user, docker exec, …), its hello and probe, and the moment the link was lost. The runs
// themselves go through RemoteLatencySource.
#include "engine/io/agent_client.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"

#include <QObject>
#include <QString>
#include <QTime>

#include <memory>

class QTimer;

namespace rtscope {

class TargetConnection : public QObject {
    Q_OBJECT
public:
    /// How long the agent has to say hello (an ssh login may ask the network first).
    static constexpr int kHelloMs = 30'000;
    /// How long an agent has to leave after its stdin closed before it is killed.
    static constexpr int kReapMs = 2'000;

    explicit TargetConnection(QObject* parent = nullptr);
    ~TargetConnection() override;

    /// Runs @p command (`/bin/sh -c`), waits for the agent's hello and answers it; an open link is closed first.
    Error open(const QString& command);
    /// Closes the link: the agent sees EOF, stops whatever runs and leaves (killed after kReapMs).
    void close();
    /// Open and not lost.
    bool isOpen() const;
    /// The link of the current session (null when closed); a run keeps its own reference.
    std::shared_ptr<AgentClient> client() const { return m_client; }

    QString command() const { return m_command; }
    nlohmann::json hello() const { return m_hello; }
    /// The target's system probe, from its hello.
    const SystemProbe& probe() const { return m_probe; }
    /// The target's CPUs, as its probe lists them: what a config is checked against before it is sent.
    CpuTopology topology() const;
    /// "board-7 (aarch64, 6.12.0-rt)".
    QString machine() const;
    /// Empty while the link is up, else "connection lost at HH:MM:SS (why)". Checks the link first.
    QString lostText();

signals:
    /// The link went down (the agent left, ssh dropped, no frame for 5 s): @p text as lostText().
    void lost(const QString& text);

private:
    void watch();

    QString m_command;
    std::shared_ptr<AgentClient> m_client;
    pid_t m_pid = -1;
    nlohmann::json m_hello;
    SystemProbe m_probe;
    QString m_lost;
    QTimer* m_watch;
};

} // namespace rtscope
