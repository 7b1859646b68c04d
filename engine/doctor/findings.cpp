#include "engine/doctor/findings.h"

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
    switch (kind) {
    case FixKind::ThreadAffinity:
        return "thread-affinity";
    case FixKind::ThreadPriority:
        return "thread-priority";
    case FixKind::IrqAffinity:
        return "irq-affinity";
    case FixKind::Sysctl:
        return "sysctl";
    case FixKind::Thp:
        return "thp";
    case FixKind::WorkqueueCpumask:
        return "workqueue-cpumask";
    case FixKind::CpuDmaLatency:
        return "cpu-dma-latency";
    case FixKind::CpuidleState:
        return "cpuidle-state";
    case FixKind::PreemptMode:
        return "preempt-mode";
    case FixKind::CpusetPartition:
        return "cpuset-partition";
    case FixKind::KernelCmdline:
        return "kernel-cmdline";
    }
    return "?";
}

const char* verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Helped:
        return "helped";
    case Verdict::NoEffect:
        return "no_effect";
    case Verdict::Hurt:
        return "hurt";
    case Verdict::NotTried:
        return "not_tried";
    }
    return "?";
}

} // namespace rtscope::doctor
