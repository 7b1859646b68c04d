#pragma once
/// @file The process exit codes of rtscope (docs/cli.md, Exit codes): every subcommand's, and the agent session's
/// (engine/remote/agent_server.h), which the CLI returns as they are.
namespace rtscope {

/// Exit codes shared by every subcommand.
/// ExitLimitBroken: `latency --fail-above` was broken or could not be checked (docs/ci.md).
enum ExitCode { ExitOk = 0, ExitFailure = 1, ExitBadInput = 2, ExitNoPrivilege = 3, ExitLimitBroken = 4 };

} // namespace rtscope
