#include "engine/formats/probe_json.h"

#include "engine/util/json_table.h"

namespace rtscope {

namespace {
// The highest CPU number a probe's CPU lists may name.
constexpr int kMaxProbeCpu = 65535;

// "preempt_rt has the wrong type": one phrase for every problem of a field.
constexpr JsonWording kWording{" ",
                               "is missing",
                               "expected an object",
                               "has the wrong type",
                               "has the wrong type",
                               "has the wrong type",
                               "has the wrong type",
                               "has the wrong type",
                               "has the wrong type",
                               "has the wrong type",
                               "has the wrong type"};

// The keys of toJson(SystemProbe), in the order systemProbeFromJson reads them.
const auto kProbeFields = std::tuple{
    jsonValue("kernel_release", &SystemProbe::kernelRelease),
    jsonValue("kernel_version", &SystemProbe::kernelVersion),
    jsonValue("machine", &SystemProbe::machine),
    jsonValue("preempt_model", &SystemProbe::preemptModel),
    jsonValue("preempt_rt", &SystemProbe::preemptRt),
    jsonValue("scheduler", &SystemProbe::scheduler),
    jsonValue("fair_server", &SystemProbe::fairServer),
    jsonValue("clocksource", &SystemProbe::clocksource),
    jsonValue("clock_resolution_ns", &SystemProbe::clockResolutionNs),
    jsonValue("timer_slack_ns", &SystemProbe::timerSlackNs),
    jsonValue("sched_rt_runtime_us", &SystemProbe::rtRuntimeUs),
    jsonValue("sched_rt_period_us", &SystemProbe::rtPeriodUs),
    jsonValue("rlimit_rtprio", &SystemProbe::rlimitRtprioSoft),
    jsonValue("cap_sys_nice", &SystemProbe::capSysNice),
    jsonValue("root", &SystemProbe::isRoot),
    jsonValue("rt_available", &SystemProbe::rtAvailable),
    jsonValue("rt_unavailable_reason", &SystemProbe::rtUnavailableReason),
    jsonIntegerList<int>("online_cpus", &SystemProbe::onlineCpus, kWording.notList, 0, kMaxProbeCpu),
    jsonIntegerList<int>("allowed_cpus", &SystemProbe::allowedCpus, kWording.notList, 0, kMaxProbeCpu),
    jsonIntegerList<int>("isolated_cpus", &SystemProbe::isolatedCpus, kWording.notList, 0, kMaxProbeCpu),
    jsonIntegerList<int>("nohz_full_cpus", &SystemProbe::nohzFullCpus, kWording.notList, 0, kMaxProbeCpu),
    jsonValue("virtual_machine", &SystemProbe::virtualMachine),
    jsonValue("hypervisor", &SystemProbe::hypervisor),
    jsonValue("cpu_dma_latency_available", &SystemProbe::dmaLatencyAvailable),
    jsonValue("cpu_model", &SystemProbe::cpuModel),
};

} // namespace

nlohmann::json toJson(const SystemProbe& p)
{
    return tableToJson(p, kProbeFields);
}

SystemProbe systemProbeFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    SystemProbe p;
    JsonFields f(j, errors, {}, kWording);
    readTable(f, p, kProbeFields);
    return p;
}

} // namespace rtscope
