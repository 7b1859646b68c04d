#pragma once
/// @file How `rtscope agent --listen` knows its controller (docs/remote.md, "Security model"). A Unix socket
/// (`--listen unix:PATH`) takes the peer's credentials from the kernel (SO_PEERCRED): the agent's own user or root
/// only. A TCP listener cannot see who connects, so the agent makes a random token at start, writes it to a file
/// only its user can read, and a controller must show it in its hello before the agent says or does anything.
#include "engine/util/error.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace rtscope {

/// @brief A token is this many lower-case hex characters: 256 bits from getrandom(2).
inline constexpr size_t kAgentTokenHexChars = 64;
/// @brief The environment variable a controller reads the token file's path from when it is not given as a flag
/// (`rtscope latency --target-token FILE`, the desktop app's `--target-token FILE`).
inline constexpr const char* kAgentTokenFileEnv = "RTSCOPE_AGENT_TOKEN_FILE";
/// @brief The largest hello a listener reads before the controller is known; a controller's hello is about 60 bytes.
inline constexpr size_t kMaxAgentUnauthenticatedHello = 4096;

/// @brief A new token in @p token; fails only when the kernel's random source does.
[[nodiscard]] Error tryMakeAgentToken(std::string& token);
/// @brief Writes @p token and a newline to the new file @p path, created with O_EXCL and O_NOFOLLOW and mode 0600
/// (whatever the umask): an existing file, or a symbolic link planted there, is refused, never written through.
[[nodiscard]] Error tryWriteAgentTokenFile(const std::string& path, const std::string& token);
/// @brief Reads the token in @p path: a regular file (not a FIFO or a device: opening it never blocks) holding
/// kAgentTokenHexChars hex characters and optional trailing white space; else one sentence naming the file.
[[nodiscard]] Error tryReadAgentTokenFile(const std::string& path, std::string& token);
/// @brief True when @p given equals @p expected; the time taken does not depend on where they differ.
bool agentTokenMatches(std::string_view given, std::string_view expected);

/// @brief Empty when the controller's @p hello may go on: it speaks this protocol and, when @p token is not empty,
/// carries it as "token". Otherwise the one sentence the controller is told before the connection closes.
std::string agentHelloRefusal(const nlohmann::json& hello, const std::string& token);

/// @brief Empty when the process at the other end of the Unix socket @p fd runs as @p agentUid or as root;
/// otherwise the one sentence it is told ("this agent serves uid 0 and root only; uid 65534 is refused").
std::string agentPeerCredentialRefusal(int fd, uid_t agentUid);

} // namespace rtscope
