// ctest: parallel. Fake /proc and /sys tree; knobs applied only to its own sleeping thread.
// Every knob of the doctor against a fake /proc and /sys (tests/common/doctor_test_util.h): the value read back before,
// while applied and after the revert, and the file as the kernel would show it; the refusals (a managed IRQ, a sysctl
// off the list, a value a knob does not take, a CPU without idle states) change nothing. The thread knobs act on a
// thread of this test (the real kernel: a fake /proc cannot take sched_setaffinity), and refuse a thread that has
// exited or whose TID names another thread now.
#include "engine/doctor/knob.h"
#include "engine/doctor/machine_facts.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/data_rows.h"
#include "tests/common/doctor_test_util.h"
#include "tests/common/test_main.h"

#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <sched.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::doctor;
using rtscope::test::FakeMachine;

namespace {

// A thread of this test that sleeps until destroyed: a target for the thread knobs.
class SleepingThread {
public:
    SleepingThread()
    {
        m_thread = std::thread([this] {
            m_tid = ::gettid();
            std::unique_lock<std::mutex> lock(m_mutex);
            m_cv.notify_all();
            m_cv.wait(lock, [this] { return m_stop; });
        });
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [this] { return m_tid != 0; });
    }
    ~SleepingThread() { stop(); }
    void stop()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_cv.notify_all();
        if (m_thread.joinable())
            m_thread.join();
    }
    pid_t tid() const { return m_tid; }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::atomic<pid_t> m_tid{0};
    bool m_stop = false;
    std::thread m_thread;
};

// Links in /proc/self/fd that point at @p path.
int descriptorsOn(const QString& path)
{
    int n = 0;
    for (const QFileInfo& fd : QDir("/proc/self/fd").entryInfoList(QDir::System | QDir::Files | QDir::NoDotAndDotDot))
        n += fd.symLinkTarget() == path;
    return n;
}

} // namespace

class TestDoctorKnobs : public QObject {
    Q_OBJECT
private slots:
    void fileKnobsApplyAndRevert_data()
    {
        test::addRows<QString, QString, QString, QString>(
            {"file", "before", "to", "fileWhileApplied"},
            {{"irq", "/proc/irq/24/smp_affinity_list", "0-1", "0", "0\n"},
             {"timer_migration", "/proc/sys/kernel/timer_migration", "1", "0", "0\n"},
             {"rt runtime", "/proc/sys/kernel/sched_rt_runtime_us", "950000", "-1", "-1\n"},
             {"watchdog cpumask", "/proc/sys/kernel/watchdog_cpumask", "0-1", "1", "1\n"},
             {"stat_interval", "/proc/sys/vm/stat_interval", "1", "10", "10\n"},
             {"thp enabled", "/sys/kernel/mm/transparent_hugepage/enabled", "madvise", "never",
              "always madvise [never]\n"},
             {"thp defrag", "/sys/kernel/mm/transparent_hugepage/defrag", "madvise", "defer+madvise",
              "always defer [defer+madvise] madvise never\n"},
             {"khugepaged defrag", "/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", "1", "0", "0\n"},
             {"workqueue", "/sys/devices/virtual/workqueue/cpumask", "0-1", "0", "1\n"},
             {"idle state", "/sys/devices/system/cpu/cpu1/cpuidle/state2/disable", "0", "1", "1\n"}});
    }
    void fileKnobsApplyAndRevert()
    {
        QFETCH(QString, file);
        QFETCH(QString, before);
        QFETCH(QString, to);
        QFETCH(QString, fileWhileApplied);
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        const std::string path = file.toStdString();
        const std::string original = m.get(path);
        Expected<std::unique_ptr<Knob>> k = [&]() -> Expected<std::unique_ptr<Knob>> {
            if (file.startsWith("/proc/irq/"))
                return irqAffinityKnob(m, 24, {0});
            if (file.startsWith("/proc/sys/"))
                return sysctlKnob(m, file.mid(10).replace('/', '.').toStdString(), to.toStdString());
            if (file.startsWith("/sys/kernel/mm/"))
                return thpKnob(m, file.mid(36).toStdString(), to.toStdString());
            if (file.contains("workqueue"))
                return workqueueCpumaskKnob(m, {0});
            return cpuidleStateKnob(m, 1, 2, true);
        }();
        QVERIFY2(k, qPrintable(test::textOf(k.error())));
        Knob& knob = **k;
        QCOMPARE(QString::fromStdString(knob.change().path), file);
        QCOMPARE(QString::fromStdString(test::readBack(knob)), before);
        QVERIFY(!knob.capture());
        QCOMPARE(QString::fromStdString(knob.change().from), before);
        QCOMPARE(QString::fromStdString(knob.change().to), to);
        const Error applied = knob.apply();
        QVERIFY2(!applied, qPrintable(test::textOf(applied)));
        QCOMPARE(QString::fromStdString(test::readBack(knob)), to);
        QCOMPARE(QString::fromStdString(m.get(path)), fileWhileApplied);
        const Error reverted = knob.revert();
        QVERIFY2(!reverted, qPrintable(test::textOf(reverted)));
        QCOMPARE(QString::fromStdString(test::readBack(knob)), before);
        QCOMPARE(m.get(path), original);
        QVERIFY(!QString::fromStdString(knob.undoCommand()).isEmpty());
    }

    // The facts name every DAMON monitor (kdamond) with its operations and sampling interval: on a VM its samples
    // stall a measuring thread every interval (docs/BENCHMARKS.md, "The far tail"); none is "none".
    void damonMonitorsAreFacts()
    {
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        QVERIFY(readMachineFacts(m, 1).damon.empty());
        const std::string k = "/sys/kernel/mm/damon/admin/kdamonds";
        m.put(k + "/nr_kdamonds", "2\n");
        m.put(k + "/0/state", "on\n");
        m.put(k + "/0/contexts/0/operations", "paddr\n");
        m.put(k + "/0/contexts/0/monitoring_attrs/intervals/sample_us", "500000\n");
        m.put(k + "/1/state", "off\n");
        const MachineFacts f = readMachineFacts(m, 1);
        QCOMPARE(int(f.damon.size()), 2);
        QCOMPARE(QString::fromStdString(f.damon[0].text()), QString("kdamond 0 on: paddr, a sample every 500 ms"));
        QCOMPARE(f.damon[0].sampleUs, int64_t(500000));
        QCOMPARE(QString::fromStdString(f.damon[1].text()), QString("kdamond 1 off"));
        QCOMPARE(f.damon[1].sampleUs, int64_t(-1));
    }

    // Nothing is written for a value the setting has already (an IRQ written again may change its effective CPU).
    void aValueThatIsThereAlreadyIsNotWritten()
    {
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        auto k = sysctlKnob(m, "kernel.timer_migration", "1");
        QVERIFY(k);
        QVERIFY(!(*k)->capture());
        QVERIFY(!(*k)->apply());
        QVERIFY(!(*k)->revert());
        QCOMPARE(m.writes, 0);
    }

    // A managed IRQ: the kernel refuses the write (EPERM on 6.18, EIO before); the sentence says why and where it runs.
    void managedIrqSaysItCannotMove_data() { test::addRows<int>("err", {{"EPERM", EPERM}, {"EIO", EIO}}); }
    void managedIrqSaysItCannotMove()
    {
        QFETCH(int, err);
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        m.refuse("/proc/irq/36/smp_affinity_list", err);
        auto k = irqAffinityKnob(m, 36, {0});
        QVERIFY(k);
        QVERIFY(!(*k)->capture());
        const Error e = (*k)->apply();
        QVERIFY(e);
        const QString why = test::textOf(e);
        QVERIFY2(why.startsWith("IRQ 36 (virtio1-req.0) CPUs: setting '0' failed"), qPrintable(why));
        QVERIFY2(why.contains("managed interrupt") && why.contains("runs on CPU 1"), qPrintable(why));
        QCOMPARE(m.get("/proc/irq/36/smp_affinity_list"), std::string("0-1\n"));
    }

    // Only the sysctls of the list: kernel.core_pattern names a program the kernel runs as root.
    void refusedTargetsAndValuesChangeNothing_data()
    {
        test::addRows<int, QString>(
            {"which", "expected"},
            {{"core_pattern", 0, "target 'kernel.core_pattern' is not a sysctl the doctor may change"},
             {"timer_migration 2", 1, "to '2' is not a value sysctl kernel.timer_migration takes (0 or 1)"},
             {"thp sometimes", 2, "to 'sometimes' is not a value thp enabled takes"},
             {"rt runtime below -1", 3, "an integer from -1 to 2147483647"},
             {"irq of no CPU", 4, "to '' is not a value irq-affinity 24 takes (a CPU list"},
             {"dma negative", 5, "microseconds from 0 to 2000000000"},
             {"thp file off the list", 6, "target 'shmem_enabled' is not a THP setting"},
             {"preempt mode", 7, "to 'realtime' is not a value preempt-mode"}});
    }
    void refusedTargetsAndValuesChangeNothing()
    {
        QFETCH(int, which);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        const auto before = m.snapshot();
        const Expected<std::unique_ptr<Knob>> k = [&] {
            switch (which) {
            case 0:
                return sysctlKnob(m, "kernel.core_pattern", "|/tmp/x");
            case 1:
                return sysctlKnob(m, "kernel.timer_migration", "2");
            case 2:
                return thpKnob(m, "enabled", "sometimes");
            case 3:
                return sysctlKnob(m, "kernel.sched_rt_runtime_us", "-2");
            case 4:
                return irqAffinityKnob(m, 24, {});
            case 5:
                return cpuDmaLatencyKnob(m, -1);
            case 6:
                return thpKnob(m, "shmem_enabled", "never");
            default:
                return preemptModeKnob(m, "realtime");
            }
        }();
        QVERIFY(!k);
        QCOMPARE(int(k.error().kind), int(ErrorKind::InvalidConfig));
        QVERIFY2(test::textOf(k.error()).contains(expected), qPrintable(test::textOf(k.error())));
        QCOMPARE(m.writes, 0);
        QVERIFY(m.snapshot() == before);
    }

    void cpuWithoutIdleStatesSaysSo()
    {
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        m.put("/sys/devices/system/cpu/cpuidle/current_driver", "none\n");
        const auto k = cpuidleStateKnob(m, 0, 1, true);
        QVERIFY(!k);
        QCOMPARE(int(k.error().kind), int(ErrorKind::Unavailable));
        QVERIFY2(test::textOf(k.error()).startsWith("CPU 0 has no idle states to limit"),
                 qPrintable(test::textOf(k.error())));
        QVERIFY(test::textOf(k.error()).contains("cpuidle driver: none"));
    }

    // The preemption mode lives in debugfs: mounting it is a knob of its own, applied first and reverted last.
    void preemptModeNeedsDebugfsMounted()
    {
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        auto mount = debugfsMountKnob(m);
        QVERIFY(mount);
        QCOMPARE(test::readBack(**mount), std::string("unmounted"));
        auto mode = preemptModeKnob(m, "full");
        QVERIFY(mode);
        QVERIFY((*mode)->capture()); // not mounted: nothing to read
        QVERIFY(!(*mount)->capture());
        QVERIFY(!(*mount)->apply());
        QCOMPARE(test::readBack(**mount), std::string("mounted"));
        QVERIFY(!(*mode)->capture());
        QCOMPARE(QString::fromStdString((*mode)->change().from), QString("none"));
        QVERIFY(!(*mode)->apply());
        QCOMPARE(test::readBack(**mode), std::string("full"));
        QCOMPARE(m.get("/sys/kernel/debug/sched/preempt"), std::string("none voluntary (full) lazy\n"));
        QVERIFY(!(*mode)->revert());
        QCOMPARE(m.get("/sys/kernel/debug/sched/preempt"), std::string("(none) voluntary full lazy\n"));
        QVERIFY(!(*mount)->revert());
        QCOMPARE(test::readBack(**mount), std::string("unmounted"));
        QVERIFY(!m.has("/sys/kernel/debug/sched/preempt"));

        // Mounted by someone else before: applying and reverting leave it mounted.
        QVERIFY(!(*mount)->apply());
        auto again = debugfsMountKnob(m);
        QVERIFY(!(*again)->capture());
        QVERIFY(!(*again)->apply());
        QVERIFY(!(*again)->revert());
        QCOMPARE(test::readBack(**again), std::string("mounted"));
    }

    // The request is the open descriptor: the knob holds one while applied, none after.
    void dmaLatencyRequestIsAnOpenDescriptor()
    {
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        const QString device = dir.filePath("dev/cpu_dma_latency");
        auto k = cpuDmaLatencyKnob(m, 0);
        QVERIFY(k);
        QCOMPARE(test::readBack(**k), std::string("2000000000"));
        QVERIFY(!(*k)->capture());
        QCOMPARE(descriptorsOn(device), 0);
        QVERIFY(!(*k)->apply());
        QCOMPARE(descriptorsOn(device), 1);
        QCOMPARE(test::readBack(**k), std::string("0")); // the binary s32 the interface takes
        QVERIFY(!(*k)->revert());
        QCOMPARE(descriptorsOn(device), 0);
    }

    void threadAffinityAndScheduling()
    {
        SleepingThread t;
        RootFs fs;
        const Expected<ThreadIdentity> id = threadIdentity(fs, t.tid());
        QVERIFY(id);
        const std::vector<int> cpus = test::threadCpus(t.tid());
        QVERIFY(!cpus.empty());
        auto affinity = threadAffinityKnob(fs, *id, {cpus.back()});
        QVERIFY(affinity);
        QVERIFY(!(*affinity)->capture());
        QCOMPARE(QString::fromStdString((*affinity)->change().from), QString::fromStdString(formatCpuList(cpus)));
        QVERIFY(!(*affinity)->apply());
        QCOMPARE(test::threadCpus(t.tid()), std::vector<int>{cpus.back()});
        QVERIFY(!(*affinity)->revert());
        QCOMPARE(test::threadCpus(t.tid()), cpus);

        // SCHED_RESET_ON_FORK (an audio server's threads have it) survives the change and the revert.
        sched_param other{};
        QCOMPARE(sched_setscheduler(t.tid(), SCHED_OTHER | SCHED_RESET_ON_FORK, &other), 0);
        auto scheduling = threadSchedulingKnob(fs, *id, "fifo 10");
        QVERIFY(scheduling);
        QVERIFY(!(*scheduling)->capture());
        // The nice value is the thread's own (inherited: ctest may run under nice).
        const std::string niced = "other " + std::to_string(getpriority(PRIO_PROCESS, id_t(t.tid())));
        QCOMPARE(QString::fromStdString((*scheduling)->change().from), QString::fromStdString(niced));
        const Error e = (*scheduling)->apply();
        QVERIFY2(!e, qPrintable(test::textOf(e)));
        QCOMPARE(sched_getscheduler(t.tid()), SCHED_FIFO | SCHED_RESET_ON_FORK);
        sched_param p{};
        QCOMPARE(sched_getparam(t.tid(), &p), 0);
        QCOMPARE(p.sched_priority, 10);
        QCOMPARE(test::readBack(**scheduling), std::string("fifo 10"));
        QVERIFY(!(*scheduling)->revert());
        QCOMPARE(sched_getscheduler(t.tid()), SCHED_OTHER | SCHED_RESET_ON_FORK);
        QCOMPARE(test::readBack(**scheduling), niced);
    }

    void threadThatExitedOrWasReplacedIsLeftAlone()
    {
        RootFs fs;
        SleepingThread t;
        const Expected<ThreadIdentity> id = threadIdentity(fs, t.tid());
        QVERIFY(id);
        // The same TID with another start time: what a TID reused by a new thread looks like.
        ThreadIdentity other = *id;
        other.startTime += 1;
        const std::vector<int> cpus = test::threadCpus(t.tid());
        auto replaced = threadAffinityKnob(fs, other, {cpus.front()});
        QVERIFY(replaced);
        const Error e = (*replaced)->capture();
        QVERIFY(e);
        QVERIFY2(test::textOf(e).contains("belongs to another thread now"), qPrintable(test::textOf(e)));
        QVERIFY((*replaced)->apply());
        QCOMPARE(test::threadCpus(t.tid()), cpus);

        auto knob = threadSchedulingKnob(fs, *id, "fifo 5");
        QVERIFY(knob);
        QVERIFY(!(*knob)->capture());
        t.stop();
        const Error gone = (*knob)->apply();
        QVERIFY(gone);
        QVERIFY2(test::textOf(gone).contains("has exited: it is left alone"), qPrintable(test::textOf(gone)));
        QVERIFY(!(*knob)->revert()); // its setting went with it: nothing to put back
    }

    // The cpuset files a knob may write: a doctor's own directory's, and two of a hierarchy root's.
    void cpusetFilesOfOtherCgroupsAreRefused_data()
    {
        test::addRows<QString, bool>(
            {"target", "allowed"},
            {{"doctor dir cpus", "/sys/fs/cgroup/cpuset/rtscope-doctor-isolated/cpuset.cpus", true},
             {"root load balance", "/sys/fs/cgroup/cpuset/cpuset.sched_load_balance", true},
             {"v2 root controllers", "/sys/fs/cgroup/unified/cgroup.subtree_control", true},
             {"root cpus", "/sys/fs/cgroup/cpuset/cpuset.cpus", false},
             {"another cgroup", "/sys/fs/cgroup/cpuset/system.slice/cpuset.cpus", false},
             {"dot dot", "/sys/fs/cgroup/cpuset/rtscope-doctor-x/../cpuset.cpus", false},
             {"tasks", "/sys/fs/cgroup/cpuset/rtscope-doctor-x/tasks", false},
             {"release_agent", "/sys/fs/cgroup/cpuset/release_agent", false}});
    }
    void cpusetFilesOfOtherCgroupsAreRefused()
    {
        QFETCH(QString, target);
        QFETCH(bool, allowed);
        QTemporaryDir dir;
        FakeMachine m(dir.path());
        KnobChange c;
        c.kind = KnobKind::CpusetFile;
        c.target = target.toStdString();
        c.to = target.endsWith("subtree_control") ? "+cpuset" : "0";
        const auto k = makeKnob(m, c, KnobOrigin::New);
        QVERIFY2(bool(k) == allowed, k ? "accepted" : qPrintable(test::textOf(k.error())));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorKnobs)
#include "tst_doctor_knobs.moc"
