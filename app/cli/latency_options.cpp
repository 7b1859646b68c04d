#include "app/cli/latency_options.h"

#include "app/cli/command_util.h"
#include "engine/experiments/latency/latency_flags.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"

#include <CLI/CLI.hpp>

namespace rtscope::cli {

CLI::Option* addLatencyOptions(CLI::App* sub, LatencyThreadFlags& f, const LatencyFlagSet& which)
{
    if (which.policy)
        addPolicyOptions(sub, f.policy, f.priority, policyHelp(which.deadline));
    sub->add_option("-i,--period", f.period, latency_flag_help::period())->capture_default_str();
    CLI::Option* hogs =
        sub->add_option("--hogs", f.hogs, which.hogsHelp ? std::string(which.hogsHelp) : latency_flag_help::hogs())
            ->capture_default_str();
    auto* cpu = noValueBelow(sub->add_option("-a,--cpu", f.cpu, latency_flag_help::cpu()));
    if (which.cpus)
        sub->add_option("--cpus", f.cpus,
                        "one measuring thread per CPU at once: all, or a list like 0,2-3 (cyclictest -t -a)")
            ->excludes(cpu);
    return hogs;
}

void readLatencyOptions(const LatencyThreadFlags& f, const LatencyFlagSet& which, LatencyConfig& c,
                        std::vector<std::string>& problems)
{
    LatencyFlagText text;
    if (which.policy) {
        if (!f.policy.empty())
            text.policy = f.policy;
        text.priority = f.priority; // always: 0 when left out, as cyclictest
    }
    text.period = f.period;
    text.hogs = f.hogs;
    text.cpu = f.cpu;
    applyLatencyFlags(text, {.deadline = which.deadline}, c, problems);
    if (which.cpus && !f.cpus.empty())
        readCpuList("cpus", f.cpus, CpuTopology::current(), c.cpus, problems);
}

} // namespace rtscope::cli
