#pragma once
// Small helpers more than one test unit needs. The units of an area are compiled together in unity files
// (tests/CMakeLists.txt), so a helper two units define for themselves under one name does not compile: it lives
// here instead.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/sched_deadline.h"
#include "engine/rt/system_probe.h"
#include "tests/common/test_skip.h"

#include <QString>
#include <QStringList>

#include <cerrno>
#include <string>
#include <thread>
#include <vector>

namespace rtscope::test {

/// The problems a validation returned, as one line for a failure message.
inline QString joined(const std::vector<std::string>& problems)
{
    QStringList l;
    for (const auto& p : problems)
        l << QString::fromStdString(p);
    return l.join(" | ");
}

/// The CPUs this process may use that are online and not isolated, in order.
inline std::vector<int> usableCpus()
{
    const CpuTopology t = CpuTopology::current();
    std::vector<int> cpus;
    for (int c : t.allowed)
        if (t.usable(c))
            cpus.push_back(c);
    return cpus;
}

/// A skip when @p probe says this process may not use SCHED_FIFO, with the probe's reason; else none.
inline MaybeSkip withoutFifo(const SystemProbe& probe)
{
    if (probe.rtAvailable)
        return std::nullopt;
    return Skip{SkipKind::RtPrivilege, "SCHED_FIFO is not permitted here: " + probe.rtUnavailableReason};
}

/// A skip when the kernel refuses SCHED_DEADLINE to a thread of this process (tried for real, then undone), with
/// the engine's explanation; else none. EBUSY counts as permitted: the policy is there, others hold the bandwidth now.
inline MaybeSkip withoutDeadline()
{
    const DeadlineParams params{100'000, 1'000'000, 1'000'000};
    int err = 0;
    std::thread t([&err, &params] {
        err = setDeadlineScheduling(0, params);
        if (err == 0)
            (void)setOtherScheduling(0);
    });
    t.join();
    if (err == 0 || err == EBUSY)
        return std::nullopt;
    return Skip{SkipKind::Deadline, "the kernel refuses SCHED_DEADLINE to this process: " +
                                        explainDeadlineError(err, params, "a probe thread", false)};
}

} // namespace rtscope::test
