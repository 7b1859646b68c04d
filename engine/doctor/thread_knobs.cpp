// The knobs of one thread: its CPUs (sched_setaffinity) and its policy and priority (sched_setscheduler, nice). The
// thread is named by TID and start time, checked before every read and write, so that a TID reused by another thread
// after the one the doctor saw has exited is never changed.
#include "engine/doctor/knob_rules.h"

#include "engine/rt/system_threads.h"
#include "engine/util/units.h"

#include <cerrno>
#include <charconv>
#include <sched.h>
#include <sys/resource.h>

namespace rtscope::doctor {

std::string ThreadIdentity::target() const
{
    return std::to_string(tid) + "@" + std::to_string(startTime);
}

std::optional<ThreadIdentity> ThreadIdentity::fromTarget(std::string_view target)
{
    const size_t at = target.find('@');
    if (at == std::string_view::npos || at == 0 || at > 10 || target.size() - at - 1 > 20)
        return std::nullopt;
    ThreadIdentity id;
    long tid = 0;
    const char* tidEnd = target.data() + at;
    const auto [p1, e1] = std::from_chars(target.data(), tidEnd, tid);
    const auto [p2, e2] = std::from_chars(tidEnd + 1, target.data() + target.size(), id.startTime);
    if (e1 != std::errc() || p1 != tidEnd || e2 != std::errc() || p2 != target.data() + target.size() || tid <= 0 ||
        tid > 0x3fffffff || target.front() == '0')
        return std::nullopt;
    id.tid = pid_t(tid);
    // Canonical only: "0042@7" would name the thread 42 under another target string.
    if (id.target() != target)
        return std::nullopt;
    return id;
}

namespace {

std::string taskDir(pid_t tid)
{
    const std::string t = std::to_string(tid);
    return "/proc/" + t + "/task/" + t;
}

Expected<SystemThread> threadStat(const RootFs& fs, pid_t tid)
{
    const Expected<std::string> line = fs.readText(taskDir(tid) + "/stat");
    if (!line)
        return failure(ErrorKind::Unavailable, "thread " + std::to_string(tid) + " does not exist");
    SystemThread t;
    if (!parseProcStat(*line, t))
        return failure(ErrorKind::System, fs.shown(taskDir(tid) + "/stat") + " cannot be read as proc(5) says");
    t.tid = tid;
    return t;
}

const char* policyWord(int kernelPolicy)
{
    switch (kernelPolicy) {
    case SCHED_OTHER:
        return "other";
    case SCHED_FIFO:
        return "fifo";
    case SCHED_RR:
        return "rr";
    case SCHED_BATCH:
        return "batch";
    case SCHED_IDLE:
        return "idle";
    default:
        return "deadline";
    }
}

class ThreadKnob final : public Knob {
public:
    ThreadKnob(RootFs& fs, KnobChange change, ThreadIdentity thread)
        : Knob(fs, std::move(change))
        , m_thread(thread)
    {}

    std::string label() const override
    {
        const Expected<std::string> comm = m_fs.readLine(taskDir(m_thread.tid) + "/comm");
        return "thread " + std::to_string(m_thread.tid) + (comm ? " (" + *comm + ")" : std::string()) +
               (affinity() ? " CPUs" : " scheduling");
    }

    Expected<std::string> read() const override
    {
        const Expected<SystemThread> t = sameThread();
        if (!t)
            return t.error();
        if (!affinity()) {
            const bool rt = t->kernelPolicy == SCHED_FIFO || t->kernelPolicy == SCHED_RR;
            if (t->kernelPolicy == 6)
                return std::string("deadline");
            return std::string(policyWord(t->kernelPolicy)) + " " + std::to_string(rt ? t->rtPriority : t->nice);
        }
        const Expected<std::string> status = m_fs.readText(taskDir(m_thread.tid) + "/status");
        if (!status)
            return status.error();
        const std::string key = "Cpus_allowed_list:";
        const size_t at = status->find(key);
        if (at == std::string::npos)
            return failure(ErrorKind::System, m_fs.shown(taskDir(m_thread.tid) + "/status") + " has no " + key);
        const size_t end = status->find('\n', at);
        const std::string list = detail::trimmed(status->substr(at + key.size(), end - at - key.size()));
        return detail::canonicalCpuList(list, false).value_or(list);
    }

    /// A thread that has gone took its setting with it: nothing is left to put back.
    Error revert() override
    {
        if (!sameThread())
            return Error::none();
        return Knob::revert();
    }

    std::string undoCommand() const override
    {
        const std::string tid = std::to_string(m_thread.tid);
        if (affinity())
            return "taskset -p -c " + m_change.from + " " + tid;
        const std::string policy = m_change.from.substr(0, m_change.from.find(' '));
        const std::string number = m_change.from.substr(m_change.from.find(' ') + 1);
        if (policy == "fifo" || policy == "rr")
            return "chrt --" + policy + " -p " + number + " " + tid;
        return "chrt --" + policy + " -p 0 " + tid + " && renice -n " + number + " -p " + tid;
    }

protected:
    Error write(const std::string& value) override
    {
        if (const Expected<SystemThread> t = sameThread(); !t)
            return t.error();
        const int err = affinity() ? setAffinity(value) : setScheduling(value);
        if (err == 0)
            return Error::none();
        std::string why = errnoText(err);
        if (affinity() && err == EINVAL)
            why += ": a per-CPU kernel thread (the kernel does not let its CPUs change), or no CPU of the list is "
                   "allowed by its cpuset";
        if (err == EPERM)
            why += ": changing another user's thread needs CAP_SYS_NICE";
        return failure(err == EPERM ? ErrorKind::Permission : ErrorKind::System,
                       label() + ": setting '" + value + "' failed: " + why);
    }

private:
    bool affinity() const { return kind() == KnobKind::ThreadAffinity; }

    // The thread as /proc shows it, if it is still the one of the target.
    Expected<SystemThread> sameThread() const
    {
        Expected<SystemThread> t = threadStat(m_fs, m_thread.tid);
        if (!t)
            return failure(ErrorKind::Unavailable,
                           "thread " + std::to_string(m_thread.tid) + " has exited: it is left alone");
        if (t->startTime != m_thread.startTime)
            return failure(ErrorKind::Unavailable, "TID " + std::to_string(m_thread.tid) +
                                                       " belongs to another thread now (started at tick " +
                                                       std::to_string(t->startTime) + ", not " +
                                                       std::to_string(m_thread.startTime) + "): it is left alone");
        return t;
    }

    int setAffinity(const std::string& list) const
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int cpu : parseCpuList(list, {}).value_or(std::vector<int>{}))
            if (cpu < CPU_SETSIZE)
                CPU_SET(cpu, &set);
        return ::sched_setaffinity(m_thread.tid, sizeof set, &set) == 0 ? 0 : errno;
    }

    int setScheduling(const std::string& value) const
    {
        const std::string policy = value.substr(0, value.find(' '));
        const int number = std::stoi(value.substr(value.find(' ') + 1));
        const int kernelPolicy = policy == "fifo"    ? SCHED_FIFO
                                 : policy == "rr"    ? SCHED_RR
                                 : policy == "batch" ? SCHED_BATCH
                                 : policy == "idle"  ? SCHED_IDLE
                                                     : SCHED_OTHER;
        const bool rt = kernelPolicy == SCHED_FIFO || kernelPolicy == SCHED_RR;
        // sched_setscheduler() clears SCHED_RESET_ON_FORK unless it is given again: keep what the thread had (an
        // audio server sets it so that its children do not inherit real-time priority).
        const int current = ::sched_getscheduler(m_thread.tid);
        const int resetOnFork = current >= 0 ? (current & SCHED_RESET_ON_FORK) : 0;
        sched_param param{};
        param.sched_priority = rt ? number : 0;
        if (::sched_setscheduler(m_thread.tid, kernelPolicy | resetOnFork, &param) != 0)
            return errno;
        if (!rt && ::setpriority(PRIO_PROCESS, id_t(m_thread.tid), number) != 0)
            return errno;
        return 0;
    }

    ThreadIdentity m_thread;
};

} // namespace

Expected<ThreadIdentity> threadIdentity(const RootFs& fs, pid_t tid)
{
    const Expected<SystemThread> t = threadStat(fs, tid);
    if (!t)
        return t.error();
    return ThreadIdentity{tid, t->startTime};
}

std::unique_ptr<Knob> detail::makeThreadKnob(RootFs& fs, KnobChange change, ThreadIdentity thread)
{
    return std::make_unique<ThreadKnob>(fs, std::move(change), thread);
}

} // namespace rtscope::doctor
