#include "engine/remote/agent_protocol.h"

#include "engine/formats/system_threads_json.h"
#include "engine/util/clock.h"
#include "engine/util/json_fields.h"
#include "engine/util/json_text.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr const char* kAgentFrameNames[] = {"",          "hello",    "start",         "reconfigure",     "stop",
                                            "heartbeat", "error",    "recording",     "status",          "started",
                                            "ended",     "snapshot", "snapshot-part", "threads-request", "threads"};
constexpr uint8_t kAgentLastType = uint8_t(AgentFrameType::Threads);
static_assert(std::size(kAgentFrameNames) == kAgentLastType + 1u);

uint32_t agentLe32(const char* p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | uint8_t(p[i]);
    return v;
}

} // namespace

bool knownAgentFrameType(uint8_t type)
{
    return type >= 1 && type <= kAgentLastType;
}

std::string agentFrameName(uint8_t type)
{
    return knownAgentFrameType(type) ? kAgentFrameNames[type] : "type " + std::to_string(type);
}

std::optional<nlohmann::json> AgentFrame::json(std::string& error) const
{
    const std::string name = agentFrameName(uint8_t(type));
    ParsedJson parsed = parseJsonText(payload, name + ": the payload");
    if (!parsed.ok() || !parsed.value.is_object()) {
        error = parsed.error(name + ": the payload is not a JSON object");
        return std::nullopt;
    }
    return std::move(parsed.value);
}

bool splitAgentHostPort(std::string_view text, std::string& host, int& port, std::string& why)
{
    size_t colon = std::string_view::npos;
    if (!text.empty() && text.front() == '[') {
        const size_t close = text.find(']');
        if (close == std::string_view::npos) {
            why = "the '[' of an IPv6 address has no ']'";
            return false;
        }
        host = std::string(text.substr(1, close - 1));
        if (close + 1 >= text.size() || text[close + 1] != ':') {
            why = "the port is missing (HOST:PORT)";
            return false;
        }
        colon = close + 1;
    } else {
        colon = text.rfind(':');
        if (colon == std::string_view::npos) {
            why = "the port is missing (HOST:PORT)";
            return false;
        }
        host = std::string(text.substr(0, colon));
        if (host.find(':') != std::string::npos) {
            why = "an IPv6 address goes in brackets ([::1]:PORT)";
            return false;
        }
    }
    if (host.empty()) {
        why = "the host is missing (HOST:PORT)";
        return false;
    }
    const std::string_view digits = text.substr(colon + 1);
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
        why = "the port '" + std::string(digits) + "' is not a number 0..65535";
        return false;
    }
    port = std::stoi(std::string(digits));
    if (port > 65535) {
        why = "port " + std::to_string(port) + " is outside 0..65535";
        return false;
    }
    return true;
}

std::string encodeAgentFrame(AgentFrameType type, std::string_view payload)
{
    std::string out;
    out.reserve(kAgentFrameHeaderBytes + payload.size());
    const auto n = uint32_t(payload.size());
    for (int i = 0; i < 4; ++i)
        out.push_back(char((n >> (8 * i)) & 0xff));
    out.push_back(char(type));
    out.append(payload);
    return out;
}

std::string encodeAgentJsonFrame(AgentFrameType type, const nlohmann::json& payload)
{
    return encodeAgentFrame(type,
                            std::string_view(payload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

void AgentFrameDecoder::feed(std::string_view bytes)
{
    // Consumed bytes are dropped before new ones are added, so the buffer holds at most one frame and one read.
    if (m_offset > 0) {
        m_buffer.erase(0, m_offset);
        m_offset = 0;
    }
    m_buffer.append(bytes);
}

AgentFrameDecoder::Result AgentFrameDecoder::next(AgentFrame& frame, std::string& error)
{
    if (pending() < kAgentFrameHeaderBytes)
        return Result::NeedMore;
    const char* head = m_buffer.data() + m_offset;
    const uint32_t length = agentLe32(head);
    const auto type = uint8_t(head[4]);
    if (length > kMaxAgentPayload) {
        error = "frame of " + std::to_string(length) + " bytes exceeds the " + std::to_string(kMaxAgentPayload) +
                "-byte limit; the " + std::to_string(pending()) + " bytes received with it were discarded";
        m_buffer.clear();
        m_offset = 0;
        return Result::Bad;
    }
    if (pending() < kAgentFrameHeaderBytes + length)
        return Result::NeedMore;
    m_offset += kAgentFrameHeaderBytes + length;
    if (!knownAgentFrameType(type)) {
        error =
            "unknown frame type " + std::to_string(type) + " (" + std::to_string(length) + " bytes of payload skipped)";
        return Result::Bad;
    }
    frame.type = AgentFrameType(type);
    frame.payload.assign(head + kAgentFrameHeaderBytes, length);
    return Result::Frame;
}

Error AgentFrameWriter::writeAll(std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
        if (n > 0) {
            bytes.remove_prefix(size_t(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // A non-blocking descriptor whose peer is slow: wait, but not forever (a peer that stopped reading).
            pollfd p{m_fd, POLLOUT, 0};
            const int r = ::poll(&p, 1, kAgentHeartbeatTimeoutMs);
            if (r > 0 && !(p.revents & (POLLERR | POLLHUP)))
                continue;
            if (r < 0 && errno == EINTR)
                continue;
            return {ErrorKind::System,
                    r == 0 ? "the peer read nothing for " + std::to_string(kAgentHeartbeatTimeoutMs / 1000) + " s"
                           : std::string("the connection closed")};
        }
        return {ErrorKind::System, std::string("cannot write to the connection: ") + std::strerror(errno)};
    }
    return {};
}

Error AgentFrameWriter::send(AgentFrameType type, std::string_view payload)
{
    if (payload.size() > kMaxAgentPayload)
        return {ErrorKind::InvalidConfig, agentFrameName(uint8_t(type)) + " payload of " +
                                              std::to_string(payload.size()) + " bytes exceeds the limit"};
    const std::string bytes = encodeAgentFrame(type, payload);
    std::lock_guard lock(m_mutex);
    if (!m_failure.empty())
        return {ErrorKind::System, m_failure};
    if (Error e = writeAll(bytes)) {
        m_failure = e.message;
        return e;
    }
    m_lastSentNs = nowNs();
    return {};
}

Error AgentFrameWriter::sendJson(AgentFrameType type, const nlohmann::json& payload)
{
    return send(type, std::string_view(payload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
}

Error AgentFrameWriter::sendChunked(AgentFrameType type, std::string_view bytes)
{
    while (!bytes.empty()) {
        const size_t n = std::min<size_t>(bytes.size(), kMaxAgentPayload);
        if (Error e = send(type, bytes.substr(0, n)))
            return e;
        bytes.remove_prefix(n);
    }
    return {};
}

Error AgentFrameWriter::sendSplit(AgentFrameType part, AgentFrameType last, std::string_view bytes)
{
    while (bytes.size() > kMaxAgentPayload) {
        if (Error e = send(part, bytes.substr(0, kMaxAgentPayload)))
            return e;
        bytes.remove_prefix(kMaxAgentPayload);
    }
    return send(last, bytes);
}

void AgentFrameWriter::close(bool socketShared)
{
    std::lock_guard lock(m_mutex);
    if (m_fd < 0)
        return;
    if (socketShared)
        ::shutdown(m_fd, SHUT_WR);
    else
        ::close(m_fd);
    m_fd = -1;
    if (m_failure.empty())
        m_failure = "the connection was closed";
}

int64_t AgentFrameWriter::lastSentNs() const
{
    std::lock_guard lock(m_mutex);
    return m_lastSentNs;
}

bool AgentFrameWriter::failed() const
{
    std::lock_guard lock(m_mutex);
    return !m_failure.empty();
}

int64_t agentSnapshotIntervalNs(size_t bytes)
{
    const int64_t ms =
        std::clamp<int64_t>(int64_t(bytes / kAgentSnapshotBytesPerMs), kAgentSnapshotMs, kAgentSnapshotMaxMs);
    return ms * kNsPerMs;
}

nlohmann::json agentHello(const nlohmann::json& probe, const std::string& host, const std::string& token)
{
    nlohmann::json j{{"protocol", kAgentProtocolVersion}, {"version", RTSCOPE_VERSION}};
    if (!token.empty())
        j["token"] = token;
    if (!probe.is_null())
        j["probe"] = probe;
    if (!host.empty())
        j["host"] = host;
    return j;
}

std::string agentProtocolMismatch(const nlohmann::json& hello, const std::string& peer)
{
    const auto it = hello.find("protocol");
    if (it == hello.end() || !it->is_number_integer())
        return "hello: protocol is missing or not an integer (this rtscope speaks protocol " +
               std::to_string(kAgentProtocolVersion) + ")";
    const auto theirs = it->get<int64_t>();
    if (theirs == kAgentProtocolVersion)
        return {};
    return "protocol version mismatch: the " + peer + " speaks protocol " + std::to_string(theirs) +
           ", this rtscope speaks protocol " + std::to_string(kAgentProtocolVersion);
}

nlohmann::json agentError(std::string_view kind, std::string_view message)
{
    return {{"kind", kind}, {"message", message}};
}

std::string_view agentErrorKind(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::InvalidConfig:
        return "invalid-config";
    case ErrorKind::Permission:
        return "permission";
    default:
        return "failure";
    }
}

ErrorKind errorKindOfAgentError(std::string_view kind)
{
    if (kind == "invalid-config")
        return ErrorKind::InvalidConfig;
    if (kind == "permission")
        return ErrorKind::Permission;
    return ErrorKind::System;
}

nlohmann::json agentLatencyStatusJson(const LatencySnapshot& snapshot)
{
    nlohmann::json threads = nlohmann::json::array();
    for (const LatencyThreadStats& t : snapshot.threads)
        threads.push_back({{"cpu", t.cpu},
                           {"tid", t.tid},
                           {"samples", t.samples},
                           {"min_ns", t.histogram.min()},
                           {"last_ns", t.lastNs},
                           {"mean_ns", t.histogram.mean()},
                           {"max_ns", t.histogram.max()}});
    nlohmann::json j{
        {"priority", snapshot.config.priority}, {"period_ns", snapshot.config.periodNs}, {"threads", threads}};
    if (snapshot.tracing && !snapshot.tracing->active && !snapshot.tracing->unavailable.empty())
        j["tracing_unavailable"] = snapshot.tracing->unavailable.substr(0, kMaxAgentTracingReason);
    return j;
}

std::optional<AgentLatencyStatus> agentLatencyStatusFromJson(const nlohmann::json& j)
{
    // A status line is a convenience: a frame that does not read is skipped (the recording carries the figures).
    try {
        AgentLatencyStatus s;
        s.priority = j.at("priority").get<int>();
        s.periodNs = j.at("period_ns").get<int64_t>();
        for (const nlohmann::json& t : j.at("threads"))
            s.threads.push_back({t.at("cpu").get<int>(), t.at("tid").get<int>(), t.at("samples").get<uint64_t>(),
                                 t.at("min_ns").get<int64_t>(), t.at("last_ns").get<int64_t>(),
                                 t.at("mean_ns").get<double>(), t.at("max_ns").get<int64_t>()});
        if (const auto it = j.find("tracing_unavailable"); it != j.end()) {
            s.tracingUnavailable = it->get<std::string>();
            if (s.tracingUnavailable.size() > kMaxAgentTracingReason)
                return std::nullopt;
        }
        return s;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::string agentThreadListPayload(const std::vector<SystemThread>& threads, const std::string& host, double readMs)
{
    size_t keep = std::min(threads.size(), kMaxSystemThreadsJson);
    for (;;) {
        nlohmann::json list = nlohmann::json::array();
        for (size_t i = 0; i < keep; ++i)
            list.push_back(toJson(threads[i]));
        std::string text =
            nlohmann::json{{"host", host}, {"threads", list}, {"total", threads.size()}, {"read_ms", readMs}}.dump(
                -1, ' ', false, nlohmann::json::error_handler_t::replace);
        // Rows are short (about 300 bytes); only very long CPU lists could overflow a frame: keep the first half.
        if (text.size() <= kMaxAgentPayload || keep == 0)
            return text;
        keep /= 2;
    }
}

std::optional<AgentThreadList> agentThreadListFromJson(const nlohmann::json& j, std::string& problem)
{
    std::vector<std::string> problems;
    JsonFields f(j, problems, "the threads payload");
    AgentThreadList list;
    f.string(JsonField("host", Presence::Required), list.host);
    uint64_t total = 0;
    f.integer(JsonField("total", Presence::Required, "must be an unsigned integer"), total);
    list.total = size_t(total);
    f.number(JsonField("read_ms", Presence::Required, "must be a number 0..3600000"), list.readMs, 0, 3'600'000);
    const auto threads = j.is_object() ? j.find("threads") : j.end();
    if (problems.empty() && threads == j.end())
        problems.push_back("threads is missing");
    if (!problems.empty()) {
        problem = problems.front();
        return std::nullopt;
    }
    std::string bad;
    list.threads = systemThreadsFromJson(*threads, "threads", bad);
    if (!bad.empty()) {
        problem = bad;
        return std::nullopt;
    }
    if (list.total < list.threads.size()) {
        problem = "total (" + std::to_string(list.total) + ") is less than the " + std::to_string(list.threads.size()) +
                  " threads listed";
        return std::nullopt;
    }
    return list;
}

} // namespace rtscope
