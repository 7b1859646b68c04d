#pragma once
/// @file The agent's side of the agent protocol (docs/remote.md): one controller's session, whatever carries its
/// frames. `rtscope agent --stdio` runs one on stdin and stdout; the listener (engine/remote/agent_listener.h) runs
/// one per authenticated controller on its socket. The session answers the controller's frames (hello, start,
/// reconfigure, stop, threads-request, heartbeat), runs the experiments it asks for (latency with its recording as
/// the stream, every other one with its snapshots), and stops the run, joining every thread, when the controller
/// leaves, stops reading or goes quiet for kAgentHeartbeatTimeoutMs, or a stop signal comes. Messages for a person go
/// to stderr ("rtscope agent: …"), never to the frame descriptor.
#include <memory>

namespace rtscope {

/// @brief How a session was reached. @p listenFd, when given, is the listener: a second controller connecting
/// meanwhile is refused with an error frame and closed, and this session goes on. @p helloChecked: the listener has
/// read and checked the controller's hello (its token, its peer's uid), which a socket's controller sends before the
/// agent says anything. @p allowCommands: `rtscope agent --allow-commands`, a start may carry a command string (the
/// sweep's load_cmd) that the agent runs with its own privileges; without it such a start is refused.
struct AgentSessionSettings {
    int listenFd = -1;
    bool helloChecked = false;
    bool allowCommands = false;
};

/// @brief One controller's session: frames are read from @p inFd and written to @p frameFd (the same socket for
/// TCP or a Unix socket). Neither descriptor is closed by the session. A controller that has gone makes a write
/// fail with EPIPE only when SIGPIPE is ignored, which the caller arranges. The stop signals (kStopSignals,
/// engine/rt/rt_thread.h) must be blocked, so that the session takes them (blockProcessSignals()).
class AgentSession {
public:
    AgentSession(int inFd, int frameFd, const AgentSessionSettings& settings = {});
    /// @brief Stops the run, if any (every thread joined within kJoinBudgetMs).
    ~AgentSession();
    AgentSession(const AgentSession&) = delete;
    AgentSession& operator=(const AgentSession&) = delete;

    /// @brief Serves the controller until it leaves or a stop signal comes; the run it left is stopped. Returns the
    /// exit code of `rtscope agent --stdio` (engine/util/exit_code.h): ExitOk when the controller closed the
    /// connection or a stop signal came, ExitFailure when it went quiet, stopped reading or could not be read or
    /// greeted. Why it ended is said on stderr.
    int run();
    /// @brief A stop signal (SIGINT, SIGTERM, …) ended the session: the agent leaves rather than wait for another
    /// controller.
    bool stoppedBySignal() const;

private:
    class Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace rtscope
