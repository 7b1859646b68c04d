#include "engine/io/agent_client.h"

#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace rtscope {

namespace {

Error agentClientSystemError(const std::string& what)
{
    return {ErrorKind::System, what + ": " + std::strerror(errno)};
}

} // namespace

Error spawnAgentProcess(const std::string& command, AgentProcess& out)
{
    int toAgent[2];
    int fromAgent[2];
    if (pipe2(toAgent, O_CLOEXEC) != 0)
        return agentClientSystemError("cannot create a pipe to the agent");
    if (pipe2(fromAgent, O_CLOEXEC) != 0) {
        const Error e = agentClientSystemError("cannot create a pipe from the agent");
        ::close(toAgent[0]);
        ::close(toAgent[1]);
        return e;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, toAgent[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fromAgent[1], STDOUT_FILENO);
    // The agent starts with default signal handling and nothing blocked: the CLI blocks SIGINT and friends to take
    // them with sigtimedwait, and a blocked mask is inherited across exec.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(toAgent[0]);
    ::close(fromAgent[1]);
    if (rc != 0) {
        ::close(toAgent[1]);
        ::close(fromAgent[0]);
        return {ErrorKind::System, "cannot start /bin/sh -c '" + command + "': " + std::strerror(rc)};
    }
    out = {pid, toAgent[1], fromAgent[0]};
    return {};
}

int reapAgentProcess(pid_t pid, int timeoutMs)
{
    if (pid <= 0)
        return -1;
    const int64_t deadline = nowNs() + int64_t(timeoutMs) * kNsPerMs;
    int status = 0;
    for (;;) {
        const pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return -1;
        if (nowNs() >= deadline)
            break;
        usleep(5000);
    }
    kill(pid, SIGKILL);
    return waitpid(pid, &status, 0) == pid ? status : -1;
}

AgentClient::AgentClient(int readFd, int writeFd)
    : m_readFd(readFd)
    , m_writeFd(writeFd)
    , m_writer(writeFd)
{
    // Writing to an agent that has gone must be an error, not SIGPIPE: the controller keeps what it received.
    std::signal(SIGPIPE, SIG_IGN);
    if (pipe2(m_wakePipe, O_CLOEXEC) != 0)
        m_wakePipe[0] = m_wakePipe[1] = -1;
    // Non-blocking sends: a stuck agent makes a send fail after the heartbeat timeout instead of hanging the caller.
    fcntl(writeFd, F_SETFL, fcntl(writeFd, F_GETFL) | O_NONBLOCK);
}

AgentClient::~AgentClient()
{
    closeSending();
    if (m_wakePipe[1] >= 0) {
        const char c = 'x';
        (void)!::write(m_wakePipe[1], &c, 1);
    }
    if (m_reader.joinable())
        m_reader.join();
    if (m_readFd >= 0 && m_readFd != m_writeFd)
        ::close(m_readFd);
    if (m_readFd == m_writeFd && m_readFd >= 0)
        ::close(m_readFd);
    for (int fd : m_wakePipe)
        if (fd >= 0)
            ::close(fd);
}

Error AgentClient::connect(int timeoutMs)
{
    if (!m_reader.joinable()) {
        m_reader = std::thread([this] { readerLoop(); });
        nameAndPlaceHelper(m_reader, "rtscope-agentc", -1);
    }
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return m_haveHello || !m_lost.empty(); });
    if (!m_haveHello)
        return {ErrorKind::System,
                m_lost.empty() ? "the agent sent no hello within " + std::to_string(timeoutMs) + " ms" : m_lost};
    if (std::string mismatch = agentProtocolMismatch(m_hello, "agent"); !mismatch.empty())
        return {ErrorKind::System, mismatch};
    lock.unlock();
    return m_writer.sendJson(AgentFrameType::Hello, rtscope::agentHello(nullptr));
}

nlohmann::json AgentClient::agentHello() const
{
    std::lock_guard lock(m_mutex);
    return m_hello;
}

Error AgentClient::start(std::string_view experiment, const nlohmann::json& config, int timeoutMs,
                         nlohmann::json* started)
{
    {
        std::lock_guard lock(m_mutex);
        m_started.reset();
        m_startError.reset();
        m_errors.clear();
        m_haveEnded = false;
        m_ended = nullptr;
        m_recording.clear();
        m_awaitingStart = true;
    }
    if (Error e =
            m_writer.sendJson(AgentFrameType::Start, nlohmann::json{{"experiment", experiment}, {"config", config}}))
        return e;
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                       [&] { return m_started || m_startError || !m_lost.empty(); });
    m_awaitingStart = false;
    if (m_started) {
        if (started)
            *started = *m_started;
        return {};
    }
    if (m_startError)
        return {errorKindOfAgentError(m_startError->first), m_startError->second};
    return {ErrorKind::System,
            m_lost.empty() ? "the agent did not answer the start within " + std::to_string(timeoutMs) + " ms" : m_lost};
}

Error AgentClient::reconfigure(const nlohmann::json& config)
{
    return m_writer.sendJson(AgentFrameType::Reconfigure, nlohmann::json{{"config", config}});
}

Error AgentClient::stop()
{
    return m_writer.send(AgentFrameType::Stop, std::string_view());
}

void AgentClient::closeSending()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_sendingClosed)
            return;
        m_sendingClosed = true;
    }
    m_writer.close(m_readFd == m_writeFd);
}

bool AgentClient::ended() const
{
    std::lock_guard lock(m_mutex);
    return m_haveEnded || !m_lost.empty();
}

bool AgentClient::waitEnded(int timeoutMs)
{
    std::unique_lock lock(m_mutex);
    return m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                              [&] { return m_haveEnded || !m_lost.empty(); });
}

nlohmann::json AgentClient::endedInfo() const
{
    std::lock_guard lock(m_mutex);
    return m_ended;
}

std::string AgentClient::connectionError() const
{
    std::lock_guard lock(m_mutex);
    return m_lost;
}

std::vector<std::string> AgentClient::errors() const
{
    std::lock_guard lock(m_mutex);
    return m_errors;
}

std::string AgentClient::recording() const
{
    std::lock_guard lock(m_mutex);
    return m_recording;
}

uint64_t AgentClient::recordingBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_recording.size();
}

std::optional<nlohmann::json> AgentClient::status(uint64_t afterGeneration, uint64_t& generation) const
{
    std::lock_guard lock(m_mutex);
    generation = m_statusGeneration;
    if (m_statusGeneration <= afterGeneration)
        return std::nullopt;
    return m_status;
}

void AgentClient::lose(std::string why)
{
    std::lock_guard lock(m_mutex);
    if (m_lost.empty())
        m_lost = std::move(why);
    m_changed.notify_all();
}

void AgentClient::handle(const AgentFrame& frame)
{
    std::string error;
    switch (frame.type) {
    case AgentFrameType::Recording: {
        std::lock_guard lock(m_mutex);
        m_recording += frame.payload;
        return;
    }
    case AgentFrameType::Heartbeat:
        return;
    default:
        break;
    }
    const std::optional<nlohmann::json> j = frame.json(error);
    std::lock_guard lock(m_mutex);
    if (!j) {
        m_errors.push_back("the agent sent a bad frame: " + error);
        return;
    }
    switch (frame.type) {
    case AgentFrameType::Hello:
        m_hello = *j;
        m_haveHello = true;
        break;
    case AgentFrameType::Started:
        m_started = *j;
        break;
    case AgentFrameType::Status:
        m_status = *j;
        ++m_statusGeneration;
        break;
    case AgentFrameType::Ended:
        m_ended = *j;
        m_haveEnded = true;
        break;
    case AgentFrameType::Error: {
        const std::string kind = j->value("kind", std::string("failure"));
        const std::string message = j->value("message", std::string("(no message)"));
        if (m_awaitingStart && !m_started && !m_startError)
            m_startError = std::make_pair(kind, message);
        else
            m_errors.push_back(message);
        break;
    }
    default:
        m_errors.push_back("the agent sent a " + agentFrameName(uint8_t(frame.type)) +
                           " frame, which only a "
                           "controller sends");
        break;
    }
    m_changed.notify_all();
}

void AgentClient::readerLoop()
{
    AgentFrameDecoder decoder;
    std::string buffer(64 << 10, '\0');
    int64_t lastReceivedNs = nowNs();
    for (;;) {
        pollfd fds[2] = {{m_readFd, POLLIN, 0}, {m_wakePipe[0], POLLIN, 0}};
        const int r = ::poll(fds, m_wakePipe[0] >= 0 ? 2 : 1, 100);
        if (r < 0 && errno != EINTR) {
            lose(std::string("cannot wait for the agent: ") + std::strerror(errno));
            return;
        }
        if (r > 0 && (fds[1].revents & POLLIN))
            return; // the destructor
        const int64_t now = nowNs();
        if (r > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(m_readFd, buffer.data(), buffer.size());
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                lose(decoder.pending() ? "the agent's connection closed inside a frame (" +
                                             std::to_string(decoder.pending()) + " bytes of it received)"
                                       : std::string("the agent closed the connection"));
                return;
            }
            if (n > 0) {
                lastReceivedNs = now;
                decoder.feed(std::string_view(buffer.data(), size_t(n)));
                AgentFrame frame;
                std::string error;
                for (AgentFrameDecoder::Result res;
                     (res = decoder.next(frame, error)) != AgentFrameDecoder::Result::NeedMore;) {
                    if (res == AgentFrameDecoder::Result::Frame) {
                        handle(frame);
                    } else {
                        std::lock_guard lock(m_mutex);
                        m_errors.push_back("the agent sent a bad frame: " + error);
                    }
                }
            }
        }
        if (now - lastReceivedNs > int64_t(kAgentHeartbeatTimeoutMs) * kNsPerMs) {
            lose("no frame from the agent for " + std::to_string(kAgentHeartbeatTimeoutMs / 1000) + " s");
            return;
        }
        bool closed = false;
        {
            std::lock_guard lock(m_mutex);
            closed = m_sendingClosed;
        }
        if (!closed && now - m_writer.lastSentNs() >= int64_t(kAgentHeartbeatMs) * kNsPerMs)
            (void)m_writer.send(AgentFrameType::Heartbeat, std::string_view()); // a failure shows as EOF soon after
    }
}

} // namespace rtscope
