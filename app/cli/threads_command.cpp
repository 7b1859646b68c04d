// `rtscope threads`: the machine's RT and interrupt threads, and where a measuring priority would sit.
#include "app/cli/cli.h"

#include "engine/experiments/timers/timer_config_util.h"
#include "engine/formats/system_threads_json.h"
#include "engine/rt/system_threads.h"
#include "engine/util/printable.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

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
        std::printf("%7d %7d  %-18s %-8s %4d %4d  %-8s %c\n", t.pid, t.tid, threadsNameColumn(t.name, 18).c_str(),
                    printable(t.policy).c_str(), t.rtPriority, t.nice, printable(t.allowedCpus).c_str(),
                    std::isprint(uint8_t(t.state)) ? t.state : '?');
    // The placement names the nearest threads, by their names.
    std::printf("\n%zu threads. %s\n", threads.size(), printable(describePlacement(threads, *policy, prio)).c_str());
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
