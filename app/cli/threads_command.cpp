// `rtscope threads`: the machine's RT and interrupt threads, and where a measuring priority would sit.
#include "app/cli/cli.h"

#include "engine/experiments/timers/timer_config_util.h"
#include "engine/formats/system_threads_json.h"
#include "engine/rt/system_threads.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

namespace rtscope::cli {

namespace {

struct ThreadsOptions {
    bool json = false;
    bool all = false;
    std::string placePolicy = "fifo";
    int placePriority = 80;
    const CLI::Option* priorityFlag = nullptr; ///< whether -p was given: 80 is only fifo's default
};

int run(const ThreadsOptions& o)
{
    const auto policy = parsePolicy(o.placePolicy);
    std::vector<std::string> problems;
    const bool priorityGiven = o.priorityFlag && o.priorityFlag->count() > 0;
    if (!policy)
        problems.push_back("policy must be one of other, batch, idle, fifo, rr (got '" + o.placePolicy + "')");
    else
        checkSchedulingFields(problems, *policy, isRealtime(*policy) || priorityGiven ? o.placePriority : 0);
    if (!problems.empty())
        return reportInvalid("threads", problems);
    const int prio = isRealtime(*policy) ? o.placePriority : 0;
    const auto threads = listSystemThreads(!o.all);
    if (o.json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& t : threads)
            arr.push_back(toJson(t)); // the rows `rtscope agent` sends too (docs/remote.md)
        nlohmann::json j{{"threads", arr}, {"placement", describePlacement(threads, *policy, prio)}};
        std::printf("%s\n", j.dump(2).c_str());
        return ExitOk;
    }
    std::printf("%7s %7s  %-18s %-8s %4s %4s  %-8s %s\n", "PID", "TID", "NAME", "POLICY", "PRIO", "NICE", "CPUS",
                "STATE");
    for (const auto& t : threads)
        std::printf("%7d %7d  %-18.18s %-8s %4d %4d  %-8s %c\n", t.pid, t.tid, t.name.c_str(), t.policy.c_str(),
                    t.rtPriority, t.nice, t.allowedCpus.c_str(), t.state);
    std::printf("\n%zu threads. %s\n", threads.size(), describePlacement(threads, *policy, prio).c_str());
    std::printf("Reproduce or change a row with chrt/taskset, e.g. %s\n",
                threads.empty() ? "chrt -f -p 50 <tid>" : threads.front().chrtCommand().c_str());
    return ExitOk;
}

Command addThreadsCommand(CLI::App& app)
{
    auto o = std::make_shared<ThreadsOptions>();
    auto* sub = app.add_subcommand("threads", "List the machine's real-time and interrupt threads (read from /proc)");
    sub->add_flag("--json", o->json, "print JSON, with the chrt/taskset command of every row");
    sub->add_flag("--all", o->all, "every thread, not only the non-SCHED_OTHER and interrupt threads");
    sub->add_option("--policy", o->placePolicy, "policy of the thread to place among them")->capture_default_str();
    o->priorityFlag = sub->add_option("-p,--priority", o->placePriority,
                                      "priority of the thread to place among them: 1-99 for fifo/rr, 0 otherwise")
                          ->capture_default_str();
    return {sub, [o] {
                return run(*o);
            }};
}

} // namespace

const CommandRegistration kThreadsRegistration("threads", 70, &addThreadsCommand);

} // namespace rtscope::cli
