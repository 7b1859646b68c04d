// The target flags of every experiment subcommand and the link they name (app/cli/remote_target.h): the transports
// differ only in how the two descriptors for AgentClient are obtained (docs/remote.md).
#include "app/cli/remote_target.h"

#include "engine/formats/probe_json.h"
#include "engine/remote/agent_auth.h"
#include "engine/remote/agent_child_exit.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <sstream>
#include <utility>

namespace rtscope::cli {

namespace {

// After the end, the agent leaves when its stdin closes; past this it is killed.
constexpr int kReapMs = 2'000;
// How long a TCP connection may take to be accepted.
constexpr int kTcpConnectMs = 10'000;

} // namespace

void addTargetOptions(CLI::App* sub, RemoteTarget& target)
{
    sub->add_option("--target", target.url,
                    "measure on another machine: tcp://HOST:PORT (an 'rtscope agent --listen'; give its token with "
                    "--target-token), unix:PATH (an 'rtscope agent --listen unix:PATH' here) or "
                    "ssh://[USER@]HOST[:PORT] (ssh runs 'rtscope agent --stdio' there; keys only) (docs/remote.md)");
    sub->add_option("--target-token", target.tokenFile,
                    "with --target tcp://, the token file the agent printed at start (default: $" +
                        std::string(kAgentTokenFileEnv) + ")");
    sub->add_option("--target-cmd", target.cmd,
                    "measure on another machine: run this command (through /bin/sh) to start 'rtscope agent --stdio' "
                    "there, e.g. \"ssh board rtscope agent --stdio\" (docs/remote.md)");
    target.agentFlag =
        sub->add_option("--target-agent", target.agentPath, "with --target ssh://, the agent binary there")
            ->capture_default_str();
    sub->add_option("--target-ssh-option", target.sshOptions,
                    "with --target ssh://, an ssh option KEY=VALUE passed as -o (repeatable), e.g. "
                    "IdentityFile=~/.ssh/board");
}

std::vector<std::string> remoteTargetProblems(const RemoteTarget& target)
{
    std::vector<std::string> problems;
    if (!target.url.empty() && !target.cmd.empty())
        problems.push_back("target and --target-cmd name the target twice; give one of them");
    bool ssh = false;
    bool tcp = false;
    if (!target.url.empty()) {
        std::string why;
        const std::optional<AgentTarget> t = parseAgentTarget(target.url, why);
        if (!t)
            problems.push_back("target '" + printable(target.url) + "' is not a target: " + why + "; give " +
                               kAgentTargetForms);
        ssh = t && t->kind == AgentTarget::Kind::Ssh;
        tcp = t && t->kind == AgentTarget::Kind::Tcp;
    }
    if (!target.tokenFile.empty()) {
        std::string token;
        if (!tcp)
            problems.push_back("target-token is the token of an agent listening on TCP; give --target tcp://…");
        else if (Error e = tryControllerToken(target.tokenFile, token))
            problems.push_back("target-" + e.message);
    }
    const bool agentPathGiven = target.agentFlag && target.agentFlag->count() > 0;
    if (!ssh && agentPathGiven)
        problems.push_back("target-agent names the agent binary of an ssh:// target; give --target ssh://…");
    if (!ssh && !target.sshOptions.empty())
        problems.push_back("target-ssh-option is passed to ssh; give --target ssh://…");
    for (const std::string& o : target.sshOptions)
        if (o.find('=') == std::string::npos || o.front() == '-')
            problems.push_back("target-ssh-option '" + printable(o) + "' is not KEY=VALUE (e.g. IdentityFile=key)");
    if (target.agentPath.empty())
        problems.push_back("target-agent is empty; give the agent binary's path on the target");
    return problems;
}

void describeTarget(nlohmann::json& report, const CliTarget& target)
{
    // Where the command puts "probe": in its "rtscope" object, or at the top (sweep's "rtscope" is the version).
    const bool nested = report.contains("rtscope") && report["rtscope"].is_object();
    nlohmann::json& r = nested ? report["rtscope"] : report;
    r["probe"] = target.probeJson();
    r["target"] = {{"host", target.hello().value("host", std::string())},
                   {"agent_version", target.hello().value("version", std::string())}};
}

CliTarget::CliTarget(std::string command)
    : m_command(std::move(command))
{}

CliTarget::~CliTarget()
{
    close();
}

bool CliTarget::open(const RemoteTarget& target)
{
    const char* cmd = m_command.c_str();
    int readFd = -1;
    int writeFd = -1;
    std::string token; // a tcp:// agent's token, shown in the hello
    if (!target.cmd.empty()) {
        m_name = "target-cmd '" + target.cmd + "'";
        AgentProcess process;
        if (Error e = spawnAgentProcess(target.cmd, process)) {
            std::fprintf(stderr, "rtscope %s: target-cmd: %s\n", cmd, e.message.c_str());
            return false;
        }
        m_pid = process.pid;
        readFd = process.fromAgent;
        writeFd = process.toAgent;
    } else {
        m_name = "target " + target.url;
        std::string why;
        const std::optional<AgentTarget> t = parseAgentTarget(target.url, why); // checked before: see the problems
        if (!t)
            return false;
        if (t->kind == AgentTarget::Kind::Ssh) {
            m_ssh = true;
            AgentProcess process;
            if (Error e = spawnAgentArgv(sshAgentArgv(*t, target.agentPath, target.sshOptions), process)) {
                std::fprintf(stderr, "rtscope %s: %s: %s\n", cmd, m_name.c_str(), e.message.c_str());
                return false;
            }
            m_pid = process.pid;
            readFd = process.fromAgent;
            writeFd = process.toAgent;
        } else {
            // Only a TCP agent asks for the token: on a Unix socket the kernel tells it who connects.
            if (t->kind == AgentTarget::Kind::Tcp)
                if (Error e = tryControllerToken(target.tokenFile, token)) {
                    std::fprintf(stderr, "rtscope %s: target-token: %s\n", cmd, e.message.c_str());
                    return false;
                }
            int fd = -1;
            if (Error e = connectAgentSocket(*t, kTcpConnectMs, fd)) {
                std::fprintf(stderr, "rtscope %s: %s: %s\n", cmd, m_name.c_str(), e.message.c_str());
                return false;
            }
            readFd = writeFd = fd;
        }
    }
    m_client = std::make_shared<AgentClient>(readFd, writeFd);
    m_client->setToken(token);
    if (Error e = m_client->connect(kHelloMs)) {
        std::fprintf(stderr, "rtscope %s: %s: %s\n", cmd, m_name.c_str(), e.message.c_str());
        close();
        return false;
    }
    m_hello = m_client->agentHello();
    return true;
}

void CliTarget::close()
{
    if (m_client)
        m_client->closeSending(); // the agent sees EOF, stops anything still running and leaves (or, over TCP, waits)
    if (m_pid <= 0)
        return;
    const int status = reapAgentProcess(m_pid, kReapMs);
    m_pid = -1;
    if (const std::string why = agentChildExitReason(status, m_ssh, "name it with --target-agent PATH"); !why.empty())
        std::fprintf(stderr, "rtscope %s: %s: %s\n", m_command.c_str(), m_name.c_str(), why.c_str());
}

nlohmann::json CliTarget::probeJson() const
{
    return m_hello.value("probe", nlohmann::json::object());
}

CpuTopology CliTarget::topology() const
{
    std::vector<std::string> problems; // a probe field that does not read is left at its default
    return targetTopology(systemProbeFromJson(probeJson(), problems));
}

std::string CliTarget::targetLine() const
{
    const nlohmann::json probe = probeJson();
    return printable("# target: " + m_hello.value("host", std::string("?")) + " (Linux " +
                     probe.value("kernel_release", std::string("?")) + "), rtscope " +
                     m_hello.value("version", std::string("?")) + " agent");
}

void CliTarget::printError(const std::string& message) const
{
    // A multi-line refusal (validate()'s sentences joined) is one line each, as a local run prints them.
    std::istringstream lines(message);
    for (std::string line; std::getline(lines, line);)
        std::fprintf(stderr, "rtscope %s: %s\n", m_command.c_str(), printable(line).c_str());
}

RunResult CliTarget::refused(const Error& e) const
{
    printError(e.message);
    RunResult r;
    r.exitCode = exitCodeFor(e.kind);
    return r;
}

bool CliTarget::isOpen() const
{
    return m_client && m_client->connectionError().empty();
}

std::string CliTarget::lostText()
{
    if (!m_client)
        return {};
    const std::string why = m_client->connectionError();
    return why.empty() ? std::string() : "connection to the " + m_name + " lost (" + why + ")";
}

std::string CliTarget::machine() const
{
    const nlohmann::json probe = probeJson();
    const std::string host = m_hello.value("host", std::string());
    return (host.empty() ? std::string("the target") : host) + " (" + probe.value("machine", std::string("?")) + ", " +
           probe.value("kernel_release", std::string("?")) + ")";
}

} // namespace rtscope::cli
