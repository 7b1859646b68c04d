#include "engine/rt/sched_deadline.h"

#include "engine/rt/rt_environment.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/throttle_settings.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace rtscope {

namespace {

// The kernel's struct sched_attr (include/uapi/linux/sched/types.h), declared here because glibc 2.36 has neither
// the struct nor a wrapper. `size` tells the kernel which version we speak; this is SCHED_ATTR_SIZE_VER1 (56).
struct SchedDeadlineAttr {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
    uint32_t utilMin;
    uint32_t utilMax;
};
static_assert(sizeof(SchedDeadlineAttr) == 56);

std::string pct(double share)
{
    return formatFixed(share * 100.0, 1) + " %";
}

std::vector<std::string> listDir(const std::string& path)
{
    std::vector<std::string> names;
    if (DIR* d = opendir(path.c_str())) {
        while (dirent* e = readdir(d))
            if (e->d_name[0] != '.')
                names.emplace_back(e->d_name);
        closedir(d);
    }
    return names;
}

bool allDigits(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The policy field of /proc/<pid>/task/<tid>/stat (41st field, counted after the parenthesised comm, which may
// itself contain spaces and parentheses).
int statPolicy(const std::string& statLine)
{
    const size_t close = statLine.rfind(')');
    if (close == std::string::npos)
        return -1;
    int field = 2; // the comm was field 2
    size_t i = close + 1;
    while (i < statLine.size()) {
        while (i < statLine.size() && statLine[i] == ' ')
            ++i;
        if (i >= statLine.size())
            break;
        ++field;
        const size_t end = statLine.find(' ', i);
        if (field == 41)
            return std::atoi(statLine.substr(i, end == std::string::npos ? std::string::npos : end - i).c_str());
        if (end == std::string::npos)
            break;
        i = end;
    }
    return -1;
}

// The calling thread's overrun slot. A constinit thread_local of a static library uses the local-exec TLS model (no
// lazy allocation), and a lock-free atomic add is async-signal-safe: the handler may touch both.
constinit thread_local std::atomic<uint64_t>* t_overrunSlot = nullptr;
std::atomic<uint64_t> g_unattributedOverruns{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free);

void onDeadlineOverrun(int)
{
    if (std::atomic<uint64_t>* slot = t_overrunSlot)
        slot->fetch_add(1, std::memory_order_relaxed);
    else
        g_unattributedOverruns.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

DeadlineOverrunFigure figureOf(const DeadlineOverrunCounter& c)
{
    DeadlineOverrunFigure f;
    f.counted = c.counted.load(std::memory_order_acquire);
    f.overruns = c.overruns.load(std::memory_order_relaxed);
    const char* why = c.notCounted.load(std::memory_order_acquire);
    f.notCounted = f.counted ? "" : why ? why : "not counted: the thread did not start";
    return f;
}

void installDeadlineOverrunHandler()
{
    static std::once_flag once;
    // SA_RESTART: a read() or a futex wait resumes; a clock_nanosleep still returns EINTR, which every wait of the
    // engine already treats as "look at the stop flag and wait again".
    std::call_once(once, [] { setSignalHandler(SIGXCPU, onDeadlineOverrun, SA_RESTART); });
}

void countDeadlineOverrunsInto(std::atomic<uint64_t>* slot)
{
    installDeadlineOverrunHandler();
    t_overrunSlot = slot;
    sigset_t xcpu;
    sigemptyset(&xcpu);
    sigaddset(&xcpu, SIGXCPU);
    pthread_sigmask(slot ? SIG_UNBLOCK : SIG_BLOCK, &xcpu, nullptr);
}

uint64_t unattributedDeadlineOverruns()
{
    return g_unattributedOverruns.load(std::memory_order_relaxed);
}

int setDeadlineSchedulingCountingOverruns(pid_t tid, const DeadlineParams& p, const char*& notCounted)
{
    notCounted = nullptr;
    const int err = setDeadlineScheduling(tid, p, kDeadlineFlagOverrun);
    if (err != EINVAL)
        return err;
    // EINVAL for the flag or for the parameters: without the flag tells which.
    const int without = setDeadlineScheduling(tid, p);
    if (without == 0)
        notCounted = "not counted: the kernel refused SCHED_FLAG_DL_OVERRUN (EINVAL with it, accepted without it)";
    return without;
}

double DeadlineParams::bandwidth() const
{
    return periodNs > 0 ? double(runtimeNs) / double(periodNs) : 0.0;
}

DeadlineLimits DeadlineLimits::read()
{
    DeadlineLimits l;
    if (auto v = readIntegerFile("/proc/sys/kernel/sched_deadline_period_min_us"))
        l.periodMinNs = *v * 1000;
    if (auto v = readIntegerFile("/proc/sys/kernel/sched_deadline_period_max_us"))
        l.periodMaxNs = *v * 1000;
    l.rtRuntimeUs = readIntegerFile("/proc/sys/kernel/sched_rt_runtime_us");
    l.rtPeriodUs = readIntegerFile("/proc/sys/kernel/sched_rt_period_us");
    l.cpus = int(onlineCpuList().size());
    return l;
}

std::optional<double> DeadlineLimits::perCpuLimit() const
{
    if (!rtRuntimeUs || !rtPeriodUs || *rtRuntimeUs < 0 || *rtPeriodUs <= 0)
        return std::nullopt;
    return double(*rtRuntimeUs) / double(*rtPeriodUs);
}

std::vector<std::string> deadlineProblems(const DeadlineParams& p, const DeadlineLimits& limits,
                                          const std::string& prefix)
{
    std::vector<std::string> out;
    const std::string runtime = prefix + "runtime", deadline = prefix + "deadline", period = prefix + "period";
    // The kernel's rules (kernel/sched/deadline.c, __checkparam_dl): runtime of at least 1 << DL_SCALE ns,
    // runtime ≤ deadline ≤ period, and a period inside the sysctl window.
    if (p.runtimeNs < kMinDeadlineRuntimeNs)
        out.push_back(runtime + " must be at least " + formatDuration(kMinDeadlineRuntimeNs) +
                      ", the kernel's smallest SCHED_DEADLINE runtime (got " + formatDuration(p.runtimeNs) + ")");
    if (p.deadlineNs <= 0)
        out.push_back(deadline + " must be positive (got " + formatDuration(p.deadlineNs) + ")");
    if (p.periodNs <= 0)
        out.push_back(period + " must be positive (got " + formatDuration(p.periodNs) + ")");
    if (!out.empty())
        return out;
    if (p.runtimeNs > p.deadlineNs)
        out.push_back(runtime + " must not exceed " + deadline + " (runtime ≤ deadline ≤ period; got runtime " +
                      formatDuration(p.runtimeNs) + ", deadline " + formatDuration(p.deadlineNs) + ")");
    if (p.deadlineNs > p.periodNs)
        out.push_back(deadline + " must not exceed " + period + " (runtime ≤ deadline ≤ period; got deadline " +
                      formatDuration(p.deadlineNs) + ", period " + formatDuration(p.periodNs) + ")");
    if (limits.periodMinNs && p.periodNs < *limits.periodMinNs)
        out.push_back(period + " must be at least " + formatDuration(*limits.periodMinNs) +
                      " (kernel.sched_deadline_period_min_us; got " + formatDuration(p.periodNs) + ")");
    if (limits.periodMaxNs && p.periodNs > *limits.periodMaxNs)
        out.push_back(period + " must be at most " + formatDuration(*limits.periodMaxNs) +
                      " (kernel.sched_deadline_period_max_us; got " + formatDuration(p.periodNs) + ")");
    return out;
}

int setDeadlineScheduling(pid_t tid, const DeadlineParams& p, uint64_t flags)
{
    SchedDeadlineAttr a{};
    a.size = sizeof a;
    a.policy = SCHED_DEADLINE;
    a.flags = flags;
    a.runtime = uint64_t(std::max<int64_t>(p.runtimeNs, 0));
    a.deadline = uint64_t(std::max<int64_t>(p.deadlineNs, 0));
    a.period = uint64_t(std::max<int64_t>(p.periodNs, 0));
    return syscall(SYS_sched_setattr, tid, &a, 0u) == 0 ? 0 : errno;
}

int setOtherScheduling(pid_t tid)
{
    SchedDeadlineAttr a{};
    a.size = sizeof a;
    a.policy = SCHED_OTHER;
    return syscall(SYS_sched_setattr, tid, &a, 0u) == 0 ? 0 : errno;
}

std::optional<DeadlineParams> deadlineOf(pid_t tid)
{
    SchedDeadlineAttr a{};
    if (syscall(SYS_sched_getattr, tid, &a, unsigned(sizeof a), 0u) != 0 || a.policy != SCHED_DEADLINE)
        return std::nullopt;
    return DeadlineParams{int64_t(a.runtime), int64_t(a.deadline), int64_t(a.period)};
}

std::vector<DeadlineTask> admittedDeadlineTasks()
{
    std::vector<DeadlineTask> tasks;
    for (const std::string& pid : listDir("/proc")) {
        if (!allDigits(pid))
            continue;
        for (const std::string& tid : listDir("/proc/" + pid + "/task")) {
            if (!allDigits(tid))
                continue;
            const std::string base = "/proc/" + pid + "/task/" + tid;
            std::ifstream stat(base + "/stat");
            std::string line;
            if (!std::getline(stat, line) || statPolicy(line) != SCHED_DEADLINE)
                continue;
            DeadlineTask t;
            t.pid = pid_t(std::stol(pid));
            t.tid = pid_t(std::stol(tid));
            t.comm = readFirstLine(base + "/comm");
            if (auto p = deadlineOf(t.tid)) {
                t.params = *p;
                tasks.push_back(std::move(t));
            }
        }
    }
    return tasks;
}

std::string deadlineText(const DeadlineParams& p)
{
    return formatDuration(p.runtimeNs) + "/" + formatDuration(p.deadlineNs) + "/" + formatDuration(p.periodNs) + " (" +
           pct(p.bandwidth()) + ")";
}

std::string explainDeadlineError(int err, const DeadlineParams& p, const std::string& what, bool narrowAffinity)
{
    const std::string head = "Cannot run " + what + " as SCHED_DEADLINE " + deadlineText(p) + ": ";
    if (err == EBUSY) {
        const DeadlineLimits l = DeadlineLimits::read();
        std::string s = head + "the kernel's admission control refused it (EBUSY): ";
        const std::optional<double> perCpu = l.perCpuLimit();
        if (!perCpu)
            return s + "the declared bandwidths do not fit the CPUs.";
        // The root domain holds cpus × runtime/period of deadline bandwidth; the fair servers and the deadline
        // tasks already admitted take their share of it first (docs/rt-privileges.md, "SCHED_DEADLINE").
        const double total = *perCpu * l.cpus;
        double servers = 0;
        bool serversRead = true, fairKernel = false;
        std::string serverNote;
        for (int cpu : onlineCpuList()) {
            const ThrottleSettings t = readThrottleSettings(cpu);
            fairKernel = t.fairServerKernel;
            if (!fairKernel)
                break;
            if (t.fairServerRuntimeNs && t.fairServerPeriodNs && *t.fairServerPeriodNs > 0) {
                servers += double(*t.fairServerRuntimeNs) / double(*t.fairServerPeriodNs);
            } else {
                serversRead = false;
                serverNote = t.fairServerNote;
            }
        }
        double taken = 0;
        std::string who;
        const std::vector<DeadlineTask> tasks = admittedDeadlineTasks();
        for (const DeadlineTask& t : tasks) {
            taken += t.params.bandwidth();
            if (who.size() < 400)
                who += (who.empty() ? "" : ", ") + t.comm + " (tid " + std::to_string(t.tid) + ", " +
                       pct(t.params.bandwidth()) + ")";
        }
        s += "it asks for " + pct(p.bandwidth()) + " of a CPU; the limit is " + pct(*perCpu) +
             " per CPU (sched_rt_runtime_us " + std::to_string(*l.rtRuntimeUs) + " / sched_rt_period_us " +
             std::to_string(*l.rtPeriodUs) + ") × " + std::to_string(l.cpus) + " CPUs = " + pct(total);
        if (fairKernel && serversRead)
            s += ", of which the fair servers reserve " + pct(servers);
        else if (fairKernel)
            s += ", of which the fair servers (kernel ≥ 6.12) reserve their share (by default 50 ms per second "
                 "per CPU; their values are " +
                 serverNote + ")";
        s += "; deadline tasks already admitted: " +
             (tasks.empty() ? std::string("none visible in /proc") : pct(taken) + ": " + who) +
             ". A deadline task that just left keeps its bandwidth until the end of its current period. Fix: ask "
             "for less runtime or a longer period, or stop another deadline task.";
        return s;
    }
    if (err == EPERM) {
        if (narrowAffinity)
            return head + "the kernel refuses it (EPERM) because the thread's CPU affinity is narrower than its "
                          "root domain: a SCHED_DEADLINE task must be allowed on every CPU of its root domain "
                          "(all CPUs, unless exclusive cpuset partitions split them). Leave it unpinned, or give "
                          "it a cpuset partition of its own (cpuset.cpus.partition = root).";
        return head + "permission denied (EPERM): SCHED_DEADLINE needs CAP_SYS_NICE (RLIMIT_RTPRIO does not "
                      "grant it) — run as root or grant the capability (docs/rt-privileges.md); the kernel also "
                      "refuses it when the thread's affinity is narrower than its root domain.";
    }
    if (err == EINVAL) {
        const std::vector<std::string> problems = deadlineProblems(p, DeadlineLimits::read());
        return head + "the kernel rejected the parameters (EINVAL): " +
               (problems.empty() ? std::string("runtime ≥ 1024 ns and runtime ≤ deadline ≤ period inside "
                                               "kernel.sched_deadline_period_{min,max}_us are the rules")
                                 : problems.front()) +
               ".";
    }
    return head + errnoName(err) + " (" + std::strerror(err) + ").";
}

} // namespace rtscope
