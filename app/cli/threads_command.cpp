// `rtscope threads`: the machine's RT and interrupt threads, and where a measuring priority would sit.
#include "app/cli/cli.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/timers/timer_config_util.h"
#include "engine/formats/system_threads_json.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "engine/util/printable.h"

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

namespace rtscope::cli {

namespace {

// The NAME column: a task's name is whatever its owner (any user) set with prctl(PR_SET_NAME) or by writing
// /proc/PID/task/TID/comm, escape sequences and bidirectional overrides included, so it goes through printable()
// as text from a file does; then cut to @p columns bytes without splitting a UTF-8 character.
std::string threadsNameColumn(const std::string& name, size_t columns)
{
    std::string shown = printable(name);
    if (shown.size() > columns) {
        size_t cut = columns;
        while (cut > 0 && (uint8_t(shown[cut]) & 0xc0) == 0x80)
            --cut;
        shown.resize(cut);
    }
    return shown;
}

struct ThreadsOptions {
    bool json = false;
    bool all = false;
    std::string placePolicy = "fifo";
    int placePriority = 80;
    const CLI::Option* priorityFlag = nullptr; ///< whether -p was given: 80 is only fifo's default
    RemoteTarget target;
};

// The target's list (its RT and interrupt threads), asked of its agent; nullopt when it did not come (said why).
std::optional<AgentThreadList> targetThreads(CliTarget& link)
{
    AgentClient& agent = link.agent();
    uint64_t generation = 0;
    if (Error e = agent.requestThreads()) {
        link.printError(e.message);
        return std::nullopt;
    }
    const int64_t deadline = nowNs() + int64_t(CliTarget::kStartMs) * kNsPerMs;
    while (nowNs() < deadline && agent.connectionError().empty()) {
        if (std::optional<AgentThreadsReply> reply = agent.threadList(0, generation)) {
            if (!reply->problem.empty()) {
                link.printError("the target's thread list: " + reply->problem);
                return std::nullopt;
            }
            return reply->list;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    link.printError(agent.connectionError().empty() ? "the agent did not send its thread list within " +
                                                          std::to_string(CliTarget::kStartMs / 1000) + " s"
                                                    : link.lostText());
    return std::nullopt;
}

int run(const ThreadsOptions& o)
{
    const auto policy = parsePolicy(o.placePolicy);
    std::vector<std::string> problems;
    const bool priorityGiven = o.priorityFlag && o.priorityFlag->count() > 0;
    if (!policy)
        problems.push_back("policy must be one of " + policyNameList() + " (got '" + o.placePolicy + "')");
    else
        checkSchedulingFields(problems, *policy, isRealtime(*policy) || priorityGiven ? o.placePriority : 0);
    if (o.target.given()) {
        for (std::string& p : remoteTargetProblems(o.target))
            problems.push_back(std::move(p));
        if (o.all)
            problems.push_back("all cannot be used with a target: its agent sends its real-time and interrupt threads "
                               "only; run `rtscope threads --all` there");
    }
    if (!problems.empty())
        return reportInvalid("threads", problems);
    const int prio = isRealtime(*policy) ? o.placePriority : 0;
    std::vector<SystemThread> threads;
    std::string cut; // a target's list may have been cut to what a frame carries
    CliTarget link("threads");
    if (o.target.given()) {
        if (!link.open(o.target))
            return ExitFailure;
        std::optional<AgentThreadList> list = targetThreads(link);
        if (!list)
            return ExitFailure;
        threads = std::move(list->threads);
        if (list->total > threads.size())
            cut = " (the first " + std::to_string(threads.size()) + " of the target's " + std::to_string(list->total) +
                  ")";
    } else {
        threads = listSystemThreads(!o.all);
    }
    if (o.json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& t : threads)
            arr.push_back(toJson(t)); // the rows `rtscope agent` sends too (docs/remote.md)
        nlohmann::json j{{"threads", arr}, {"placement", describePlacement(threads, *policy, prio)}};
        if (o.target.given())
            describeTarget(j, link);
        std::printf("%s\n", j.dump(2).c_str());
        return ExitOk;
    }
    if (o.target.given())
        std::printf("%s\n", link.targetLine().c_str());
    std::printf("%7s %7s  %-18s %-8s %4s %4s  %-8s %s\n", "PID", "TID", "NAME", "POLICY", "PRIO", "NICE", "CPUS",
                "STATE");
    for (const auto& t : threads)
        std::printf("%7d %7d  %-18s %-8s %4d %4d  %-8s %c\n", t.pid, t.tid, threadsNameColumn(t.name, 18).c_str(),
                    printable(t.policy).c_str(), t.rtPriority, t.nice, printable(t.allowedCpus).c_str(),
                    std::isprint(uint8_t(t.state)) ? t.state : '?');
    // The placement names the nearest threads, by their names.
    std::printf("\n%zu threads%s. %s\n", threads.size(), cut.c_str(),
                printable(describePlacement(threads, *policy, prio)).c_str());
    std::printf("Reproduce or change a row with chrt/taskset, e.g. %s\n",
                threads.empty() ? "chrt -f -p 50 <tid>" : threads.front().chrtCommand().c_str());
    return ExitOk;
}

void addThreadsFlags(CLI::App* sub, ThreadsOptions& o)
{
    sub->add_flag("--json", o.json, "print JSON, with the chrt/taskset command of every row");
    sub->add_flag("--all", o.all, "every thread, not only the non-SCHED_OTHER and interrupt threads");
    sub->add_option("--policy", o.placePolicy, "policy of the thread to place among them")->capture_default_str();
    o.priorityFlag = sub->add_option("-p,--priority", o.placePriority,
                                     "priority of the thread to place among them: 1-99 for fifo/rr, 0 otherwise")
                         ->capture_default_str();
    addTargetOptions(sub, o.target);
}

} // namespace

const OptionsCommand<ThreadsOptions>
    kThreadsCommand("threads", 70, "List the machine's real-time and interrupt threads (read from /proc)",
                    addThreadsFlags, run);

} // namespace rtscope::cli
