#include "ui/remote/target_connection.h"

#include "engine/formats/probe_json.h"
#include "engine/remote/agent_child_exit.h"
#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTimer>

#include <csignal>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace rtscope {

QString targetForms()
{
    return QString("%1, or a command that runs 'rtscope agent --stdio' there (ssh root@board rtscope agent --stdio)")
        .arg(kAgentTargetForms);
}

std::optional<TargetSpec> parseTargetText(const QString& text, const QString& field, QString& problem)
{
    TargetSpec spec;
    spec.text = text.trimmed();
    if (spec.text.isEmpty()) {
        problem = QString("%1 is empty; give %2").arg(field, targetForms());
        return std::nullopt;
    }
    // A scheme means the user meant a URL: one the CLI would refuse is refused here too, never run as a command.
    static const QRegularExpression scheme("^([A-Za-z][A-Za-z0-9+.-]*://|unix:)");
    if (!scheme.match(spec.text).hasMatch())
        return spec;
    std::string why;
    spec.url = parseAgentTarget(spec.text.toStdString(), why);
    if (!spec.url) {
        problem = QString("%1 '%2' is not a target: %3; give %4")
                      .arg(field, spec.text, QString::fromStdString(why), targetForms());
        return std::nullopt;
    }
    return spec;
}

// One attempt: the agent's process (or a TCP connection made by a helper thread), then its client until the hello.
struct TargetConnection::Attempt {
    TargetSpec spec;
    AgentProcess process;
    std::shared_ptr<AgentClient> client;
    QElapsedTimer since;
    std::shared_ptr<TcpThread> tcp; ///< tcp:// and unix: only
    std::string token;              ///< tcp:// only: the agent's token, shown in the hello
};

// tcp://: connectAgentTcp() runs on a thread of its own (it may wait kTcpConnectMs for a silent host); the GUI
// thread looks at `done`. A cancelled attempt's connection is closed by the thread itself; the thread is joined once
// done (at the next begin()) or by the destructor.
struct TargetConnection::TcpThread {
    std::mutex mutex;
    bool done = false;
    bool cancelled = false;
    int fd = -1;
    Error error;
    std::thread thread;
};

/// The engine's view of the link: the same link, its sentences in std::string.
class TargetConnection::Session final : public RemoteSession {
public:
    explicit Session(TargetConnection& connection)
        : m_connection(connection)
    {}
    std::shared_ptr<AgentClient> client() const override { return m_connection.client(); }
    bool isOpen() const override { return m_connection.isOpen(); }
    std::string lostText() override { return m_connection.lostText().toStdString(); }
    std::string machine() const override { return m_connection.machine().toStdString(); }

private:
    TargetConnection& m_connection;
};

TargetConnection::TargetConnection(QObject* parent)
    : QObject(parent)
    , m_session(std::make_unique<Session>(*this))
    , m_watch(new QTimer(this))
    , m_attemptPoll(new QTimer(this))
    , m_reaper(new QTimer(this))
{
    // The link is watched while no run polls it, so a dropped idle link is said at once, not at the next Start.
    m_watch->setInterval(250);
    connect(m_watch, &QTimer::timeout, this, &TargetConnection::watch);
    m_attemptPoll->setInterval(kPollMs);
    connect(m_attemptPoll, &QTimer::timeout, this, &TargetConnection::pollAttempt);
    m_reaper->setInterval(50);
    connect(m_reaper, &QTimer::timeout, this, &TargetConnection::reapPoll);
}

TargetConnection::~TargetConnection()
{
    cancel();
    close();
    // The window is going: the agents that are leaving get their last moment here (each within kReapMs).
    for (const Leaving& l : m_leaving)
        reapAgentProcess(l.pid, int(std::max<int64_t>(0, (l.killAtNs - nowNs()) / kNsPerMs)));
    m_leaving.clear();
    for (const std::shared_ptr<TcpThread>& t : m_tcpThreads)
        t->thread.join();
}

QString TargetConnection::begin(const TargetSpec& target)
{
    cancel();
    auto a = std::make_unique<Attempt>();
    a->spec = target;
    a->since.start();
    const std::string where = "'" + target.text.toStdString() + "': ";
    if (target.isCommand()) {
        if (Error e = spawnAgentProcess(target.text.toStdString(), a->process))
            return QString::fromStdString(where + e.message);
    } else if (target.url->kind == AgentTarget::Kind::Ssh) {
        if (Error e = spawnAgentArgv(sshAgentArgv(*target.url, target.agentPath.toStdString(), {}), a->process))
            return QString::fromStdString(where + e.message);
    } else {
        std::erase_if(m_tcpThreads, [](const std::shared_ptr<TcpThread>& t) {
            std::lock_guard lock(t->mutex);
            if (t->done)
                t->thread.join(); // it has returned already
            return t->done;
        });
        // Only a TCP agent asks for the token: on a Unix socket the kernel tells it who connects.
        if (target.url->kind == AgentTarget::Kind::Tcp)
            if (Error e = tryControllerToken(m_tokenFile.toStdString(), a->token))
                return QString::fromStdString(where + "target-" + e.message);
        auto tcp = std::make_shared<TcpThread>();
        a->tcp = tcp;
        const AgentTarget url = *target.url;
        std::lock_guard lock(tcp->mutex); // the thread reports only once it is named and kept
        tcp->thread = std::thread([tcp, url] {
            int fd = -1;
            Error e = connectAgentSocket(url, kTcpConnectMs, fd);
            std::lock_guard lock(tcp->mutex);
            if (tcp->cancelled && fd >= 0)
                ::close(fd);
            else
                tcp->fd = fd;
            tcp->error = std::move(e);
            tcp->done = true;
        });
        nameAndPlaceHelper(tcp->thread, "rtscope-tcpconn", -1);
        m_tcpThreads.push_back(tcp);
    }
    if (a->process.pid > 0) {
        a->client = std::make_shared<AgentClient>(a->process.fromAgent, a->process.toAgent);
        (void)a->client->connect(0); // starts the reading thread; the hello is looked for by pollAttempt()
    }
    m_attemptText = target.text;
    m_attempt = std::move(a);
    m_attemptPoll->start();
    return {};
}

void TargetConnection::cancel()
{
    m_attemptPoll->stop();
    if (!m_attempt)
        return;
    std::unique_ptr<Attempt> a = std::move(m_attempt);
    if (a->tcp) {
        std::lock_guard lock(a->tcp->mutex);
        a->tcp->cancelled = true;
        if (a->tcp->fd >= 0) // connected, not yet given to a client
            ::close(std::exchange(a->tcp->fd, -1));
    }
    a->client.reset(); // its reading thread leaves at once (the destructor wakes it)
    if (a->process.pid > 0) {
        // Killed rather than asked: a command that never runs an agent (a hung ssh login) would not read an EOF.
        ::kill(a->process.pid, SIGKILL);
        reapLater(a->process.pid);
    }
}

void TargetConnection::pollAttempt()
{
    Attempt* a = m_attempt.get();
    if (!a)
        return;
    if (a->tcp && !a->client) {
        int fd = -1;
        std::string why;
        {
            std::lock_guard lock(a->tcp->mutex);
            if (!a->tcp->done)
                return; // connectAgentTcp() has its own timeout
            why = a->tcp->error.message;
            std::swap(fd, a->tcp->fd); // the client owns it from here
        }
        if (fd < 0)
            return finishAttempt(QString::fromStdString(why));
        a->client = std::make_shared<AgentClient>(fd, fd);
        a->client->setToken(a->token);
        (void)a->client->connect(0);
        a->since.restart();
    }
    // connect(0) looks without waiting: the hello (answered, protocol checked), a refusal, or a lost link.
    const Error e = a->client->connect(0);
    if (!e)
        return finishAttempt({});
    const bool answered =
        !a->client->agentHello().is_null() || !a->client->connectionError().empty() || !a->client->errors().empty();
    if (answered)
        return finishAttempt(QString::fromStdString(e.message));
    if (a->since.elapsed() >= kHelloMs)
        return finishAttempt(tr("the agent sent no hello within %1 s").arg(kHelloMs / 1000));
}

void TargetConnection::finishAttempt(const QString& error)
{
    m_attemptPoll->stop();
    if (!m_attempt)
        return;
    if (!error.isEmpty()) {
        QString text = QString("'%1': %2").arg(m_attemptText, error);
        // A command that ended (not found, ssh refused) says so: that is why the link closed.
        if (pid_t& pid = m_attempt->process.pid; pid > 0) {
            int status = 0;
            if (waitpid(pid, &status, WNOHANG) == pid) {
                pid = -1; // reaped: nothing to kill
                const bool ssh = m_attempt->spec.url.has_value();
                const std::string why = agentChildExitReason(
                    status, ssh,
                    "give a command that runs it by its path instead (ssh user@host /path/rtscope agent --stdio)");
                if (!why.empty())
                    text += "; " + QString::fromStdString(why);
            }
        }
        cancel();
        emit failed(text);
        return;
    }
    std::unique_ptr<Attempt> a = std::move(m_attempt);
    close(); // the old link, now that the new one answered
    m_command = a->spec.text;
    m_spec = a->spec;
    m_client = std::move(a->client);
    m_pid = a->process.pid;
    m_hello = m_client->agentHello();
    std::vector<std::string> problems; // a field the probe lacks stays unknown: shown as the panel shows defaults
    m_probe = systemProbeFromJson(m_hello.value("probe", nlohmann::json::object()), problems);
    m_lost.clear();
    m_watch->start();
    emit opened();
}

void TargetConnection::close()
{
    m_watch->stop();
    if (!m_client)
        return;
    m_client->closeSending();
    m_client.reset();
    reapLater(m_pid);
    m_pid = -1;
}

void TargetConnection::reapLater(pid_t pid)
{
    if (pid <= 0)
        return;
    m_leaving.push_back({pid, nowNs() + int64_t(kReapMs) * kNsPerMs});
    reapPoll();
    if (!m_leaving.empty())
        m_reaper->start();
}

void TargetConnection::reapPoll()
{
    const int64_t now = nowNs();
    std::erase_if(m_leaving, [now](const Leaving& l) {
        int status = 0;
        if (waitpid(l.pid, &status, WNOHANG) != 0)
            return true; // gone (or not ours any more)
        if (now < l.killAtNs)
            return false;
        ::kill(l.pid, SIGKILL);
        return waitpid(l.pid, &status, 0) != 0;
    });
    if (m_leaving.empty())
        m_reaper->stop();
}

bool TargetConnection::isOpen() const
{
    return m_client && m_client->connectionError().empty();
}

CpuTopology TargetConnection::topology() const
{
    return targetTopology(m_probe); // the CLI's conversion (engine/remote/agent_client.h)
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

#include "moc_target_connection.cpp"
