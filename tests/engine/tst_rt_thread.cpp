#include "engine/rt/caller_affinity.h"
#include "engine/rt/dma_latency.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;

Q_DECLARE_METATYPE(rtscope::Policy)
Q_DECLARE_METATYPE(rtscope::MemoryLockMode)

namespace {

// Forks a child that runs @p prepare and, when that succeeded, asks for a SCHED_FIFO 10 thread; @p out is what the
// start answered, as "kind|message" (empty when @p prepare failed).
template <class Prepare> void fifoStartInAChild(Prepare prepare, std::string& out)
{
    int fds[2];
    QVERIFY(pipe(fds) == 0);
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        close(fds[0]);
        std::string answer;
        if (prepare()) {
            RtThread t;
            ThreadSpec s;
            s.policy = Policy::Fifo;
            s.priority = 10;
            const Error e = t.start(s, [](const std::atomic<bool>&) {});
            answer = std::to_string(int(e.kind)) + "|" + e.message;
        }
        [[maybe_unused]] ssize_t n = write(fds[1], answer.data(), answer.size());
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    char buf[1024];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        out.append(buf, size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
}

// VmLck of /proc/self/status: what this process has mlock()ed, in kB.
int64_t lockedKiB()
{
    std::ifstream in("/proc/self/status");
    std::string key;
    while (in >> key) {
        if (key == "VmLck:") {
            int64_t kb = 0;
            in >> kb;
            return kb;
        }
        std::string rest;
        std::getline(in, rest);
    }
    return -1;
}

std::string sysfsOnlineText()
{
    char buf[256] = {};
    FILE* f = std::fopen("/sys/devices/system/cpu/online", "r");
    if (!f)
        return {};
    if (!std::fgets(buf, sizeof buf, f))
        buf[0] = 0;
    std::fclose(f);
    std::string s(buf);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

} // namespace

class TestRtThread : public QObject {
    Q_OBJECT

private:
    SystemProbe m_probe;
    int m_cpu = 0; // the last usable CPU: tests pin there, away from CPU 0

    ThreadSpec spec(Policy policy, int priority, int nice = 0, int cpu = -1) const
    {
        ThreadSpec s;
        s.policy = policy;
        s.priority = priority;
        s.nice = nice;
        s.cpu = cpu;
        s.name = "tst-rt-thread";
        return s;
    }

private slots:
    void initTestCase() { rtscope::test::blockSignalsAndProbe(m_probe, m_cpu); }

    void wakeSignalIsAPrivateRealtimeSignal()
    {
        QVERIFY(wakeSignal() >= SIGRTMIN);
        QVERIFY(wakeSignal() <= SIGRTMAX);
    }

    void otherThreadHasRequestedAttributes_data()
    {
        QTest::addColumn<int>("nice");
        QTest::addColumn<bool>("pin");
        QTest::addColumn<QString>("name");
        QTest::newRow("pinned, nice 5") << 5 << true << "rts-other-5";
        QTest::newRow("pinned, nice 0") << 0 << true << "rts-other-0";
        QTest::newRow("unpinned, nice 19") << 19 << false << "rts-nice-19";
        QTest::newRow("pinned, nice -5") << -5 << true << "rts-neg-nice";
        QTest::newRow("long name is cut") << 0 << true << "a-very-long-thread-name";
    }
    void otherThreadHasRequestedAttributes()
    {
        QFETCH(int, nice);
        QFETCH(bool, pin);
        QFETCH(QString, name);
        if (nice < 0 && !m_probe.capSysNice)
            RTSCOPE_SKIP(RtPrivilege, "a negative nice needs CAP_SYS_NICE");

        std::atomic<int> cpuSeen{-2};
        std::atomic<bool> affinityExact{false};
        char nameSeen[32] = {};
        ThreadSpec s = spec(Policy::Other, 0, nice, pin ? m_cpu : -1);
        s.name = name.toStdString();
        RtThread t;
        const Error e = t.start(s, [&](const std::atomic<bool>& stop) {
            const int cpu = sched_getcpu();
            cpu_set_t set;
            CPU_ZERO(&set);
            sched_getaffinity(0, sizeof set, &set);
            affinityExact = CPU_COUNT(&set) == 1 && CPU_ISSET(m_cpu, &set);
            pthread_getname_np(pthread_self(), nameSeen, sizeof nameSeen);
            cpuSeen = cpu; // last: the test reads the rest once this is published
            test::sleepUntilStopped(stop);
        });
        QVERIFY2(!e, e.message.c_str());
        QVERIFY(t.running());
        QVERIFY(t.tid() > 0);
        QTRY_VERIFY(cpuSeen.load() != -2);
        if (pin) {
            QCOMPARE(cpuSeen.load(), m_cpu);
            QVERIFY(affinityExact.load());
        }
        QCOMPARE(QString::fromLatin1(nameSeen), name.left(15));
        const SchedState st = schedulingOf(t.tid());
        QCOMPARE(st.policy, Policy::Other);
        QCOMPARE(st.nice, nice);
        QCOMPARE(st.priority, 0);
        QVERIFY(t.stop());
        QVERIFY(!t.running());
    }

    void realtimeThreadGetsItsPolicy_data()
    {
        QTest::addColumn<Policy>("policy");
        QTest::addColumn<int>("priority");
        QTest::newRow("FIFO 10") << Policy::Fifo << 10;
        QTest::newRow("FIFO 1") << Policy::Fifo << 1;
        QTest::newRow("RR 20") << Policy::RR << 20;
    }
    void realtimeThreadGetsItsPolicy()
    {
        QFETCH(Policy, policy);
        QFETCH(int, priority);
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        std::atomic<int> kernelPolicy{-1};
        RtThread t;
        const Error e = t.start(spec(policy, priority, 0, m_cpu), [&](const std::atomic<bool>& stop) {
            kernelPolicy = sched_getscheduler(0);
            test::sleepUntilStopped(stop);
        });
        QVERIFY2(!e, e.message.c_str());
        QTRY_VERIFY(kernelPolicy.load() != -1);
        QCOMPARE(kernelPolicy.load(), policyToKernel(policy));
        const SchedState st = schedulingOf(t.tid());
        QCOMPARE(st.policy, policy);
        QCOMPARE(st.priority, priority);
        QVERIFY(t.stop());
    }

    void invalidPriorityNamesTheRange_data()
    {
        QTest::addColumn<Policy>("policy");
        QTest::addColumn<int>("priority");
        QTest::newRow("FIFO 0") << Policy::Fifo << 0;
        QTest::newRow("FIFO 100") << Policy::Fifo << 100;
        QTest::newRow("RR -1") << Policy::RR << -1;
    }
    void invalidPriorityNamesTheRange()
    {
        QFETCH(Policy, policy);
        QFETCH(int, priority);
        std::atomic<bool> ran{false};
        RtThread t;
        const Error e = t.start(spec(policy, priority), [&](const std::atomic<bool>&) { ran = true; });
        QVERIFY(e);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        const QString msg = QString::fromStdString(e.message);
        QVERIFY2(msg.contains("1..99"), qPrintable(msg));
        QVERIFY2(msg.contains(QString::number(priority)), qPrintable(msg));
        QVERIFY(!t.running());
        QVERIFY(!ran.load());
    }

    void invalidNiceIsRefused()
    {
        RtThread t;
        const Error e = t.start(spec(Policy::Other, 0, 25), [](const std::atomic<bool>&) {});
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY2(QString::fromStdString(e.message).contains("-20..19"), e.message.c_str());
    }

    void unusableCpuNamesTheAllowedOnes_data()
    {
        QTest::addColumn<int>("cpu");
        QTest::newRow("4096") << 4096;
        QTest::newRow("one past the last online") << -2; // resolved below
        QTest::newRow("100000") << 100000;
    }
    void unusableCpuNamesTheAllowedOnes()
    {
        QFETCH(int, cpu);
        if (cpu == -2)
            cpu = m_probe.onlineCpus.back() + 1;
        std::atomic<bool> ran{false};
        RtThread t;
        const Error e = t.start(spec(Policy::Other, 0, 0, cpu), [&](const std::atomic<bool>&) { ran = true; });
        QVERIFY(e);
        QCOMPARE(e.kind, ErrorKind::Unavailable);
        const QString msg = QString::fromStdString(e.message);
        qInfo("%s", qPrintable(msg));
        QVERIFY2(msg.contains(QString("CPU %1").arg(cpu)), qPrintable(msg));
        QVERIFY2(msg.contains(QString::fromStdString(sysfsOnlineText())), qPrintable(msg));
        QVERIFY(!ran.load());
    }

    void stopInterruptsALongSleepQuickly_data()
    {
        QTest::addColumn<Policy>("policy");
        QTest::newRow("OTHER") << Policy::Other;
        QTest::newRow("FIFO") << Policy::Fifo;
    }
    void stopInterruptsALongSleepQuickly()
    {
        QFETCH(Policy, policy);
        if (isRealtime(policy))
            RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        RtThread t;
        std::atomic<bool> returned{false};
        const Error e =
            t.start(spec(policy, isRealtime(policy) ? 10 : 0, 0, m_cpu), [&](const std::atomic<bool>& stop) {
                test::sleepUntilStopped(stop);
                returned = true;
            });
        QVERIFY2(!e, e.message.c_str());
        QTest::qSleep(50); // let the body enter its 10 s sleep
        const int64_t t0 = nowNs();
        const bool joined = t.stop(100);
        const int64_t tookNs = nowNs() - t0;
        QVERIFY(joined);
        QVERIFY(returned.load());
        QVERIFY2(tookNs < 100 * kNsPerMs, qPrintable(QString("stop took %1 ms").arg(tookNs / 1e6)));
        QVERIFY(!t.running());
    }

    // Stopping right after starting hits the window between the body's flag check and its blocking call;
    // the re-sent wake signal must still end the wait promptly.
    void stopRightAfterStartNeverHangs()
    {
        for (int i = 0; i < 40; ++i) {
            RtThread t;
            const Error e = t.start(spec(Policy::Other, 0, 0, m_cpu), test::sleepUntilStopped);
            QVERIFY2(!e, e.message.c_str());
            const int64_t t0 = nowNs();
            QVERIFY(t.stop(100));
            QVERIFY(nowNs() - t0 < 100 * kNsPerMs);
        }
    }

    void restartAfterStop()
    {
        RtThread t;
        std::atomic<int> runs{0};
        for (int i = 0; i < 3; ++i) {
            const Error e = t.start(spec(Policy::Other, 0), [&](const std::atomic<bool>& stop) {
                ++runs;
                test::sleepUntilStopped(stop);
            });
            QVERIFY2(!e, e.message.c_str());
            QVERIFY(t.stop());
        }
        QCOMPARE(runs.load(), 3);
    }

    void startAgainAfterTheBodyReturned()
    {
        RtThread t;
        std::atomic<int> runs{0};
        QVERIFY(!t.start(spec(Policy::Other, 0), [&](const std::atomic<bool>&) { ++runs; }));
        QTRY_VERIFY(!t.running());
        QVERIFY(!t.start(spec(Policy::Other, 0), [&](const std::atomic<bool>&) { ++runs; }));
        QVERIFY(t.stop());
        QCOMPARE(runs.load(), 2);
    }

    void startTwiceIsRefused()
    {
        RtThread t;
        QVERIFY(!t.start(spec(Policy::Other, 0), test::sleepUntilStopped));
        const Error e = t.start(spec(Policy::Other, 0), test::sleepUntilStopped);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY(t.stop());
    }

    void moveKeepsTheThread()
    {
        RtThread a;
        QVERIFY(!a.start(spec(Policy::Other, 0), test::sleepUntilStopped));
        const pid_t tid = a.tid();
        RtThread b(std::move(a));
        QVERIFY(b.running());
        QCOMPARE(b.tid(), tid);
        RtThread c;
        c = std::move(b);
        QVERIFY(c.running());
        QVERIFY(c.stop());
    }

    void setSchedulingOnARunningThread()
    {
        RtThread t;
        QVERIFY(!t.start(spec(Policy::Other, 0, 0, m_cpu), test::sleepUntilStopped));
        Error e = t.setScheduling(Policy::Other, 0, 7);
        QVERIFY2(!e, e.message.c_str());
        QCOMPARE(schedulingOf(t.tid()).nice, 7);
        QCOMPARE(t.spec().nice, 7);
        if (m_probe.rtAvailable) {
            e = t.setScheduling(Policy::Fifo, 20);
            QVERIFY2(!e, e.message.c_str());
            SchedState st = schedulingOf(t.tid());
            QCOMPARE(st.policy, Policy::Fifo);
            QCOMPARE(st.priority, 20);
            e = t.setScheduling(Policy::Other, 0, 3);
            QVERIFY2(!e, e.message.c_str());
            st = schedulingOf(t.tid());
            QCOMPARE(st.policy, Policy::Other);
            QCOMPARE(st.nice, 3);
        }
        e = t.setScheduling(Policy::Fifo, 100);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        QVERIFY(t.stop());
        QVERIFY(t.setScheduling(Policy::Other, 0)); // not running any more
    }

    void demoteDropsToOther()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        RtThread t;
        QVERIFY(!t.start(spec(Policy::Fifo, 30, 0, m_cpu), test::sleepUntilStopped));
        QCOMPARE(schedulingOf(t.tid()).policy, Policy::Fifo);
        t.demote();
        const SchedState st = schedulingOf(t.tid());
        QCOMPARE(st.policy, Policy::Other);
        QCOMPARE(st.priority, 0);
        QCOMPARE(st.nice, 0);
        QVERIFY(t.stop());
    }

    // A body that ignores its flag: stop() reports the timeout, demotes the thread and still joins it.
    void stopTimeoutDemotesAndStillJoins()
    {
        RTSCOPE_SKIP_IF(rtscope::test::withoutFifo(m_probe));
        std::atomic<int> policyAtEnd{-1};
        RtThread t;
        QVERIFY(!t.start(spec(Policy::Fifo, 10, 0, m_cpu), [&](const std::atomic<bool>&) {
            const int64_t end = nowNs() + 300 * kNsPerMs;
            const timespec until = toTimespec(end);
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr) == EINTR) {
            }
            policyAtEnd = sched_getscheduler(0);
        }));
        const int64_t t0 = nowNs();
        QVERIFY(!t.stop(50));
        QVERIFY(nowNs() - t0 >= 200 * kNsPerMs); // it joined: the body ran to its end
        QCOMPARE(policyAtEnd.load(), SCHED_OTHER);
        QVERIFY(!t.running());
    }

    void explainsPermissionErrorWithTheFix()
    {
        ThreadSpec s = spec(Policy::Fifo, 80);
        const Error e = explainSchedulingError(EPERM, s);
        QCOMPARE(e.kind, ErrorKind::Permission);
        QVERIFY2(QString::fromStdString(e.message).contains("EPERM"), e.message.c_str());
        QVERIFY2(QString::fromStdString(e.message).contains("SCHED_FIFO priority 80"), e.message.c_str());
    }

    // The real EPERM path: a child process without CAP_SYS_NICE and with RLIMIT_RTPRIO 0 asks for FIFO.
    void withoutPrivilegeTheErrorNamesLimitAndFix()
    {
#if defined(__SANITIZE_THREAD__)
        RTSCOPE_SKIP(Sanitizer, "TSan cannot start threads in a child forked from a multithreaded process");
#endif
        std::string out;
        fifoStartInAChild(
            [] {
                __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
                __user_cap_data_struct data[2] = {};
                syscall(SYS_capget, &header, data);
                data[0].effective &= ~(1u << CAP_SYS_NICE);
                data[0].permitted &= ~(1u << CAP_SYS_NICE);
                syscall(SYS_capset, &header, data);
                const rlimit zero{0, 0};
                setrlimit(RLIMIT_RTPRIO, &zero);
                return true;
            },
            out);
        const QString text = QString::fromStdString(out);
        qInfo("%s", qPrintable(text));
        QVERIFY2(text.startsWith(QString::number(int(ErrorKind::Permission)) + "|"), qPrintable(text));
        QVERIFY2(text.contains("CAP_SYS_NICE"), qPrintable(text));
        QVERIFY2(text.contains("RLIMIT_RTPRIO is 0"), qPrintable(text));
        QVERIFY2(text.contains("/etc/security/limits.d/99-rtscope.conf"), qPrintable(text));
    }

    // RT group scheduling: a child moved into a fresh cgroup v1 cpu group (whose RT budget starts at 0) is
    // refused SCHED_FIFO, and the error names the knob to fix. Needs root and a cgroup v1 cpu hierarchy.
    void rtGroupWithoutBudgetIsNamed()
    {
#if defined(__SANITIZE_THREAD__)
        RTSCOPE_SKIP(Sanitizer, "TSan cannot start threads in a child forked from a multithreaded process");
#endif
        const std::string root = "/sys/fs/cgroup/cpu";
        if (geteuid() != 0)
            RTSCOPE_SKIP(Root, "only root may make a cpu cgroup and move a process into it");
        if (access((root + "/cpu.rt_runtime_us").c_str(), W_OK) != 0)
            RTSCOPE_SKIP(Kernel,
                         "no cgroup v1 cpu hierarchy with RT group scheduling (" + root + "/cpu.rt_runtime_us)");
        const std::string group = root + "/rtscope-test-" + std::to_string(getpid());
        if (mkdir(group.c_str(), 0755) != 0)
            RTSCOPE_SKIP(Other, "cannot create a cpu cgroup here: " + group + ": " + std::strerror(errno));
        std::string out;
        fifoStartInAChild(
            [&group] {
                FILE* f = std::fopen((group + "/cgroup.procs").c_str(), "w");
                if (!f)
                    return false;
                std::fprintf(f, "%d\n", int(getpid()));
                std::fclose(f);
                return true;
            },
            out);
        rmdir(group.c_str());
        const QString text = QString::fromStdString(out);
        qInfo("%s", qPrintable(text));
        QVERIFY2(text.startsWith(QString::number(int(ErrorKind::Permission)) + "|"), qPrintable(text));
        QVERIFY2(text.contains(QString::fromStdString(group + "/cpu.rt_runtime_us")), qPrintable(text));
    }

    // The pre-faulted stack is mlock()ed while the thread runs (when mlockall is not in force) and unlocked
    // when it ends, since glibc reuses the stack for the next thread.
    void stackIsLockedWhileRunning()
    {
#ifdef RTSCOPE_SANITIZED
        RTSCOPE_SKIP(Sanitizer, "sanitizer runtimes make mlock a no-op");
#endif
        if (memoryLockStatus().mode == MemoryLockMode::All)
            RTSCOPE_SKIP(Other, "mlockall is in force: stacks are not locked one by one");
        const int64_t before = lockedKiB();
        std::atomic<int64_t> during{-1};
        RtThread t;
        ThreadSpec s = spec(Policy::Other, 0);
        s.prefaultBytes = 128 * 1024;
        QVERIFY(!t.start(s, [&](const std::atomic<bool>& stop) {
            during = lockedKiB();
            test::sleepUntilStopped(stop);
        }));
        QTRY_VERIFY(during.load() >= 0);
        if (during.load() == before)
            RTSCOPE_SKIP(RtPrivilege, "mlock refused here (RLIMIT_MEMLOCK)");
        QVERIFY2(during.load() - before >= 128,
                 qPrintable(QString("VmLck %1 -> %2 kB").arg(before).arg(during.load())));
        QCOMPARE(memoryLockStatus().mode, MemoryLockMode::Ranges);
        QVERIFY(t.stop());
        QCOMPARE(lockedKiB(), before);
    }

    void lockAllMemoryReportsWhatHappened()
    {
        const MemoryLockStatus st = lockAllMemory();
#ifdef RTSCOPE_SANITIZED
        QCOMPARE(st.mode, MemoryLockMode::None);
        QVERIFY2(QString::fromStdString(st.detail).contains("sanitizer"), st.detail.c_str());
#else
        if (geteuid() == 0)
            QCOMPARE(st.mode, MemoryLockMode::All);
        if (st.mode == MemoryLockMode::All)
            QVERIFY(lockedKiB() > 0);
        else
            QVERIFY2(QString::fromStdString(st.detail).contains("mlockall"), st.detail.c_str());
#endif
        QCOMPARE(memoryLockStatus().mode, st.mode);
        unlockAllMemory();
        QCOMPARE(memoryLockStatus().mode, MemoryLockMode::None);
    }

    void lockRangeOfABuffer()
    {
#ifdef RTSCOPE_SANITIZED
        RTSCOPE_SKIP(Sanitizer, "sanitizer runtimes make mlock a no-op");
#endif
        std::vector<char> buffer(256 * 1024);
        if (!lockRange(buffer.data(), buffer.size()))
            RTSCOPE_SKIP(RtPrivilege, "mlock refused here (RLIMIT_MEMLOCK)");
        QVERIFY(lockedKiB() >= 256);
        unlockRange(buffer.data(), buffer.size());
    }

    void dmaLatencyHold()
    {
        DmaLatencyHold hold;
        if (!hold.acquire(0)) {
            QVERIFY2(QString::fromStdString(hold.reason()).contains("/dev/cpu_dma_latency"), hold.reason().c_str());
            RTSCOPE_SKIP(Root, hold.reason());
        }
        QVERIFY(hold.held());
        hold.release();
        QVERIFY(!hold.held());
    }

    void schedulingOfTheCallingThread()
    {
        const SchedState st = schedulingOf(0);
        QCOMPARE(st.policy, Policy::Other);
        QCOMPARE(st.priority, 0);
    }

    void scopedCallerAffinityKeepsTheCallerOffAndRestores()
    {
        const std::vector<int> before = callerCpus();
        QVERIFY(!before.empty());
        {
            // Avoiding every CPU would leave none: nothing changes.
            const ScopedCallerAffinity all(before);
            QVERIFY(!all.applied());
            QCOMPARE(callerCpus(), before);
        }
        if (before.size() < 2)
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs to keep the caller off one");
        {
            const ScopedCallerAffinity off({before.back()});
            QVERIFY(off.applied());
            QCOMPARE(callerCpus(), std::vector<int>(before.begin(), before.end() - 1));
        }
        QCOMPARE(callerCpus(), before);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestRtThread)
#include "tst_rt_thread.moc"
