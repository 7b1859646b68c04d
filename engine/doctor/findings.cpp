#include "engine/doctor/findings.h"

#include "engine/util/name_list.h"

#include <cstdio>

namespace rtscope::doctor {

LatencyFigures figuresOf(const Histogram& histogram)
{
    LatencyFigures f;
    f.samples = histogram.count();
    if (f.samples == 0)
        return f;
    f.p50Us = double(histogram.percentile(50)) / 1000.0;
    f.p99Us = double(histogram.percentile(99)) / 1000.0;
    f.p99_9Us = double(histogram.percentile(99.9)) / 1000.0;
    f.maxUs = double(histogram.max()) / 1000.0;
    return f;
}

std::string usText(double us)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", us);
    return buf;
}

std::string shareText(double share)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.0f %%", share * 100.0);
    return buf;
}

const char* fixKindName(FixKind kind)
{
    return enumName<FixKind::KernelCmdline>(kind, {"thread-affinity", "thread-priority", "irq-affinity", "sysctl",
                                                   "thp", "workqueue-cpumask", "cpu-dma-latency", "cpuidle-state",
                                                   "preempt-mode", "cpuset-partition", "kernel-cmdline"});
}

const char* verdictName(Verdict verdict)
{
    return enumName<Verdict::NotTried>(verdict, {"helped", "no_effect", "hurt", "not_tried"});
}

} // namespace rtscope::doctor
