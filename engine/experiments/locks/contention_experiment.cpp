#include "engine/experiments/locks/contention_experiment.h"

#include "engine/locks/busy_work.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/helper_thread.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr size_t kContentionDrainBatch = 4096;
// From opening the start gate to releasing the workers: every worker is blocked at the gate by then.
constexpr int64_t kStartDelayNs = 5'000'000;
// What a run locks itself when mlockall is not in force (rangeLockStatus).
constexpr std::string_view kContentionLockedRanges = "the rings and the workers' stacks";

size_t contentionRingCapacity(int threads)
{
    // About 16 ms of samples at 8 M acquisitions/s per worker, within 1 MB per worker and 8 MB per run.
    const size_t perWorker = (size_t(1) << 20) / size_t(std::max(threads, 1));
    return std::clamp<size_t>(std::bit_floor(perWorker), size_t(1) << 15, size_t(1) << 17);
}

} // namespace

const ContentionKindResult* ContentionSnapshot::result(LockKind kind) const
{
    for (const auto& r : kinds)
        if (r && r->kind == kind)
            return r.get();
    return nullptr;
}

// Written by one worker only (relaxed stores of values it keeps locally), read by the collector. Each worker's
// block starts on its own cache line, so workers do not slow each other through false sharing.
struct alignas(kCacheLine) ContentionRun::WorkerCounters {
    std::atomic<uint64_t> acquisitions{0};
    std::atomic<uint64_t> uncontended{0};
    std::atomic<uint64_t> spun{0};
    std::atomic<uint64_t> slept{0};
    std::atomic<uint64_t> sleptOwnerNotRunning{0};
    std::atomic<uint64_t> sleptOwnerOnThisCpu{0};
    std::atomic<uint64_t> sleptSpinLimit{0};
    std::atomic<uint64_t> spinIterations{0};
    std::atomic<uint64_t> futexSleeps{0};
    std::atomic<uint64_t> voluntary{0};
    std::atomic<uint64_t> involuntary{0};
    std::atomic<int64_t> cpuNs{0};
    std::atomic<int> tid{0};
    std::atomic<int> lockError{0};

    void store(const AcquisitionCounts& c)
    {
        acquisitions.store(c.acquisitions, std::memory_order_relaxed);
        uncontended.store(c.uncontended, std::memory_order_relaxed);
        spun.store(c.spun, std::memory_order_relaxed);
        slept.store(c.slept, std::memory_order_relaxed);
        sleptOwnerNotRunning.store(c.sleptOwnerNotRunning, std::memory_order_relaxed);
        sleptOwnerOnThisCpu.store(c.sleptOwnerOnThisCpu, std::memory_order_relaxed);
        sleptSpinLimit.store(c.sleptSpinLimit, std::memory_order_relaxed);
        spinIterations.store(c.spinIterations, std::memory_order_relaxed);
        futexSleeps.store(c.futexSleeps, std::memory_order_relaxed);
    }
    AcquisitionCounts load() const
    {
        AcquisitionCounts c;
        c.acquisitions = acquisitions.load(std::memory_order_relaxed);
        c.uncontended = uncontended.load(std::memory_order_relaxed);
        c.spun = spun.load(std::memory_order_relaxed);
        c.slept = slept.load(std::memory_order_relaxed);
        c.sleptOwnerNotRunning = sleptOwnerNotRunning.load(std::memory_order_relaxed);
        c.sleptOwnerOnThisCpu = sleptOwnerOnThisCpu.load(std::memory_order_relaxed);
        c.sleptSpinLimit = sleptSpinLimit.load(std::memory_order_relaxed);
        c.spinIterations = spinIterations.load(std::memory_order_relaxed);
        c.futexSleeps = futexSleeps.load(std::memory_order_relaxed);
        return c;
    }
};

// One lock kind's part of the run: its lock, rings, counters and workers, and the aggregator the collector feeds.
struct ContentionRun::KindRun {
    size_t index = 0;
    LockKind kind = LockKind::Mutex;
    std::unique_ptr<Lock> lock;
    std::vector<std::unique_ptr<SpscRing<LockWaitSample>>> rings;
    std::unique_ptr<WorkerCounters[]> counters;
    std::vector<RtThread> threads;
    // The start gate. Workers wait here until every one of them exists: a real-time worker released early would
    // own the CPU that the next one still has to be created on. t0/endNs are written before the gate opens.
    std::mutex gateMutex;
    std::condition_variable gateCv;
    bool gateOpen = false;
    int64_t t0 = 0;
    int64_t endNs = 0;
    std::atomic<int64_t> stoppedNs{0}; ///< set when stopped before endNs
    std::atomic<bool> stop{false};
    ContentionAggregator aggregator; ///< spans t0 … endNs once the gate is open; guarded by m_runMutex
};

ContentionRun::ContentionRun(const ContentionConfig& config, const RunEnvironment& env)
    : m_config(config)
    , m_env(env)
{
    if (m_config.placement == Placement::OneCpu)
        m_config.cpu = config.resolvedCpu(env.topology);
    m_workerCpus = m_config.workerCpus(env.topology);
    m_collectorCpu = env.topology.otherThan(m_workerCpus);
    // Each kind's rings are locked as the kind starts; a failure there replaces this.
    m_memoryLock = rangeLockStatus(env, true, 0, kContentionLockedRanges);
    for (LockKind k : m_config.kinds) {
        auto pending = std::make_shared<ContentionKindResult>();
        pending->kind = k;
        m_results.push_back(std::move(pending));
    }
}

ContentionRun::~ContentionRun()
{
    stop();
}

ThreadSpec ContentionRun::workerSpec(int cpu) const
{
    ThreadSpec spec = m_env.threadSpec(m_config.policy, m_config.priority, cpu, "rtscope-lock");
    spec.nice = m_config.nice;
    spec.stackBytes = 128 * 1024;
    spec.prefaultBytes = 32 * 1024;
    return spec;
}

Error ContentionRun::start()
{
    // Refuse now, with the kernel's reason, rather than from the control thread after the start returned.
    ThreadSpec probe = workerSpec(m_workerCpus.front());
    probe.name = "rtscope-lockchk";
    probe.stackBytes = 64 * 1024;
    if (Error e = tryThreadSpec(probe))
        return e;

    m_startNs = nowNs();
    m_runner = std::thread([this] { runAll(); });
    // Off the workers' CPUs: the control thread is the one that demotes and joins them, so it must never queue behind
    // them (tst_contention_page fifoWorkersStop… once measured 104 ms when it started on the workers' CPU).
    nameAndPlaceHelper(m_runner, "rtscope-lockrun", m_collectorCpu);
    return {};
}

std::vector<int> ContentionRun::busyCpus() const
{
    std::vector<int> cpus = m_workerCpus;
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

void ContentionRun::stop()
{
    {
        std::lock_guard lock(m_stopMutex);
        m_stopAll = true;
    }
    m_stopCv.notify_all();
    // The control thread stops the running kind's workers (demoted, then joined) before it returns.
    if (m_runner.joinable())
        m_runner.join();
}

void ContentionRun::runAll()
{
    for (size_t i = 0; i < m_config.kinds.size(); ++i) {
        {
            std::lock_guard lock(m_stopMutex);
            if (m_stopAll)
                break;
        }
        if (Error e = runKind(i)) {
            std::lock_guard lock(m_runMutex);
            m_error = std::string(lockKindName(m_config.kinds[i])) + ": " + e.message;
            break;
        }
    }
    m_finished.store(true, std::memory_order_release);
}

Error ContentionRun::runKind(size_t index)
{
    auto run = std::make_shared<KindRun>();
    run->index = index;
    run->kind = m_config.kinds[index];
    const int n = m_config.threads;

    auto fail = [&](const Error& e) {
        std::lock_guard lock(m_runMutex);
        run->aggregator = ContentionAggregator(run->t0, run->endNs);
        auto r = buildResult(*run, KindRunState::Failed, nowNs());
        r->error = e.message;
        m_results[index] = std::move(r);
        m_current.reset();
        m_currentIndex = -1;
        return e;
    };

    Error lockError;
    run->lock = makeLock(run->kind, m_config.lockOptions(), &lockError);
    if (!run->lock)
        return fail(lockError);
    const size_t capacity = contentionRingCapacity(n);
    bool locked = true;
    int lockErrno = 0;
    for (int i = 0; i < n; ++i) {
        run->rings.push_back(std::make_unique<SpscRing<LockWaitSample>>(capacity));
        if (!m_env.allLocked() && !lockRange(run->rings.back()->storage(), run->rings.back()->storageBytes())) {
            locked = false;
            lockErrno = errno;
        }
    }
    if (!locked) {
        std::lock_guard lock(m_runMutex);
        m_memoryLock = rangeLockStatus(m_env, false, lockErrno, kContentionLockedRanges);
    }
    run->counters.reset(new WorkerCounters[size_t(n)]);
    run->threads.resize(size_t(n));
    auto openGate = [&run](int64_t t0) {
        {
            std::lock_guard lock(run->gateMutex);
            const int64_t duration = run->endNs - run->t0;
            run->t0 = t0;
            run->endNs = t0 + duration;
            run->gateOpen = true;
        }
        run->gateCv.notify_all();
    };
    run->t0 = nowNs();
    run->endNs = run->t0 + m_config.durationNs;

    for (int i = 0; i < n; ++i) {
        KindRun& r = *run;
        Error e = run->threads[size_t(i)].start(
            workerSpec(m_workerCpus[size_t(i)]),
            [this, &r, i](const std::atomic<bool>& threadStop) { workerLoop(r, i, threadStop); });
        if (e) {
            run->stop.store(true, std::memory_order_relaxed);
            openGate(nowNs());
            for (RtThread& t : run->threads)
                t.demote();
            for (RtThread& t : run->threads)
                t.stop(kJoinBudgetMs);
            return fail(e);
        }
    }
    openGate(nowNs() + kStartDelayNs);
    {
        std::lock_guard lock(m_runMutex);
        run->aggregator = ContentionAggregator(run->t0, run->endNs);
        m_current = run;
        m_currentIndex = int(index);
    }

    bool stoppedEarly = false;
    {
        std::unique_lock lock(m_stopMutex);
        const auto end = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(run->endNs + kNsPerMs));
        stoppedEarly = m_stopCv.wait_until(lock, end, [this] { return m_stopAll; });
    }
    const int64_t now = nowNs();
    if (stoppedEarly && now < run->endNs)
        run->stoppedNs.store(std::max(now, run->t0), std::memory_order_relaxed);
    else
        stoppedEarly = false;
    run->stop.store(true, std::memory_order_relaxed);
    // Demote first: a real-time worker that has not noticed the flag yet must stop owning its CPU at once.
    for (RtThread& t : run->threads)
        t.demote();
    for (RtThread& t : run->threads)
        t.stop(kJoinBudgetMs);

    int workerErrno = 0;
    for (int i = 0; i < n; ++i)
        workerErrno = workerErrno ? workerErrno : run->counters[size_t(i)].lockError.load(std::memory_order_relaxed);
    {
        std::lock_guard lock(m_runMutex);
        drainKind(*run);
        auto r = buildResult(*run, stoppedEarly ? KindRunState::Stopped : KindRunState::Done, nowNs());
        if (workerErrno) {
            r->state = KindRunState::Failed;
            r->error = std::string("pthread_mutex_lock failed: ") + std::strerror(workerErrno);
        }
        m_results[index] = std::move(r);
        m_current.reset();
        m_currentIndex = -1;
    }
    if (workerErrno)
        return {ErrorKind::System, std::string("pthread_mutex_lock failed: ") + std::strerror(workerErrno)};
    return {};
}

void ContentionRun::workerLoop(KindRun& run, int worker, const std::atomic<bool>& threadStop)
{
    WorkerCounters& out = run.counters[size_t(worker)];
    SpscRing<LockWaitSample>& ring = *run.rings[size_t(worker)];
    Lock& lock = *run.lock;
    const int64_t hold = m_config.holdNs;
    const int64_t work = m_config.workNs;
    out.tid.store(int(gettid()), std::memory_order_relaxed);
    {
        std::unique_lock lock(run.gateMutex);
        run.gateCv.wait(lock, [&run] { return run.gateOpen; });
    }
    const int64_t endNs = run.endNs;

    // Released together, so every worker contends from the first acquisition on.
    const timespec start = toTimespec(run.t0);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, nullptr) == EINTR)
        if (threadStop.load(std::memory_order_relaxed) || run.stop.load(std::memory_order_relaxed))
            return;

    rusage base{};
    getrusage(RUSAGE_THREAD, &base);
    const int64_t cpuBase = threadCpuNs();
    auto refresh = [&] {
        rusage now{};
        getrusage(RUSAGE_THREAD, &now);
        out.voluntary.store(uint64_t(now.ru_nvcsw - base.ru_nvcsw), std::memory_order_relaxed);
        out.involuntary.store(uint64_t(now.ru_nivcsw - base.ru_nivcsw), std::memory_order_relaxed);
        out.cpuNs.store(threadCpuNs() - cpuBase, std::memory_order_relaxed);
    };

    AcquisitionCounts c;
    int64_t t = nowNs();
    int64_t nextRefresh = t + kCounterRefreshNs;
    while (t < endNs && !threadStop.load(std::memory_order_relaxed) && !run.stop.load(std::memory_order_relaxed)) {
        const int64_t request = t;
        const Acquisition a = lock.lock();
        if (a.error) {
            out.lockError.store(a.error, std::memory_order_relaxed);
            break;
        }
        const int64_t acquired = nowNs();
        const int64_t released = hold > 0 ? busyWork(acquired, hold, &run.stop) : acquired;
        lock.unlock();
        (void)ring.tryPush({acquired - request}); // a full ring counts the drop: the kind's samplesDropped

        ++c.acquisitions;
        switch (a.path) {
        case AcquirePath::Uncontended:
            ++c.uncontended;
            break;
        case AcquirePath::Spun:
            ++c.spun;
            break;
        case AcquirePath::Slept:
            ++c.slept;
            if (a.reason == SleepReason::OwnerNotRunning)
                ++c.sleptOwnerNotRunning;
            else if (a.reason == SleepReason::OwnerOnThisCpu)
                ++c.sleptOwnerOnThisCpu;
            else if (a.reason == SleepReason::SpinLimit && run.kind == LockKind::Adaptive)
                ++c.sleptSpinLimit;
            break;
        }
        c.spinIterations += a.spins;
        c.futexSleeps += a.sleeps;
        out.store(c);

        t = work > 0 ? busyWork(released, work, &run.stop) : nowNs();
        if (t >= nextRefresh) {
            refresh();
            t = nowNs(); // the syscalls above are not part of the next request's wait
            nextRefresh = t + kCounterRefreshNs;
        }
    }
    out.store(c);
    refresh();
}

size_t ContentionRun::drainKind(KindRun& run)
{
    LockWaitSample batch[256];
    size_t total = 0;
    for (auto& ring : run.rings) {
        size_t moved = 0;
        for (;;) {
            const size_t got = ring->popBatch(batch, std::size(batch));
            run.aggregator.add(batch, got);
            moved += got;
            // Bounded per pass, so one busy ring cannot keep the collector from the others (or from publishing).
            if (got < std::size(batch) || moved >= kContentionDrainBatch * 16)
                break;
        }
        total += moved;
    }
    return total;
}

std::shared_ptr<ContentionKindResult> ContentionRun::buildResult(const KindRun& run, KindRunState state,
                                                                 int64_t now) const
{
    // The workers' counters as they are now: the aggregator sums them with the waits it was fed.
    std::vector<ContentionThreadStats> threads;
    for (size_t i = 0; i < run.threads.size() && run.counters; ++i) {
        const WorkerCounters& w = run.counters[i];
        ContentionThreadStats t;
        t.index = int(i);
        t.cpu = i < m_workerCpus.size() ? m_workerCpus[i] : -1;
        t.tid = w.tid.load(std::memory_order_relaxed);
        t.counts = w.load();
        t.voluntarySwitches = w.voluntary.load(std::memory_order_relaxed);
        t.involuntarySwitches = w.involuntary.load(std::memory_order_relaxed);
        t.cpuNs = w.cpuNs.load(std::memory_order_relaxed);
        t.samplesDropped = i < run.rings.size() ? run.rings[i]->drops() : 0;
        threads.push_back(t);
    }
    auto r = std::make_shared<ContentionKindResult>();
    static_cast<ContentionKindFigures&>(*r) =
        run.aggregator.figures(state, now, run.stoppedNs.load(std::memory_order_relaxed), std::move(threads));
    r->kind = run.kind;
    return r;
}

size_t ContentionRun::drain()
{
    std::lock_guard lock(m_runMutex);
    return m_current ? drainKind(*m_current) : 0;
}

std::shared_ptr<ContentionSnapshot> ContentionRun::makeSnapshot(bool running)
{
    auto snap = newRunSnapshot<ContentionSnapshot>(m_config, running, m_startNs, nowNs());
    snap->workerCpus = m_workerCpus;
    snap->finished = finished();
    std::lock_guard lock(m_runMutex);
    snap->memoryLock = m_memoryLock.detail;
    snap->kinds = m_results;
    if (m_current && m_currentIndex >= 0) {
        snap->currentKind = m_currentIndex;
        snap->kinds[size_t(m_currentIndex)] = buildResult(*m_current, KindRunState::Running, snap->publishedNs);
    }
    snap->error = m_error;
    return snap;
}

} // namespace rtscope
