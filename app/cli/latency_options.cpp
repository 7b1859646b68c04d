#include "app/cli/latency_options.h"

#include "app/cli/command_util.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"

#include <CLI/CLI.hpp>

namespace rtscope::cli {

CLI::Option* addLatencyOptions(CLI::App* sub, LatencyThreadFlags& f, const LatencyFlagSet& which)
{
    if (which.policy)
        addPolicyOptions(sub, f.policy, f.priority, policyHelp(which.deadline));
    sub->add_option("-i,--period", f.period, "period 10us..10s; units ns, us, ms, s (bare number: us)")
        ->capture_default_str();
    CLI::Option* hogs = sub->add_option("--hogs", f.hogs, which.hogsHelp)->capture_default_str();
    auto* cpu = noValueBelow(sub->add_option("-a,--cpu", f.cpu, "measuring CPU (default: the highest usable CPU)"));
    if (which.cpus)
        sub->add_option("--cpus", f.cpus,
                        "one measuring thread per CPU at once: all, or a list like 0,2-3 (cyclictest -t -a)")
            ->excludes(cpu);
    return hogs;
}

void readLatencyOptions(const LatencyThreadFlags& f, const LatencyFlagSet& which, LatencyConfig& c,
                        std::vector<std::string>& problems)
{
    if (which.policy) {
        readPolicy(f.policy, f.priority, c.policy, problems, which.deadline);
        c.priority = f.priority;
    }
    readDuration("period", f.period, kNsPerUs, kBareMicroseconds, c.periodNs, problems);
    c.hogs = f.hogs;
    c.cpu = f.cpu;
    if (which.cpus && !f.cpus.empty())
        readCpuList("cpus", f.cpus, CpuTopology::current(), c.cpus, problems);
}

} // namespace rtscope::cli
