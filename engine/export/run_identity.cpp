#include "engine/export/run_identity.h"

#include "engine/experiments/latency/latency_run.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_environment.h"
#include "engine/rt/sched_policy.h"
#include "engine/rt/system_probe.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

namespace rtscope {

RunIdentity latencyRunIdentity(const SystemProbe& probe, const LatencySnapshot& snap, const std::string& command,
                               int64_t startUnixSec, const std::optional<std::string>& kernelCmdline)
{
    RunIdentity id;
    id.host = probe.hostname;
    id.kernelRelease = probe.kernelRelease;
    id.kernelVersion = probe.kernelVersion;
    id.kernelCmdline = kernelCmdline ? *kernelCmdline : readFirstLine("/proc/cmdline");
    id.preemptModel = probe.preemptModel;
    id.cpuModel = probe.cpuModel;
    id.isolatedCpus = probe.isolatedCpus;
    id.nohzFullCpus = probe.nohzFullCpus;
    for (const auto& t : snap.threads)
        id.measuredCpus.push_back(t.cpu);
    const LatencyConfig& c = snap.config;
    if (c.hogs > 0)
        id.load = std::to_string(c.hogs) + (c.hogs == 1 ? " hog (" : " hogs (") +
                  policyLabel(c.hogPolicy, 0, c.hogNice) + ") " +
                  (c.hogCpu >= 0 ? "on CPU " + std::to_string(c.hogCpu) : std::string("on each measured CPU"));
    else
        id.load = "none";
    id.command = command;
    id.startUnixSec = startUnixSec;
    return id;
}

namespace {

// "YYYY-MM-DDTHH:MM:SSZ" (UTC), the date line of the identity.
std::string runIdentityDate(int64_t unixSec)
{
    const auto t = static_cast<time_t>(unixSec);
    std::tm tm{};
    if (!gmtime_r(&t, &tm))
        return {};
    char buf[64];
    return std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) ? std::string(buf) : std::string();
}

std::string runIdentityValue(const std::string& v)
{
    return v.empty() ? std::string("unknown") : printable(v);
}

std::string runIdentityCpus(const std::vector<int>& cpus)
{
    return cpus.empty() ? std::string("none") : formatCpuList(cpus);
}

} // namespace

std::vector<std::string> runIdentityLines(const RunIdentity& id)
{
    return {"# rtscope " RTSCOPE_VERSION ": the machine and run this histogram came from",
            "# Host: " + runIdentityValue(id.host),
            "# Kernel: " + runIdentityValue(id.kernelRelease) + " " + printable(id.kernelVersion),
            "# Kernel command line: " + runIdentityValue(id.kernelCmdline),
            "# Preempt model: " + runIdentityValue(id.preemptModel),
            "# CPU model: " + runIdentityValue(id.cpuModel),
            "# Isolated CPUs: " + runIdentityCpus(id.isolatedCpus),
            "# nohz_full CPUs: " + runIdentityCpus(id.nohzFullCpus),
            "# Measured CPUs: " + runIdentityCpus(id.measuredCpus),
            "# Load: " + runIdentityValue(id.load),
            "# Load command: " + (id.loadCommand.empty() ? std::string("none") : printable(id.loadCommand)),
            "# Command: " + runIdentityValue(id.command),
            "# Date: " + runIdentityValue(runIdentityDate(id.startUnixSec))};
}

nlohmann::json runIdentityJson(const RunIdentity& id)
{
    // JSON takes only valid UTF-8, and a kernel command line or CPU model may hold anything: printable() as in the
    // lines.
    return nlohmann::json{
        {"host", printable(id.host)},
        {"kernel_release", printable(id.kernelRelease)},
        {"kernel_version", printable(id.kernelVersion)},
        {"kernel_cmdline", printable(id.kernelCmdline)},
        {"preempt_model", printable(id.preemptModel)},
        {"cpu_model", printable(id.cpuModel)},
        {"isolated_cpus", id.isolatedCpus},
        {"nohz_full_cpus", id.nohzFullCpus},
        {"measured_cpus", id.measuredCpus},
        {"load", printable(id.load)},
        {"load_command", id.loadCommand.empty() ? nlohmann::json(nullptr) : nlohmann::json(printable(id.loadCommand))},
        {"command", printable(id.command)},
        {"date", runIdentityDate(id.startUnixSec)}};
}

} // namespace rtscope
