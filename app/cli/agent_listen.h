#pragma once
// `rtscope agent --listen`: the listener in agent_listen.cpp (TCP with a token, or a Unix socket checked with
// SO_PEERCRED; docs/remote.md, "Security model") hands each authenticated controller to the session loop in
// agent_command.cpp.
#include <string>

namespace rtscope::cli {

struct AgentOptions {
    bool stdio = false;
    std::string listen;         ///< --listen HOST:PORT or unix:PATH
    bool listenAny = false;     ///< --listen-any: a non-loopback address is allowed
    bool allowCommands = false; ///< --allow-commands: a start may run a command string (the sweep's load_cmd)
    std::string tokenFile;      ///< --token-file: where a TCP listener writes its token; empty: a new private directory
};

/// One authenticated controller's session on the socket @p fd (its hello already read and checked), with
/// @p listenFd polled so that a second controller is refused meanwhile. True when a stop signal ended it.
bool runAgentSocketSession(int fd, int listenFd, const AgentOptions& o);

/// Listens as @p o says and serves one controller at a time until a stop signal; the exit code.
int runAgentListen(const AgentOptions& o);

} // namespace rtscope::cli
