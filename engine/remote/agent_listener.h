#pragma once
/// @file `rtscope agent --listen HOST:PORT | unix:PATH` (docs/remote.md, "Security model"): a socket that serves one
/// authenticated controller at a time, each in an AgentSession (engine/remote/agent_server.h). Loopback is no
/// boundary between the users of one machine, so the listener knows its controller before it says or starts
/// anything: on a Unix socket the kernel names the peer's uid (SO_PEERCRED: the agent's own user or root), on TCP
/// the controller's hello must carry the token the agent wrote at start to a file only its user can read
/// (engine/remote/agent_auth.h).
#include "engine/util/error.h"

#include <memory>
#include <string>

namespace rtscope {

/// @brief What `rtscope agent --listen` was given.
struct AgentListenOptions {
    std::string address;        ///< --listen HOST:PORT or unix:PATH
    bool listenAny = false;     ///< --listen-any: a non-loopback address is allowed
    std::string tokenFile;      ///< --token-file: where a TCP listener writes its token; empty: a new private directory
    bool allowCommands = false; ///< --allow-commands: a start may run a command string (the sweep's load_cmd)
};

struct AgentListenerState;

/// @brief The listening socket and what the agent made beside it (a Unix socket's file, the token file and its
/// directory), removed when it goes. Used in three steps: resolve(), open(), serve().
class AgentListener {
public:
    explicit AgentListener(AgentListenOptions options);
    ~AgentListener();
    AgentListener(const AgentListener&) = delete;
    AgentListener& operator=(const AgentListener&) = delete;

    /// @brief Reads the options and resolves the address; nothing is made yet. An InvalidConfig error with the one
    /// sentence that refuses them (a path too long for a socket, a HOST:PORT that does not parse or resolve, an
    /// address that is not loopback without listenAny, a token file for a Unix socket).
    [[nodiscard]] Error resolve();
    /// @brief Binds and listens on the resolved address, then (TCP) makes the token and writes its file, and says on
    /// stderr how a controller authenticates and where the agent listens. The error names what failed (a file
    /// already at a Unix socket's path, an address in use, a token file that exists); what was made is removed when
    /// the listener goes, as after serve().
    [[nodiscard]] Error open();
    /// @brief Serves one controller at a time until a stop signal (kStopSignals, blocked in the calling thread);
    /// the exit code (ExitOk, engine/util/exit_code.h). SIGPIPE is ignored from here on.
    int serve();

private:
    std::unique_ptr<AgentListenerState> m_state;
};

} // namespace rtscope
