#pragma once
/// @file Where a remote latency run happens (docs/remote.md): `rtscope latency --target URL` or `--target-cmd CMD`,
/// read by latency_command.cpp and carried out by remote_latency.cpp.
#include "app/cli/experiment_runs.h"
#include "app/cli/fail_limit.h"

#include "engine/experiments/latency/latency_config.h"

#include <optional>
#include <string>
#include <vector>

namespace rtscope::cli {

struct RemoteTarget {
    std::string url;                     ///< --target tcp://HOST:PORT, unix:PATH or ssh://[USER@]HOST[:PORT]
    std::string cmd;                     ///< --target-cmd: a command that runs `rtscope agent --stdio`
    std::string agentPath = "rtscope";   ///< --target-agent: the agent binary on an ssh:// target
    std::vector<std::string> sshOptions; ///< --target-ssh-option KEY=VALUE: passed to ssh as -o KEY=VALUE
    std::string tokenFile; ///< --target-token: the token file of a tcp:// agent (else $RTSCOPE_AGENT_TOKEN_FILE)
    bool given() const { return !url.empty() || !cmd.empty(); }
};

/// @brief The sentences for target flags that cannot work together or a URL that is not a target (exit 2).
std::vector<std::string> remoteTargetProblems(const RemoteTarget& target, bool agentPathGiven);

/// @brief A run in the agent @p target reaches, printed as a local run is. @p cpuList is --cpus as given (empty: not
/// given): "all" is the target's CPUs, read from its hello's probe.
RunResult runRemoteLatency(const LatencyConfig& config, const RunOutput& out, const std::optional<LatencyLimit>& limit,
                           const RemoteTarget& target, const std::string& cpuList);

} // namespace rtscope::cli
