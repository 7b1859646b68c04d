#include "engine/experiments/inversion_experiment.h"

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

bool isWaiting(const TimelineSegment& s)
{
    return s.state == SegmentState::WaitingForLock;
}

// Total time in which a segment of @p a and a segment of @p b overlap. Each list is one thread's segments, so
// it is sorted and its segments are disjoint: one merge pass.
template <class KeepA>
int64_t overlapNs(const std::vector<TimelineSegment>& a, const std::vector<TimelineSegment>& b, KeepA keepA)
{
    int64_t total = 0;
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (!keepA(a[i])) {
            ++i;
            continue;
        }
        const int64_t lo = std::max(a[i].startNs, b[j].startNs);
        const int64_t hi = std::min(a[i].endNs, b[j].endNs);
        if (hi > lo)
            total += hi - lo;
        if (a[i].endNs < b[j].endNs)
            ++i;
        else
            ++j;
    }
    return total;
}

} // namespace

const char* inversionLaneName(InversionLane l)
{
    switch (l) {
    case InversionLane::Low:
        return "low";
    case InversionLane::Medium:
        return "medium";
    case InversionLane::High:
        return "high";
    }
    return "?";
}

const char* segmentStateName(SegmentState s)
{
    switch (s) {
    case SegmentState::Running:
        return "running";
    case SegmentState::HoldingLock:
        return "holding";
    case SegmentState::WaitingForLock:
        return "waiting";
    }
    return "?";
}

InversionExperiment::InversionExperiment() = default;

InversionExperiment::~InversionExperiment()
{
    stop();
}

Error InversionExperiment::start(const InversionConfig& requested)
{
    if (m_running)
        return {ErrorKind::InvalidConfig, "the inversion experiment is already running"};
    const CpuTopology cpus = CpuTopology::current();
    if (auto errors = requested.validate(cpus); !errors.empty())
        return {ErrorKind::InvalidConfig, joinErrors(errors)};
    m_config = requested;
    m_config.cpu = requested.resolvedCpu(cpus);
    m_watchdogCpu = InversionConfig::reservedCpu(cpus);

    LockOptions options;
    options.ceilingPriority = m_config.highPriority;
    Error lockError;
    m_lock = makeLock(m_config.lock, options, &lockError);
    if (!m_lock)
        return lockError;

    for (auto& ring : m_segmentRings)
        ring = std::make_unique<SpscRing<TimelineSegment>>(kTimelineRingCapacity);
    m_periodRing = std::make_unique<SpscRing<InversionPeriod>>(kPeriodRingCapacity);
    if (m_lockAll)
        m_memoryLock = lockAllMemory();
    else
        m_memoryLock = memoryLockStatus();
    if (m_memoryLock.mode != MemoryLockMode::All) {
        for (auto& ring : m_segmentRings)
            lockRange(ring->storage(), ring->storageBytes());
        lockRange(m_periodRing->storage(), m_periodRing->storageBytes());
    }
    {
        std::lock_guard lock(m_aggMutex);
        for (auto& lane : m_segments)
            lane.clear();
        m_truncated = false;
        m_periods.clear();
        m_highWait.reset();
        m_highContended = m_highMissed = m_highSkipped = 0;
        m_highWaitTotalNs = 0;
    }
    m_stop.store(false);
    m_threadsDone.store(0);
    m_lowSections.store(0);
    m_mediumBursts.store(0);
    m_lockErrno.store(0);
    for (auto& t : m_tids)
        t.store(0);

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
        void (InversionExperiment::*loop)(const std::atomic<bool>&);
    };
    const Role roles[3] = {{"rtscope-inv-low", m_config.lowPriority, &InversionExperiment::lowLoop},
                           {"rtscope-inv-med", m_config.mediumPriority, &InversionExperiment::mediumLoop},
                           {"rtscope-inv-high", m_config.highPriority, &InversionExperiment::highLoop}};
    for (int i = 0; i < 3; ++i) {
        ThreadSpec spec;
        spec.policy = Policy::Fifo;
        spec.priority = roles[i].priority;
        spec.cpu = m_config.cpu;
        spec.name = roles[i].name;
        spec.stackBytes = 128 * 1024;
        spec.prefaultBytes = 32 * 1024;
        spec.lockStack = m_memoryLock.mode != MemoryLockMode::All;
        auto loop = roles[i].loop;
        if (Error e =
                m_threads[size_t(i)].start(spec, [this, loop](const std::atomic<bool>& s) { (this->*loop)(s); })) {
            m_stop.store(true);
            for (RtThread& t : m_threads)
                t.demote();
            for (RtThread& t : m_threads)
                t.stop(100);
            m_watchdog.stop();
            return e;
        }
    }
    m_running = true;
    m_collector.addSource(this);
    m_collector.start(1'000'000, m_publishIntervalNs, m_watchdogCpu);
    return {};
}

void InversionExperiment::stop()
{
    if (!m_running)
        return;
    m_stop.store(true);
    // Demoted first: none of the three may keep the CPU while the others are being joined.
    for (RtThread& t : m_threads)
        t.demote();
    for (RtThread& t : m_threads)
        t.stop(100);
    m_watchdog.stop();
    m_running = false;
    m_collector.stop(); // drains what is left and publishes
    m_collector.removeSource(this);
    publishNow();
}

bool InversionExperiment::stopping(const std::atomic<bool>& stop) const
{
    return stop.load(std::memory_order_relaxed) || m_stop.load(std::memory_order_relaxed);
}

bool InversionExperiment::sleepUntil(int64_t ns, const std::atomic<bool>& stop)
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

void InversionExperiment::threadDone()
{
    m_threadsDone.fetch_add(1, std::memory_order_acq_rel);
}

void InversionExperiment::lowLoop(const std::atomic<bool>& stop)
{
    const int slot = m_slots[kLow];
    m_tids[kLow].store(int(gettid()));
    m_watchdog.bindThread(slot, gettid());
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
        int64_t segStart = acquired;
        // CPU work, not wall time: a preempted holder must still finish its section, as a real one would.
        const int64_t end = busyWork(acquired, hold, &m_stop, [&](int64_t from, int64_t to) {
            (void)ring.tryPush({segStart, from, InversionLane::Low, SegmentState::HoldingLock});
            segStart = to;
        });
        m_lock->unlock();
        m_watchdog.disarm(slot);
        (void)ring.tryPush({segStart, end, InversionLane::Low, SegmentState::HoldingLock});
        m_lowSections.store(++sections, std::memory_order_relaxed);
        k += (end - release) / period; // releases that passed while it worked are skipped, not caught up
    }
    threadDone();
}

void InversionExperiment::mediumLoop(const std::atomic<bool>& stop)
{
    const int slot = m_slots[kMedium];
    m_tids[kMedium].store(int(gettid()));
    m_watchdog.bindThread(slot, gettid());
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

void InversionExperiment::highLoop(const std::atomic<bool>& stop)
{
    const int slot = m_slots[kHigh];
    m_tids[kHigh].store(int(gettid()));
    m_watchdog.bindThread(slot, gettid());
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
        int64_t segStart = p.acquiredNs;
        p.doneNs = busyWork(p.acquiredNs, InversionConfig::kHighHoldNs, &m_stop, [&](int64_t from, int64_t to) {
            (void)ring.tryPush({segStart, from, InversionLane::High, SegmentState::HoldingLock});
            segStart = to;
        });
        m_lock->unlock();
        m_watchdog.disarm(slot);
        (void)ring.tryPush({segStart, p.doneNs, InversionLane::High, SegmentState::HoldingLock});
        p.missed = p.acquiredNs > release + period;
        p.skipped = uint32_t((p.doneNs - release) / period);
        (void)m_periodRing->tryPush(p);
        k += p.skipped;
    }
    threadDone();
}

size_t InversionExperiment::drain()
{
    std::lock_guard lock(m_aggMutex);
    size_t total = 0;
    TimelineSegment segs[256];
    for (int lane = 0; lane < 3; ++lane) {
        if (!m_segmentRings[size_t(lane)])
            continue;
        for (;;) {
            const size_t n = m_segmentRings[size_t(lane)]->popBatch(segs, std::size(segs));
            for (size_t i = 0; i < n; ++i) {
                if (m_segments[size_t(lane)].size() < kMaxSegmentsPerLane)
                    m_segments[size_t(lane)].push_back(segs[i]);
                else
                    m_truncated = true;
            }
            total += n;
            if (n < std::size(segs))
                break;
        }
    }
    if (m_periodRing) {
        InversionPeriod periods[64];
        for (;;) {
            const size_t n = m_periodRing->popBatch(periods, std::size(periods));
            for (size_t i = 0; i < n; ++i) {
                const InversionPeriod& p = periods[i];
                m_highWait.record(p.waitNs());
                m_highWaitTotalNs += p.waitNs();
                m_highContended += p.contended ? 1 : 0;
                m_highMissed += p.missed ? 1 : 0;
                m_highSkipped += p.skipped;
                if (m_periods.size() < kMaxPeriods)
                    m_periods.push_back(p);
            }
            total += n;
            if (n < std::size(periods))
                break;
        }
    }
    return total;
}

void InversionExperiment::publish()
{
    auto snap = std::make_shared<InversionSnapshot>();
    snap->config = m_config;
    snap->watchdogCpu = m_watchdogCpu;
    snap->generation = ++m_generation;
    snap->running = m_running;
    snap->finished = finished();
    snap->startNs = m_startNs;
    snap->t0Ns = m_t0;
    snap->publishedNs = nowNs();
    snap->lowSections = m_lowSections.load(std::memory_order_relaxed);
    snap->mediumBursts = m_mediumBursts.load(std::memory_order_relaxed);
    for (int i = 0; i < 3; ++i)
        snap->tids[size_t(i)] = m_tids[size_t(i)].load();
    const int64_t window = m_timelineWindowNs.load();
    snap->timelineFromNs = window > 0 ? std::max(m_startNs, snap->publishedNs - window) : m_startNs;
    {
        std::lock_guard lock(m_aggMutex);
        snap->highWait = m_highWait;
        snap->highPeriods = m_highWait.count();
        snap->highContended = m_highContended;
        snap->highMissed = m_highMissed;
        snap->highSkipped = m_highSkipped;
        snap->highWaitTotalNs = m_highWaitTotalNs;
        const auto& high = m_segments[kHigh];
        snap->mediumRanWhileHighWaitedNs = overlapNs(high, m_segments[kMedium], isWaiting);
        snap->lowRanWhileHighWaitedNs = overlapNs(high, m_segments[kLow], isWaiting);
        for (const auto& lane : m_segments)
            for (const TimelineSegment& s : lane)
                if (s.endNs >= snap->timelineFromNs)
                    snap->timeline.push_back(s);
        for (const InversionPeriod& p : m_periods)
            if (p.releaseNs >= snap->timelineFromNs)
                snap->periods.push_back(p);
        snap->timelineTruncated = m_truncated;
    }
    std::sort(snap->timeline.begin(), snap->timeline.end(),
              [](const TimelineSegment& a, const TimelineSegment& b) { return a.startNs < b.startNs; });
    for (const auto& ring : m_segmentRings)
        snap->ringDrops += ring ? ring->drops() : 0;
    snap->ringDrops += m_periodRing ? m_periodRing->drops() : 0;
    snap->watchdogTrips = m_watchdog.trips();
    snap->memoryLock = m_memoryLock.detail;
    if (const int err = m_lockErrno.load())
        snap->error = std::string("pthread_mutex_lock failed: ") + std::strerror(err);

    std::lock_guard lock(m_snapshotMutex);
    m_snapshot = std::move(snap);
}

void InversionExperiment::publishNow()
{
    if (m_collector.running()) {
        m_collector.requestPublish();
        return;
    }
    while (drain() > 0) {
    }
    publish();
}

std::shared_ptr<const InversionSnapshot> InversionExperiment::snapshot() const
{
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
}

} // namespace rtscope
