#pragma once
/// @file Why the process that carried a link to the agent (ssh, a --target-cmd shell) ended, in words: shared by the
/// CLI's remote runs and the desktop app's Connect to target (docs/remote.md), so both say the same thing.
#include <string>

namespace rtscope {

/// @brief The reason for a wait status @p status (as waitpid gives it; -1 unknown) of the child carrying the link,
/// when that is why the agent could not be reached; empty for a clean exit or an unknown status. @p ssh: the child
/// is ssh (its exit status 255 is its own failure, 127 an agent binary missing on the target); @p nameAgent says how
/// to name the agent's path instead ("name it with --target-agent PATH").
std::string agentChildExitReason(int status, bool ssh, const std::string& nameAgent);

} // namespace rtscope
