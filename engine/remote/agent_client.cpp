#include "engine/remote/agent_client.h"

#include "engine/remote/agent_auth.h"
#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"
#include "engine/util/json_text.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace rtscope {

namespace {

Error agentClientSystemError(const std::string& what)
{
    return {ErrorKind::System, what + ": " + std::strerror(errno)};
}

// posix_spawnp of @p argv with stdin and stdout on pipes; @p what names the program in a failure.
Error spawnAgentWithPipes(const std::vector<std::string>& argv, const std::string& what, AgentProcess& out)
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
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(toAgent[0]);
    ::close(fromAgent[1]);
    if (rc != 0) {
        ::close(toAgent[1]);
        ::close(fromAgent[0]);
        return {ErrorKind::System, "cannot start " + what + ": " + std::strerror(rc)};
    }
    out = {pid, toAgent[1], fromAgent[0]};
    return {};
}

// 'text' for a POSIX shell, whatever it holds.
std::string agentShellQuote(const std::string& text)
{
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

Error spawnAgentProcess(const std::string& command, AgentProcess& out)
{
    return spawnAgentWithPipes({"/bin/sh", "-c", command}, "/bin/sh -c '" + command + "'", out);
}

Error spawnAgentArgv(const std::vector<std::string>& argv, AgentProcess& out)
{
    if (argv.empty())
        return {ErrorKind::InvalidConfig, "no command to start the agent"};
    return spawnAgentWithPipes(argv, argv.front(), out);
}

const char* const kAgentTargetForms = "tcp://HOST:PORT, unix:PATH or ssh://[USER@]HOST[:PORT]";

std::optional<AgentTarget> parseAgentTarget(std::string_view url, std::string& why)
{
    AgentTarget t;
    std::string_view rest;
    if (url.starts_with("unix:")) {
        t.kind = AgentTarget::Kind::Unix;
        t.host = std::string(url.substr(5));
        if (t.host.empty() || t.host.size() >= sizeof(sockaddr_un::sun_path) ||
            t.host.find('\0') != std::string::npos) {
            why = "the socket's path is empty or longer than " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                  " bytes";
            return std::nullopt;
        }
        return t;
    }
    if (url.starts_with("tcp://")) {
        t.kind = AgentTarget::Kind::Tcp;
        rest = url.substr(6);
    } else if (url.starts_with("ssh://")) {
        t.kind = AgentTarget::Kind::Ssh;
        rest = url.substr(6);
    } else {
        why = "the scheme is none of tcp://, unix: and ssh://";
        return std::nullopt;
    }
    if (!rest.empty() && rest.back() == '/')
        rest.remove_suffix(1);
    if (rest.find_first_of("/?# \t") != std::string_view::npos) {
        why = "a path, query or space has no meaning here";
        return std::nullopt;
    }
    if (t.kind == AgentTarget::Kind::Tcp) {
        if (!splitAgentHostPort(rest, t.host, t.port, why))
            return std::nullopt;
        if (t.port == 0) {
            why = "port 0 is not a port an agent listens on";
            return std::nullopt;
        }
        return t;
    }
    if (const size_t at = rest.rfind('@'); at != std::string_view::npos) {
        t.user = std::string(rest.substr(0, at));
        rest = rest.substr(at + 1);
        if (t.user.empty()) {
            why = "the user before '@' is empty";
            return std::nullopt;
        }
    }
    const bool hasPort =
        rest.starts_with('[') ? rest.find("]:") != std::string_view::npos : rest.find(':') != std::string_view::npos;
    if (hasPort) {
        if (!splitAgentHostPort(rest, t.host, t.port, why))
            return std::nullopt;
        if (t.port == 0) {
            why = "port 0 is not a port sshd listens on";
            return std::nullopt;
        }
    } else {
        t.host = rest.starts_with('[') && rest.ends_with(']') ? std::string(rest.substr(1, rest.size() - 2))
                                                              : std::string(rest);
    }
    // ssh would read a host (or user) starting with '-' as an option.
    if (t.host.empty() || t.host.front() == '-' || (!t.user.empty() && t.user.front() == '-')) {
        why = t.host.empty() ? "the host is missing" : "a host or user may not start with '-'";
        return std::nullopt;
    }
    return t;
}

Error connectAgentTcp(const std::string& host, int port, int timeoutMs, int& fd)
{
    const std::string where =
        (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0)
        return {ErrorKind::System, "cannot resolve " + host + ": " + gai_strerror(rc)};
    std::string failure = "no address";
    fd = -1;
    for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
        const int s = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (s < 0) {
            failure = std::strerror(errno);
            continue;
        }
        int rc = ::connect(s, a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            pollfd p{s, POLLOUT, 0};
            rc = ::poll(&p, 1, timeoutMs);
            if (rc == 0) {
                errno = ETIMEDOUT;
                rc = -1;
            } else if (rc > 0) {
                int soError = 0;
                socklen_t len = sizeof soError;
                getsockopt(s, SOL_SOCKET, SO_ERROR, &soError, &len);
                errno = soError;
                rc = soError == 0 ? 0 : -1;
            }
        }
        if (rc != 0) {
            failure = std::strerror(errno);
            ::close(s);
            continue;
        }
        // Small frames (heartbeats, a stop) go at once rather than wait for more.
        const int one = 1;
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fd = s;
    }
    freeaddrinfo(found);
    if (fd < 0)
        return {ErrorKind::System, "cannot connect to " + where + ": " + failure};
    return {};
}

Error connectAgentUnix(const std::string& path, int& fd)
{
    fd = -1;
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof a.sun_path)
        return {ErrorKind::InvalidConfig, "unix:" + path + ": the socket's path is empty or too long"};
    std::memcpy(a.sun_path, path.data(), path.size());
    const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return agentClientSystemError("cannot create a socket");
    // A Unix socket's connect does not wait for the agent to accept (the backlog takes it), so no timeout here.
    if (::connect(s, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
        const Error e = agentClientSystemError("cannot connect to unix:" + path);
        ::close(s);
        return e;
    }
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
    fd = s;
    return {};
}

Error connectAgentSocket(const AgentTarget& target, int timeoutMs, int& fd)
{
    if (target.kind == AgentTarget::Kind::Unix)
        return connectAgentUnix(target.host, fd);
    return connectAgentTcp(target.host, target.port, timeoutMs, fd);
}

Error tryControllerToken(const std::string& tokenFile, std::string& token)
{
    token.clear();
    std::string path = tokenFile;
    if (path.empty())
        if (const char* env = std::getenv(kAgentTokenFileEnv); env && *env)
            path = env;
    if (path.empty())
        return {};
    return tryReadAgentTokenFile(path, token);
}

CpuTopology targetTopology(const SystemProbe& probe)
{
    CpuTopology t;
    t.online = probe.onlineCpus;
    t.allowed = probe.onlineCpus;
    t.isolated = probe.isolatedCpus;
    return t;
}

std::vector<std::string> sshAgentArgv(const AgentTarget& target, const std::string& agentPath,
                                      const std::vector<std::string>& sshOptions)
{
    // BatchMode: no password or passphrase prompt on a terminal that also shows the run; keys or an agent only.
    std::vector<std::string> argv{"ssh", "-o", "BatchMode=yes"};
    if (target.port > 0) {
        argv.push_back("-p");
        argv.push_back(std::to_string(target.port));
    }
    for (const std::string& o : sshOptions) {
        argv.push_back("-o");
        argv.push_back(o);
    }
    argv.push_back("--");
    argv.push_back(target.user.empty() ? target.host : target.user + "@" + target.host);
    argv.push_back(agentShellQuote(agentPath) + " agent --stdio");
    return argv;
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
    if (m_spoolFd >= 0)
        ::close(m_spoolFd);
}

Error AgentClient::resetSpoolLocked()
{
    m_spoolBytes = 0;
    if (m_spoolFd >= 0) {
        if (::ftruncate(m_spoolFd, 0) != 0)
            return {ErrorKind::System, std::string("cannot empty the recording spool: ") + std::strerror(errno)};
        return {};
    }
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    const std::string where = ec ? std::string("/tmp") : dir.string();
    // No name: nothing to remove, even after kill -9. A file system without O_TMPFILE gets a named file, removed at
    // once.
    m_spoolFd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (m_spoolFd < 0) {
        std::string name = where + "/rtscope-remote-XXXXXX";
        m_spoolFd = ::mkostemp(name.data(), O_CLOEXEC);
        if (m_spoolFd >= 0)
            ::unlink(name.c_str());
    }
    if (m_spoolFd < 0)
        return {ErrorKind::System,
                "cannot make a spool file for the recording in " + where + ": " + std::strerror(errno)};
    return {};
}

Error AgentClient::appendSpoolLocked(std::string_view bytes)
{
    if (m_spoolFd < 0)
        return {ErrorKind::System, "the recording arrived before a start (no spool file)"};
    while (!bytes.empty()) {
        const ssize_t n = ::pwrite(m_spoolFd, bytes.data(), bytes.size(), off_t(m_spoolBytes));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return {ErrorKind::System,
                    std::string("cannot keep the received recording: ") + std::strerror(n < 0 ? errno : EIO)};
        m_spoolBytes += uint64_t(n);
        bytes.remove_prefix(size_t(n));
    }
    return {};
}

void AgentClient::setToken(std::string token)
{
    std::lock_guard lock(m_mutex);
    m_token = std::move(token);
}

Error AgentClient::connect(int timeoutMs)
{
    if (!m_reader.joinable()) {
        m_reader = std::thread([this] { readerLoop(); });
        nameAndPlaceHelper(m_reader, "rtscope-agentc", -1);
    }
    // The controller speaks first: an agent on a socket checks who it is (its token) before it sends anything,
    // its hello and probe included. An agent on stdio sends its hello at once and reads this one whenever it comes.
    std::string token;
    bool sendHello = false;
    {
        std::lock_guard lock(m_mutex);
        sendHello = !std::exchange(m_helloSent, true);
        token = m_token;
    }
    // A hello that cannot be written is not the answer yet: an agent that refuses the connection (another controller
    // holds it) may have written its sentence and closed before the hello went out (EPIPE); the reader still has it.
    Error notSent;
    if (sendHello)
        notSent = m_writer.sendJson(AgentFrameType::Hello, rtscope::agentHello(nullptr, {}, token));
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return m_haveHello || !m_lost.empty(); });
    if (!m_haveHello) {
        // An agent that refuses the connection (another controller holds it) says why in an error frame first.
        if (!m_errors.empty())
            return {ErrorKind::System, "the agent refused the connection: " + m_errors.back()};
        if (notSent)
            return notSent;
        return {ErrorKind::System,
                m_lost.empty() ? "the agent sent no hello within " + std::to_string(timeoutMs) + " ms" : m_lost};
    }
    if (std::string mismatch = agentProtocolMismatch(m_hello, "agent"); !mismatch.empty())
        return {ErrorKind::System, mismatch};
    return {};
}

nlohmann::json AgentClient::agentHello() const
{
    std::lock_guard lock(m_mutex);
    return m_hello;
}

Error AgentClient::start(std::string_view experiment, const nlohmann::json& config, int timeoutMs,
                         nlohmann::json* started, const nlohmann::json& view)
{
    {
        std::lock_guard lock(m_mutex);
        m_started.reset();
        m_startError.reset();
        m_errors.clear();
        m_haveEnded = false;
        m_ended = nullptr;
        if (Error e = resetSpoolLocked())
            return e;
        m_awaitingStart = true;
    }
    nlohmann::json request{{"experiment", experiment}, {"config", config}};
    if (!view.is_null())
        request["view"] = view;
    if (Error e = m_writer.sendJson(AgentFrameType::Start, request))
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
    std::string all;
    (void)copyRecording([&](std::string_view piece) {
        all += piece;
        return Error{};
    });
    return all;
}

std::string AgentClient::recordingFrom(uint64_t offset, size_t maxBytes) const
{
    std::lock_guard lock(m_mutex);
    if (m_spoolFd < 0 || offset >= m_spoolBytes)
        return {};
    std::string piece(size_t(std::min<uint64_t>(maxBytes, m_spoolBytes - offset)), '\0');
    size_t got = 0;
    while (got < piece.size()) {
        const ssize_t n = ::pread(m_spoolFd, piece.data() + got, piece.size() - got, off_t(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += size_t(n);
    }
    piece.resize(got);
    return piece;
}

uint64_t AgentClient::recordingBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_spoolBytes;
}

std::string AgentClient::recordingPath() const
{
    std::lock_guard lock(m_mutex);
    return m_spoolFd < 0 ? std::string() : "/proc/self/fd/" + std::to_string(m_spoolFd);
}

Error AgentClient::copyRecording(const std::function<Error(std::string_view)>& sink) const
{
    const uint64_t total = recordingBytes();
    for (uint64_t at = 0; at < total;) {
        const std::string piece = recordingFrom(at, size_t(1) << 20);
        if (piece.empty())
            return {ErrorKind::System, "cannot read the received recording back at byte " + std::to_string(at)};
        if (Error e = sink(piece))
            return e;
        at += piece.size();
    }
    return {};
}

std::optional<nlohmann::json> AgentClient::status(uint64_t afterGeneration, uint64_t& generation) const
{
    std::lock_guard lock(m_mutex);
    generation = m_statusGeneration;
    if (m_statusGeneration <= afterGeneration)
        return std::nullopt;
    return m_status;
}

std::optional<AgentSnapshotMessage> AgentClient::snapshot(uint64_t afterCount, uint64_t& count) const
{
    std::lock_guard lock(m_mutex);
    count = m_snapshotCount;
    if (m_snapshotCount <= afterCount || m_snapshots.empty())
        return std::nullopt;
    return m_snapshots.back();
}

std::optional<AgentSnapshotMessage> AgentClient::snapshotOfRun(uint64_t run) const
{
    std::lock_guard lock(m_mutex);
    for (const AgentSnapshotMessage& m : m_snapshots)
        if (m.run == run)
            return m;
    return std::nullopt;
}

uint64_t AgentClient::startedCount() const
{
    std::lock_guard lock(m_mutex);
    return m_startedCount;
}

nlohmann::json AgentClient::lastStarted() const
{
    std::lock_guard lock(m_mutex);
    return m_lastStarted;
}

Error AgentClient::requestThreads()
{
    return m_writer.send(AgentFrameType::ThreadsRequest, std::string_view("{}"));
}

std::optional<AgentThreadsReply> AgentClient::threadList(uint64_t afterGeneration, uint64_t& generation) const
{
    std::lock_guard lock(m_mutex);
    generation = m_threadsGeneration;
    if (m_threadsGeneration <= afterGeneration)
        return std::nullopt;
    return m_threads;
}

// Read on the reading thread, outside the lock: a list of a few hundred threads takes a moment to check.
void AgentClient::receiveThreads(const AgentFrame& frame)
{
    AgentThreadsReply reply;
    std::string error;
    if (const std::optional<nlohmann::json> j = frame.json(error)) {
        if (std::optional<AgentThreadList> list = agentThreadListFromJson(*j, error))
            reply.list = std::move(*list);
    }
    if (!error.empty())
        reply.problem = "the agent sent a thread list that does not read: " + error;
    std::lock_guard lock(m_mutex);
    m_threads = std::move(reply);
    ++m_threadsGeneration;
    m_changed.notify_all();
}

// A snapshot larger than one frame comes as SnapshotPart frames and a Snapshot that ends it; the parts are held
// up to kMaxAgentSnapshotBytes, past which the message is dropped unread and said to be.
void AgentClient::receiveSnapshot(const AgentFrame& frame)
{
    const auto bad = [&](const std::string& why) {
        std::lock_guard lock(m_mutex);
        m_errors.push_back("the agent sent a bad snapshot: " + why);
        m_changed.notify_all();
    };
    if (!m_snapshotPartsTooLong && m_snapshotParts.size() + frame.payload.size() > kMaxAgentSnapshotBytes) {
        m_snapshotPartsTooLong = true;
        m_snapshotParts.clear();
        m_snapshotParts.shrink_to_fit();
    }
    if (frame.type == AgentFrameType::SnapshotPart) {
        if (!m_snapshotPartsTooLong)
            m_snapshotParts += frame.payload;
        return;
    }
    if (m_snapshotPartsTooLong) {
        m_snapshotPartsTooLong = false;
        return bad("it is longer than the " + std::to_string(kMaxAgentSnapshotBytes) + "-byte limit");
    }
    const ParsedJson parsed =
        parseJsonText(m_snapshotParts.empty() ? frame.payload : m_snapshotParts + frame.payload, "the payload");
    m_snapshotParts.clear();
    if (!parsed.ok() || !parsed.value.is_object())
        return bad(parsed.error("the payload is not a JSON object"));
    const nlohmann::json& j = parsed.value;
    const auto experiment = j.find("experiment");
    const auto run = j.find("run");
    const auto final = j.find("final");
    const auto snap = j.find("snapshot");
    if (experiment == j.end() || !experiment->is_string())
        return bad("experiment is missing or not a string");
    if (run == j.end() || !run->is_number_unsigned())
        return bad("run is missing or not an unsigned integer");
    if (final == j.end() || !final->is_boolean())
        return bad("final is missing or not true or false");
    if (snap == j.end() || !snap->is_object())
        return bad("snapshot is missing or not a JSON object");
    AgentSnapshotMessage m{experiment->get<std::string>(), run->get<uint64_t>(), final->get<bool>(), *snap};
    std::lock_guard lock(m_mutex);
    const auto same = std::find_if(m_snapshots.begin(), m_snapshots.end(),
                                   [&](const AgentSnapshotMessage& o) { return o.run == m.run; });
    if (same != m_snapshots.end())
        m_snapshots.erase(same);
    m.sequence = ++m_snapshotCount;
    m_snapshots.push_back(std::move(m));
    if (m_snapshots.size() > kKeptSnapshotRuns)
        m_snapshots.erase(m_snapshots.begin());
    m_changed.notify_all();
}

void AgentClient::setRecordingObserver(RecordingObserver observer)
{
    m_recordingObserver = std::move(observer);
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
        uint64_t total = 0;
        Error kept;
        {
            std::lock_guard lock(m_mutex);
            if (!m_lost.empty()) // the spool failed before: a gap would make the rest unreadable
                return;
            kept = appendSpoolLocked(frame.payload);
            total = m_spoolBytes;
        }
        if (kept) {
            lose(kept.message); // the run's samples would go missing unseen: the link is given up, what came is kept
            return;
        }
        if (m_recordingObserver)
            m_recordingObserver(total, m_lastReadNs);
        return;
    }
    case AgentFrameType::Heartbeat:
        return;
    case AgentFrameType::Snapshot:
    case AgentFrameType::SnapshotPart:
        return receiveSnapshot(frame);
    case AgentFrameType::Threads:
        return receiveThreads(frame);
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
        m_lastStarted = *j;
        ++m_startedCount;
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
        // An agent of protocol 1 built before the thread list skips the request and names its type: the answer.
        if (message.rfind("unknown frame type " + std::to_string(int(AgentFrameType::ThreadsRequest)) + " ", 0) == 0) {
            m_threads = {{},
                         "the agent does not know the threads-request frame (an older rtscope): update the "
                         "agent to list its machine's threads"};
            ++m_threadsGeneration;
            break;
        }
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
                m_lastReadNs = nowNs();
                m_bytesReceived.fetch_add(uint64_t(n), std::memory_order_relaxed);
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
