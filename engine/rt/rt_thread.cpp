#include "engine/rt/rt_thread.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/memory_lock.h"
#include "engine/rt/rt_environment.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <algorithm>
#include <alloca.h>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

namespace rtscope {

namespace {

// Counted per thread so a spinning wait can see that a stop request reached *its* thread. A constinit
// thread_local of a static library linked into the executable uses the local-exec TLS model: no lazy
// allocation, so touching it in a signal handler is async-signal-safe.
constinit thread_local volatile sig_atomic_t t_wakeSignals = 0;

void onWakeSignal(int)
{
    t_wakeSignals = t_wakeSignals + 1;
}

// Signals raised synchronously by a faulting instruction: blocking them is undefined (sigprocmask(2)), and the
// sanitizers report through SIGSEGV/SIGBUS, so they stay deliverable everywhere.
constexpr int kSynchronousSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};

sigset_t workerSignalMask(bool alsoBlockWake)
{
    sigset_t set;
    sigfillset(&set);
    for (int sig : kSynchronousSignals)
        sigdelset(&set, sig);
    if (!alsoBlockWake)
        sigdelset(&set, wakeSignal());
    return set;
}

size_t pageSize()
{
    static const size_t size = size_t(sysconf(_SC_PAGESIZE));
    return size;
}

size_t minimumStack()
{
    const long m = sysconf(_SC_THREAD_STACK_MIN);
    return m > 0 ? size_t(m) : size_t(PTHREAD_STACK_MIN);
}

struct StackRegion {
    uintptr_t low = 0;
    size_t bytes = 0;
    bool locked = false;
};

// Touches @p bytes of stack below the current frame page by page, so the body's deepest frames are already
// mapped, and locks them when asked. The range is handed back as an integer: GCC replaces a returned
// pointer to a dead alloca() area with null.
[[gnu::noinline]] void prefaultStack(size_t bytes, bool lock, StackRegion& out)
{
    if (bytes == 0)
        return;
    auto* area = static_cast<volatile char*>(alloca(bytes));
    for (size_t off = 0; off < bytes; off += pageSize())
        area[off] = 0;
    area[bytes - 1] = 0;
    out.low = reinterpret_cast<uintptr_t>(const_cast<char*>(area));
    out.bytes = bytes;
    if (lock)
        out.locked = lockRange(const_cast<char*>(area), bytes, false);
}

std::string threadName(const ThreadSpec& spec)
{
    return spec.name.empty() ? std::string("thread") : "thread '" + spec.name + "'";
}

std::string threadWhat(const ThreadSpec& spec)
{
    std::string what = threadName(spec);
    what += std::string(" as ") + policyKernelName(spec.policy);
    if (isRealtime(spec.policy))
        what += " priority " + std::to_string(spec.priority);
    else if (isDeadline(spec.policy))
        what += " " + deadlineText(spec.deadline);
    else if (spec.nice != 0)
        what += " nice " + std::to_string(spec.nice);
    return what;
}

Error cpuError(const ThreadSpec& spec, const char* why)
{
    const std::vector<int> allowed = cpusForNewThreads();
    return {ErrorKind::Unavailable, "Cannot pin " + threadWhat(spec) + " to CPU " + std::to_string(spec.cpu) + ": " +
                                        why + "; the CPUs this process may use are " + formatCpuListOrNone(allowed) +
                                        " (choose one of them, or widen the cpuset/affinity)."};
}

// Checks made before asking the kernel, so that the error can say which value is wrong; the kernel still
// has the last word (a cpuset change can race with us) and its errno goes through explainSchedulingError.
Error validateSpec(const ThreadSpec& spec)
{
    if (isRealtime(spec.policy) &&
        (spec.priority < priorityMin(spec.policy) || spec.priority > priorityMax(spec.policy)))
        return explainSchedulingError(EINVAL, spec);
    if (isDeadline(spec.policy)) {
        if (auto problems = deadlineProblems(spec.deadline, DeadlineLimits::read()); !problems.empty())
            return {ErrorKind::InvalidConfig, "Cannot run " + threadWhat(spec) + ": " + joinErrors(problems) + "."};
    } else if (!isRealtime(spec.policy) && (spec.nice < -20 || spec.nice > 19)) {
        return explainSchedulingError(EINVAL, spec);
    }
    if (spec.cpu >= 0) {
        const std::vector<int> online = onlineCpuList();
        if (spec.cpu >= CPU_SETSIZE || (!online.empty() && !std::ranges::binary_search(online, spec.cpu)))
            return cpuError(spec, "that CPU is not online");
        const std::vector<int> allowed = cpusForNewThreads();
        if (!allowed.empty() && !std::ranges::binary_search(allowed, spec.cpu))
            return cpuError(spec, "that CPU is outside this process's cpuset");
    }
    return {};
}

// The root-domain rule (docs/rt-privileges.md, "SCHED_DEADLINE"): the kernel admits a deadline task only when
// its affinity spans its root domain, so the thread first widens the affinity it inherited (the GUI and the CLI
// narrow their own threads while a run loads a CPU) to every online CPU; the kernel intersects that with the
// cpuset. Then the policy, set by the thread itself so that a refusal is known before the body runs.
Error becomeDeadline(pid_t tid, const ThreadSpec& spec)
{
    cpu_set_t wide;
    CPU_ZERO(&wide);
    const std::vector<int> online = onlineCpuList();
    for (int c : online)
        if (c >= 0 && c < CPU_SETSIZE)
            CPU_SET(c, &wide);
    if (!online.empty())
        sched_setaffinity(0, sizeof wide, &wide); // a failure shows up below as the kernel's EPERM
    int err = 0;
    if (spec.overruns) {
        // The handler and this thread's slot first: from the flag on, an overrun sends SIGXCPU, whose default
        // action would end the process.
        countDeadlineOverrunsInto(&spec.overruns->overruns);
        const char* why = nullptr;
        err = setDeadlineSchedulingCountingOverruns(tid, spec.deadline, why);
        if (err != 0)
            why = "not counted: the thread did not become SCHED_DEADLINE";
        spec.overruns->notCounted.store(why, std::memory_order_release);
        spec.overruns->counted.store(why == nullptr, std::memory_order_release);
    } else {
        err = setDeadlineScheduling(tid, spec.deadline);
    }
    if (err == 0)
        return {};
    cpu_set_t now;
    CPU_ZERO(&now);
    const bool narrow =
        sched_getaffinity(0, sizeof now, &now) == 0 && !online.empty() && CPU_COUNT(&now) < int(online.size());
    const ErrorKind kind = err == EPERM && !narrow ? ErrorKind::Permission
                           : err == EINVAL         ? ErrorKind::InvalidConfig
                                                   : ErrorKind::Unavailable;
    return {kind, explainDeadlineError(err, spec.deadline, threadName(spec), narrow)};
}

std::mutex g_grantMutex;
std::shared_ptr<RealtimeGrant> g_grant; // guarded by g_grantMutex

} // namespace

void setRealtimeGrant(std::shared_ptr<RealtimeGrant> grant)
{
    std::lock_guard lock(g_grantMutex);
    g_grant = std::move(grant);
}

std::shared_ptr<RealtimeGrant> realtimeGrant()
{
    std::lock_guard lock(g_grantMutex);
    return g_grant;
}

int wakeSignal()
{
    // glibc keeps the first two RT signals for itself (SIGCANCEL, SIGSETXID) and SIGRTMIN already accounts for
    // them; the top of the range is far from anything a library is likely to claim.
    return SIGRTMAX - 1;
}

void setSignalHandler(int sig, void (*handler)(int), int flags)
{
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = flags;
    sigaction(sig, &sa, nullptr);
}

void installWakeSignalHandler()
{
    static std::once_flag once;
    // No SA_RESTART: the whole point is that clock_nanosleep/read/sigwaitinfo return EINTR.
    std::call_once(once, [] { setSignalHandler(wakeSignal(), onWakeSignal, 0); });
}

unsigned wakeSignalCount()
{
    return unsigned(t_wakeSignals);
}

sigset_t stopSignalSet()
{
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kStopSignals)
        sigaddset(&set, sig);
    return set;
}

int waitForStopSignal(int timeoutMs)
{
    const sigset_t set = stopSignalSet();
    timespec ts{timeoutMs / 1000, long(timeoutMs % 1000) * 1'000'000};
    const int sig = sigtimedwait(&set, nullptr, &ts);
    return sig > 0 ? sig : 0;
}

bool stopSignalPending()
{
    sigset_t pending;
    if (sigpending(&pending) != 0)
        return false;
    for (int sig : kStopSignals)
        if (sigismember(&pending, sig) == 1)
            return true;
    return false;
}

void blockProcessSignals(bool alsoBlockWake)
{
    installWakeSignalHandler();
    const sigset_t set = workerSignalMask(alsoBlockWake);
    pthread_sigmask(SIG_SETMASK, &set, nullptr);
}

struct RtThread::State {
    ThreadSpec spec;
    std::function<void(const std::atomic<bool>&)> body;
    pthread_t thread{};
    bool joinable = false; // touched by the owning thread only

    std::atomic<bool> stop{false};
    std::atomic<pid_t> tid{0};

    enum class Phase { Starting, Running, Failed, Done };
    /// The thread has returned or is returning: its body ended (Done) or never ran (Failed, a launch()ed thread's
    /// own set-up refused). Only the join is left.
    static bool over(Phase p) { return p == Phase::Done || p == Phase::Failed; }
    std::mutex mutex;
    std::condition_variable changed;
    Phase phase = Phase::Starting;
    Error setupError;
    // Set when the kernel refused the spec's real-time policy with EPERM and the thread was created SCHED_OTHER to
    // ask this grant for it before the body runs; `granted` once it did.
    std::shared_ptr<RealtimeGrant> grant;
    bool granted = false;

    // The grant's answer, read back from the kernel: the granter picks the policy (rtkit: the one it was started
    // with), so the spec records what the thread really runs as.
    Error askGrant(pid_t tid)
    {
        const Error refused = explainSchedulingError(EPERM, spec);
        if (Error e = grant->makeRealtime(tid, spec.priority))
            return {ErrorKind::Permission, refused.message + " " + grant->describe() + " refused too: " + e.message};
        const SchedState got = schedulingOf(tid);
        if (!isRealtime(got.policy))
            return {ErrorKind::Permission, refused.message + " " + grant->describe() +
                                               " answered yes, but the thread is still " +
                                               policyKernelName(got.policy) + "."};
        spec.policy = got.policy;
        spec.priority = got.priority;
        granted = true;
        return {};
    }

    void setPhase(Phase p)
    {
        {
            std::lock_guard lock(mutex);
            phase = p;
        }
        changed.notify_all();
    }
    Phase currentPhase()
    {
        std::lock_guard lock(mutex);
        return phase;
    }

    static void* entry(void* arg);
};

void* RtThread::State::entry(void* arg)
{
    State& s = *static_cast<State*>(arg);
    // The thread was created with every signal blocked (see start()); let only the wake signal in.
    sigset_t wake;
    sigemptyset(&wake);
    sigaddset(&wake, wakeSignal());
    pthread_sigmask(SIG_UNBLOCK, &wake, nullptr);

    const pid_t tid = gettid();
    s.tid.store(tid, std::memory_order_release);
    if (!s.spec.name.empty())
        pthread_setname_np(pthread_self(), s.spec.name.substr(0, 15).c_str());

    if (s.grant) {
        if (Error e = s.askGrant(tid)) {
            {
                std::lock_guard lock(s.mutex);
                s.setupError = std::move(e);
            }
            s.setPhase(Phase::Failed);
            return nullptr;
        }
    } else if (isDeadline(s.spec.policy)) {
        if (Error e = becomeDeadline(tid, s.spec)) {
            {
                std::lock_guard lock(s.mutex);
                s.setupError = std::move(e);
            }
            s.setPhase(Phase::Failed);
            return nullptr;
        }
    } else if (!isRealtime(s.spec.policy)) {
        // Nice is a per-thread attribute on Linux (setpriority(2) BUGS), and pthread attributes have no slot
        // for it, so the thread sets its own before the body runs.
        if (setpriority(PRIO_PROCESS, id_t(tid), s.spec.nice) != 0) {
            const int err = errno;
            {
                std::lock_guard lock(s.mutex);
                s.setupError = explainSchedulingError(err, s.spec);
            }
            s.setPhase(Phase::Failed);
            return nullptr;
        }
    }

    StackRegion stack;
    const bool lock = s.spec.lockStack && memoryLockStatus().mode != MemoryLockMode::All;
    const size_t margin = 32 * 1024; // entry frames, TLS and the TCB live at the top of the same mapping
    const size_t usable = s.spec.stackBytes > margin ? s.spec.stackBytes - margin : 0;
    prefaultStack(std::min(s.spec.prefaultBytes, usable), lock, stack);

    s.setPhase(Phase::Running);
    s.body(s.stop);

    if (stack.locked)
        unlockRange(reinterpret_cast<void*>(stack.low), stack.bytes);
    s.setPhase(Phase::Done);
    return nullptr;
}

RtThread::RtThread()
    : m_state(std::make_unique<State>())
{}

RtThread::~RtThread()
{
    stop();
}

RtThread::RtThread(RtThread&& other) noexcept
    : m_state(std::move(other.m_state))
{}

RtThread& RtThread::operator=(RtThread&& other) noexcept
{
    if (this != &other) {
        stop();
        m_state = std::move(other.m_state);
    }
    return *this;
}

Error RtThread::start(const ThreadSpec& requested, std::function<void(const std::atomic<bool>& stop)> body)
{
    if (Error e = create(requested, std::move(body), false))
        return e;
    State& s = *m_state;
    std::unique_lock lock(s.mutex);
    s.changed.wait(lock, [&s] { return s.phase != State::Phase::Starting; });
    if (s.phase == State::Phase::Failed) {
        Error e = s.setupError;
        lock.unlock();
        pthread_join(s.thread, nullptr);
        s.joinable = false;
        return e;
    }
    return {};
}

Error RtThread::check(const ThreadSpec& spec)
{
    return validateSpec(spec);
}

Error RtThread::launch(const ThreadSpec& requested, std::function<void(const std::atomic<bool>& stop)> body,
                       bool checked)
{
    if (isRealtime(requested.policy) || isDeadline(requested.policy))
        return {ErrorKind::InvalidConfig, "Thread '" + requested.name +
                                              "': only SCHED_OTHER, BATCH and IDLE threads are launched without "
                                              "waiting for them; start() the real-time ones."};
    if (Error e = create(requested, std::move(body), checked))
        return e;
    // The thread has not run yet: named here, so that it is known by its name from now on, as after start().
    if (!m_state->spec.name.empty())
        pthread_setname_np(m_state->thread, m_state->spec.name.substr(0, 15).c_str());
    return {};
}

Error RtThread::create(const ThreadSpec& requested, std::function<void(const std::atomic<bool>& stop)> body,
                       bool checked)
{
    if (!m_state)
        m_state = std::make_unique<State>();
    if (m_state->joinable && State::over(m_state->currentPhase()))
        stop(); // the body returned on its own (or a launch()ed thread's set-up failed): only the join is left
    if (m_state->joinable)
        return {ErrorKind::InvalidConfig, "Thread '" + requested.name + "' is already running; stop it first."};
    if (!checked)
        if (Error e = validateSpec(requested))
            return e;
    installWakeSignalHandler();

    // A fresh State per run: a previous run's flags and error must not leak into this one.
    m_state = std::make_unique<State>();
    State& s = *m_state;
    s.spec = requested;
    if (!isRealtime(s.spec.policy))
        s.spec.priority = 0;
    // A deadline thread starts as SCHED_OTHER and unpinned; it takes its policy itself (becomeDeadline).
    const bool deadline = isDeadline(s.spec.policy);
    s.body = std::move(body);

    size_t stackBytes = std::max(s.spec.stackBytes, minimumStack());
#ifdef RTSCOPE_SANITIZED
    // Sanitizers pad every frame with redzones and shadow bookkeeping; a stack sized for the plain build
    // overflows under them.
    stackBytes *= 4;
#endif
    stackBytes = (stackBytes + pageSize() - 1) / pageSize() * pageSize();

    const auto create = [&s, stackBytes, deadline](int kernelPolicy, int priority) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, stackBytes);
        // EXPLICIT_SCHED: without it the policy below is silently ignored and the creator's is inherited.
        pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&attr, kernelPolicy);
        sched_param param{};
        param.sched_priority = priority;
        pthread_attr_setschedparam(&attr, &param);
        if (s.spec.cpu >= 0 && !deadline) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(s.spec.cpu, &set);
            // glibc applies the affinity and then the policy to the new thread before it runs its first
            // instruction, and reports either failure as pthread_create's return value.
            pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        }

        // Create the thread with every signal blocked so that nothing aimed at the process can land on it before
        // its own mask is in place; the creator's mask is restored right after.
        const sigset_t all = workerSignalMask(true);
        sigset_t previous;
        pthread_sigmask(SIG_SETMASK, &all, &previous);
        const int result = pthread_create(&s.thread, &attr, &State::entry, &s);
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        pthread_attr_destroy(&attr);
        return result;
    };
    int rc = create(deadline ? SCHED_OTHER : policyToKernel(s.spec.policy), s.spec.priority);
    // The kernel refused the real-time policy: a grantable thread starts SCHED_OTHER and asks the grant before
    // its body runs (State::askGrant); without a grant, or when it refuses too, the error says why.
    if (rc == EPERM && s.spec.grantable && isRealtime(s.spec.policy))
        if ((s.grant = realtimeGrant()))
            rc = create(SCHED_OTHER, 0);

    if (rc != 0) {
        if (rc == EINVAL && s.spec.cpu >= 0 && !validateSpec(s.spec))
            return cpuError(s.spec, "the kernel refused that affinity (EINVAL)");
        if (rc == EAGAIN)
            return {ErrorKind::System, "Cannot create " + threadWhat(s.spec) +
                                           ": out of threads or memory (EAGAIN); with mlockall in force every "
                                           "new stack counts against RLIMIT_MEMLOCK."};
        return explainSchedulingError(rc, s.spec);
    }
    s.joinable = true;
    return {};
}

bool RtThread::stop(int timeoutMs)
{
    if (!m_state || !m_state->joinable)
        return true;
    State& s = *m_state;
    s.stop.store(true, std::memory_order_release);

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(timeoutMs, 0));
    bool inTime = true;
    {
        std::unique_lock lock(s.mutex);
        while (!State::over(s.phase)) {
            // Re-sent every 2 ms: a body that checked its flag just before we set it may be entering its wait
            // right now, after the previous signal has already been handled.
            pthread_kill(s.thread, wakeSignal());
            s.changed.wait_for(lock, std::chrono::milliseconds(2));
            if (!State::over(s.phase) && inTime && std::chrono::steady_clock::now() >= deadline) {
                inTime = false;
                // A body that ignores its flag must at least stop hogging the CPU; we keep waiting for it
                // rather than detach, because its stack and state belong to us.
                lock.unlock();
                demote();
                lock.lock();
            }
        }
    }
    pthread_join(s.thread, nullptr);
    s.joinable = false;
    return inTime;
}

void RtThread::requestStop()
{
    if (!m_state || !m_state->joinable)
        return;
    m_state->stop.store(true, std::memory_order_release);
    std::lock_guard lock(m_state->mutex);
    if (!State::over(m_state->phase))
        pthread_kill(m_state->thread, wakeSignal());
}

bool RtThread::stopAll(const std::vector<RtThread*>& threads, int timeoutMs)
{
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::milliseconds(std::max(timeoutMs, 0));
    for (RtThread* t : threads)
        if (t)
            t->requestStop();
    // Poll rather than wait on each thread in turn: the caller wakes once per millisecond, not once per thread.
    for (;;) {
        bool pending = false;
        for (RtThread* t : threads)
            if (t && t->m_state && t->m_state->joinable && !State::over(t->m_state->currentPhase())) {
                pending = true;
                pthread_kill(t->m_state->thread, wakeSignal()); // re-sent, as stop() does
            }
        if (!pending || std::chrono::steady_clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    bool inTime = true;
    for (RtThread* t : threads) {
        if (!t)
            continue;
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        inTime = t->stop(int(std::max<int64_t>(0, left.count()))) && inTime;
    }
    return inTime;
}

Error RtThread::setScheduling(Policy policy, int priority, int nice, const DeadlineParams& deadline)
{
    if (!running())
        return {ErrorKind::InvalidConfig, "Cannot change the scheduling of a thread that is not running."};
    ThreadSpec wanted = m_state->spec;
    wanted.policy = policy;
    wanted.priority = isRealtime(policy) ? priority : 0;
    wanted.nice = isDeadline(policy) ? 0 : nice;
    wanted.deadline = isDeadline(policy) ? deadline : DeadlineParams{};
    wanted.cpu = -1; // only the policy is being changed here
    if (Error e = validateSpec(wanted))
        return e;
    const pid_t tid = m_state->tid.load(std::memory_order_acquire);
    if (isDeadline(policy)) {
        // The thread's affinity is not touched from outside: a thread started pinned stays pinned, and the kernel's
        // EPERM for it is explained as the root-domain rule.
        if (const int err = setDeadlineScheduling(tid, deadline)) {
            cpu_set_t now;
            CPU_ZERO(&now);
            const bool narrow =
                sched_getaffinity(tid, sizeof now, &now) == 0 && CPU_COUNT(&now) < int(onlineCpuList().size());
            return {err == EPERM && !narrow ? ErrorKind::Permission : ErrorKind::Unavailable,
                    explainDeadlineError(err, deadline, threadName(wanted), narrow)};
        }
        m_state->spec.policy = wanted.policy;
        m_state->spec.priority = 0;
        m_state->spec.nice = 0;
        m_state->spec.deadline = deadline;
        return {};
    }
    sched_param param{};
    param.sched_priority = wanted.priority;
    // sched_setscheduler on the tid rather than pthread_setschedparam: glibc reads the tid from the thread
    // descriptor, which the kernel zeroes when the thread exits, and 0 would mean "the calling thread".
    if (sched_setscheduler(tid, policyToKernel(policy), &param) != 0)
        return explainSchedulingError(errno, wanted);
    if (!isRealtime(policy) && setpriority(PRIO_PROCESS, id_t(tid), nice) != 0)
        return explainSchedulingError(errno, wanted);
    m_state->spec.policy = wanted.policy;
    m_state->spec.priority = wanted.priority;
    m_state->spec.nice = wanted.nice;
    m_state->spec.deadline = {};
    return {};
}

void RtThread::demote()
{
    if (!m_state)
        return;
    const pid_t tid = m_state->tid.load(std::memory_order_acquire);
    if (tid <= 0 || m_state->currentPhase() != State::Phase::Running)
        return;
    // sched_setattr sets SCHED_OTHER and nice 0 in one call, from any policy including SCHED_DEADLINE; the older
    // calls remain for a kernel without it (raising nice needs no privilege, lowering it would).
    if (setOtherScheduling(tid) != 0) {
        sched_param param{};
        sched_setscheduler(tid, SCHED_OTHER, &param);
        setpriority(PRIO_PROCESS, id_t(tid), 0);
    }
}

bool RtThread::running() const
{
    return m_state && m_state->joinable && m_state->currentPhase() == State::Phase::Running;
}

pid_t RtThread::tid() const
{
    return m_state ? m_state->tid.load(std::memory_order_acquire) : 0;
}

const ThreadSpec& RtThread::spec() const
{
    static const ThreadSpec empty;
    return m_state ? m_state->spec : empty;
}

bool RtThread::granted() const
{
    return m_state && m_state->granted;
}

Error explainSchedulingError(int err, const ThreadSpec& spec)
{
    const std::string what = "Cannot run " + threadWhat(spec);
    if (err == EINVAL) {
        if (isRealtime(spec.policy)) {
            const int lo = priorityMin(spec.policy), hi = priorityMax(spec.policy);
            if (spec.priority < lo || spec.priority > hi)
                return {ErrorKind::InvalidConfig, what + ": priority " + std::to_string(spec.priority) +
                                                      " is out of range; " + policyKernelName(spec.policy) +
                                                      " accepts priorities " + std::to_string(lo) + ".." +
                                                      std::to_string(hi) + "."};
        } else if (spec.nice < -20 || spec.nice > 19) {
            return {ErrorKind::InvalidConfig,
                    what + ": nice " + std::to_string(spec.nice) + " is out of range; nice accepts -20..19."};
        }
        if (spec.cpu >= 0)
            return cpuError(spec, "the kernel refused that CPU (EINVAL)");
        return {ErrorKind::InvalidConfig, what + ": the kernel rejected the parameters (EINVAL)."};
    }
    if (err != EPERM && err != EACCES)
        return {ErrorKind::System, what + ": " + errnoName(err) + " (" + std::strerror(err) + ")."};

    const bool capNice = hasEffectiveCapability(kCapSysNice);
    std::string message = what + ": permission denied (" + errnoName(err) + "). ";
    if (!isRealtime(spec.policy)) {
        // Lowering nice below the current value needs CAP_SYS_NICE or RLIMIT_NICE (setpriority(2) EACCES).
        const Limit nl = resourceLimit(RLIMIT_NICE);
        message += "A negative nice needs CAP_SYS_NICE (" + std::string(capNice ? "present" : "missing") +
                   ") or RLIMIT_NICE of at least " + std::to_string(20 - spec.nice) + " (soft " + formatLimit(nl.soft) +
                   ", hard " + formatLimit(nl.hard) + "); fix: add '@rtscope - nice " + std::to_string(spec.nice) +
                   "' to /etc/security/limits.d/99-rtscope.conf, add your user to group rtscope, log in again "
                   "— or run as root.";
        return {ErrorKind::Permission, message};
    }

    std::vector<std::string> causes;
    if (const auto budget = cgroupRtBudget(); budget && budget->runtimeUs == 0)
        causes.push_back("RT group scheduling gives this process's cgroup no real-time budget (" + budget->file +
                         " is 0); fix: write a budget there (e.g. 'echo 950000 > " + budget->file +
                         "' as root, after giving its parents one) or start rtscope from the root cpu cgroup");
    if (const auto runtime = readIntegerFile("/proc/sys/kernel/sched_rt_runtime_us"); runtime && *runtime == 0)
        causes.push_back("/proc/sys/kernel/sched_rt_runtime_us is 0, so no real-time task may run; fix: "
                         "'sysctl -w kernel.sched_rt_runtime_us=950000' as root");
    const Limit rl = resourceLimit(RLIMIT_RTPRIO);
    if (!capNice && rl.soft >= 0 && rl.soft < spec.priority) {
        std::string c = "this process lacks CAP_SYS_NICE and its RLIMIT_RTPRIO is " + formatLimit(rl.soft) +
                        " (soft) / " + formatLimit(rl.hard) + " (hard), below the requested priority " +
                        std::to_string(spec.priority) +
                        "; fix: add '@rtscope - rtprio 98' and '@rtscope - memlock unlimited' to "
                        "/etc/security/limits.d/99-rtscope.conf, add your user to group rtscope, log in again "
                        "— or run as root";
        if (rl.hard < 0 || rl.hard >= spec.priority)
            c += " (the hard limit already allows it: 'ulimit -r " + std::to_string(spec.priority) +
                 "' in the launching shell is enough)";
        causes.push_back(c);
    }
    if (causes.empty())
        causes.push_back(
            std::string(capNice ? "CAP_SYS_NICE is present" : "RLIMIT_RTPRIO allows this priority") +
            ", so something else refuses it: RT group scheduling with no budget for a cgroup v2 group (start "
            "rtscope from the root cgroup), or a container/security policy (e.g. run the container with "
            "--cap-add=SYS_NICE and an RT runtime such as --cpu-rt-runtime=950000)");
    for (size_t i = 0; i < causes.size(); ++i)
        message += (i ? "; also, " : "Cause: ") + causes[i];
    message += '.';
    return {ErrorKind::Permission, message};
}

Error tryThreadSpec(const ThreadSpec& spec)
{
    ThreadSpec quick = spec;
    quick.prefaultBytes = 0; // nothing runs on it: no stack to fault in or lock
    quick.lockStack = false;
    RtThread probe;
    Error e = probe.start(quick, [](const std::atomic<bool>&) {});
    probe.stop();
    return e;
}

SchedState schedulingOf(pid_t tid)
{
    SchedState st;
    // Without SCHED_RESET_ON_FORK, which rtkit sets on every thread it makes real-time: the policy is the rest.
    const int policy = sched_getscheduler(tid);
    if (policy >= 0)
        st.policy = policyFromKernel(policy & ~SCHED_RESET_ON_FORK).value_or(Policy::Other);
    sched_param param{};
    if (sched_getparam(tid, &param) == 0)
        st.priority = param.sched_priority;
    // getpriority() may legitimately return -1, so errno is the only failure signal (getpriority(2)).
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, id_t(tid));
    if (errno == 0)
        st.nice = nice;
    return st;
}

} // namespace rtscope
