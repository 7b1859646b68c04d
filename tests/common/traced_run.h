#pragma once
// Whether a traced latency run (`--trace`: tracefs, docs/experiments/anatomy.md) can happen in this test process's
// environment, for the CLI tests that run one: the CPU they measure on and, when they must skip, why.
#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_session.h"

#include <QString>

#include <unistd.h>

namespace rtscope::test {

/// Sets @p cpu to the CPU a traced test run measures on (the last allowed one, -1 if none) and returns why a traced
/// run cannot happen here (the test is skipped with it), empty when it can.
inline QString tracedRunUnavailable(int& cpu)
{
    const CpuTopology topo = CpuTopology::current();
    cpu = topo.allowed.empty() ? -1 : topo.allowed.back();
    if (cpu < 0)
        return "no usable CPU";
    const TraceProbe p = TraceSession::probe();
    if (!p.kernelHasTracefs)
        return "the kernel has no tracefs: " + QString::fromStdString(p.reason);
    if (geteuid() != 0)
        return "a traced run needs root here (tracefs): " + QString::fromStdString(p.reason);
    return {};
}

} // namespace rtscope::test
