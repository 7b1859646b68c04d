#pragma once
// The HTTP side of `rtscope monitor` (docs/monitor.md, "The endpoint and security"): GET and HEAD of /metrics, on
// one thread that waits on every connection at once (poll), so a client that connects and says nothing, or half of
// a request, costs a descriptor and a few bytes, never a worker a scrape has to wait for. Each request must arrive
// whole within its budget; a client's connections, and all of them, are bounded, the oldest unfinished request
// closed first, so a new scrape always gets in.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace rtscope::cli {

/// What one client, and all of them, may hold of the server.
struct MetricsServerLimits {
    int requestMs = 2000;             ///< the whole request head, from the connection's accept
    int writeMs = 5000;               ///< the whole reply, from its first byte
    size_t requestBytes = 8192;       ///< the request head (line and headers)
    size_t connectionsPerClient = 64; ///< one address's open connections
    size_t connections = 512;         ///< all open connections
};

class MetricsServer {
public:
    using Limits = MetricsServerLimits;
    /// @p body makes the exposition for each GET (on the server's thread); @p contentType is its Content-Type.
    MetricsServer(std::function<std::string()> body, std::string contentType, Limits limits = {});
    /// Stops the thread (within its 100 ms poll) and closes every connection.
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    /// Binds and listens on @p host (numeric) and @p port; on failure the reason.
    std::optional<std::string> bind(const std::string& host, int port);
    /// Serves on a thread started here, with the caller's affinity (the CLI keeps it off the measured CPUs).
    void start();

private:
    struct Connection {
        int fd = -1;
        std::string client; ///< the peer's address, without the port
        int64_t acceptedNs = 0;
        std::string request;
        std::string reply;
        size_t replySent = 0;
        int64_t replyStartNs = 0;
        bool draining = false; ///< the reply is out; reading what the client still sends until it closes
    };
    void loop();
    void accept(int64_t now);
    void evictOldestReading(const std::string* client);
    /// Reads what came; false when the connection is done with.
    bool readFrom(Connection& c, int64_t now);
    bool writeTo(Connection& c, int64_t now);
    void answer(Connection& c, int64_t now);

    std::function<std::string()> m_body;
    std::string m_contentType;
    Limits m_limits;
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    std::vector<Connection> m_connections;
    std::thread m_thread;
};

/// The reply to one request head (the bytes up to and including the blank line, or what came so far when @p whole
/// is false): the status code and the whole reply; status 0 while a partial head could still become a request.
/// For tests and the server; @p body is called only for a GET of /metrics.
struct MetricsReply {
    int status = 0;
    std::string bytes;
};
MetricsReply metricsReply(const std::string& head, bool whole, size_t limit, const std::function<std::string()>& body,
                          const std::string& contentType);

} // namespace rtscope::cli
