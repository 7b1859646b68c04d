#include "engine/doctor/cpuset_partition.h"

#include "engine/doctor/knob_rules.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"

#include <algorithm>
#include <sstream>
#include <unistd.h>

namespace rtscope::doctor {

namespace {

using Knobs = std::vector<std::unique_ptr<Knob>>;

// Appends the knob of @p kind/@p target set to @p to; false (with @p error set) when makeKnob refused it.
bool add(Knobs& knobs, Error& error, RootFs& fs, KnobKind kind, const std::string& target, const std::string& to)
{
    KnobChange c;
    c.kind = kind;
    c.target = target;
    c.to = to;
    Expected<std::unique_ptr<Knob>> k = makeKnob(fs, std::move(c), KnobOrigin::New);
    if (!k) {
        error = k.error();
        return false;
    }
    knobs.push_back(std::move(k).value());
    return true;
}

} // namespace

CpusetHierarchies findCpusetHierarchies(const RootFs& fs)
{
    CpusetHierarchies h;
    // /proc/self is a symbolic link, which RootFs does not follow: the process's own directory instead.
    const Expected<std::string> mounts = fs.readText("/proc/" + std::to_string(::getpid()) + "/mounts", 1 << 20);
    if (!mounts) {
        h.v2Note = mounts.error().message;
        return h;
    }
    std::istringstream lines(*mounts);
    std::string line;
    std::string cgroup2;     // the first cgroup2 mount without cpuset, for the note
    std::string controllers; // what it offers
    while (std::getline(lines, line)) {
        std::istringstream f(line);
        std::string source, point, type, options;
        f >> source >> point >> type >> options;
        std::replace(options.begin(), options.end(), ',', ' ');
        if (type == "cgroup" && h.v1.empty() && containsWord(options, "cpuset")) {
            h.v1 = point;
        } else if (type == "cgroup2" && h.v2.empty()) {
            const Expected<std::string> offered = fs.readLine(point + "/cgroup.controllers");
            if (offered && containsWord(*offered, "cpuset"))
                h.v2 = point;
            else if (cgroup2.empty()) {
                cgroup2 = point;
                controllers = offered ? (offered->empty() ? "nothing" : *offered) : "nothing readable";
            }
        }
    }
    if (h.v2.empty())
        h.v2Note = cgroup2.empty()
                       ? "no cgroup2 is mounted"
                       : "cgroup2 at " + cgroup2 + " offers no cpuset controller (it offers: " + controllers + ")" +
                             (h.v1.empty() ? "" : "; cpuset is bound to the v1 hierarchy at " + h.v1);
    return h;
}

Expected<Knobs> cpusetV1Partition(RootFs& fs, const std::string& mount, int cpu)
{
    const Expected<std::string> rootCpus = fs.readLine(mount + "/cpuset.cpus");
    const Expected<std::string> mems = fs.readLine(mount + "/cpuset.mems");
    if (!rootCpus || !mems)
        return failure(ErrorKind::Unavailable, "no v1 cpuset hierarchy at " + fs.shown(mount) + ": " +
                                                   (!rootCpus ? rootCpus.error() : mems.error()).message);
    std::vector<int> others = parseCpuList(*rootCpus, {}).value_or(std::vector<int>{});
    const auto self = std::find(others.begin(), others.end(), cpu);
    if (self == others.end())
        return failure(ErrorKind::InvalidConfig,
                       "CPU " + std::to_string(cpu) + " is not in the cpuset root's CPUs (" + *rootCpus + ")");
    others.erase(self);
    if (others.empty())
        return failure(ErrorKind::InvalidConfig,
                       "CPU " + std::to_string(cpu) + " is the only CPU: isolating it would leave none for the rest");
    const std::string isolated = mount + "/" + kIsolatedCpuset;
    const std::string housekeeping = mount + "/" + kHousekeepingCpuset;
    Knobs knobs;
    Error error;
    const bool ok = add(knobs, error, fs, KnobKind::CpusetDirectory, isolated, "present") &&
                    add(knobs, error, fs, KnobKind::CpusetFile, isolated + "/cpuset.cpus", std::to_string(cpu)) &&
                    add(knobs, error, fs, KnobKind::CpusetFile, isolated + "/cpuset.mems", *mems) &&
                    add(knobs, error, fs, KnobKind::CpusetFile, isolated + "/cpuset.cpu_exclusive", "1") &&
                    add(knobs, error, fs, KnobKind::CpusetFile, isolated + "/cpuset.sched_load_balance", "0") &&
                    add(knobs, error, fs, KnobKind::CpusetDirectory, housekeeping, "present") &&
                    add(knobs, error, fs, KnobKind::CpusetFile, housekeeping + "/cpuset.cpus", formatCpuList(others)) &&
                    add(knobs, error, fs, KnobKind::CpusetFile, housekeeping + "/cpuset.mems", *mems) &&
                    add(knobs, error, fs, KnobKind::CpusetFile, mount + "/cpuset.sched_load_balance", "0");
    if (!ok)
        return error;
    return knobs;
}

Expected<Knobs> cpusetV2Partition(RootFs& fs, const std::string& mount, int cpu, PartitionType type)
{
    const Expected<std::string> controllers = fs.readLine(mount + "/cgroup.controllers");
    if (!controllers || !containsWord(*controllers, "cpuset"))
        return failure(ErrorKind::Unavailable,
                       "the cgroup2 root " + fs.shown(mount) + " offers no cpuset controller (" +
                           (controllers ? "it offers: " + *controllers : controllers.error().message) +
                           "): the controller is bound to a v1 hierarchy, or the kernel has no CONFIG_CPUSETS");
    const Expected<std::string> rootCpus = fs.readLine(mount + "/cpuset.cpus.effective");
    std::vector<int> others = parseCpuList(rootCpus ? *rootCpus : std::string(), {}).value_or(std::vector<int>{});
    others.erase(std::remove(others.begin(), others.end(), cpu), others.end());
    if (others.empty())
        return failure(ErrorKind::InvalidConfig,
                       "CPU " + std::to_string(cpu) + " is the only CPU: isolating it would leave none for the rest");
    const std::string isolated = mount + "/" + kIsolatedCpuset;
    Knobs knobs;
    Error error;
    const bool ok = add(knobs, error, fs, KnobKind::CpusetFile, mount + "/cgroup.subtree_control", "+cpuset") &&
                    add(knobs, error, fs, KnobKind::CpusetDirectory, isolated, "present") &&
                    add(knobs, error, fs, KnobKind::CpusetFile, isolated + "/cpuset.cpus", std::to_string(cpu)) &&
                    add(knobs, error, fs, KnobKind::CpusetFile, isolated + "/cpuset.cpus.partition",
                        type == PartitionType::Isolated ? "isolated" : "root");
    if (!ok)
        return error;
    return knobs;
}

} // namespace rtscope::doctor
