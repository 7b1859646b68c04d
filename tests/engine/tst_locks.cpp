// Every lock kind provides mutual exclusion under real contention: worker threads on both CPUs hammer one lock,
// and inside the critical section an occupancy counter (an atomic read-modify-write, so two threads inside at
// once always see each other) and a read-pause-write counter (which loses updates when sections overlap) check
// it. A plain counter is updated too, so a TSan build also checks that unlock happens-before the next lock.
// About a million acquisitions in all; a control run with no lock proves the detectors detect.
#include "engine/locks/adaptive_lock.h"
#include "engine/locks/lock.h"
#include "engine/locks/pthread_lock.h"
#include "engine/locks/spin_lock.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"

#include "tests/common/data_rows.h"
#include "tests/common/experiment_run.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>
#include <atomic>
#include <cerrno>
#include <memory>
#include <sched.h>
#include <thread>
#include <vector>

using namespace rtscope;

namespace {

struct Shared {
    std::atomic<int> occupancy{0};
    std::atomic<uint64_t> overlaps{0};
    std::atomic<uint64_t> counter{0}; ///< read-pause-write: loses updates when two threads are inside at once
    uint64_t plain = 0;               ///< guarded by the lock only: TSan's happens-before check
    std::atomic<uint64_t> contended{0};
    std::atomic<int> lockErrors{0};
    std::atomic<int> wrongCeiling{0};
    std::atomic<uint64_t> done{0};
    std::atomic<int> arrived{0};
    std::atomic<int> generation{0};

    // All workers leave together, so the ones on different CPUs meet inside the lock even on a busy machine
    // that gives each of them only short turns. Gives up at the deadline (a worker that stopped early).
    void barrier(int threads, int64_t deadline)
    {
        const int gen = generation.load();
        if (arrived.fetch_add(1) + 1 == threads) {
            arrived.store(0);
            generation.fetch_add(1);
            return;
        }
        while (generation.load() == gen && nowNs() < deadline)
            sched_yield();
    }
};

// A "lock" that excludes nothing: the control that shows the detectors work.
class NoLock final : public Lock {
public:
    LockKind kind() const override { return LockKind::Spin; }
    Acquisition lock() override { return {}; }
    bool tryLock() override { return true; }
    void unlock() override {}
};

struct HammerSpec {
    int threads = 4;
    uint64_t perThread = 36'000;
    Policy policy = Policy::Other;
    int priority = 0;        ///< base priority; thread i gets base + i (fifo)
    std::vector<int> cpus;   ///< round-robin
    bool usePlain = true;    ///< false for the control run (it would be a real data race)
    int sleepEvery = 0;      ///< sleep 20 us every N acquisitions (real-time threads on one CPU)
    int barrierEvery = 2048; ///< all workers meet every N acquisitions (0 = never: real-time threads)
    int expectCeiling = 0;   ///< check sched_getparam inside the section once per thread
    int64_t timeLimitNs = 20 * kNsPerSec;
};

// Runs the workers to completion (or the time limit) and returns what they saw. Empty string = started.
QString hammer(Lock& lock, const HammerSpec& spec, Shared& s)
{
    const int64_t t0 = nowNs() + 30 * kNsPerMs; // released together: contention from the first acquisition
    const int64_t deadline = t0 + spec.timeLimitNs;
    std::vector<RtThread> threads(size_t(spec.threads));
    for (int i = 0; i < spec.threads; ++i) {
        ThreadSpec ts;
        ts.policy = spec.policy;
        ts.priority = isRealtime(spec.policy) ? spec.priority + i : 0;
        ts.cpu = spec.cpus[size_t(i) % spec.cpus.size()];
        ts.name = "rtscope-tst-lock";
        ts.stackBytes = 128 * 1024;
        ts.prefaultBytes = 16 * 1024;
        Error e = threads[size_t(i)].start(ts, [&lock, &spec, &s, t0, deadline](const std::atomic<bool>& stop) {
            const timespec start = toTimespec(t0);
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, nullptr) == EINTR)
                if (stop.load())
                    return;
            bool ceilingChecked = spec.expectCeiling == 0;
            for (uint64_t n = 0; n < spec.perThread && !stop.load(std::memory_order_relaxed); ++n) {
                const Acquisition a = lock.lock();
                if (a.error) {
                    s.lockErrors.fetch_add(1);
                    return;
                }
                if (a.path != AcquirePath::Uncontended)
                    s.contended.fetch_add(1, std::memory_order_relaxed);
                if (s.occupancy.fetch_add(1, std::memory_order_relaxed) != 0)
                    s.overlaps.fetch_add(1, std::memory_order_relaxed);
                const uint64_t v = s.counter.load(std::memory_order_relaxed);
                // A critical section long enough that workers on the two CPUs really meet inside the lock, even
                // when the machine is busy and each worker only gets short turns.
                for (int k = 0; k < 8; ++k)
                    cpuRelax();
                s.counter.store(v + 1, std::memory_order_relaxed);
                if (spec.usePlain)
                    ++s.plain;
                if (!ceilingChecked) {
                    sched_param p{};
                    sched_getparam(0, &p);
                    if (p.sched_priority != spec.expectCeiling)
                        s.wrongCeiling.fetch_add(1);
                    ceilingChecked = true;
                }
                s.occupancy.fetch_sub(1, std::memory_order_relaxed);
                lock.unlock();
                for (int k = 0; k < 8; ++k) // non-critical work, so others get a chance at the line
                    cpuRelax();
                if (spec.sleepEvery && n % uint64_t(spec.sleepEvery) == 0) {
                    const timespec pause{0, 20'000};
                    nanosleep(&pause, nullptr);
                }
                if (spec.barrierEvery && (n + 1) % uint64_t(spec.barrierEvery) == 0)
                    s.barrier(spec.threads, deadline);
                if ((n & 1023) == 0 && nowNs() > deadline)
                    break;
            }
            s.done.fetch_add(1);
        });
        if (e) {
            for (RtThread& t : threads)
                t.stop();
            return QString::fromStdString(e.message);
        }
    }
    // Joined here: stop() only asks; a worker that finished its loop returns at once.
    while (s.done.load() + uint64_t(s.lockErrors.load()) < uint64_t(spec.threads) && nowNs() < deadline + kNsPerSec)
        QThread::msleep(5);
    for (RtThread& t : threads)
        t.stop(1000);
    return {};
}

// A skip unless this process may use SCHED_FIFO and has a CPU to spare: real-time test threads take the last usable
// CPU, never the only one.
rtscope::test::MaybeSkip withoutFifoOrASpareCpu(const SystemProbe& probe)
{
    if (rtscope::test::MaybeSkip noFifo = rtscope::test::withoutFifo(probe))
        return noFifo;
    if (rtscope::test::usableCpus().size() < 2)
        return rtscope::test::Skip{rtscope::test::SkipKind::Cpus, "real-time test threads must not take the only CPU"};
    return std::nullopt;
}

// A priority-protect lock with its ceiling at @p priority.
std::unique_ptr<Lock> ceilingLock(int priority)
{
    return makeLock(LockKind::Ceiling, {.ceilingPriority = priority});
}

} // namespace

class TestLocks : public QObject {
    Q_OBJECT
    SystemProbe m_probe;

private slots:
    void initTestCase() { m_probe = rtscope::test::setUpExperimentTest(); }

    void namesRoundTrip()
    {
        for (LockKind k : allLockKinds()) {
            QCOMPARE(parseLockKind(lockKindName(k)), std::optional<LockKind>(k));
            QVERIFY(std::string(lockKindLabel(k)).size() > 3);
        }
        QCOMPARE(parseLockKind("PI"), std::optional<LockKind>(LockKind::Pi));
        QCOMPARE(parseLockKind("glibc-adaptive"), std::optional<LockKind>(LockKind::AdaptiveGlibc));
        QVERIFY(!parseLockKind("ticket"));
        QVERIFY(!parseLockKind(""));
        QVERIFY(isAdaptive(LockKind::Adaptive) && isAdaptive(LockKind::AdaptiveGlibc));
        QVERIFY(!isAdaptive(LockKind::Mutex) && !isAdaptive(LockKind::Spin));
    }

    void factoryMakesEveryKind()
    {
        LockOptions o;
        o.ceilingPriority = 20;
        for (LockKind k : allLockKinds()) {
            Error e;
            auto lock = makeLock(k, o, &e);
            QVERIFY2(lock, e.message.c_str());
            QCOMPARE(int(lock->kind()), int(k));
        }
        o.ceilingPriority = 500;
        Error e;
        QVERIFY(!makeLock(LockKind::Ceiling, o, &e));
        QVERIFY2(QString::fromStdString(e.message).contains("ceiling"), e.message.c_str());
    }

    void tryLockSeesAnotherHolder_data()
    {
        QTest::addColumn<int>("kind");
        for (LockKind k : {LockKind::Spin, LockKind::Mutex, LockKind::AdaptiveGlibc, LockKind::Adaptive, LockKind::Pi})
            QTest::newRow(lockKindName(k)) << int(k);
    }
    void tryLockSeesAnotherHolder()
    {
        QFETCH(int, kind);
        auto lock = makeLock(LockKind(kind), {});
        QVERIFY(lock);
        QCOMPARE(lock->lock().error, 0);
        bool whileHeld = true, afterRelease = false;
        std::thread([&] { whileHeld = lock->tryLock(); }).join();
        lock->unlock();
        std::thread([&] {
            afterRelease = lock->tryLock();
            if (afterRelease)
                lock->unlock();
        }).join();
        QVERIFY(!whileHeld);
        QVERIFY(afterRelease);
    }

    void mutualExclusionUnderContention_data()
    {
        const int spins = LockOptions::kDefaultSpinLimit;
        rtscope::test::addRows<int, int, bool>({"kind", "spinLimit", "stealing"},
                                               {{"spin", int(LockKind::Spin), 0, true},
                                                {"mutex", int(LockKind::Mutex), 0, true},
                                                {"adaptive-glibc", int(LockKind::AdaptiveGlibc), 0, true},
                                                {"adaptive", int(LockKind::Adaptive), spins, true},
                                                {"adaptive, no stealing", int(LockKind::Adaptive), spins, false},
                                                {"adaptive, never spins", int(LockKind::Adaptive), 0, true},
                                                {"pi", int(LockKind::Pi), 0, true}});
    }
    void mutualExclusionUnderContention()
    {
        QFETCH(int, kind);
        QFETCH(int, spinLimit);
        QFETCH(bool, stealing);
        auto lock = makeLock(LockKind(kind), {.spinLimit = spinLimit, .stealing = stealing});
        QVERIFY(lock);
        HammerSpec spec;
        spec.cpus = rtscope::test::usableCpus();
        Shared s;
        const QString error = hammer(*lock, spec, s);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const uint64_t expected = uint64_t(spec.threads) * spec.perThread;
        QCOMPARE(s.lockErrors.load(), 0);
        QCOMPARE(s.done.load(), uint64_t(spec.threads));
        QCOMPARE(s.overlaps.load(), uint64_t(0));
        QCOMPARE(s.counter.load(), expected);
        QCOMPARE(s.plain, expected);
        // The run only proves something if the threads really competed for the lock.
        if (spec.cpus.size() > 1)
            QVERIFY2(s.contended.load() > 0, "no acquisition was contended");
        qInfo("%s: %llu of %llu acquisitions contended", QTest::currentDataTag(),
              (unsigned long long)s.contended.load(), (unsigned long long)expected);
    }

    // The ceiling needs real-time threads at or below it, so it runs on the measuring CPU only, at four
    // different priorities; they sleep now and then so that higher ones wake while a lower one holds the lock.
    void ceilingExcludesAndRaisesThePriority()
    {
        RTSCOPE_SKIP_IF(withoutFifoOrASpareCpu(m_probe));
        const int cpu = rtscope::test::usableCpus().back();
        auto lock = ceilingLock(30);
        QVERIFY(lock);
        HammerSpec spec;
        spec.perThread = 5'000;
        spec.policy = Policy::Fifo;
        spec.priority = 10;
        spec.cpus = {cpu};
        spec.sleepEvery = 50;
        spec.barrierEvery = 0; // yielding does not let a lower real-time priority run
        spec.expectCeiling = 30;
        spec.timeLimitNs = 10 * kNsPerSec;
        Shared s;
        const QString error = hammer(*lock, spec, s);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(s.lockErrors.load(), 0);
        QCOMPARE(s.wrongCeiling.load(), 0);
        QCOMPARE(s.overlaps.load(), uint64_t(0));
        QCOMPARE(s.counter.load(), uint64_t(spec.threads) * spec.perThread);
        QCOMPARE(s.plain, uint64_t(spec.threads) * spec.perThread);
    }

    void ceilingRefusesAThreadAboveIt()
    {
#ifdef __SANITIZE_THREAD__
        RTSCOPE_SKIP(
            Sanitizer,
            "TSan's pthread_mutex_lock interceptor reports a lock that glibc refuses (EINVAL) as the use of an "
            "invalid mutex; the refusal itself is checked in the plain build");
#endif
        RTSCOPE_SKIP_IF(withoutFifoOrASpareCpu(m_probe));
        const int cpu = rtscope::test::usableCpus().back();
        auto lock = ceilingLock(20);
        QVERIFY(lock);
        int error = -1;
        RtThread t;
        ThreadSpec ts;
        ts.policy = Policy::Fifo;
        ts.priority = 40;
        ts.cpu = cpu;
        ts.name = "rtscope-tst-ceil";
        QVERIFY(!t.start(ts, [&](const std::atomic<bool>&) {
            const Acquisition a = lock->lock();
            error = a.error;
            if (!a.error)
                lock->unlock();
        }));
        t.stop(1000);
        QCOMPARE(error, EINVAL); // a thread above the ceiling would break its promise: glibc refuses it
    }

    void detectorsCatchAMissingLock()
    {
        const std::vector<int> cpus = rtscope::test::usableCpus();
        if (cpus.size() < 2)
            RTSCOPE_SKIP(Cpus, "two threads overlap for sure only on two CPUs");
        NoLock none;
        HammerSpec spec;
        spec.threads = 2;
        spec.perThread = 200'000;
        spec.cpus = cpus;
        spec.usePlain = false;
        spec.barrierEvery = 0;
        Shared s;
        QVERIFY(hammer(none, spec, s).isEmpty());
        QVERIFY2(s.overlaps.load() > 0, "the occupancy check saw no overlap without a lock");
        QVERIFY2(s.counter.load() < uint64_t(spec.threads) * spec.perThread, "no update was lost without a lock");
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestLocks)
#include "tst_locks.moc"
