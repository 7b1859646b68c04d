#include "engine/experiments/locks/inversion_experiment.h"

#include "engine/locks/busy_work.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr int kLow = 0;
constexpr int kMedium = 1;
constexpr int kHigh = 2;
constexpr size_t kTimelineRingCapacity = 1 << 14;
constexpr size_t kPeriodRingCapacity = 1 << 12;
// Time to start the watchdog and the three threads before period 0 is released.
constexpr int64_t kFirstRoundDelayNs = 50'000'000;
// Added to each thread's expected end before the watchdog may act: wake-up latency, the other two threads'
// short sections, an interrupt or two.
constexpr int64_t kWatchdogSlackNs = 10'000'000;
constexpr int64_t kWatchdogMarginNs = 50'000'000;
constexpr int64_t kWatchdogPollNs = 5'000'000;

} // namespace

InversionRun::InversionRun(const InversionConfig& config, const RunEnvironment& env)
    : m_config(config)
{
    m_config.cpu = config.resolvedCpu(env.topology);
    m_watchdogCpu = InversionConfig::reservedCpu(env.topology);
    for (auto& ring : m_segmentRings)
        ring = std::make_unique<SpscRing<TimelineSegment>>(kTimelineRingCapacity);
    m_periodRing = std::make_unique<SpscRing<InversionPeriod>>(kPeriodRingCapacity);
    m_lockStacks = !env.allLocked();
    if (env.allLocked()) {
        m_memoryLock = env.memoryLock;
    } else {
        bool locked = true;
        int err = 0;
        auto lock = [&](void* ptr, size_t bytes) {
            if (!lockRange(ptr, bytes)) {
                locked = false;
                err = errno;
            }
        };
        for (auto& ring : m_segmentRings)
            lock(ring->storage(), ring->storageBytes());
        lock(m_periodRing->storage(), m_periodRing->storageBytes());
        m_memoryLock = rangeLockStatus(env, locked, err, "the rings and the threads' stacks");
    }
}

InversionRun::~InversionRun()
{
    stop();
}

Error InversionRun::start()
{
    LockOptions options;
    options.ceilingPriority = m_config.highPriority;
    Error lockError;
    m_lock = makeLock(m_config.lock, options, &lockError);
    if (!m_lock)
        return lockError;

    WatchdogConfig wd;
    wd.cpu = m_watchdogCpu;
    wd.marginNs = kWatchdogMarginNs;
    wd.pollNs = kWatchdogPollNs;
    if (Error e = m_watchdog.start(wd))
        return e;
    for (int& slot : m_slots)
        slot = m_watchdog.addSlot();

    m_startNs = nowNs();
    m_t0 = m_startNs + kFirstRoundDelayNs;
    m_endNs = m_t0 + m_config.durationNs;

    struct Role {
        const char* name;
        int priority;
        void (InversionRun::*loop)(const std::atomic<bool>&);
    };
    const Role roles[3] = {{"rtscope-inv-low", m_config.lowPriority, &InversionRun::lowLoop},
                           {"rtscope-inv-med", m_config.mediumPriority, &InversionRun::mediumLoop},
                           {"rtscope-inv-high", m_config.highPriority, &InversionRun::highLoop}};
    for (int i = 0; i < 3; ++i) {
        ThreadSpec spec;
        spec.policy = Policy::Fifo;
        spec.priority = roles[i].priority;
        spec.cpu = m_config.cpu;
        spec.name = roles[i].name;
        spec.stackBytes = 128 * 1024;
        spec.prefaultBytes = 32 * 1024;
        spec.lockStack = m_lockStacks;
        auto loop = roles[i].loop;
        // On a failure the host calls stop(): the threads already started are demoted and joined, the watchdog
        // stopped, as when a run ends.
        if (Error e = m_threads[size_t(i)].start(spec, [this, loop](const std::atomic<bool>& s) { (this->*loop)(s); }))
            return e;
    }
    return {};
}

void InversionRun::stop()
{
    m_stop.store(true);
    // Demoted first: none of the three may keep the CPU while the others are being joined.
    for (RtThread& t : m_threads)
        t.demote();
    for (RtThread& t : m_threads)
        t.stop(kJoinBudgetMs);
    m_watchdog.stop();
}

bool InversionRun::stopping(const std::atomic<bool>& stop) const
{
    return stop.load(std::memory_order_relaxed) || m_stop.load(std::memory_order_relaxed);
}

bool InversionRun::sleepUntil(int64_t ns, const std::atomic<bool>& stop)
{
    const timespec ts = toTimespec(ns);
    for (;;) {
        if (stopping(stop))
            return false;
        const int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        if (rc == 0)
            return !stopping(stop);
        if (rc != EINTR)
            return false;
    }
}

void InversionRun::threadDone()
{
    m_threadsDone.fetch_add(1, std::memory_order_acq_rel);
}

int InversionRun::enterLane(int lane)
{
    const int slot = m_slots[lane];
    m_tids[lane].store(int(gettid()));
    m_watchdog.bindThread(slot, gettid());
    return slot;
}

int64_t InversionRun::holdLock(SpscRing<TimelineSegment>& ring, InversionLane lane, int slot, int64_t acquiredNs,
                               int64_t holdNs)
{
    int64_t segStart = acquiredNs;
    // CPU work, not wall time: a preempted holder must still finish its section, as a real one would.
    const int64_t end = busyWork(acquiredNs, holdNs, &m_stop, [&](int64_t from, int64_t to) {
        (void)ring.tryPush({segStart, from, lane, SegmentState::HoldingLock});
        segStart = to;
    });
    m_lock->unlock();
    m_watchdog.disarm(slot);
    (void)ring.tryPush({segStart, end, lane, SegmentState::HoldingLock});
    return end;
}

void InversionRun::lowLoop(const std::atomic<bool>& stop)
{
    const int slot = enterLane(kLow);
    // Its pushes never wait: a full ring counts the drop (the snapshot's ringDrops), so their result is unused.
    SpscRing<TimelineSegment>& ring = *m_segmentRings[kLow];
    const int64_t period = m_config.periodNs;
    const int64_t hold = m_config.holdNs;
    const int64_t worstCase = hold + m_config.mediumBurstNs + InversionConfig::kHighHoldNs + kWatchdogSlackNs;
    uint64_t sections = 0;
    for (int64_t k = 0;; ++k) {
        const int64_t release = m_t0 + k * period;
        if (release >= m_endNs || !sleepUntil(release, stop))
            break;
        const Acquisition a = m_lock->lock();
        if (a.error) {
            m_lockErrno.store(a.error);
            break;
        }
        const int64_t acquired = nowNs();
        m_watchdog.arm(slot, acquired + worstCase);
        const int64_t end = holdLock(ring, InversionLane::Low, slot, acquired, hold);
        m_lowSections.store(++sections, std::memory_order_relaxed);
        k += (end - release) / period; // releases that passed while it worked are skipped, not caught up
    }
    threadDone();
}

void InversionRun::mediumLoop(const std::atomic<bool>& stop)
{
    const int slot = enterLane(kMedium);
    // Its pushes never wait: a full ring counts the drop (the snapshot's ringDrops), so their result is unused.
    SpscRing<TimelineSegment>& ring = *m_segmentRings[kMedium];
    const int64_t period = m_config.periodNs;
    const int64_t burst = m_config.mediumBurstNs;
    const int64_t offset = m_config.mediumOffsetNs();
    uint64_t bursts = 0;
    for (int64_t k = 0;; ++k) {
        const int64_t release = m_t0 + k * period + offset;
        if (release >= m_endNs || !sleepUntil(release, stop))
            break;
        const int64_t start = nowNs();
        // Wall time, checked on every iteration: the burst's own hard bound. The watchdog is the second one.
        const int64_t until = start + burst;
        m_watchdog.arm(slot, until + kWatchdogSlackNs);
        int64_t segStart = start;
        int64_t last = start;
        for (;;) {
            const int64_t now = nowNs();
            if (now - last > kOffCpuGapNs) {
                (void)ring.tryPush({segStart, last, InversionLane::Medium, SegmentState::Running});
                segStart = now;
            }
            last = now;
            if (now >= until || m_stop.load(std::memory_order_relaxed))
                break;
        }
        m_watchdog.disarm(slot);
        (void)ring.tryPush({segStart, last, InversionLane::Medium, SegmentState::Running});
        m_mediumBursts.store(++bursts, std::memory_order_relaxed);
        k += (last - release) / period;
    }
    threadDone();
}

void InversionRun::highLoop(const std::atomic<bool>& stop)
{
    const int slot = enterLane(kHigh);
    // Its pushes never wait: a full ring counts the drop (the snapshot's ringDrops), so their result is unused.
    SpscRing<TimelineSegment>& ring = *m_segmentRings[kHigh];
    const int64_t period = m_config.periodNs;
    const int64_t offset = m_config.highOffsetNs();
    for (int64_t k = 0;; ++k) {
        const int64_t release = m_t0 + k * period + offset;
        if (release >= m_endNs || !sleepUntil(release, stop))
            break;
        InversionPeriod p;
        p.releaseNs = release;
        p.wakeNs = nowNs();
        const Acquisition a = m_lock->lock();
        if (a.error) {
            m_lockErrno.store(a.error);
            break;
        }
        p.acquiredNs = nowNs();
        p.contended = a.path != AcquirePath::Uncontended;
        m_watchdog.arm(slot, p.acquiredNs + InversionConfig::kHighHoldNs + kWatchdogSlackNs);
        (void)ring.tryPush({release, p.acquiredNs, InversionLane::High, SegmentState::WaitingForLock});
        p.doneNs = holdLock(ring, InversionLane::High, slot, p.acquiredNs, InversionConfig::kHighHoldNs);
        p.missed = p.acquiredNs > release + period;
        p.skipped = uint32_t((p.doneNs - release) / period);
        (void)m_periodRing->tryPush(p);
        k += p.skipped;
    }
    threadDone();
}

size_t InversionRun::drain()
{
    size_t total = 0;
    for (auto& ring : m_segmentRings)
        total += m_segmentBatch.drain(*ring, [this](std::span<const TimelineSegment> batch) {
            for (const TimelineSegment& s : batch)
                m_aggregator.addSegment(s);
        });
    return total + m_periodBatch.drain(*m_periodRing, [this](std::span<const InversionPeriod> batch) {
        for (const InversionPeriod& p : batch)
            m_aggregator.addPeriod(p);
    });
}

std::shared_ptr<InversionSnapshot> InversionRun::makeSnapshot(bool running)
{
    auto snap = std::make_shared<InversionSnapshot>();
    const int64_t publishedNs = nowNs();
    static_cast<InversionFigures&>(*snap) =
        m_aggregator.figures(InversionAggregator::windowStart(m_startNs, publishedNs, m_timelineWindowNs.load()));
    snap->config = m_config;
    snap->watchdogCpu = m_watchdogCpu;
    snap->running = running;
    snap->finished = finished();
    snap->startNs = m_startNs;
    snap->t0Ns = m_t0;
    snap->publishedNs = publishedNs;
    snap->lowSections = m_lowSections.load(std::memory_order_relaxed);
    snap->mediumBursts = m_mediumBursts.load(std::memory_order_relaxed);
    for (int i = 0; i < 3; ++i)
        snap->tids[size_t(i)] = m_tids[size_t(i)].load();
    for (const auto& ring : m_segmentRings)
        snap->ringDrops += ring->drops();
    snap->ringDrops += m_periodRing->drops();
    snap->watchdogTrips = m_watchdog.trips();
    snap->memoryLock = m_memoryLock.detail;
    if (const int err = m_lockErrno.load())
        snap->error = std::string("pthread_mutex_lock failed: ") + std::strerror(err);
    return snap;
}

} // namespace rtscope
