#include "engine/remote/agent_child_exit.h"

#include <sys/wait.h>

namespace rtscope {

std::string agentChildExitReason(int status, bool ssh, const std::string& nameAgent)
{
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 0)
        return {};
    const int code = WEXITSTATUS(status);
    if (ssh && code == 255)
        return "ssh could not connect or log in (exit status 255; its message is above)";
    if (code == 127)
        return ssh ? "the agent binary was not found on the target (exit status 127); " + nameAgent
                   : std::string("the command was not found (exit status 127)");
    return "the agent exited with status " + std::to_string(code);
}

} // namespace rtscope
