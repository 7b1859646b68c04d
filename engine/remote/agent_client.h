#pragma once
/// @file The controller's side of the agent protocol (docs/remote.md): a connection to `rtscope agent` over two
/// file descriptors, whatever carries them (a child's pipes here; an ssh session or a TCP socket are other ways to
/// get the same two descriptors). Used by `rtscope latency --target-cmd`; made for the desktop app as well: every
/// call is thread-safe and none blocks longer than its timeout.
#include "engine/remote/agent_protocol.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace rtscope {

/// @brief An agent started as a child process: `/bin/sh -c COMMAND` with its stdin and stdout on pipes and its
/// stderr shared with ours (the agent's messages pass through).
struct AgentProcess {
    pid_t pid = -1;
    int toAgent = -1;   ///< the agent's stdin
    int fromAgent = -1; ///< the agent's stdout
};
/// @brief Starts @p command; the descriptors go to an AgentClient, which owns them from then on.
Error spawnAgentProcess(const std::string& command, AgentProcess& out);
/// @brief Waits up to @p timeoutMs for the child to exit (its stdin closed, it stops and leaves), then kills it.
/// Returns its wait status, or -1.
int reapAgentProcess(pid_t pid, int timeoutMs);

/// @brief Starts @p argv (argv[0] looked up in PATH) like spawnAgentProcess: stdin and stdout on pipes, stderr
/// shared. The ssh transport runs `ssh … rtscope agent --stdio` this way, with no shell between.
Error spawnAgentArgv(const std::vector<std::string>& argv, AgentProcess& out);

/// @brief A target named by URL (`rtscope latency --target`, docs/remote.md): `tcp://HOST:PORT` (an agent started
/// with --listen HOST:PORT, reached directly or through `ssh -L`; it asks for its token), `unix:PATH` (an agent
/// started with --listen unix:PATH on this machine; the kernel tells it who connects) or `ssh://[USER@]HOST[:PORT]`
/// (ssh runs the agent with --stdio there).
struct AgentTarget {
    enum class Kind { Tcp, Ssh, Unix };
    Kind kind = Kind::Tcp;
    std::string user; ///< ssh only; empty: ssh's default
    std::string host; ///< unix: the socket's path
    int port = 0;     ///< tcp: required; ssh: 0 = ssh's default
};
/// @brief The accepted forms, for sentences: "tcp://HOST:PORT, unix:PATH or ssh://[USER@]HOST[:PORT]".
extern const char* const kAgentTargetForms;
/// @brief Parses @p url; nullopt and @p why (what is wrong with it, without the forms) when it is not a target.
std::optional<AgentTarget> parseAgentTarget(std::string_view url, std::string& why);
/// @brief A connected TCP socket to @p host:@p port, in @p fd; else the reason ("cannot connect to
/// 127.0.0.1:5000: Connection refused"). Gives up after @p timeoutMs.
Error connectAgentTcp(const std::string& host, int port, int timeoutMs, int& fd);
/// @brief A connected Unix stream socket to @p path, in @p fd; else the reason ("cannot connect to unix:/run/x:
/// No such file or directory").
Error connectAgentUnix(const std::string& path, int& fd);
/// @brief connectAgentTcp or connectAgentUnix, as @p target says (not for ssh://, which runs a command).
Error connectAgentSocket(const AgentTarget& target, int timeoutMs, int& fd);
/// @brief The token a controller shows a TCP agent: read from @p tokenFile, or when that is empty from the file
/// that kAgentTokenFileEnv names; empty (and no error) when neither is given, which an agent on a Unix socket or
/// behind ssh does not need.
Error tryControllerToken(const std::string& tokenFile, std::string& token);
/// @brief The ssh command line that runs the agent on @p target: `ssh -o BatchMode=yes [-p PORT] [-o OPT]…
/// -- [USER@]HOST AGENT agent --stdio` (@p agentPath shell-quoted: the remote side runs it through its shell).
std::vector<std::string> sshAgentArgv(const AgentTarget& target, const std::string& agentPath,
                                      const std::vector<std::string>& sshOptions);

/// @brief The CPUs a target offers, from its probe (the hello's "probe", systemProbeFromJson): its online CPUs, all
/// allowed (the agent runs unpinned), and its isolated ones. What a config is checked against and "all" expands to
/// before it is sent (docs/remote.md).
CpuTopology targetTopology(const SystemProbe& probe);

/// @brief A Snapshot message of an experiment other than latency (docs/remote.md): which experiment and run, whether
/// it is the last of its run, and the snapshot as JSON (read it with engine/remote/snapshot_json.h).
struct AgentSnapshotMessage {
    std::string experiment;
    uint64_t run = 0; ///< the Started frame's "run": a reconfigure of these experiments starts a new run
    bool final = false;
    nlohmann::json snapshot;
    uint64_t sequence = 0; ///< how many snapshot messages the client had received with this one (1 for the first)
};

/// @brief The answer to requestThreads(): the target's thread list, or why it could not be had (a reply that did not
/// read, an agent too old to know the request), each a sentence.
struct AgentThreadsReply {
    AgentThreadList list;
    std::string problem; ///< empty when list holds the answer
};

class AgentClient {
public:
    /// @brief Takes ownership of both descriptors (they may be the same one, a socket).
    AgentClient(int readFd, int writeFd);
    /// @brief Closes the connection (the agent sees EOF and stops its run) and joins the reading thread.
    ~AgentClient();
    AgentClient(const AgentClient&) = delete;
    AgentClient& operator=(const AgentClient&) = delete;

    /// @brief The token this controller shows in its hello (engine/remote/agent_auth.h); set it before connect().
    void setToken(std::string token);
    /// @brief Starts the reading thread and sends this controller's hello (with the token, if any: an agent on TCP
    /// says nothing before it), then waits for the agent's hello and checks its protocol version.
    Error connect(int timeoutMs);
    /// @brief The agent's hello (protocol, version, probe); null before connect().
    nlohmann::json agentHello() const;

    /// @brief Asks the agent to run @p experiment (the registry's name) with @p config (the preset JSON); waits
    /// for Started (returns {} and the config as run in @p started) or an Error frame (its kind and sentence).
    /// @p view: the run's view options (docs/remote.md, Start), null for none.
    Error start(std::string_view experiment, const nlohmann::json& config, int timeoutMs, nlohmann::json* started,
                const nlohmann::json& view = nullptr);
    Error reconfigure(const nlohmann::json& config);
    Error stop();
    /// @brief Closes our sending side: the agent sees EOF, stops whatever runs and exits.
    void closeSending();

    /// @brief The Ended frame arrived, or the connection is gone (connectionError() says why).
    bool ended() const;
    bool waitEnded(int timeoutMs);
    /// @brief The Ended frame's payload; null if none came.
    nlohmann::json endedInfo() const;
    /// @brief Why the connection was given up ("the agent closed the connection", "no frame from the agent for
    /// 5 s"), empty while it is up.
    std::string connectionError() const;
    /// @brief Error frames received since the last start() (their sentences).
    std::vector<std::string> errors() const;

    /// @brief The run's .rtrec bytes received so far (Recording frames, concatenated), read back whole from the
    /// spool: for tests and short runs; a long run's are read with recordingFrom() or recordingPath().
    ///
    /// Received recording bytes are not kept in memory: each Recording frame is appended to a spool file as it
    /// arrives (a file without a name, O_TMPFILE in the temporary directory, so it goes with the process however it
    /// ends), as a local run's recorder writes its own; a run of hours costs disk, not memory.
    std::string recording() const;
    /// @brief The recording's bytes from @p offset on, at most @p maxBytes (empty when none are newer): a live view
    /// feeds only what arrived since its last refresh, a bounded piece at a time.
    std::string recordingFrom(uint64_t offset, size_t maxBytes = kRecordingPieceBytes) const;
    static constexpr size_t kRecordingPieceBytes = size_t(16) << 20;
    uint64_t recordingBytes() const;
    /// @brief A path this process can open to read the spool ("/proc/self/fd/N"), empty before the first start or
    /// when the spool could not be made. Its size is recordingBytes() once the run has ended.
    std::string recordingPath() const;
    /// @brief Hands the recording to @p sink in pieces of at most 1 MiB, in order; stops at the first error.
    [[nodiscard]] Error copyRecording(const std::function<Error(std::string_view)>& sink) const;
    /// @brief The latest Status frame with a number that increases with each; nullopt if none newer than
    /// @p afterGeneration.
    std::optional<nlohmann::json> status(uint64_t afterGeneration, uint64_t& generation) const;

    /// @brief The latest Snapshot message with a number that increases with each; nullopt if none is newer than
    /// @p afterCount. A live view polls it like status().
    std::optional<AgentSnapshotMessage> snapshot(uint64_t afterCount, uint64_t& count) const;
    /// @brief The latest Snapshot message of run @p run, kept for the last kKeptSnapshotRuns runs; nullopt if none.
    std::optional<AgentSnapshotMessage> snapshotOfRun(uint64_t run) const;
    static constexpr size_t kKeptSnapshotRuns = 4;
    /// @brief Started frames received in this connection, and the latest one's payload (null before any): a
    /// reconfigure of an experiment other than latency answers with a new Started.
    uint64_t startedCount() const;
    /// @brief Asks the agent for its machine's RT and interrupt threads (a ThreadsRequest frame; it answers at any
    /// time, running or not); the answer comes as threadList(). Returns at once.
    Error requestThreads();
    /// @brief The latest answer to requestThreads() with a number that increases with each; nullopt if none is
    /// newer than @p afterGeneration. A live view polls it like status().
    std::optional<AgentThreadsReply> threadList(uint64_t afterGeneration, uint64_t& generation) const;
    nlohmann::json lastStarted() const;

    /// @brief Every byte read from the agent so far, frames and their headers included (the link's bandwidth).
    uint64_t bytesReceived() const { return m_bytesReceived.load(std::memory_order_relaxed); }
    /// @brief Called on the reading thread after each Recording frame is appended, with the run's recording bytes
    /// so far and when the read() that brought them returned (nowNs()): the link benchmark's arrival times. Set it
    /// before connect(); it must be quick.
    using RecordingObserver = std::function<void(uint64_t recordingBytes, int64_t arrivalNs)>;
    void setRecordingObserver(RecordingObserver observer);

private:
    void readerLoop();
    void handle(const AgentFrame& frame);
    void lose(std::string why);
    void receiveSnapshot(const AgentFrame& frame);
    void receiveThreads(const AgentFrame& frame);

    int m_readFd;
    int m_writeFd;
    AgentFrameWriter m_writer;
    int m_wakePipe[2] = {-1, -1}; ///< wakes the reader to leave

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    nlohmann::json m_hello;
    bool m_haveHello = false;
    std::optional<nlohmann::json> m_started;
    std::optional<std::pair<std::string, std::string>> m_startError; ///< kind, sentence
    bool m_awaitingStart = false;
    nlohmann::json m_ended;
    bool m_haveEnded = false;
    std::string m_lost;
    std::vector<std::string> m_errors;
    int m_spoolFd = -1;        ///< the run's recording bytes (guarded by m_mutex, like its size)
    uint64_t m_spoolBytes = 0; ///< bytes in the spool
    /// Makes the spool, or empties it for a new run (m_mutex held).
    Error resetSpoolLocked();
    /// Appends a Recording frame's payload to the spool (m_mutex held).
    Error appendSpoolLocked(std::string_view bytes);
    nlohmann::json m_status;
    uint64_t m_statusGeneration = 0;
    std::vector<AgentSnapshotMessage> m_snapshots; ///< the latest per run, the most recently received last
    uint64_t m_snapshotCount = 0;
    std::string m_snapshotParts; ///< SnapshotPart payloads of the message being received (the reading thread's)
    bool m_snapshotPartsTooLong = false;
    AgentThreadsReply m_threads;
    uint64_t m_threadsGeneration = 0;
    nlohmann::json m_lastStarted;
    uint64_t m_startedCount = 0;
    bool m_sendingClosed = false;
    std::string m_token;
    bool m_helloSent = false;
    std::thread m_reader;
    std::atomic<uint64_t> m_bytesReceived{0};
    int64_t m_lastReadNs = 0; ///< the reading thread's own
    RecordingObserver m_recordingObserver;
};

} // namespace rtscope
