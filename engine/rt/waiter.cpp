#include "engine/rt/waiter.h"

#include "engine/rt/rt_environment.h"
#include "engine/rt/rt_thread.h"
#include "engine/util/clock.h"
#include "engine/util/name_list.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace rtscope {

namespace {

// The POSIX timer's signal: thread-directed (SIGEV_THREAD_ID) and queued, so the overrun count is exact. Just
// below the wake signal, away from the low RT signals that glibc and other libraries hand out.
int posixTimerSignal()
{
    return SIGRTMAX - 2;
}

bool stopRequested(const std::atomic<bool>* flag)
{
    return flag && flag->load(std::memory_order_relaxed);
}

WaitResult interruptedAt(int64_t deadlineNs)
{
    WaitResult r;
    r.deadlineNs = deadlineNs;
    r.wakeNs = nowNs();
    r.interrupted = true;
    return r;
}

WaitResult failedAt(int64_t deadlineNs, int err)
{
    WaitResult r;
    r.deadlineNs = deadlineNs;
    r.wakeNs = nowNs();
    r.error = err;
    return r;
}

Error systemError(const char* call, int err)
{
    return {ErrorKind::System, std::string(call) + " failed: " + errnoName(err) + " (" + std::strerror(err) + ")"};
}

Error badPeriod(int64_t periodNs)
{
    return {ErrorKind::InvalidConfig, "The period must be positive (got " + std::to_string(periodNs) + " ns)."};
}

void blockInThisThread(int sig)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// Discards instances of @p sig already pending for this thread or the process, so a timer that is re-armed or
// torn down cannot leave a stale tick for the next wait.
void drainPending(int sig)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    const timespec zero{0, 0};
    while (sigtimedwait(&set, nullptr, &zero) == sig) {
    }
}

// The start of a waiter whose timer could not be armed: the call that failed (its errno, read before the teardown
// can change it), after @p w is torn down.
Error stopAfterFailure(Waiter& w, const char* call)
{
    const int err = errno;
    w.stop();
    return systemError(call, err);
}

// Shared by the kinds that wait for their timer's signal with sigwaitinfo (Itimer, Posix): the wait for @p timerSig
// or the wake signal. Empty when the timer's signal came; otherwise the interrupted or failed wait for @p deadline.
std::optional<WaitResult> awaitTimerSignal(int timerSig, int64_t deadline)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, timerSig);
    sigaddset(&set, wakeSignal());
    const int sig = sigwaitinfo(&set, nullptr);
    if (sig < 0 && errno == EINTR)
        return interruptedAt(deadline);
    if (sig < 0)
        return failedAt(deadline, errno);
    if (sig != timerSig)
        return interruptedAt(deadline);
    return std::nullopt;
}

// Shared by the kinds whose kernel timer counts its expirations (Timerfd, Posix): tick k is due at t0 + k·P, and a
// wake-up answers the latest tick that expired.
struct KernelTicks {
    int64_t t0 = 0;
    int64_t period = 0;
    int64_t consumed = 0; // expirations consumed so far

    // A new schedule from @p firstNs: the absolute timer setting that arms it.
    itimerspec restart(int64_t firstNs, int64_t periodNs)
    {
        t0 = firstNs;
        period = periodNs;
        consumed = 0;
        itimerspec spec{};
        spec.it_value = toTimespec(firstNs);
        spec.it_interval = toTimespec(periodNs);
        return spec;
    }

    // The tick the next wake-up is expected for.
    int64_t expected() const { return t0 + consumed * period; }

    // The wake-up at @p wakeNs after @p expirations (at least 1) more ticks expired.
    WaitResult wokeAt(int64_t wakeNs, uint64_t expirations)
    {
        WaitResult r;
        r.wakeNs = wakeNs;
        consumed += int64_t(expirations);
        r.deadlineNs = t0 + (consumed - 1) * period;
        r.skipped = uint32_t(std::min<uint64_t>(expirations - 1, UINT32_MAX));
        return r;
    }
};

// Shared by the kinds that keep their own schedule t0 + k·P (Absolute, Itimer, Busy): after the wake-up for
// m_next, move to the next tick and skip, counting them, the ticks whose time has already passed.
struct Schedule {
    int64_t next = 0;
    int64_t period = 0;

    uint32_t advancePast(int64_t wakeNs)
    {
        next += period;
        if (next > wakeNs)
            return 0;
        const int64_t missed = (wakeNs - next) / period + 1;
        next += missed * period;
        return uint32_t(std::min<int64_t>(missed, UINT32_MAX));
    }
};

// Every kind: the flag (none when null) that, once set, interrupts a wait.
class InterruptibleWaiter : public Waiter {
public:
    explicit InterruptibleWaiter(const std::atomic<bool>* interrupt)
        : m_interrupt(interrupt)
    {}

protected:
    const std::atomic<bool>* m_interrupt;
};

// The kinds that keep their own schedule and nothing else to set up or tear down (Absolute, Busy): the start, a
// new period and the result of a wake-up are theirs in common; each kind's waitNext() is its own.
class ScheduledWaiter : public InterruptibleWaiter {
public:
    using InterruptibleWaiter::InterruptibleWaiter;

    Error start(int64_t firstDeadlineNs, int64_t periodNs) override
    {
        if (periodNs <= 0)
            return badPeriod(periodNs);
        m_schedule = {firstDeadlineNs, periodNs};
        return {};
    }

    void setPeriod(int64_t periodNs) override
    {
        if (periodNs > 0)
            m_schedule = {nowNs() + periodNs, periodNs};
    }

    void stop() override {}

protected:
    // The wake-up at @p wakeNs for the tick due at @p deadline; the schedule moves past it and the ticks missed.
    WaitResult wokeAt(int64_t wakeNs, int64_t deadline)
    {
        WaitResult r;
        r.wakeNs = wakeNs;
        r.deadlineNs = deadline;
        r.skipped = m_schedule.advancePast(wakeNs);
        return r;
    }

    Schedule m_schedule;
};

class AbsoluteWaiter final : public ScheduledWaiter {
public:
    using ScheduledWaiter::ScheduledWaiter;
    WaiterKind kind() const override { return WaiterKind::Absolute; }

    WaitResult waitNext() override
    {
        const int64_t deadline = m_schedule.next;
        if (stopRequested(m_interrupt))
            return interruptedAt(deadline);
        const timespec ts = toTimespec(deadline);
        // clock_nanosleep returns the error number instead of setting errno (clock_nanosleep(2)).
        const int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
        if (rc == EINTR)
            return interruptedAt(deadline);
        if (rc != 0)
            return failedAt(deadline, rc);
        return wokeAt(nowNs(), deadline);
    }
};

class RelativeWaiter final : public InterruptibleWaiter {
public:
    using InterruptibleWaiter::InterruptibleWaiter;
    WaiterKind kind() const override { return WaiterKind::Relative; }

    Error start(int64_t firstDeadlineNs, int64_t periodNs) override
    {
        if (periodNs <= 0)
            return badPeriod(periodNs);
        m_period = periodNs;
        m_first = firstDeadlineNs;
        m_haveFirst = true;
        return {};
    }

    WaitResult waitNext() override
    {
        // The naive loop cyclictest -r models: "sleep P from now", whatever time the last wake-up and the work
        // since then took. Only the very first sleep aims at the deadline start() was given.
        const int64_t startNs = nowNs();
        const int64_t sleepNs = m_haveFirst ? std::max<int64_t>(m_first - startNs, 0) : m_period;
        const int64_t deadline = startNs + sleepNs;
        if (stopRequested(m_interrupt))
            return interruptedAt(deadline);
        const timespec ts = toTimespec(sleepNs);
        const int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
        if (rc == EINTR)
            return interruptedAt(deadline);
        if (rc != 0)
            return failedAt(deadline, rc);
        m_haveFirst = false;
        WaitResult r;
        r.wakeNs = nowNs();
        r.deadlineNs = deadline;
        return r;
    }

    void setPeriod(int64_t periodNs) override
    {
        if (periodNs > 0)
            m_period = periodNs;
    }

    void stop() override {}

private:
    int64_t m_period = 0;
    int64_t m_first = 0;
    bool m_haveFirst = false;
};

class TimerfdWaiter final : public InterruptibleWaiter {
public:
    using InterruptibleWaiter::InterruptibleWaiter;
    ~TimerfdWaiter() override { stop(); }
    WaiterKind kind() const override { return WaiterKind::Timerfd; }

    Error start(int64_t firstDeadlineNs, int64_t periodNs) override
    {
        if (periodNs <= 0)
            return badPeriod(periodNs);
        stop();
        m_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        if (m_fd < 0)
            return systemError("timerfd_create", errno);
        if (!arm(firstDeadlineNs, periodNs))
            return stopAfterFailure(*this, "timerfd_settime");
        return {};
    }

    WaitResult waitNext() override
    {
        const int64_t expected = m_ticks.expected();
        if (stopRequested(m_interrupt))
            return interruptedAt(expected);
        uint64_t expirations = 0;
        const ssize_t n = read(m_fd, &expirations, sizeof expirations);
        if (n < 0 && errno == EINTR)
            return interruptedAt(expected);
        if (n != ssize_t(sizeof expirations) || expirations == 0)
            return failedAt(expected, n < 0 ? errno : EIO);
        // The kernel's hrtimer expires exactly at t0 + k·P; read() says how many did since the last read, and
        // the wake-up answers the latest of them.
        return m_ticks.wokeAt(nowNs(), expirations);
    }

    void setPeriod(int64_t periodNs) override
    {
        if (periodNs > 0 && m_fd >= 0)
            arm(nowNs() + periodNs, periodNs);
    }

    void stop() override
    {
        if (m_fd >= 0) {
            close(m_fd);
            m_fd = -1;
        }
    }

private:
    bool arm(int64_t firstNs, int64_t periodNs)
    {
        const itimerspec spec = m_ticks.restart(firstNs, periodNs);
        // Re-arming resets the expiration count, so no tick of the old period leaks into the new schedule.
        return timerfd_settime(m_fd, TFD_TIMER_ABSTIME, &spec, nullptr) == 0;
    }

    int m_fd = -1;
    KernelTicks m_ticks;
};

// ITIMER_REAL exists once per process, so only one Itimer waiter may be armed at a time.
std::atomic<bool> g_itimerInUse{false};
// The thread that waits for SIGALRM, for the handler below.
std::atomic<pid_t> g_itimerWaiterTid{0};

// SIGALRM is process-directed: the kernel hands it to any thread that does not block it. A thread created
// before main() blocked it (a library's helper thread, QTest's watchdog) would otherwise swallow the tick, or
// be killed by the default action. Such a thread runs this handler and passes the signal on to the waiter;
// the waiter itself never runs it, because it keeps SIGALRM blocked and takes it with sigwaitinfo.
void forwardAlarm(int)
{
    const int savedErrno = errno;
    const pid_t tid = g_itimerWaiterTid.load(std::memory_order_relaxed);
    if (tid > 0 && tid != gettid())
        tgkill(getpid(), tid, SIGALRM);
    errno = savedErrno;
}

class ItimerWaiter final : public InterruptibleWaiter {
public:
    using InterruptibleWaiter::InterruptibleWaiter;
    ~ItimerWaiter() override { stop(); }
    WaiterKind kind() const override { return WaiterKind::Itimer; }

    Error start(int64_t firstDeadlineNs, int64_t periodNs) override
    {
        if (periodNs <= 0)
            return badPeriod(periodNs);
        if (periodNs % kNsPerUs != 0)
            return {ErrorKind::InvalidConfig, "setitimer counts in microseconds: the period (" +
                                                  std::to_string(periodNs) + " ns) must be a whole number of µs."};
        stop();
        bool expected = false;
        if (!g_itimerInUse.compare_exchange_strong(expected, true))
            return {ErrorKind::Unavailable,
                    "ITIMER_REAL is process-wide and another itimer waiter is already using it."};
        m_armed = true;
        installWakeSignalHandler();
        // Blocked here so it stays pending for sigwaitinfo (workers block it already; main must call
        // blockProcessSignals before it starts threads); threads that do not block it forward it to us.
        blockInThisThread(SIGALRM);
        g_itimerWaiterTid.store(gettid(), std::memory_order_relaxed);
        struct sigaction old {};
        sigaction(SIGALRM, nullptr, &old);
        // SA_RESTART: the interrupted thread is not ours, so its syscalls must not fail.
        if (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN)
            setSignalHandler(SIGALRM, forwardAlarm, SA_RESTART);
        drainPending(SIGALRM);
        if (!arm(firstDeadlineNs, periodNs))
            return stopAfterFailure(*this, "setitimer");
        return {};
    }

    WaitResult waitNext() override
    {
        const int64_t deadline = m_schedule.next;
        if (stopRequested(m_interrupt))
            return interruptedAt(deadline);
        if (std::optional<WaitResult> notTicked = awaitTimerSignal(SIGALRM, deadline))
            return *notTicked;
        WaitResult r;
        r.wakeNs = nowNs();
        r.deadlineNs = deadline;
        // SIGALRM is a standard signal: ticks that expire while one is pending merge into it, and the kernel
        // forwards the timer past them when it dequeues the signal — before r.wakeNs, by as long as this thread
        // took to get from there to its clock read. The next tick is therefore the kernel's, read back: advancing
        // past r.wakeNs instead would skip a tick that fell in between and take the next signal, one period early,
        // for a later deadline (a wake-up reported ~a period before its deadline, seen under load).
        r.skipped = advanceToKernelTimer(r.wakeNs);
        return r;
    }

    void setPeriod(int64_t periodNs) override
    {
        if (periodNs > 0 && periodNs % kNsPerUs == 0 && m_armed) {
            arm(nowNs() + periodNs, periodNs);
            drainPending(SIGALRM);
        }
    }

    void stop() override
    {
        if (!m_armed)
            return;
        itimerval off{};
        setitimer(ITIMER_REAL, &off, nullptr);
        drainPending(SIGALRM);
        g_itimerWaiterTid.store(0, std::memory_order_relaxed);
        m_armed = false;
        g_itimerInUse.store(false);
    }

private:
    bool arm(int64_t firstNs, int64_t periodNs)
    {
        m_schedule = {firstNs, periodNs};
        // No absolute mode: it_value is relative to the moment the kernel arms the timer, which is after our
        // clock read, and rounding up to a whole µs keeps every kernel tick at or after our t0 + k·P, so a
        // latency is never negative.
        const int64_t delay = std::max<int64_t>(firstNs - nowNs(), 1000);
        itimerval v{};
        const int64_t delayUs = (delay + kNsPerUs - 1) / kNsPerUs;
        v.it_value.tv_sec = time_t(delayUs / 1000000);
        v.it_value.tv_usec = suseconds_t(delayUs % 1000000);
        const int64_t periodUs = periodNs / kNsPerUs;
        v.it_interval.tv_sec = time_t(periodUs / 1000000);
        v.it_interval.tv_usec = suseconds_t(periodUs % 1000000);
        if (setitimer(ITIMER_REAL, &v, nullptr) != 0)
            return false;
        // Where the kernel's ticks fall against ours (t0 + k·P): a few µs later (the rounding up, the time to arm).
        const int64_t expiry = kernelExpiryNs();
        m_kernelOffsetNs = expiry > 0 ? expiry - firstNs : 0;
        return true;
    }

    // The kernel's next expiry of ITIMER_REAL on our clock, 0 when the timer is not running (it fired and the
    // signal is pending: the kernel re-arms it only when the signal is dequeued).
    static int64_t kernelExpiryNs()
    {
        itimerval v{};
        if (getitimer(ITIMER_REAL, &v) != 0)
            return 0;
        const int64_t remaining = int64_t(v.it_value.tv_sec) * 1'000'000'000 + int64_t(v.it_value.tv_usec) * kNsPerUs;
        return remaining > 0 ? nowNs() + remaining : 0;
    }

    // Moves the schedule to the tick the kernel has armed (or, when it has fired already, the latest tick before
    // now) and returns how many of our ticks were skipped on the way.
    uint32_t advanceToKernelTimer(int64_t wakeNs)
    {
        const int64_t deadline = m_schedule.next;
        const int64_t period = m_schedule.period;
        const int64_t expiry = kernelExpiryNs();
        int64_t ticks = 0;
        if (expiry > 0) {
            // Rounded to the nearest of our ticks: the kernel's are m_kernelOffsetNs (µs) after ours.
            ticks = (expiry - m_kernelOffsetNs - deadline + period / 2) / period;
        } else {
            const int64_t now = nowNs();
            ticks = (now - m_kernelOffsetNs - deadline) / period;
        }
        if (ticks < 1)
            return m_schedule.advancePast(wakeNs);
        m_schedule.next = deadline + ticks * period;
        return uint32_t(std::min<int64_t>(ticks - 1, UINT32_MAX));
    }

    Schedule m_schedule;
    int64_t m_kernelOffsetNs = 0;
    bool m_armed = false;
};

class PosixTimerWaiter final : public InterruptibleWaiter {
public:
    using InterruptibleWaiter::InterruptibleWaiter;
    ~PosixTimerWaiter() override { stop(); }
    WaiterKind kind() const override { return WaiterKind::Posix; }

    Error start(int64_t firstDeadlineNs, int64_t periodNs) override
    {
        if (periodNs <= 0)
            return badPeriod(periodNs);
        stop();
        installWakeSignalHandler();
        // Blocked so that it stays pending until sigwaitinfo takes it (workers block it already).
        blockInThisThread(posixTimerSignal());
        drainPending(posixTimerSignal());
        sigevent sev{};
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = posixTimerSignal();
        // glibc 2.36 does not define the sigev_notify_thread_id alias for this union member.
        sev._sigev_un._tid = gettid();
        if (timer_create(CLOCK_MONOTONIC, &sev, &m_timer) != 0)
            return systemError("timer_create", errno);
        m_created = true;
        if (!arm(firstDeadlineNs, periodNs))
            return stopAfterFailure(*this, "timer_settime");
        return {};
    }

    WaitResult waitNext() override
    {
        const int64_t expected = m_ticks.expected();
        if (stopRequested(m_interrupt))
            return interruptedAt(expected);
        if (std::optional<WaitResult> notTicked = awaitTimerSignal(posixTimerSignal(), expected))
            return *notTicked;
        const int64_t wakeNs = nowNs();
        // The timer is re-armed when its signal is dequeued; the periods that expired in the meantime are the
        // overrun (timer_getoverrun(2)). Like timerfd, the wake-up answers the latest expired tick.
        const int overrun = std::max(timer_getoverrun(m_timer), 0);
        return m_ticks.wokeAt(wakeNs, 1 + uint64_t(overrun));
    }

    void setPeriod(int64_t periodNs) override
    {
        if (periodNs > 0 && m_created) {
            arm(nowNs() + periodNs, periodNs);
            drainPending(posixTimerSignal());
        }
    }

    void stop() override
    {
        if (!m_created)
            return;
        timer_delete(m_timer);
        m_created = false;
        drainPending(posixTimerSignal());
    }

private:
    bool arm(int64_t firstNs, int64_t periodNs)
    {
        const itimerspec spec = m_ticks.restart(firstNs, periodNs);
        return timer_settime(m_timer, TIMER_ABSTIME, &spec, nullptr) == 0;
    }

    timer_t m_timer{};
    bool m_created = false;
    KernelTicks m_ticks;
};

class BusyWaiter final : public ScheduledWaiter {
public:
    using ScheduledWaiter::ScheduledWaiter;
    WaiterKind kind() const override { return WaiterKind::Busy; }

    WaitResult waitNext() override
    {
        const int64_t deadline = m_schedule.next;
        // No syscall for the wake signal to interrupt: the spin watches the stop flag (when it has one) and the
        // count of wake signals this thread's handler has taken.
        const unsigned wakes = wakeSignalCount();
        int64_t now = nowNs();
        while (now < deadline) {
            if (stopRequested(m_interrupt) || wakeSignalCount() != wakes)
                return interruptedAt(deadline);
            now = nowNs();
        }
        return wokeAt(now, deadline);
    }
};

constexpr NamedValue<WaiterKind> kWaiterNames[] = {
    {WaiterKind::Absolute, "abs", "absolute clock_nanosleep"},
    {WaiterKind::Relative, "rel", "relative clock_nanosleep"},
    {WaiterKind::Timerfd, "timerfd", "timerfd (periodic)"},
    {WaiterKind::Itimer, "itimer", "setitimer + SIGALRM"},
    {WaiterKind::Posix, "posix", "POSIX timer (timer_create)"},
    {WaiterKind::Busy, "busy", "busy-wait on clock_gettime"},
};

std::string lowered(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

int waiterTimerSignal()
{
    return posixTimerSignal();
}

const char* waiterName(WaiterKind k)
{
    return nameOf(kWaiterNames, k);
}

const char* waiterLabel(WaiterKind k)
{
    return labelOf(kWaiterNames, k);
}

std::string waiterNameList(std::string_view lastJoin)
{
    return nameList(
        kWaiterNames, [](const NamedValue<WaiterKind>& n) { return n.name; }, lastJoin);
}

std::vector<WaiterKind> waiterKinds()
{
    std::vector<WaiterKind> kinds;
    for (const NamedValue<WaiterKind>& n : kWaiterNames)
        kinds.push_back(n.value);
    return kinds;
}

std::optional<WaiterKind> parseWaiter(std::string_view name)
{
    const std::string n = lowered(name);
    if (const std::optional<WaiterKind> k = valueNamed(kWaiterNames, n))
        return k;
    struct Alias {
        const char* alias;
        WaiterKind kind;
    };
    static constexpr Alias kAliases[] = {
        {"absolute", WaiterKind::Absolute}, {"clock_nanosleep", WaiterKind::Absolute},
        {"relative", WaiterKind::Relative}, {"nanosleep", WaiterKind::Relative},
        {"naive", WaiterKind::Relative},    {"setitimer", WaiterKind::Itimer},
        {"sigalrm", WaiterKind::Itimer},    {"timer_create", WaiterKind::Posix},
        {"posix-timer", WaiterKind::Posix}, {"busy-wait", WaiterKind::Busy},
        {"spin", WaiterKind::Busy},
    };
    if (const Alias* a = findRow(kAliases, &Alias::alias, n))
        return a->kind;
    return std::nullopt;
}

std::unique_ptr<Waiter> makeWaiter(WaiterKind kind)
{
    return makeWaiter(kind, nullptr);
}

std::unique_ptr<Waiter> makeWaiter(WaiterKind kind, const std::atomic<bool>* interruptFlag)
{
    switch (kind) {
    case WaiterKind::Absolute:
        return std::make_unique<AbsoluteWaiter>(interruptFlag);
    case WaiterKind::Relative:
        return std::make_unique<RelativeWaiter>(interruptFlag);
    case WaiterKind::Timerfd:
        return std::make_unique<TimerfdWaiter>(interruptFlag);
    case WaiterKind::Itimer:
        return std::make_unique<ItimerWaiter>(interruptFlag);
    case WaiterKind::Posix:
        return std::make_unique<PosixTimerWaiter>(interruptFlag);
    case WaiterKind::Busy:
        return std::make_unique<BusyWaiter>(interruptFlag);
    }
    return nullptr;
}

bool setTimerSlack(int64_t ns)
{
    if (ns < 0)
        return false;
    // 0 asks the kernel for the thread's default slack back (prctl(2) PR_SET_TIMERSLACK).
    return prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(ns), 0, 0, 0) == 0;
}

int64_t timerSlack()
{
    const int v = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    return v < 0 ? 0 : int64_t(v);
}

} // namespace rtscope
