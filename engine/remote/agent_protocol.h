#pragma once
/// @file The agent protocol (docs/remote.md): the frames `rtscope agent --stdio` and its controller exchange over a
/// pair of file descriptors (a pipe to a child, an ssh session, later a TCP socket). Framing, limits and the
/// payload of each frame are here, so the agent, the CLI client and any later transport share one definition.
///
///     frame := length:u32 (little-endian, the payload's bytes)  type:u8  payload[length]
///
/// A payload is at most kMaxAgentPayload bytes; JSON payloads are UTF-8 objects.
#include "engine/experiments/latency/latency_run.h"
#include "engine/rt/system_threads.h"
#include "engine/util/error.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief The protocol this build speaks; a hello with another is refused with both numbers named.
inline constexpr int kAgentProtocolVersion = 1;
/// @brief The range of a Start's view options ("series_window_ns", "timeline_window_ns": docs/remote.md), in ns.
inline constexpr int64_t kAgentViewMinNs = 1'000'000;
inline constexpr int64_t kAgentViewMaxNs = int64_t(600) * 1'000'000'000;
/// @brief The largest payload a frame may carry: 1 MiB. A recording chunk larger than this is split.
inline constexpr uint32_t kMaxAgentPayload = uint32_t(1) << 20;
/// @brief length (4) + type (1).
inline constexpr size_t kAgentFrameHeaderBytes = 5;
/// @brief Each side sends a heartbeat this often when it has sent nothing else…
inline constexpr int kAgentHeartbeatMs = 1000;
/// @brief …and gives the other up after this long without any frame from it.
inline constexpr int kAgentHeartbeatTimeoutMs = 5000;

enum class AgentFrameType : uint8_t {
    Hello = 1,       ///< both ways, first: {"protocol", "version", "probe" (the agent's only)}
    Start = 2,       ///< controller: {"experiment": any registry name, "config": {…the preset JSON…}}
    Reconfigure = 3, ///< controller: {"config": {…}} while running (latency: in place; the others: a restart)
    Stop = 4,        ///< controller: empty
    Heartbeat = 5,   ///< both ways: empty
    Error = 6,       ///< agent: {"kind": "protocol"|"invalid-config"|"permission"|"failure", "message": sentence}
    Recording = 7,   ///< agent: the next bytes of the run's .rtrec stream (docs/recording-format.md)
    Status = 8,      ///< agent: {"threads": [{cpu, tid, samples, min_ns, last_ns, mean_ns, max_ns}], …} while running
    Started = 9,     ///< agent: {"experiment", "config" (as run, CPUs resolved), "label", "run"}
    Ended = 10,      ///< agent: {"finished", "error", "memory_lock", "dma_latency_note", "dma_latency_held"}
    /// agent, every experiment but latency: {"experiment", "run", "final", "snapshot": engine/remote/snapshot_json.h},
    /// at most every kAgentSnapshotMs while it changes, and a final one after the stop
    Snapshot = 11,
    SnapshotPart = 12, ///< agent: the leading bytes of a Snapshot payload above kMaxAgentPayload; its Snapshot ends it
    /// controller, at any time after the hello (running or not): {} — "which threads run on your machine?"
    ThreadsRequest = 13,
    /// agent, the answer: {"host", "threads": [engine/formats/system_threads_json.h], "total", "read_ms"}
    Threads = 14,
};

/// @brief A running experiment other than latency sends its snapshot at most this often…
inline constexpr int kAgentSnapshotMs = 100;
/// @brief …and a large one less often: one byte in kAgentSnapshotBytesPerMs per millisecond at most (about 2.5 MB/s),
/// so a long run's tick and sample logs do not fill the link; never less often than kAgentSnapshotMaxMs.
inline constexpr size_t kAgentSnapshotBytesPerMs = 2500;
inline constexpr int kAgentSnapshotMaxMs = 2000;
/// @brief The largest snapshot payload, over all its frames: 64 MiB. A controller refuses a longer one unread.
inline constexpr size_t kMaxAgentSnapshotBytes = size_t(64) << 20;
/// @brief How long the agent waits after sending a snapshot of @p bytes before the next one.
int64_t agentSnapshotIntervalNs(size_t bytes);

/// @brief "hello", "start", …; "type 42" for a type this build does not know.
std::string agentFrameName(uint8_t type);
/// @brief True for a type this build knows.
bool knownAgentFrameType(uint8_t type);

struct AgentFrame {
    AgentFrameType type = AgentFrameType::Heartbeat;
    std::string payload;
    /// @brief The payload as a JSON object, or an empty optional and @p error set ("start: payload is not a JSON
    /// object: …").
    std::optional<nlohmann::json> json(std::string& error) const;
};

/// @brief Splits "HOST:PORT" or "[V6ADDR]:PORT" (the --listen address, a tcp:// target): false and @p why ("the port
/// is missing", "port 70000 is outside 0..65535") when it is not that shape. Port 0 is accepted (the agent's
/// listener: any free port, printed).
bool splitAgentHostPort(std::string_view text, std::string& host, int& port, std::string& why);

/// @brief One frame's bytes. @p payload must be at most kMaxAgentPayload bytes (the caller splits).
std::string encodeAgentFrame(AgentFrameType type, std::string_view payload);
std::string encodeAgentJsonFrame(AgentFrameType type, const nlohmann::json& payload);

/// @brief Cuts a byte stream into frames, however the bytes arrive (one byte at a time, many frames at once).
///
/// Hostile input never makes it allocate more than one payload limit, nor stop: a frame of an unknown type is
/// consumed and reported; a length above the limit is reported, and since nothing after it can be trusted to be a
/// frame boundary, every byte buffered so far is dropped (the stream resynchronises at the next read, which is
/// where a well-behaved peer's next frame starts, as each frame is written whole).
class AgentFrameDecoder {
public:
    /// @brief Appends @p bytes (what one read() gave).
    void feed(std::string_view bytes);
    enum class Result { Frame, NeedMore, Bad };
    /// @brief The next complete frame (Frame), nothing yet (NeedMore), or a bad one (Bad, @p error names what was
    /// wrong: "frame of 4294967295 bytes exceeds the 1048576-byte limit", "unknown frame type 42").
    Result next(AgentFrame& frame, std::string& error);
    /// @brief Bytes of an unfinished frame: at end of stream, non-zero means the stream was cut inside a frame.
    size_t pending() const { return m_buffer.size() - m_offset; }

private:
    std::string m_buffer;
    size_t m_offset = 0;
};

/// @brief Writes whole frames to a file descriptor; safe from several threads (the agent's recorder thread and its
/// control loop share stdout). A write that cannot proceed for kAgentHeartbeatTimeoutMs (the peer stopped
/// reading) fails rather than block forever; so does one after an earlier failure.
class AgentFrameWriter {
public:
    explicit AgentFrameWriter(int fd)
        : m_fd(fd)
    {}
    Error send(AgentFrameType type, std::string_view payload);
    Error sendJson(AgentFrameType type, const nlohmann::json& payload);
    /// @brief @p bytes as Recording frames of at most kMaxAgentPayload each.
    Error sendChunked(AgentFrameType type, std::string_view bytes);
    /// @brief One payload that may exceed kMaxAgentPayload: @p part frames for its leading pieces, then one @p last
    /// frame with the rest (the Snapshot/SnapshotPart pair).
    Error sendSplit(AgentFrameType part, AgentFrameType last, std::string_view bytes);
    /// @brief No more frames: closes the descriptor (@p socketShared: shuts down its sending side only, the same
    /// descriptor is read). Later sends fail.
    void close(bool socketShared);
    /// @brief When the last frame was sent (nowNs()), for the heartbeat.
    int64_t lastSentNs() const;
    bool failed() const;

private:
    Error writeAll(std::string_view bytes);
    int m_fd;
    mutable std::mutex m_mutex;
    int64_t m_lastSentNs = 0;
    std::string m_failure;
};

/// @brief The hello frame's payload for this build; @p probe is the system probe's JSON and @p host the machine's
/// name (the agent's), or null and empty (the controller's). @p token: the controller's proof for an agent that
/// listens on TCP (engine/remote/agent_auth.h), sent as "token" when not empty.
nlohmann::json agentHello(const nlohmann::json& probe, const std::string& host = {}, const std::string& token = {});
/// @brief Empty when @p hello speaks kAgentProtocolVersion, else the refusal naming both versions ("the agent
/// speaks protocol 2, this rtscope 1").
std::string agentProtocolMismatch(const nlohmann::json& hello, const std::string& peer);

/// @brief An Error frame's payload.
nlohmann::json agentError(std::string_view kind, std::string_view message);
/// @brief The "kind" of an Error frame for an engine error.
std::string_view agentErrorKind(ErrorKind kind);
/// @brief Back: "invalid-config" → InvalidConfig, "permission" → Permission, anything else System.
ErrorKind errorKindOfAgentError(std::string_view kind);

/// @brief One measuring thread's line of a latency Status frame: what cyclictest's status line shows.
struct AgentLatencyStatusThread {
    int cpu = -1;
    int tid = 0;
    uint64_t samples = 0;
    int64_t minNs = 0;
    int64_t lastNs = 0;
    double meanNs = 0;
    int64_t maxNs = 0;
};
struct AgentLatencyStatus {
    int priority = 0;
    int64_t periodNs = 0;
    std::vector<AgentLatencyStatusThread> threads;
    /// --trace asked for and tracing could not start on the target: its reason (LatencyTracing::unavailable), so the
    /// controller says it as soon as a local run would; empty otherwise ("tracing_unavailable", absent when empty).
    std::string tracingUnavailable;
};
/// @brief The longest "tracing_unavailable" a Status frame may carry (as the recording's anatomy block cuts it).
inline constexpr size_t kMaxAgentTracingReason = 4096;
/// @brief A latency Status frame's payload from a live snapshot, and back (a field of the wrong type, a reason longer
/// than kMaxAgentTracingReason: nullopt).
nlohmann::json agentLatencyStatusJson(const LatencySnapshot& snapshot);
std::optional<AgentLatencyStatus> agentLatencyStatusFromJson(const nlohmann::json& j);

/// @brief The machine's RT and interrupt threads, as a Threads frame carries them (`rtscope threads` on the target).
struct AgentThreadList {
    std::string host;                  ///< the agent's hostname
    std::vector<SystemThread> threads; ///< at most kMaxSystemThreadsJson, in listSystemThreads()'s order
    size_t total = 0;                  ///< threads the agent found: more than threads.size() when the list was cut
    double readMs = 0;                 ///< how long reading its /proc took there
};
/// @brief A Threads frame's payload for @p threads, at most kMaxSystemThreadsJson of them and at most
/// kMaxAgentPayload bytes (a longer list is cut and "total" says how many there were).
std::string agentThreadListPayload(const std::vector<SystemThread>& threads, const std::string& host, double readMs);
/// @brief A Threads frame's payload read back (untrusted): nullopt and @p problem, one sentence naming the field
/// ("threads[3].nice must be an integer -20..19").
std::optional<AgentThreadList> agentThreadListFromJson(const nlohmann::json& j, std::string& problem);

} // namespace rtscope
