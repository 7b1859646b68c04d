// The doctor's knobs on this machine, for real, each through a session (journal in /run/rtscope, the real guardian):
// the value read back before, while applied and after, by the knob and by a plain read of the file. What this kernel
// refuses is asserted as refused, with its sentence: a managed IRQ cannot move; debugfs under lockdown cannot be read;
// a VM without a cpuidle driver has no idle states. Every test records the knobs it may touch (RealMachineRecord) and
// puts back any that differ when it ends, failed or not; sessions take turns through the doctor's lock with any other
// test or doctor on the machine.
#include "engine/doctor/cpuset_partition.h"
#include "engine/doctor/session.h"
#include "engine/rt/cpu_topology.h"

#include "tests/common/doctor_test_util.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <functional>
#include <sched.h>
#include <thread>
#include <unistd.h>

using namespace rtscope;
using namespace rtscope::doctor;
using rtscope::test::RealMachineRecord;
using rtscope::test::realValue;

namespace {

using PlainRead = std::function<std::string()>;

PlainRead plainFile(const std::string& path)
{
    return [path] {
        return realValue(path);
    };
}

// Applies @p k in @p s and checks the value read back by the knob and by @p plain (a read behind the knob's back:
// the file, or the system call) before, while applied (@p whileApplied), and after its revert.
void applyAndRevert(DoctorSession& s, std::unique_ptr<Knob> k, const PlainRead& plain, const std::string& whileApplied)
{
    QVERIFY(k);
    Knob* raw = k.get();
    const std::string id = k->id();
    const std::string before = test::readBack(*raw);
    const std::string plainBefore = plain();
    const Error applied = s.apply(std::move(k));
    QVERIFY2(!applied, applied.message.c_str());
    QCOMPARE(QString::fromStdString(raw->change().from), QString::fromStdString(before));
    QCOMPARE(QString::fromStdString(test::readBack(*raw)), QString::fromStdString(raw->change().to));
    QCOMPARE(QString::fromStdString(plain()), QString::fromStdString(whileApplied));
    const Error reverted = s.revert(id); // destroys the knob
    QVERIFY2(!reverted, reverted.message.c_str());
    QCOMPARE(QString::fromStdString(plain()), QString::fromStdString(plainBefore));
}

} // namespace

class TestDoctorMachine : public QObject {
    Q_OBJECT

    RealMachineRecord m_record;
    RootFs m_fs;
    std::unique_ptr<DoctorSession> m_session;

private slots:
    void init()
    {
        QCOMPARE(::geteuid(), 0u); // the brief's machine: root
        auto s = test::beginRealSession(m_fs);
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        m_session = std::move(s).value();
        m_record.capture();
    }
    void cleanup()
    {
        if (m_session) {
            const Error e = m_session->finish();
            QVERIFY2(!e, e.message.c_str());
        }
        m_session.reset();
        const QStringList changed = m_record.changedWhenNoDoctor();
        m_record.restore();
        QVERIFY2(changed.isEmpty(), qPrintable(changed.join("; ")));
    }

    void sysctls()
    {
        const std::string runtime = realValue("/proc/sys/kernel/sched_rt_runtime_us");
        const std::string migration = realValue("/proc/sys/kernel/timer_migration");
        // One microsecond more RT runtime: a real write the other tests on the machine do not notice.
        const std::string more = runtime == "-1" ? "950000" : std::to_string(std::stoll(runtime) + 1);
        applyAndRevert(*m_session, test::knobOrNull(sysctlKnob(m_fs, "kernel.sched_rt_runtime_us", more)),
                       plainFile("/proc/sys/kernel/sched_rt_runtime_us"), more);
        const std::string flipped = migration == "1" ? "0" : "1";
        applyAndRevert(*m_session, test::knobOrNull(sysctlKnob(m_fs, "kernel.timer_migration", flipped)),
                       plainFile("/proc/sys/kernel/timer_migration"), flipped);
        // The watchdog only on CPU 0 (CPU 0 keeps everything it runs).
        applyAndRevert(*m_session, test::knobOrNull(sysctlKnob(m_fs, "kernel.watchdog_cpumask", "0")),
                       plainFile("/proc/sys/kernel/watchdog_cpumask"), "0");
    }

    void transparentHugepages()
    {
        applyAndRevert(*m_session, test::knobOrNull(thpKnob(m_fs, "defrag", "never")),
                       plainFile("/sys/kernel/mm/transparent_hugepage/defrag"),
                       "always defer defer+madvise madvise [never]");
        const std::string enabled = realValue("/sys/kernel/mm/transparent_hugepage/enabled");
        const bool never = enabled.find("[never]") != std::string::npos;
        applyAndRevert(*m_session, test::knobOrNull(thpKnob(m_fs, "enabled", never ? "madvise" : "never")),
                       plainFile("/sys/kernel/mm/transparent_hugepage/enabled"),
                       never ? "always [madvise] never" : "always madvise [never]");
        const std::string khugepaged = realValue("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag");
        const std::string other = khugepaged == "1" ? "0" : "1";
        applyAndRevert(*m_session, test::knobOrNull(thpKnob(m_fs, "khugepaged/defrag", other)),
                       plainFile("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag"), other);
    }

    // Unbound kworkers on CPU 0 only: CPU 1 is left to the measurement.
    void workqueueCpumask()
    {
        applyAndRevert(*m_session, test::knobOrNull(workqueueCpumaskKnob(m_fs, {0})),
                       plainFile("/sys/devices/virtual/workqueue/cpumask"), "1");
    }

    // Every device IRQ that the kernel lets move is moved to CPU 0 and back; one it refuses is a managed one (here
    // virtio1-req.0, the disk's queue), and the sentence says so without anything changed.
    void irqAffinity()
    {
        int moved = 0;
        int refused = 0;
        for (const QString& irq : QDir("/proc/irq").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const std::string file = "/proc/irq/" + irq.toStdString() + "/smp_affinity_list";
            const std::string before = realValue(file);
            if (before == "0")
                continue;
            auto k = test::knobOrNull(irqAffinityKnob(m_fs, irq.toInt(), {0}));
            QVERIFY(k);
            const std::string id = k->id();
            const Error e = m_session->apply(std::move(k));
            if (e) {
                QVERIFY2(e.message.find("managed interrupt") != std::string::npos, e.message.c_str());
                QCOMPARE(realValue(file), before);
                ++refused;
                continue;
            }
            QCOMPARE(realValue(file), std::string("0"));
            QVERIFY(!m_session->revert(id));
            QCOMPARE(realValue(file), before);
            ++moved;
        }
        qInfo("IRQs moved to CPU 0 and back: %d; refused (managed): %d", moved, refused);
        QVERIFY(moved > 0);
    }

    // v1 here: CPU 1 leaves load balancing (cgroup2 has no cpuset controller on this machine: the note says why).
    void cpusetPartition()
    {
        const CpusetHierarchies h = findCpusetHierarchies(m_fs);
        qInfo("cpuset v1: '%s'; v2: '%s' %s", h.v1.c_str(), h.v2.c_str(), h.v2Note.c_str());
        QVERIFY2(!h.v1.empty() || !h.v2.empty(), "no cpuset hierarchy at all");
        const int cpu = test::usableCpus().back();
        QVERIFY(cpu > 0); // never CPU 0
        auto knobs = h.v2.empty() ? cpusetV1Partition(m_fs, h.v1, cpu) : cpusetV2Partition(m_fs, h.v2, cpu);
        QVERIFY2(knobs, knobs ? "" : knobs.error().message.c_str());
        const Error e = m_session->applyAll(std::move(knobs).value());
        QVERIFY2(!e, e.message.c_str());
        const std::string mount = h.v2.empty() ? h.v1 : h.v2;
        const std::string iso = mount + "/" + kIsolatedCpuset;
        QCOMPARE(realValue(iso + "/cpuset.cpus"), std::to_string(cpu));
        if (h.v2.empty()) {
            QCOMPARE(realValue(iso + "/cpuset.cpu_exclusive"), std::string("1"));
            QCOMPARE(realValue(iso + "/cpuset.sched_load_balance"), std::string("0"));
            QCOMPARE(realValue(mount + "/cpuset.sched_load_balance"), std::string("0"));
            QCOMPARE(realValue(iso + "/cpuset.effective_cpus"), std::to_string(cpu));
        } else {
            QCOMPARE(realValue(iso + "/cpuset.cpus.partition"), std::string("isolated"));
        }
        QVERIFY(!m_session->revertAll());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(iso)));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(mount + "/" + kHousekeepingCpuset)));
    }

    void threadAffinityAndPriority()
    {
        std::atomic<pid_t> tid{0};
        std::atomic<bool> stop{false};
        std::thread t([&] {
            tid = ::gettid();
            while (!stop)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        });
        while (tid == 0)
            std::this_thread::yield();
        const Expected<ThreadIdentity> id = threadIdentity(m_fs, tid);
        QVERIFY(id);
        const pid_t thread = tid;
        applyAndRevert(
            *m_session, test::knobOrNull(threadAffinityKnob(m_fs, *id, {0})),
            [thread] { return formatCpuList(test::threadCpus(thread)); }, "0");
        auto sched = test::knobOrNull(threadSchedulingKnob(m_fs, *id, "fifo 20"));
        QVERIFY(sched);
        QVERIFY(!m_session->apply(std::move(sched)));
        QCOMPARE(sched_getscheduler(tid), SCHED_FIFO);
        QVERIFY(!m_session->revert("thread-scheduling:" + id->target()));
        QCOMPARE(sched_getscheduler(tid), SCHED_OTHER);
        stop = true;
        t.join();
    }

    void dmaLatency()
    {
        const int32_t before = test::dmaLatencyInForce();
        QVERIFY(before >= 0);
        auto k = test::knobOrNull(cpuDmaLatencyKnob(m_fs, 0));
        QVERIFY(k);
        QVERIFY(!m_session->apply(std::move(k)));
        QCOMPARE(test::dmaLatencyInForce(), 0);
        QVERIFY(!m_session->revert("cpu-dma-latency:held"));
        QCOMPARE(test::dmaLatencyInForce(), before);
    }

    // debugfs is not mounted here by default; mounting it is a knob of its own. Under kernel lockdown even root may
    // not read sched/preempt: the knob says so.
    void debugfsAndPreemptMode()
    {
        const bool wasMounted = m_fs.isDebugfsMount("/sys/kernel/debug");
        auto mount = test::knobOrNull(debugfsMountKnob(m_fs));
        QVERIFY(mount);
        Knob* m = mount.get();
        QVERIFY(!m_session->apply(std::move(mount)));
        QVERIFY(m_fs.isDebugfsMount("/sys/kernel/debug"));
        auto mode = test::knobOrNull(preemptModeKnob(m_fs, "full"));
        QVERIFY(mode);
        const Expected<std::string> now = mode->read();
        if (!now) {
            QCOMPARE(int(now.error().kind), int(ErrorKind::Permission));
            QVERIFY2(now.error().message.find("lockdown") != std::string::npos, now.error().message.c_str());
            qInfo("%s", now.error().message.c_str());
        } else {
            applyAndRevert(*m_session, std::move(mode), plainFile("/sys/kernel/debug/sched/preempt"),
                           "none voluntary (full) lazy");
        }
        QVERIFY(!m_session->revert(m->id()));
        QCOMPARE(m_fs.isDebugfsMount("/sys/kernel/debug"), wasMounted);
    }

    void idleStates()
    {
        auto k = cpuidleStateKnob(m_fs, test::usableCpus().back(), 1, true);
        if (!k) {
            QCOMPARE(int(k.error().kind), int(ErrorKind::Unavailable));
            qInfo("%s", k.error().message.c_str());
            return;
        }
        applyAndRevert(
            *m_session, std::move(k).value(), [] { return std::string(); }, "");
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestDoctorMachine)
#include "tst_doctor_machine.moc"
