#pragma once
// The desktop app's link to `rtscope agent` on another machine (docs/remote.md, Desktop app): what the user named
// (tcp://, ssh:// or a command that runs the agent: adb, qemu-user, docker exec, …), its hello and probe, and the
// moment the link was lost. The runs themselves go through RemoteLatencySource.
//
// Nothing here waits on the GUI thread: begin() starts the agent (or, for tcp://, a helper thread that connects)
// and returns; a timer looks for the hello every kPollMs and emits opened() or failed(). The link in use stays as
// it is until a new one said hello, so a cancelled or failed attempt leaves the app as it was.
#include "engine/remote/agent_client.h"
#include "engine/remote/remote_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"

#include <QObject>
#include <QString>
#include <QTime>

#include <memory>
#include <optional>
#include <vector>

class QTimer;

namespace rtscope {

/// What a target text names: an agent URL (tcp://, unix:, ssh://, parsed by parseAgentTarget, as the CLI's --target) or
/// a command that runs `rtscope agent --stdio` (as --target-cmd).
struct TargetSpec {
    QString text;                   ///< as given, trimmed
    std::optional<AgentTarget> url; ///< set for tcp://, unix: and ssh://
    QString agentPath = "rtscope";  ///< the agent binary on an ssh:// target
    bool isCommand() const { return !url; }
};
/// The forms a target may take, for sentences.
QString targetForms();
/// Reads @p text ("ssh://root@board", "tcp://127.0.0.1:5000", "ssh root@board rtscope agent --stdio"): anything
/// that starts with a scheme ("word://" or "unix:") is a URL and must be tcp://, unix: or ssh://; anything else is a
/// command. An empty text or a bad URL gives one sentence naming @p field, what was given and the allowed forms.
std::optional<TargetSpec> parseTargetText(const QString& text, const QString& field, QString& problem);

class TargetConnection : public QObject {
    Q_OBJECT
public:
    /// How long the agent has to say hello (an ssh login may ask the network first).
    static constexpr int kHelloMs = 30'000;
    /// The token file a tcp:// agent's token is read from at each begin() (`rtscope --target-token FILE`); empty:
    /// the file $RTSCOPE_AGENT_TOKEN_FILE names, if any (engine/remote/agent_auth.h).
    void setTokenFile(const QString& path) { m_tokenFile = path; }
    /// How long a tcp:// connection may take to be accepted.
    static constexpr int kTcpConnectMs = 10'000;
    /// How long an agent has to leave after its stdin closed before it is killed (reaped by a timer, not waited for).
    static constexpr int kReapMs = 2'000;
    /// How often an attempt looks for the hello (and a leaving agent for its exit).
    static constexpr int kPollMs = 20;

    explicit TargetConnection(QObject* parent = nullptr);
    ~TargetConnection() override;

    /// Starts connecting to @p target and returns at once: a sentence when it cannot even begin (a bad URL, a
    /// command that cannot be started), else empty, and opened() or failed() follows. An attempt in progress is
    /// cancelled first; the open link (if any) stays until the new one said hello.
    QString begin(const TargetSpec& target);
    /// Gives up the attempt in progress: the agent's command is killed, nothing else changes. No signal follows.
    void cancel();
    /// An attempt is in progress.
    bool connecting() const { return m_attempt != nullptr; }
    /// The target of the attempt in progress, or of the open (or lost) link.
    QString targetText() const { return m_attempt ? m_attemptText : m_command; }

    /// Closes the link: the agent sees EOF, stops whatever runs and leaves (killed after kReapMs).
    void close();
    /// Open and not lost.
    bool isOpen() const;
    /// The process of the open link's command (the agent itself for "exec rtscope agent …", ssh for ssh://), -1
    /// for tcp:// or when closed.
    pid_t agentPid() const { return m_pid; }
    /// The link of the current session (null when closed); a run keeps its own reference.
    std::shared_ptr<AgentClient> client() const { return m_client; }

    /// What the open (or lost) link was made from, as the user gave it: Reconnect uses it again.
    QString command() const { return m_command; }
    TargetSpec spec() const { return m_spec; }
    nlohmann::json hello() const { return m_hello; }
    /// The target's system probe, from its hello.
    const SystemProbe& probe() const { return m_probe; }
    /// The target's CPUs, as its probe lists them: what a config is checked against before it is sent.
    CpuTopology topology() const;
    /// "board-7 (aarch64, 6.12.0-rt)".
    QString machine() const;
    /// Empty while the link is up, else "connection lost at HH:MM:SS (why)". Checks the link first.
    QString lostText();
    /// This link as the engine's remote runs see it (RemoteExperiment, engine/remote/remote_experiment.h).
    RemoteSession& session() { return *m_session; }

signals:
    /// The attempt's agent said hello: the link is open (the old one, if any, was closed).
    void opened();
    /// The attempt failed: @p error says why ("'ssh://board': the agent closed the connection").
    void failed(const QString& error);
    /// The link went down (the agent left, ssh dropped, no frame for 5 s): @p text as lostText().
    void lost(const QString& text);

private:
    struct Attempt;
    struct TcpThread;
    void watch();
    void pollAttempt();
    void finishAttempt(const QString& error);
    void reapLater(pid_t pid);
    void reapPoll();

    class Session;
    std::unique_ptr<RemoteSession> m_session;
    QString m_command;
    TargetSpec m_spec;
    QString m_tokenFile;
    std::shared_ptr<AgentClient> m_client;
    pid_t m_pid = -1;
    nlohmann::json m_hello;
    SystemProbe m_probe;
    QString m_lost;
    QTimer* m_watch;
    std::unique_ptr<Attempt> m_attempt;
    QString m_attemptText;
    QTimer* m_attemptPoll;
    struct Leaving {
        pid_t pid;
        int64_t killAtNs;
    };
    std::vector<Leaving> m_leaving; ///< agents whose stdin was closed, reaped by m_reaper
    QTimer* m_reaper;
    std::vector<std::shared_ptr<TcpThread>> m_tcpThreads; ///< tcp:// connections being made, joined once done
};

} // namespace rtscope
