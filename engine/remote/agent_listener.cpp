// `rtscope agent --listen HOST:PORT | unix:PATH` (engine/remote/agent_listener.h, docs/remote.md, "Security
// model"). A connection that has not authenticated holds nothing: up to kAgentPendingMax of them wait side by side,
// each must deliver its whole hello within kAgentHeartbeatTimeoutMs of connecting, and the session slot goes to the
// first that authenticates.
#include "engine/remote/agent_listener.h"

#include "engine/remote/agent_auth.h"
#include "engine/remote/agent_protocol.h"
#include "engine/remote/agent_server.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"
#include "engine/util/exit_code.h"
#include "engine/util/printable.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <memory>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace rtscope {

namespace {

// Connections waiting to authenticate at once; a newer one closes the oldest, so connecting in a loop cannot keep
// a controller that sends its hello at once from getting in.
constexpr size_t kAgentPendingMax = 8;

bool agentIsLoopback(const sockaddr* a)
{
    if (a->sa_family == AF_INET)
        return (ntohl(reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr) >> 24) == 127;
    if (a->sa_family == AF_INET6) {
        const in6_addr& v6 = reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127); // ::ffff:127.x.y.z
    }
    return false;
}

std::string agentAddressText(const sockaddr* a, socklen_t len)
{
    if (a->sa_family == AF_UNIX)
        return "the Unix socket";
    char host[NI_MAXHOST] = "?";
    char port[NI_MAXSERV] = "?";
    getnameinfo(a, len, host, sizeof host, port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV);
    return (a->sa_family == AF_INET6 ? "[" + std::string(host) + "]" : std::string(host)) + ":" + port;
}

// One sentence in an error frame, then the connection is closed.
void refuseConnection(int fd, const std::string& from, const std::string& sentence)
{
    (void)AgentFrameWriter(fd).sendJson(AgentFrameType::Error, agentError("permission", sentence)); // then closed
    std::fprintf(stderr, "rtscope agent: refused a controller from %s: %s\n", from.c_str(), sentence.c_str());
    ::shutdown(fd, SHUT_WR);
    ::close(fd);
}

} // namespace

// The listening socket and what the agent made beside it (a Unix socket's file, the token file and its
// directory), removed when it goes; and, between resolve() and open(), the address it is to listen on.
struct AgentListenerState {
    AgentListenOptions options;
    bool unixSocket = false;
    // What resolve() found: a Unix socket's address; a TCP listener's addresses, and whether they are loopback.
    sockaddr_un unixAddress{};
    std::unique_ptr<addrinfo, void (*)(addrinfo*)> tcpAddresses{nullptr, &freeaddrinfo};
    bool loopback = false;
    uid_t self = 0; ///< the agent's effective uid: a Unix socket serves it and root
    int fd = -1;
    std::string where; ///< for messages: "127.0.0.1:4700", "unix:/run/rtscope.sock"
    std::string socketPath;
    dev_t socketDev = 0;
    ino_t socketIno = 0;
    std::string token; ///< TCP only
    std::string tokenPath;
    std::string tokenDir; ///< the private directory the agent made for the token, if it chose the place

    AgentListenerState() = default;
    AgentListenerState(const AgentListenerState&) = delete;
    AgentListenerState& operator=(const AgentListenerState&) = delete;
    ~AgentListenerState()
    {
        if (fd >= 0)
            ::close(fd);
        // Only the socket this agent bound: a file put there since is someone else's.
        struct stat st {};
        if (!socketPath.empty() && ::lstat(socketPath.c_str(), &st) == 0 && st.st_dev == socketDev &&
            st.st_ino == socketIno)
            ::unlink(socketPath.c_str());
        if (!tokenPath.empty())
            ::unlink(tokenPath.c_str());
        if (!tokenDir.empty())
            ::rmdir(tokenDir.c_str());
    }
};

namespace {

Error refuseListenOptions(const std::string& sentence)
{
    return {ErrorKind::InvalidConfig, sentence};
}

Error resolveUnixListener(AgentListenerState& l)
{
    const AgentListenOptions& o = l.options;
    l.socketPath = o.address.substr(5);
    l.where = "unix:" + l.socketPath;
    sockaddr_un& a = l.unixAddress;
    a.sun_family = AF_UNIX;
    if (l.socketPath.empty() || l.socketPath.size() >= sizeof a.sun_path)
        return refuseListenOptions("listen '" + printable(o.address) + "': the socket's path must be 1 to " +
                                   std::to_string(sizeof a.sun_path - 1) + " bytes");
    std::memcpy(a.sun_path, l.socketPath.data(), l.socketPath.size());
    if (o.listenAny)
        return refuseListenOptions("listen-any is for a TCP address; a Unix socket is reached from this machine "
                                   "only (ssh -L PORT:PATH reaches it from another)");
    return Error::none();
}

Error openUnixListener(AgentListenerState& l)
{
    l.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    // The socket file is the owner's only (0600): the peer check below is the rule, this a second fence. bind()
    // takes its mode from the umask; nothing else runs yet to be affected by changing it for that moment.
    const mode_t old = ::umask(0177);
    const int rc =
        l.fd < 0 ? -1 : ::bind(l.fd, reinterpret_cast<const sockaddr*>(&l.unixAddress), sizeof l.unixAddress);
    const int err = errno;
    ::umask(old);
    if (rc != 0) {
        const std::string hint = err == EADDRINUSE ? " (a file is there already: an agent's socket left by a killed "
                                                     "agent, or another file; remove it or name another path)"
                                                   : "";
        l.socketPath.clear(); // not ours: never removed
        return {ErrorKind::System, "cannot listen on " + printable(l.where) + ": " + std::strerror(err) + hint};
    }
    struct stat st {};
    if (::lstat(l.socketPath.c_str(), &st) == 0) {
        l.socketDev = st.st_dev;
        l.socketIno = st.st_ino;
    }
    if (::listen(l.fd, 16) != 0)
        return {ErrorKind::System, "cannot listen on " + printable(l.where) + ": " + std::strerror(errno)};
    return Error::none();
}

// The token and the file it is written to: --token-file, or token in a new directory of mode 0700 (mkdtemp) under
// $TMPDIR or /tmp. Either way the file is new (O_EXCL, O_NOFOLLOW) and 0600.
Error makeAgentToken(AgentListenerState& l)
{
    if (Error e = tryMakeAgentToken(l.token))
        return e;
    std::string path = l.options.tokenFile;
    if (path.empty()) {
        const char* tmp = std::getenv("TMPDIR");
        std::string dir = std::string(tmp && *tmp == '/' ? tmp : "/tmp") + "/rtscope-agent-XXXXXX";
        if (!::mkdtemp(dir.data()))
            return {ErrorKind::System,
                    "cannot create a directory for the token in " + printable(dir) + ": " + std::strerror(errno)};
        l.tokenDir = dir;
        path = dir + "/token";
    }
    if (Error e = tryWriteAgentTokenFile(path, l.token))
        return e;
    l.tokenPath = path;
    return Error::none();
}

Error resolveTcpListener(AgentListenerState& l)
{
    const AgentListenOptions& o = l.options;
    std::string host;
    int port = 0;
    std::string why;
    if (!splitAgentHostPort(o.address, host, port, why))
        return refuseListenOptions("listen '" + printable(o.address) + "': " + why +
                                   "; give HOST:PORT (e.g. 127.0.0.1:4700) or unix:PATH");
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0)
        return refuseListenOptions("listen '" + printable(o.address) + "': cannot resolve " + printable(host) + ": " +
                                   gai_strerror(rc));
    l.tcpAddresses.reset(found);
    l.loopback = agentIsLoopback(found->ai_addr);
    if (!l.loopback && !o.listenAny)
        return refuseListenOptions("listen '" + printable(o.address) +
                                   "' is not a loopback address (127.0.0.0/8 or ::1); the agent's token travels "
                                   "unencrypted, so another address needs --listen-any (or keep loopback and "
                                   "reach it with ssh -L)");
    return Error::none();
}

Error openTcpListener(AgentListenerState& l)
{
    const addrinfo* found = l.tcpAddresses.get();
    l.fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const int one = 1;
    if (l.fd >= 0)
        setsockopt(l.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l.fd < 0 || ::bind(l.fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(l.fd, 16) != 0)
        return {ErrorKind::System, "cannot listen on " + printable(l.options.address) + ": " + std::strerror(errno)};
    sockaddr_storage bound{};
    socklen_t boundLen = sizeof bound;
    getsockname(l.fd, reinterpret_cast<sockaddr*>(&bound), &boundLen);
    l.where = agentAddressText(reinterpret_cast<sockaddr*>(&bound), boundLen);
    if (!l.loopback)
        std::fprintf(stderr,
                     "rtscope agent: warning: listening on %s, which other machines can reach; the token and every "
                     "frame cross the network unencrypted (docs/remote.md)\n",
                     l.where.c_str());
    return makeAgentToken(l);
}

// A connection that has not authenticated yet: the bytes of its first frame so far.
struct PendingController {
    int fd = -1;
    int64_t sinceNs = 0;
    std::string from;
    std::string bytes;
};

// What the next read of @p p may take: the frame header, then exactly the rest of the hello (nothing after it is
// read here: the session reads on from the next frame). Empty with @p refusal set when the first frame cannot be a
// hello.
size_t pendingWants(const PendingController& p, std::string& refusal)
{
    if (p.bytes.size() < kAgentFrameHeaderBytes)
        return kAgentFrameHeaderBytes - p.bytes.size();
    uint32_t length = 0;
    for (int i = 3; i >= 0; --i)
        length = (length << 8) | uint8_t(p.bytes[size_t(i)]);
    const uint8_t type = uint8_t(p.bytes[4]);
    if (type != uint8_t(AgentFrameType::Hello))
        refusal =
            "authentication failed: the controller's first frame must be its hello (got " + agentFrameName(type) + ")";
    else if (length > kMaxAgentUnauthenticatedHello)
        refusal = "authentication failed: the controller's hello is " + std::to_string(length) +
                  " bytes; before the controller is known at most " + std::to_string(kMaxAgentUnauthenticatedHello) +
                  " are read";
    return refusal.empty() ? kAgentFrameHeaderBytes + length - p.bytes.size() : 0;
}

enum class PendingStep { Wait, Gone, Refused, Authenticated };

// Reads what @p p sent; when its hello is whole, checks it against @p token (empty: a Unix socket, whose peer was
// checked at accept).
PendingStep readPending(PendingController& p, const std::string& token)
{
    std::string refusal;
    size_t want = pendingWants(p, refusal);
    if (want > 0) {
        char buffer[kMaxAgentUnauthenticatedHello + kAgentFrameHeaderBytes];
        const ssize_t n = ::read(p.fd, buffer, std::min(want, sizeof buffer));
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            std::fprintf(stderr, "rtscope agent: a connection from %s closed before its hello\n", p.from.c_str());
            ::close(p.fd);
            return PendingStep::Gone;
        }
        if (n > 0)
            p.bytes.append(buffer, size_t(n));
        want = pendingWants(p, refusal);
    }
    if (refusal.empty() && (want > 0 || p.bytes.size() < kAgentFrameHeaderBytes))
        return PendingStep::Wait;
    if (refusal.empty()) {
        const AgentFrame hello{AgentFrameType::Hello, p.bytes.substr(kAgentFrameHeaderBytes)};
        const std::optional<nlohmann::json> j = hello.json(refusal);
        if (j)
            refusal = agentHelloRefusal(*j, token);
    }
    if (!refusal.empty()) {
        refuseConnection(p.fd, p.from, refusal);
        return PendingStep::Refused;
    }
    return PendingStep::Authenticated;
}

// One authenticated controller's session on the socket @p fd (its hello already read and checked), with @p listenFd
// polled so that a second controller is refused meanwhile. True when a stop signal ended it.
bool runAgentSocketSession(int fd, int listenFd, bool allowCommands)
{
    AgentSession agent(fd, fd, {.listenFd = listenFd, .helloChecked = true, .allowCommands = allowCommands});
    (void)agent.run(); // the session said why it ended on stderr
    return agent.stoppedBySignal();
}

} // namespace

AgentListener::AgentListener(AgentListenOptions options)
    : m_state(std::make_unique<AgentListenerState>())
{
    m_state->options = std::move(options);
    m_state->unixSocket = m_state->options.address.starts_with("unix:");
}

AgentListener::~AgentListener() = default;

Error AgentListener::resolve()
{
    AgentListenerState& l = *m_state;
    const AgentListenOptions& o = l.options;
    if (!l.unixSocket && !o.tokenFile.empty() && o.tokenFile.find('\0') != std::string::npos)
        return refuseListenOptions("token-file must be a path");
    if (l.unixSocket && !o.tokenFile.empty())
        return refuseListenOptions("token-file is for a TCP listener; on a Unix socket the kernel names the "
                                   "controller's user");
    return l.unixSocket ? resolveUnixListener(l) : resolveTcpListener(l);
}

Error AgentListener::open()
{
    AgentListenerState& l = *m_state;
    if (Error e = l.unixSocket ? openUnixListener(l) : openTcpListener(l))
        return e;
    l.self = ::geteuid();
    if (l.unixSocket)
        std::fprintf(stderr, "rtscope agent: controllers of uid %u or root only (the socket's peer credentials)\n",
                     unsigned(l.self));
    else
        std::fprintf(stderr,
                     "rtscope agent: a controller shows the token in %s (--target-token FILE; mode 0600, "
                     "new at each start)\n",
                     printable(l.tokenPath).c_str());
    std::fprintf(stderr, "rtscope agent: listening on %s (one controller at a time)\n", printable(l.where).c_str());
    return Error::none();
}

int AgentListener::serve()
{
    const AgentListenerState& l = *m_state;
    const bool unixSocket = l.unixSocket;
    const uid_t self = l.self;
    // A controller that has gone makes a write fail with EPIPE; the session then ends.
    std::signal(SIGPIPE, SIG_IGN);
    std::deque<PendingController> pending;
    const auto closeAll = [&](const std::string& sentence) {
        for (PendingController& p : pending)
            refuseConnection(p.fd, p.from, sentence);
        pending.clear();
    };
    for (;;) {
        if (const int sig = waitForStopSignal(0)) {
            std::fprintf(stderr, "rtscope agent: stopped by %s\n", strsignal(sig));
            closeAll("the agent is stopping");
            return ExitOk;
        }
        std::vector<pollfd> fds{{l.fd, POLLIN, 0}};
        for (const PendingController& p : pending)
            fds.push_back({p.fd, POLLIN, 0});
        if (::poll(fds.data(), nfds_t(fds.size()), 100) < 0)
            continue;
        const int64_t now = nowNs();
        int session = -1;
        std::string sessionFrom;
        for (size_t i = 0; i < pending.size() && session < 0;) {
            PendingStep step = PendingStep::Wait;
            if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
                step = readPending(pending[i], unixSocket ? std::string() : l.token);
            if (step == PendingStep::Wait && now - pending[i].sinceNs > int64_t(kAgentHeartbeatTimeoutMs) * kNsPerMs) {
                refuseConnection(pending[i].fd, pending[i].from,
                                 "authentication failed: no whole hello within " +
                                     std::to_string(kAgentHeartbeatTimeoutMs / 1000) + " s of connecting");
                step = PendingStep::Refused;
            }
            if (step == PendingStep::Authenticated) {
                session = pending[i].fd;
                sessionFrom = pending[i].from;
            }
            if (step == PendingStep::Wait) {
                ++i;
                continue;
            }
            pending.erase(pending.begin() + ptrdiff_t(i));
            fds.erase(fds.begin() + ptrdiff_t(i + 1));
        }
        if (session < 0 && (fds[0].revents & POLLIN)) {
            sockaddr_storage peer{};
            socklen_t peerLen = sizeof peer;
            const int fd = ::accept4(l.fd, reinterpret_cast<sockaddr*>(&peer), &peerLen, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd >= 0) {
                const std::string from = agentAddressText(reinterpret_cast<sockaddr*>(&peer), peerLen);
                std::string refusal = unixSocket ? agentPeerCredentialRefusal(fd, self) : std::string();
                if (!refusal.empty()) {
                    refuseConnection(fd, from, refusal);
                } else {
                    if (pending.size() >= kAgentPendingMax) {
                        refuseConnection(pending.front().fd, pending.front().from,
                                         "authentication failed: more than " + std::to_string(kAgentPendingMax) +
                                             " connections were waiting to authenticate; the oldest is closed");
                        pending.pop_front();
                    }
                    const int one = 1;
                    if (!unixSocket)
                        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); // a sample's bytes go at once
                    pending.push_back({fd, now, from, {}});
                }
            }
        }
        if (session < 0)
            continue;
        closeAll("another controller is connected; this agent serves one at a time");
        std::fprintf(stderr, "rtscope agent: controller connected from %s\n", sessionFrom.c_str());
        const bool signalled = runAgentSocketSession(session, l.fd, l.options.allowCommands);
        ::close(session);
        if (signalled)
            return ExitOk;
        std::fprintf(stderr, "rtscope agent: the controller left; waiting for the next on %s\n",
                     printable(l.where).c_str());
    }
}

} // namespace rtscope
