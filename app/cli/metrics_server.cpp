#include "app/cli/metrics_server.h"

#include "engine/util/clock.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <string_view>
#include <sys/socket.h>
#include <unistd.h>

namespace rtscope::cli {

namespace {

// RFC 9110's token characters: what a method and a header name are made of.
bool metricsTchar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

const char* metricsReason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 414:
        return "URI Too Long";
    default:
        return "Request Header Fields Too Large"; // 431
    }
}

MetricsReply metricsMake(int status, const std::string& contentType, const std::string& body, bool withBody)
{
    std::string r = "HTTP/1.1 " + std::to_string(status) + " " + metricsReason(status) +
                    "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n";
    if (status == 405)
        r += "Allow: GET, HEAD\r\n";
    r += "\r\n";
    if (withBody)
        r += body;
    return {status, std::move(r)};
}

MetricsReply metricsRefuse(int status, const std::string& sentence)
{
    return metricsMake(status, "text/plain; charset=utf-8", sentence + "\n", true);
}

// The request line "METHOD SP TARGET SP HTTP/1.x" as far as it came (@p whole: all of it): false if it cannot be
// one. A method is checked byte by byte as it arrives, so garbage (a TLS hello, a binary probe) is answered at once.
bool metricsRequestLine(std::string_view line, bool whole, std::string_view& method, std::string_view& target)
{
    const size_t sp1 = line.find(' ');
    method = line.substr(0, sp1);
    if (!std::all_of(method.begin(), method.end(), metricsTchar) || (sp1 != std::string_view::npos && method.empty()))
        return false;
    if (!whole)
        return true;
    if (sp1 == std::string_view::npos)
        return false;
    const size_t sp2 = line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos)
        return false;
    target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    const bool targetOk = !target.empty() && std::all_of(target.begin(), target.end(),
                                                         [](char c) { return uint8_t(c) > 0x20 && uint8_t(c) < 0x7f; });
    return targetOk && (version == "HTTP/1.1" || version == "HTTP/1.0");
}

} // namespace

MetricsReply metricsReply(const std::string& head, bool whole, size_t limit, const std::function<std::string()>& body,
                          const std::string& contentType)
{
    const size_t lineEnd = head.find("\r\n");
    std::string_view method;
    std::string_view target;
    const std::string_view line =
        std::string_view(head).substr(0, lineEnd == std::string::npos ? head.size() : lineEnd);
    if (!metricsRequestLine(line, lineEnd != std::string::npos, method, target))
        return metricsRefuse(400, "not an HTTP/1.x request; this endpoint serves GET /metrics");
    if (!whole) {
        if (head.size() <= limit)
            return {};
        return lineEnd == std::string::npos
                   ? metricsRefuse(414, "the request line is longer than " + std::to_string(limit) + " bytes")
                   : metricsRefuse(431, "the request head is longer than " + std::to_string(limit) + " bytes");
    }
    // Each header line is NAME ":" VALUE, the name a token.
    for (size_t at = lineEnd + 2; at < head.size();) {
        const size_t end = head.find("\r\n", at);
        const std::string_view field = std::string_view(head).substr(at, end - at);
        if (field.empty())
            break;
        const size_t colon = field.find(':');
        if (colon == 0 || colon == std::string_view::npos ||
            !std::all_of(field.begin(), field.begin() + ptrdiff_t(colon), metricsTchar))
            return metricsRefuse(400, "a header line is not NAME: VALUE");
        at = end + 2;
    }
    const std::string_view path = target.substr(0, target.find('?'));
    if (path != "/metrics")
        return metricsRefuse(404, "not found; this endpoint serves GET /metrics");
    if (method != "GET" && method != "HEAD")
        return metricsRefuse(405, "/metrics is read-only: GET or HEAD");
    return metricsMake(200, contentType, body(), method == "GET");
}

MetricsServer::MetricsServer(std::function<std::string()> body, std::string contentType, Limits limits)
    : m_body(std::move(body))
    , m_contentType(std::move(contentType))
    , m_limits(limits)
{
    if (pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0)
        m_wake[0] = m_wake[1] = -1;
}

MetricsServer::~MetricsServer()
{
    if (m_wake[1] >= 0) {
        const char c = 'x';
        (void)!::write(m_wake[1], &c, 1);
    }
    if (m_thread.joinable())
        m_thread.join();
    for (const Connection& c : m_connections)
        ::close(c.fd);
    for (int fd : {m_listen, m_wake[0], m_wake[1]})
        if (fd >= 0)
            ::close(fd);
}

std::optional<std::string> MetricsServer::bind(const std::string& host, int port)
{
    sockaddr_storage a{};
    socklen_t length = 0;
    auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
    if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(uint16_t(port));
        length = sizeof *v4;
    } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(uint16_t(port));
        length = sizeof *v6;
    } else {
        return std::string("the address is not numeric");
    }
    if (m_wake[0] < 0)
        return std::string("cannot create a pipe: ") + std::strerror(errno);
    m_listen = ::socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    // SO_REUSEADDR lets a restart bind while the old connections linger in TIME_WAIT; no SO_REUSEPORT, with which
    // a second monitor on the same port would bind too and share the connections instead of being refused.
    const int yes = 1;
    if (m_listen >= 0)
        setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&a), length) != 0 ||
        ::listen(m_listen, 128) != 0) {
        const int err = errno;
        return err == EADDRINUSE ? std::string("the port is in use") : std::string(std::strerror(err));
    }
    return std::nullopt;
}

void MetricsServer::start()
{
    m_thread = std::thread([this] {
        pthread_setname_np(pthread_self(), "rtscope-metrics");
        loop();
    });
}

void MetricsServer::evictOldestReading(const std::string* client)
{
    auto oldest = m_connections.end();
    for (auto it = m_connections.begin(); it != m_connections.end(); ++it)
        if (it->reply.empty() && (!client || it->client == *client) &&
            (oldest == m_connections.end() || it->acceptedNs < oldest->acceptedNs))
            oldest = it;
    if (oldest == m_connections.end())
        return;
    ::close(oldest->fd);
    m_connections.erase(oldest);
}

void MetricsServer::accept(int64_t now)
{
    for (;;) {
        sockaddr_storage peer{};
        socklen_t length = sizeof peer;
        const int fd = ::accept4(m_listen, reinterpret_cast<sockaddr*>(&peer), &length, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        char text[INET6_ADDRSTRLEN] = "?";
        if (peer.ss_family == AF_INET)
            inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&peer)->sin_addr, text, sizeof text);
        else if (peer.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&peer)->sin6_addr, text, sizeof text);
        const std::string client = text;
        // Over a bound, the oldest connection that has not finished its request goes: whoever holds connections open
        // cannot keep a new scrape out, only make room for it.
        const auto mine = size_t(std::count_if(m_connections.begin(), m_connections.end(),
                                               [&](const Connection& c) { return c.client == client; }));
        if (mine >= m_limits.connectionsPerClient)
            evictOldestReading(&client);
        if (m_connections.size() >= m_limits.connections)
            evictOldestReading(nullptr);
        if (m_connections.size() >= m_limits.connections) {
            ::close(fd); // every one is writing its reply: the newcomer waits for none of them
            continue;
        }
        m_connections.push_back({fd, client, now, {}, {}, 0, 0, false});
    }
}

void MetricsServer::answer(Connection& c, int64_t now)
{
    const size_t end = c.request.find("\r\n\r\n");
    const bool whole = end != std::string::npos;
    MetricsReply r = metricsReply(whole ? c.request.substr(0, end + 4) : c.request, whole, m_limits.requestBytes,
                                  m_body, m_contentType);
    if (r.status == 0)
        return;
    c.reply = std::move(r.bytes);
    c.replyStartNs = now;
}

bool MetricsServer::readFrom(Connection& c, int64_t now)
{
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (n == 0)
            return c.draining ? false : !c.reply.empty(); // a client that gives up before its request is gone
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        if (c.draining || !c.reply.empty())
            continue; // what follows the request (a body, a pipelined request) is not read as one
        c.request.append(buffer, size_t(std::min<ssize_t>(n, ssize_t(m_limits.requestBytes + 1))));
        answer(c, now);
    }
}

bool MetricsServer::writeTo(Connection& c, int64_t now)
{
    (void)now;
    while (c.replySent < c.reply.size()) {
        const ssize_t n =
            ::send(c.fd, c.reply.data() + c.replySent, c.reply.size() - c.replySent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        c.replySent += size_t(n);
    }
    if (!c.draining) {
        // Shut the sending side and read on until the client closes: closing with unread bytes would send a reset,
        // which can destroy the reply before the client has read it.
        ::shutdown(c.fd, SHUT_WR);
        c.draining = true;
    }
    return true;
}

void MetricsServer::loop()
{
    std::vector<pollfd> fds;
    for (;;) {
        fds.clear();
        fds.push_back({m_wake[0], POLLIN, 0});
        fds.push_back({m_listen, POLLIN, 0});
        for (const Connection& c : m_connections)
            fds.push_back({c.fd, short(!c.reply.empty() && !c.draining ? POLLOUT : POLLIN), 0});
        if (::poll(fds.data(), nfds_t(fds.size()), 100) < 0 && errno != EINTR)
            return;
        if (fds[0].revents)
            return;
        const int64_t now = nowNs();
        // The connections polled are the first fds.size() - 2 ones; accept() appends after them.
        const size_t polled = fds.size() - 2;
        std::vector<bool> done(polled, false);
        for (size_t i = 0; i < polled; ++i) {
            Connection& c = m_connections[i];
            const short ev = fds[i + 2].revents;
            bool keep = true;
            if (ev & (POLLIN | POLLHUP | POLLERR))
                keep = readFrom(c, now);
            if (keep && !c.reply.empty() && !c.draining)
                keep = writeTo(c, now);
            const bool late = c.reply.empty() ? now - c.acceptedNs > int64_t(m_limits.requestMs) * kNsPerMs
                                              : now - c.replyStartNs > int64_t(m_limits.writeMs) * kNsPerMs;
            done[i] = !keep || late;
        }
        for (size_t i = polled; i-- > 0;)
            if (done[i]) {
                ::close(m_connections[i].fd);
                m_connections.erase(m_connections.begin() + ptrdiff_t(i));
            }
        if (fds[1].revents & POLLIN)
            accept(now);
    }
}

} // namespace rtscope::cli
