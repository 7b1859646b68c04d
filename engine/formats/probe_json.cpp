#include "engine/formats/probe_json.h"

#include "engine/util/json_fields.h"

namespace rtscope {

namespace {
// The highest CPU number a probe's CPU lists may name.
constexpr int kMaxProbeCpu = 65535;
} // namespace

nlohmann::json toJson(const SystemProbe& p)
{
    return nlohmann::json{{"kernel_release", p.kernelRelease},
                          {"kernel_version", p.kernelVersion},
                          {"machine", p.machine},
                          {"preempt_model", p.preemptModel},
                          {"preempt_rt", p.preemptRt},
                          {"scheduler", p.scheduler},
                          {"fair_server", p.fairServer},
                          {"clocksource", p.clocksource},
                          {"clock_resolution_ns", p.clockResolutionNs},
                          {"timer_slack_ns", p.timerSlackNs},
                          {"sched_rt_runtime_us", p.rtRuntimeUs},
                          {"sched_rt_period_us", p.rtPeriodUs},
                          {"rlimit_rtprio", p.rlimitRtprioSoft},
                          {"cap_sys_nice", p.capSysNice},
                          {"root", p.isRoot},
                          {"rt_available", p.rtAvailable},
                          {"rt_unavailable_reason", p.rtUnavailableReason},
                          {"online_cpus", p.onlineCpus},
                          {"allowed_cpus", p.allowedCpus},
                          {"isolated_cpus", p.isolatedCpus},
                          {"nohz_full_cpus", p.nohzFullCpus},
                          {"virtual_machine", p.virtualMachine},
                          {"hypervisor", p.hypervisor},
                          {"cpu_dma_latency_available", p.dmaLatencyAvailable},
                          {"cpu_model", p.cpuModel}};
}

SystemProbe systemProbeFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    // "preempt_rt has the wrong type": one phrase for every problem of a field.
    static constexpr JsonWording wording{" ",
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
    SystemProbe p;
    JsonFields f(j, errors, {}, wording);
    if (!f.ok())
        return p;
    const auto cpus = [&](const char* key, std::vector<int>& dst) {
        f.integerList({key, Presence::Optional, wording.notList}, dst, {0, kMaxProbeCpu});
    };
    // The keys of toJson(SystemProbe), in its order.
    f.string("kernel_release", p.kernelRelease);
    f.string("kernel_version", p.kernelVersion);
    f.string("machine", p.machine);
    f.string("preempt_model", p.preemptModel);
    f.boolean("preempt_rt", p.preemptRt);
    f.string("scheduler", p.scheduler);
    f.boolean("fair_server", p.fairServer);
    f.string("clocksource", p.clocksource);
    f.integer("clock_resolution_ns", p.clockResolutionNs);
    f.integer("timer_slack_ns", p.timerSlackNs);
    f.integer("sched_rt_runtime_us", p.rtRuntimeUs);
    f.integer("sched_rt_period_us", p.rtPeriodUs);
    f.integer("rlimit_rtprio", p.rlimitRtprioSoft);
    f.boolean("cap_sys_nice", p.capSysNice);
    f.boolean("root", p.isRoot);
    f.boolean("rt_available", p.rtAvailable);
    f.string("rt_unavailable_reason", p.rtUnavailableReason);
    cpus("online_cpus", p.onlineCpus);
    cpus("allowed_cpus", p.allowedCpus);
    cpus("isolated_cpus", p.isolatedCpus);
    cpus("nohz_full_cpus", p.nohzFullCpus);
    f.boolean("virtual_machine", p.virtualMachine);
    f.string("hypervisor", p.hypervisor);
    f.boolean("cpu_dma_latency_available", p.dmaLatencyAvailable);
    f.string("cpu_model", p.cpuModel);
    return p;
}

} // namespace rtscope
