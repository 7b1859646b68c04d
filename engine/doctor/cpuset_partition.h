#pragma once
/// @file Isolating one CPU at run time with a cpuset (docs/doctor.md, "Run-time isolation"): the knobs, in the order to
/// apply them, that make the partition; a DoctorSession applies them one by one (each journaled first) and reverts them
/// in reverse order, which removes the directories again.
///
/// cgroup v2 (Documentation/admin-guide/cgroup-v2.rst, "cpuset.cpus.partition"): a child of the root with
/// cpuset.cpus = N and cpuset.cpus.partition = isolated takes N out of every other cgroup's effective CPUs and out of
/// the scheduler's load balancing. Every task elsewhere that could run on N loses it (a task pinned to N only runs on
/// the parent's CPUs meanwhile; the kernel gives tasks back the affinity they asked for when the partition goes). To
/// measure on N, a process must be moved into the partition (cgroup.procs: whole processes only in v2).
///
/// cgroup v1 (Documentation/admin-guide/cgroup-v1/cpusets.rst, "sched_load_balance"): there is no partition file. The
/// same end is reached as cset(1)'s shield does: an exclusive cpuset holding N with load balancing off, a sibling
/// with the other CPUs and load balancing on, and load balancing off in the root, so that the scheduler builds its
/// domains from the two children only and N is in none. Unlike v2 this does not move anyone off N (the tasks stay in
/// the root, whose CPUs cannot shrink): it only stops the load balancer from pulling work onto N. Moving every task of
/// the machine into the sibling, as cset does, would overwrite each one's affinity (v1 applies the cpuset's CPUs on
/// attach), which no journal could give back: the doctor does not do it.
#include "engine/doctor/knob.h"

#include <memory>
#include <string>
#include <vector>

namespace rtscope::doctor {

/// @brief Where the cpuset controller is mounted, as /proc/PID/mounts of this process says.
struct CpusetHierarchies {
    std::string v1;     ///< the v1 cpuset hierarchy ("/sys/fs/cgroup/cpuset"); empty when none
    std::string v2;     ///< a cgroup2 mount whose root offers the cpuset controller; empty when none
    std::string v2Note; ///< when v2 is empty: why ("cgroup2 at /sys/fs/cgroup/unified offers no cpuset: …")
};
CpusetHierarchies findCpusetHierarchies(const RootFs& fs);

/// @brief The directory names the partitions use (under the hierarchy's root).
inline constexpr const char* kIsolatedCpuset = "rtscope-doctor-isolated";
inline constexpr const char* kHousekeepingCpuset = "rtscope-doctor-housekeeping";

/// @brief v1: the knobs that take @p cpu out of load balancing (see the file's comment), for the hierarchy mounted
/// at @p mount. Refused when @p cpu is not in the root's CPUs, or is the only one (nothing would be left for the
/// rest of the system).
[[nodiscard]] Expected<std::vector<std::unique_ptr<Knob>>> cpusetV1Partition(RootFs& fs, const std::string& mount,
                                                                             int cpu);

enum class PartitionType { Isolated, Root };
/// @brief v2: the knobs that make @p cpu a partition of its own (isolated: also without load balancing; root: a
/// scheduling domain of its own, for kernels without isolated partitions), for the cgroup2 mounted at @p mount.
/// Unavailable, with the reason, when that root offers no cpuset controller.
[[nodiscard]] Expected<std::vector<std::unique_ptr<Knob>>>
cpusetV2Partition(RootFs& fs, const std::string& mount, int cpu, PartitionType type = PartitionType::Isolated);

} // namespace rtscope::doctor
