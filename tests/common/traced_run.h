#pragma once
// Whether a traced latency run (`--trace`: tracefs, docs/experiments/anatomy.md) can happen in this test process's
// environment, for the CLI tests that run one: the CPU they measure on and, when they must skip, why.
#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_session.h"
#include "tests/common/test_skip.h"

#include <QFile>
#include <QRegularExpression>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

namespace rtscope::test {

/// Sets @p cpu to the CPU a traced test run measures on (the last allowed one) and returns why a traced run cannot
/// happen here (the test is skipped with it), none when it can.
inline MaybeSkip tracedRunUnavailable(int& cpu)
{
    cpu = CpuTopology::current().allowed.back(); // sched_getaffinity(2) never gives an empty set
    const TraceProbe p = TraceSession::probe();
    if (!p.kernelHasTracefs)
        return Skip{SkipKind::Tracefs, "the kernel has no tracefs: " + p.reason};
    if (geteuid() != 0)
        return Skip{SkipKind::Tracefs, "a traced run needs root here (tracefs): " + p.reason};
    return std::nullopt;
}

/// The initTestCase of a CLI test of traced runs: @p rtscope (the built binary) is there and @p dir was made; @p cpu
/// and @p noTrace are tracedRunUnavailable()'s.
inline void setUpTracedCliTest(const QString& rtscope, const QTemporaryDir& dir, int& cpu, MaybeSkip& noTrace)
{
    QVERIFY2(QFile::exists(rtscope), "RTSCOPE_BINARY must point at the built rtscope");
    QVERIFY(dir.isValid());
    noTrace = tracedRunUnavailable(cpu);
}

/// Where the anatomy stands in a traced run's output @p out (a local run's, or a remote one's, which must print it
/// the same way): after the summary, its status line for CPU @p cpu. Empty when it does, else what is wrong.
inline QString tracingLineProblem(const QString& out, const QString& cpu)
{
    const qsizetype summary = out.indexOf("\nSummary: "), tracing = out.indexOf("\nTracing: ");
    if (summary <= 0 || tracing <= summary)
        return "no Tracing line after the Summary";
    const QRegularExpression line("Tracing: private tracefs instance on CPU " + cpu +
                                  ": \\d+ events in \\d+\\.\\d\\d s \\(\\d+ events/s\\), lost events \\d+");
    return out.contains(line) ? QString() : "the Tracing line is not as a local run prints it";
}

} // namespace rtscope::test
