#pragma once
// Small helpers more than one test unit needs. The units of an area are compiled together in unity files
// (tests/CMakeLists.txt), so a helper two units define for themselves under one name does not compile: it lives
// here instead.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/sched_deadline.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/test_skip.h"

#include <QString>
#include <QStringList>
#include <QTest>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <pthread.h>
#include <sched.h>
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

/// @p problems, from a validation: none when @p expected is empty, else exactly one, which starts with @p expected.
inline void checkOneProblemOrNone(const std::vector<std::string>& problems, const QString& expected)
{
    if (expected.isEmpty()) {
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
    } else {
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY2(QString::fromStdString(problems.front()).startsWith(expected), qPrintable(joined(problems)));
    }
}

/// A machine of two CPUs, 0 and 1, both online and allowed: what the config validations are checked against.
inline CpuTopology twoCpuTopology()
{
    CpuTopology t;
    t.online = {0, 1};
    t.allowed = {0, 1};
    return t;
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

/// A skip when this process may not use SCHED_FIFO, or when CPU 0 or 1 of @p cpus is not usable (@p roles says what
/// runs on each: "needs CPUs 0 and 1: " + @p roles); else none.
inline MaybeSkip withoutFifoOrCpus01(const SystemProbe& probe, const CpuTopology& cpus, const std::string& roles)
{
    if (MaybeSkip noFifo = withoutFifo(probe))
        return noFifo;
    if (!cpus.usable(0) || !cpus.usable(1))
        return Skip{SkipKind::Cpus, "needs CPUs 0 and 1: " + roles};
    return std::nullopt;
}

/// Pins the calling thread to @p cpu.
inline void pinCallingThread(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/// Sleeps until @p deadlineNs on CLOCK_MONOTONIC; false when a stop request (@p stop) interrupted the wait or came
/// during it.
inline bool sleepUntilUnlessStopped(int64_t deadlineNs, const std::atomic<bool>& stop)
{
    const timespec ts = toTimespec(deadlineNs);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
        if (stop.load(std::memory_order_relaxed))
            return false;
    return !stop.load(std::memory_order_relaxed);
}

/// Keeps the calling (SCHED_OTHER) test thread off @p cpu for a scope. Real-time spinners of other labs run on
/// the measured CPU; one there would starve this thread and make a join look slow that was not.
class AwayFrom {
public:
    explicit AwayFrom(int cpu)
    {
        m_saved = sched_getaffinity(0, sizeof m_old, &m_old) == 0;
        cpu_set_t set;
        CPU_ZERO(&set);
        const int other = CpuTopology::current().otherThan({cpu});
        if (other >= 0) {
            CPU_SET(other, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
    }
    ~AwayFrom()
    {
        if (m_saved)
            sched_setaffinity(0, sizeof m_old, &m_old);
    }
    AwayFrom(const AwayFrom&) = delete;
    AwayFrom& operator=(const AwayFrom&) = delete;

private:
    cpu_set_t m_old;
    bool m_saved = false;
};

/// The CPUs thread @p tid may run on (sched_getaffinity), sorted.
inline std::vector<int> threadCpus(pid_t tid)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(tid, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set))
                cpus.push_back(c);
    return cpus;
}

/// The set-up of a test of real-time threads: the stop signals blocked in the calling thread, and so in every thread
/// it starts (blockProcessSignals), and the machine probed into @p probe; @p cpu is the last CPU it allows.
inline void blockSignalsAndProbe(SystemProbe& probe, int& cpu)
{
    blockProcessSignals(false);
    probe = probeSystem();
    QVERIFY(!probe.allowedCpus.empty());
    cpu = probe.allowedCpus.back();
}

/// An RtThread body that sleeps in long blocking waits until asked to stop: only the wake signal can end a wait
/// early.
inline void sleepUntilStopped(const std::atomic<bool>& stop)
{
    while (!stop.load(std::memory_order_relaxed)) {
        const timespec tenSeconds{10, 0};
        clock_nanosleep(CLOCK_MONOTONIC, 0, &tenSeconds, nullptr);
    }
}

} // namespace rtscope::test
