// `rtscope agent --stdio` / `--listen HOST:PORT | unix:PATH`: runs experiments for a controller on the other end
// of stdin/stdout or of a socket (docs/remote.md). The options are read here; every transport shares one session
// loop (AgentSession, engine/remote/agent_server.h), and the listener, which authenticates each controller before
// its session, is engine/remote/agent_listener.h. With --stdio the frames are the only thing on stdout, and every
// message for a person goes to stderr, which ssh and `--target-cmd` pass through to the controller's terminal.
#include "app/cli/cli.h"

#include "engine/remote/agent_listener.h"
#include "engine/remote/agent_server.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace rtscope::cli {

namespace {

struct AgentOptions {
    bool stdio = false;
    AgentListenOptions listen; ///< --listen, --listen-any, --token-file, --allow-commands
};

// The descriptor the frames go to. stdout itself is pointed at stderr, so that a stray printf anywhere in the
// engine lands on the controller's terminal instead of corrupting the frame stream.
int takeStdoutForFrames()
{
    const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0)
        return -1;
    dup2(STDERR_FILENO, STDOUT_FILENO);
    // Non-blocking when it is a pipe or a socket (never a terminal, whose flags the shell shares): a controller
    // that stops reading makes a write fail after the heartbeat timeout instead of hanging the agent.
    struct stat st {};
    if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

int runAgentStdio(const AgentOptions& o)
{
    // A controller that has gone makes a write fail with EPIPE; the agent then stops its run and leaves.
    std::signal(SIGPIPE, SIG_IGN);
    const int frameFd = takeStdoutForFrames();
    if (frameFd < 0) {
        std::fprintf(stderr, "rtscope agent: cannot use stdout: %s\n", std::strerror(errno));
        return ExitFailure;
    }
    AgentSession agent(STDIN_FILENO, frameFd, {.allowCommands = o.listen.allowCommands});
    return agent.run();
}

// Listens as @p o says and serves one controller at a time until a stop signal; the exit code.
int runAgentListen(const AgentOptions& o)
{
    AgentListener listener(o.listen);
    if (Error e = listener.resolve())
        return reportInvalid("agent", {e.message});
    if (Error e = listener.open()) {
        std::fprintf(stderr, "rtscope agent: %s\n", e.message.c_str());
        return exitCodeFor(e.kind);
    }
    return listener.serve();
}

int run(const AgentOptions& o)
{
    if (o.stdio && !o.listen.address.empty())
        return reportInvalid("agent", {"agent takes --stdio or --listen, not both"});
    if (o.listen.listenAny && o.listen.address.empty())
        return reportInvalid("agent", {"listen-any is only meaningful with --listen HOST:PORT"});
    if (!o.listen.tokenFile.empty() && o.listen.address.empty())
        return reportInvalid("agent", {"token-file is only meaningful with --listen HOST:PORT"});
    if (!o.listen.address.empty())
        return runAgentListen(o);
    if (!o.stdio)
        return reportInvalid("agent", {"agent needs a transport: --stdio (through ssh or any command), "
                                       "--listen HOST:PORT or --listen unix:PATH (docs/remote.md)"});
    return runAgentStdio(o);
}

void addAgentFlags(CLI::App* sub, AgentOptions& o)
{
    sub->add_flag("--stdio", o.stdio,
                  "speak the agent protocol on stdin/stdout (run it through ssh or any command that carries both)");
    sub->add_option("--listen", o.listen.address,
                    "speak it on a socket instead: HOST:PORT (TCP, loopback only unless --listen-any; port 0: any "
                    "free port, printed; controllers show the token the agent writes at start) or unix:PATH (a Unix "
                    "socket for this user and root); one controller at a time");
    sub->add_flag("--listen-any", o.listen.listenAny,
                  "allow --listen on an address other machines can reach (the token and the frames are not encrypted)");
    sub->add_option("--token-file", o.listen.tokenFile,
                    "with --listen HOST:PORT, where the token is written (a new file, mode 0600; default: a new "
                    "private directory under $TMPDIR or /tmp, printed)");
    sub->add_flag("--allow-commands", o.listen.allowCommands,
                  "let a controller run a command string here with the agent's privileges (the sweep's load_cmd); "
                  "refused without it");
}

} // namespace

const OptionsCommand<AgentOptions> kAgentCommand("agent", 90,
                                                 "Run experiments for a controller on another machine (rtscope latency "
                                                 "--target-cmd, docs/remote.md)",
                                                 addAgentFlags, run);

} // namespace rtscope::cli
