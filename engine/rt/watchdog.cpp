#include "engine/rt/watchdog.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_environment.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <optional>
#include <sched.h>
#include <sys/resource.h>

namespace rtscope {

namespace {

// The CPU clock of another thread of this process: the kernel encodes the tid into a clockid the same way
// glibc's pthread_getcpuclockid() does (~tid << 3 | CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED).
std::optional<int64_t> threadCpuTime(pid_t tid)
{
    if (tid <= 0)
        return std::nullopt;
    const clockid_t clock = clockid_t(int(~unsigned(tid) << 3) | 4 | 2);
    timespec ts{};
    if (clock_gettime(clock, &ts) != 0)
        return std::nullopt;
    return fromTimespec(ts);
}

} // namespace

std::vector<std::string> WatchdogConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    if (!cpus.usable(cpu))
        out.push_back("watchdog cpu must be one of the online CPUs this process may use (" + cpus.usableText() +
                      "); got " + std::to_string(cpu));
    const int lo = priorityMin(Policy::Fifo), hi = priorityMax(Policy::Fifo);
    if (priority < lo || priority > hi)
        out.push_back("watchdog priority must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                      " (got " + std::to_string(priority) + ")");
    if (marginNs < kMinMarginNs || marginNs > kMaxMarginNs)
        out.push_back("watchdog margin must be between " + formatDuration(kMinMarginNs) + " and " +
                      formatDuration(kMaxMarginNs) + " (got " + formatDuration(marginNs) + ")");
    if (pollNs < kMinPollNs || pollNs > kMaxPollNs)
        out.push_back("watchdog poll must be between " + formatDuration(kMinPollNs) + " and " +
                      formatDuration(kMaxPollNs) + " (got " + formatDuration(pollNs) + ")");
    return out;
}

Watchdog::Watchdog() = default;

Watchdog::~Watchdog()
{
    stop();
}

Error Watchdog::start(const WatchdogConfig& config)
{
    if (m_thread.running())
        return {ErrorKind::InvalidConfig, "the watchdog is already running"};
    // The watchdog is a new thread pinned by attribute: the cpuset bounds it, not the caller's own affinity (a
    // controller pinned to CPU 0 may still start a watchdog on CPU 2).
    CpuTopology cpus = CpuTopology::current();
    cpus.allowed = cpusForNewThreads();
    std::sort(cpus.allowed.begin(), cpus.allowed.end());
    if (auto problems = config.validate(cpus); !problems.empty()) {
        std::string text;
        for (const auto& p : problems)
            text += (text.empty() ? "" : "\n") + p;
        return {ErrorKind::InvalidConfig, text};
    }
    m_config = config;
    for (Slot& s : m_slots) {
        s.deadlineNs.store(0, std::memory_order_relaxed);
        s.tid.store(0, std::memory_order_relaxed);
        s.trips.store(0, std::memory_order_relaxed);
    }
    m_slotCount.store(0, std::memory_order_relaxed);
    m_past = {};
    m_tripsLogged.store(0, std::memory_order_relaxed);

    ThreadSpec spec;
    spec.policy = Policy::Fifo;
    spec.priority = config.priority;
    spec.cpu = config.cpu;
    spec.name = "rtscope-watchdg"; // the kernel keeps 15 characters
    spec.stackBytes = 64 * 1024;
    spec.prefaultBytes = 16 * 1024;
    // RtThread::start publishes everything written above to the new thread (pthread_create is a barrier).
    return m_thread.start(spec, [this](const std::atomic<bool>& stop) { loop(stop); });
}

void Watchdog::stop()
{
    m_thread.stop(100);
    // The join above makes this thread the only writer of the trip log from here on.
    const int64_t now = nowNs();
    const int n = m_slotCount.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
        int64_t d = m_slots[size_t(i)].deadlineNs.load(std::memory_order_acquire);
        if (d != 0 && m_slots[size_t(i)].deadlineNs.compare_exchange_strong(d, 0, std::memory_order_acq_rel))
            demote(i, d, now, true, -1);
    }
}

int Watchdog::addSlot()
{
    const int n = m_slotCount.load(std::memory_order_relaxed);
    if (n >= kMaxSlots)
        return -1;
    Slot& s = m_slots[size_t(n)];
    s.deadlineNs.store(0, std::memory_order_relaxed);
    s.tid.store(0, std::memory_order_relaxed);
    s.trips.store(0, std::memory_order_relaxed);
    // Release: the watchdog thread only scans slots below the count, and must see them cleared.
    m_slotCount.store(n + 1, std::memory_order_release);
    return n;
}

void Watchdog::bindThread(int slot, pid_t tid) noexcept
{
    if (slot >= 0 && slot < kMaxSlots)
        m_slots[size_t(slot)].tid.store(tid, std::memory_order_release);
}

void Watchdog::arm(int slot, int64_t deadlineNs) noexcept
{
    if (slot >= 0 && slot < kMaxSlots)
        m_slots[size_t(slot)].deadlineNs.store(deadlineNs <= 0 ? 1 : deadlineNs, std::memory_order_release);
}

void Watchdog::disarm(int slot) noexcept
{
    if (slot >= 0 && slot < kMaxSlots)
        m_slots[size_t(slot)].deadlineNs.store(0, std::memory_order_release);
}

uint32_t Watchdog::tripCount(int slot) const noexcept
{
    return slot >= 0 && slot < kMaxSlots ? m_slots[size_t(slot)].trips.load(std::memory_order_acquire) : 0;
}

std::vector<WatchdogTrip> Watchdog::trips() const
{
    const uint32_t n = m_tripsLogged.load(std::memory_order_acquire);
    return {m_trips.begin(), m_trips.begin() + std::min<uint32_t>(n, kMaxTrips)};
}

void Watchdog::loop(const std::atomic<bool>& stop)
{
    int64_t next = nowNs() + m_config.pollNs;
    while (!stop.load(std::memory_order_relaxed)) {
        const timespec ts = toTimespec(next);
        // EINTR is RtThread's wake signal: loop back and look at the stop flag.
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR)
            continue;
        const int64_t now = nowNs();
        check(now);
        next += m_config.pollNs;
        if (next <= now) // a late wake-up must not turn into a burst of back-to-back checks
            next = now + m_config.pollNs;
    }
}

int64_t Watchdog::ranPastDeadline(int slot, int64_t deadlineNs, int64_t now)
{
    PastDeadline& p = m_past[size_t(slot)];
    const auto cpu = threadCpuTime(m_slots[size_t(slot)].tid.load(std::memory_order_acquire));
    if (!cpu)
        return now - deadlineNs; // no clock to ask (thread gone or unbound): wall time is all there is
    if (p.deadlineNs != deadlineNs) {
        p = {deadlineNs, *cpu, now};
    }
    // Between the deadline and the first look at it the thread may have run all along: count that as running,
    // so the demotion is never later than in wall-clock mode by more than one poll.
    return (*cpu - p.cpuNs) + std::min(p.seenNs - deadlineNs, m_config.pollNs);
}

void Watchdog::check(int64_t now)
{
    const int n = m_slotCount.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
        Slot& s = m_slots[size_t(i)];
        int64_t d = s.deadlineNs.load(std::memory_order_acquire);
        if (d == 0 || now <= d)
            continue;
        const int64_t ran = m_config.cpuTimeOverrun ? ranPastDeadline(i, d, now) : now - d;
        if (now - d <= m_config.marginNs || ran <= m_config.marginNs)
            continue;
        // Claiming the deadline first means a thread that disarms at this very moment is either demoted
        // (it overran by more than the margin anyway) or not touched at all: never demoted twice.
        if (s.deadlineNs.compare_exchange_strong(d, 0, std::memory_order_acq_rel))
            demote(i, d, now, false, m_config.cpuTimeOverrun ? ran : -1);
    }
}

void Watchdog::demote(int slot, int64_t deadlineNs, int64_t now, bool atStop, int64_t ranPastDeadlineNs)
{
    Slot& s = m_slots[size_t(slot)];
    const pid_t tid = s.tid.load(std::memory_order_acquire);
    bool ok = false;
    // tid 0 would mean "the calling thread" to sched_setscheduler: the watchdog must never demote itself.
    if (tid > 0) {
        sched_param param{};
        ok = sched_setscheduler(tid, SCHED_OTHER, &param) == 0;
        if (ok)
            setpriority(PRIO_PROCESS, id_t(tid), 0);
    }
    const WatchdogTrip trip{.slot = slot,
                            .tid = tid,
                            .deadlineNs = deadlineNs,
                            .demotedNs = now,
                            .demoted = ok,
                            .atStop = atStop,
                            .ranPastDeadlineNs = ranPastDeadlineNs};
    const uint32_t logged = m_tripsLogged.load(std::memory_order_relaxed);
    if (logged < kMaxTrips) {
        m_trips[logged] = trip;
        m_tripsLogged.store(logged + 1, std::memory_order_release);
    }
    s.trips.fetch_add(1, std::memory_order_acq_rel);
}

} // namespace rtscope
