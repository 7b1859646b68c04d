#pragma once
/// @file Where an experiment subcommand's run happens (docs/remote.md): `--target URL` or `--target-cmd CMD` on
/// every experiment command. The flags are registered once (addTargetOptions), the link is opened once (CliTarget,
/// the CLI's RemoteSession), and a table command runs on it through runTableOnTarget(): the engine's one remote run
/// (engine/remote/remote_experiment.h) driven by the same runTable() as the local run, so the outputs are the same.
/// Latency streams its run as a recording instead (remote_latency.cpp).
#include "app/cli/command_util.h"
#include "app/cli/experiment_runs.h"
#include "app/cli/fail_limit.h"

#include "engine/experiments/latency/latency_config.h"
#include "engine/remote/agent_client.h"
#include "engine/remote/remote_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
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
    const CLI::Option* agentFlag = nullptr; ///< --target-agent, to tell a given path from the default
    bool given() const { return !url.empty() || !cmd.empty(); }
};

/// @brief Registers --target, --target-token, --target-cmd, --target-agent and --target-ssh-option on @p sub.
void addTargetOptions(CLI::App* sub, RemoteTarget& target);

/// @brief The sentences for target flags that cannot work together or a URL that is not a target (exit 2).
std::vector<std::string> remoteTargetProblems(const RemoteTarget& target);

/// @brief The link to the agent a RemoteTarget names, for one command: opened (and its hello awaited) by open(),
/// closed when it goes (the agent sees EOF, stops whatever runs and leaves; a child that carried the link is reaped,
/// and why it ended is said when that is why the agent could not be reached).
class CliTarget final : public RemoteSession {
public:
    /// How long the agent has to say hello (an ssh login may take a while), to answer a start, and to send the end
    /// of its run after a stop (its threads are joined within 100 ms; the rest is the link).
    static constexpr int kHelloMs = 30'000;
    static constexpr int kStartMs = 10'000;
    static constexpr int kEndMs = 5'000;

    /// @p command names the subcommand in messages ("rtscope drift: …").
    explicit CliTarget(std::string command);
    ~CliTarget() override;
    CliTarget(const CliTarget&) = delete;
    CliTarget& operator=(const CliTarget&) = delete;

    /// Reaches the agent and waits for its hello; false, with the reason on stderr, when it cannot be reached.
    bool open(const RemoteTarget& target);
    /// Ends the link now (as the destructor does).
    void close();

    AgentClient& agent() { return *m_client; }
    /// The agent's hello: its host, version and the target's probe.
    const nlohmann::json& hello() const { return m_hello; }
    nlohmann::json probeJson() const;
    /// The target's CPUs, from its probe: what "all" expands to and a config is checked against.
    CpuTopology topology() const;
    /// "# target: HOST (Linux RELEASE), rtscope VERSION agent".
    std::string targetLine() const;
    /// Prints an agent's sentence (a refusal may hold several, a line each) as "rtscope CMD: …".
    void printError(const std::string& message) const;
    /// A start the agent refused (@p e, its kind and sentence): printed, and the result with its exit code.
    RunResult refused(const Error& e) const;

    std::shared_ptr<AgentClient> client() const override { return m_client; }
    bool isOpen() const override;
    std::string lostText() override;
    std::string machine() const override;

private:
    std::string m_command;
    std::string m_name; ///< for messages: "target tcp://…", "target-cmd '…'"
    bool m_ssh = false; ///< the child is ssh: its exit status 255 is its own failure
    pid_t m_pid = -1;   ///< the child carrying the link (ssh, the --target-cmd shell), -1 for a socket
    std::shared_ptr<AgentClient> m_client;
    nlohmann::json m_hello;
};

/// @brief What every command's remote run is given: a start waits for the agent's answer (kStartMs) and a stop for
/// the run's end (kEndMs); @p view, the agent's view options for the run (docs/remote.md, Start).
template <class Config>
void prepareRemoteRun(RemoteExperiment<Config>& exp, const nlohmann::json& view = nlohmann::json::object())
{
    exp.setStartWaitMs(CliTarget::kStartMs);
    exp.setStopWaitMs(CliTarget::kEndMs);
    for (const auto& [key, value] : view.items())
        exp.setViewOption(key.c_str(), value.template get<int64_t>());
}

/// @brief A remote run's --json: its "probe" is the target's (where the command puts it: under "rtscope" or at the
/// top), and "target" names the host and the agent's version.
void describeTarget(nlohmann::json& report, const CliTarget& target);

/// @brief @p config's run on @p target through runTable(), as the local run of the same command: the same header
/// (with the target's line after it), progress, table, --json (whose probe is the target's, and which names it
/// under "target") and --csv, exit codes. @p makeTable(label, config) builds the command's TableRun from the run's
/// label as the target runs it and the config sent.
template <class Config, class MakeTable>
RunResult runTableOnTarget(CliTarget& target, const Config& config, const RunOutput& out, MakeTable&& makeTable,
                           const nlohmann::json& view = nlohmann::json::object())
{
    RemoteExperiment<Config> exp(target);
    prepareRemoteRun(exp, view);
    auto run = makeTable([&exp] { return exp.label(); }, config);
    run.headerNote = target.targetLine();
    run.startError = [&target](const Error& e) {
        return target.refused(e);
    };
    run.report = [report = run.report, &target](const auto& snapshot) {
        nlohmann::json j = report(snapshot);
        describeTarget(j, target);
        return j;
    };
    return runTable(exp, config, out, run);
}

/// @brief A command given --target: checks the target flags, opens the link, reads the flags into a config against
/// the target's CPUs (@p toConfig), and runs it there by @p run(link, config) (runTableCommand()'s path, and starve's
/// and sweep's own).
template <class Config, class ToConfig, class Run>
int runOwnCommandOnTarget(const std::string& command, const RemoteTarget& target, ToConfig&& toConfig, Run&& run)
{
    if (const std::vector<std::string> problems = remoteTargetProblems(target); !problems.empty())
        return reportInvalid(command, problems);
    CliTarget link(command);
    if (!link.open(target))
        return 1;
    std::vector<std::string> problems;
    const Config config = toConfig(link.topology(), problems);
    if (!problems.empty())
        return reportInvalid(command, problems);
    return run(link, config).exitCode;
}

/// @brief A command's whole run: on @p target when one is given — the target flags checked, the link opened, the flags
/// read against the target's CPUs by @p configFor(topology, problems) and the config run there by the HeadlessRun's
/// onTarget (the agent validates it as a local run does; its refusal is this command's, exit code and all) — else
/// here: the flags read against this computer's CPUs, validated (runIfValid()) and run by the HeadlessRun's run.
/// Both are what `rtscope run` calls for a preset's phase (experiment_runs.h).
template <class Config, class ConfigFor>
int runTableCommand(const std::string& command, const RemoteTarget& target, const RunOutput& out, ConfigFor&& configFor)
{
    if (target.given())
        return runOwnCommandOnTarget<Config>(command, target, configFor, [&](CliTarget& link, const Config& config) {
            return headlessRun<Config>.onTarget(link, config, out);
        });
    std::vector<std::string> problems;
    const CpuTopology here = CpuTopology::current();
    const Config config = configFor(here, problems);
    return runIfValid(command, config, std::move(problems), here,
                      [&](const Config& c) { return headlessRun<Config>.run(c, out).exitCode; });
}

/// @brief A run of @p config here by a new @p Experiment (its memory locked) through runTable(), with the TableRun
/// @p makeTable(label, config) builds — the local twin of runTableOnTarget(). @p prepare(exp) sets what the command
/// sets before the start.
template <class Experiment, class Config, class MakeTable, class Prepare = void (*)(Experiment&)>
RunResult runTableHere(
    const Config& config, const RunOutput& out, MakeTable&& makeTable, Prepare&& prepare = [](Experiment&) {})
{
    Experiment exp;
    exp.setLockAllMemory(true);
    prepare(exp);
    return runTable(exp, config, out, makeTable([&exp] { return exp.config().label(); }, config));
}

/// @brief A table subcommand whose flags make its config by themselves (drift, sleep-floor, locks, inversion,
/// deadline), registered whole from its file. The subcommand `rtscope NAME` (OptionsCommand) has the flags
/// @p addFlags registers; its run reads them into a config (@p toConfig) and runs it here or on the target by
/// runTableCommand() with the TableRun @p table builds. Its HeadlessRun, the one `rtscope run` finds by the config's
/// type, runs a config here by a new @p Experiment through runTableHere() and starts @p firstThread first. @p prepare
/// and @p view: what runTableHere() sets before the start, and the agent's view options for a run on a target
/// (runTableOnTarget(), also the HeadlessRun's onTarget). One per experiment: its command file's static object.
template <class Experiment, class Options> class TableCommand {
public:
    using Config = typename Experiment::Config;
    using Snapshot = typename Experiment::Snapshot;
    struct Parts {
        void (*addFlags)(CLI::App* sub, Options& o) = nullptr;
        Config (*toConfig)(const Options& o, std::vector<std::string>& problems) = nullptr;
        TableRun<Snapshot> (*table)(std::function<std::string()> label, const Config& config) = nullptr;
        ThreadSpec (*firstThread)(const Config& config, const CpuTopology& topology) = nullptr;
        void (*prepare)(Experiment& exp) = nullptr;     ///< what the command sets before the start; null: nothing
        nlohmann::json view = nlohmann::json::object(); ///< the agent's view options (runOnTarget())
    };

    TableCommand(const char* name, int order, const char* description, Parts parts)
        : m_name(name)
        , m_parts(std::move(parts))
        , m_command(name, order, description, m_parts.addFlags, &runCommand)
        , m_headless({.run = &runHere, .firstThread = m_parts.firstThread, .onTarget = &runOnTarget})
    {
        s_registered = this;
    }

private:
    static int runCommand(const Options& o)
    {
        const TableCommand& t = *s_registered;
        return runTableCommand<Config>(
            t.m_name, o.target, o.output.runOutput(),
            [&](const CpuTopology&, std::vector<std::string>& problems) { return t.m_parts.toConfig(o, problems); });
    }
    static RunResult runHere(const Config& config, const RunOutput& out)
    {
        const Parts& p = s_registered->m_parts;
        return runTableHere<Experiment>(config, out, p.table, [&](Experiment& exp) {
            if (p.prepare)
                p.prepare(exp);
        });
    }

    static RunResult runOnTarget(CliTarget& link, const Config& config, const RunOutput& out)
    {
        const Parts& p = s_registered->m_parts;
        return runTableOnTarget(link, config, out, p.table, p.view);
    }

    static inline const TableCommand* s_registered = nullptr;
    const char* m_name;
    Parts m_parts;
    OptionsCommand<Options> m_command;
    HeadlessRegistration<Config> m_headless;
};

/// @brief A run in the agent @p target reaches, printed as a local run is. @p cpuList is --cpus as given (empty: not
/// given): "all" is the target's CPUs, read from its hello's probe.
RunResult runRemoteLatency(const LatencyConfig& config, const RunOutput& out, const std::optional<LatencyLimit>& limit,
                           const RemoteTarget& target, const std::string& cpuList);
/// @brief runRemoteLatency() on a link already open: the run ends it (the agent leaves).
RunResult runLatencyOn(CliTarget& link, const LatencyConfig& config, const RunOutput& out,
                       const std::optional<LatencyLimit>& limit = std::nullopt, const std::string& cpuList = {});

} // namespace rtscope::cli
