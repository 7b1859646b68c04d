#include "engine/rt/system_threads.h"

#include "engine/util/units.h"

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <map>
#include <sstream>

namespace rtscope {

namespace {

constexpr unsigned long kPfKthread = 0x00200000; // include/linux/sched.h

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> numericEntries(const std::string& dir)
{
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (!n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
                out.push_back(n);
        }
        closedir(d);
    }
    return out;
}

const char* policyText(int p)
{
    switch (p) {
    case 0:
        return "OTHER";
    case 1:
        return "FIFO";
    case 2:
        return "RR";
    case 3:
        return "BATCH";
    case 5:
        return "IDLE";
    case 6:
        return "DEADLINE";
    default:
        return "?";
    }
}

bool interruptName(const std::string& n)
{
    for (const char* prefix : {"irq/", "ksoftirqd/", "rcu", "migration/", "watchdog/", "idle_inject/", "cpuhp/"})
        if (n.rfind(prefix, 0) == 0)
            return true;
    return false;
}

std::string allowedCpusOf(const std::string& taskDir)
{
    std::istringstream status(readFile(taskDir + "/status"));
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Cpus_allowed_list:", 0) == 0) {
            std::string list = line.substr(line.find(':') + 1);
            list.erase(0, list.find_first_not_of(" \t"));
            return list;
        }
    return {};
}

} // namespace

bool parseProcStat(const std::string& line, SystemThread& out)
{
    // "tid (comm) state ppid …": comm may hold ") (", so take the last ')'.
    const size_t open = line.find('(');
    const size_t close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open || close + 2 >= line.size())
        return false;
    out.name = line.substr(open + 1, close - open - 1);
    std::istringstream rest(line.substr(close + 2));
    std::vector<std::string> f; // f[0] is field 3 (state)
    std::string tok;
    while (rest >> tok)
        f.push_back(tok);
    // Fields (1-based, proc(5)): 3 state, 9 flags, 19 nice, 22 starttime, 39 processor, 40 rt_priority, 41 policy.
    if (f.size() < 39)
        return false;
    try {
        out.state = f[0].empty() ? '?' : f[0][0];
        out.kernelThread = (std::stoul(f[9 - 3]) & kPfKthread) != 0;
        out.nice = std::stoi(f[19 - 3]);
        out.startTime = std::stoull(f[22 - 3]);
        out.lastCpu = std::stoi(f[39 - 3]);
        out.rtPriority = std::stoi(f[40 - 3]);
        out.kernelPolicy = std::stoi(f[41 - 3]);
    } catch (...) {
        return false;
    }
    out.policy = policyText(out.kernelPolicy);
    out.interruptRelated = out.kernelThread && interruptName(out.name);
    return true;
}

std::string SystemThread::chrtCommand() const
{
    switch (kernelPolicy) {
    case 1:
        return "chrt -f -p " + std::to_string(rtPriority) + " " + std::to_string(tid);
    case 2:
        return "chrt -r -p " + std::to_string(rtPriority) + " " + std::to_string(tid);
    case 3:
        return "chrt -b -p 0 " + std::to_string(tid);
    case 5:
        return "chrt -i -p 0 " + std::to_string(tid);
    case 6:
        return "chrt -d -p 0 " + std::to_string(tid) + "  # SCHED_DEADLINE needs --sched-runtime/--sched-period";
    default:
        return "chrt -o -p 0 " + std::to_string(tid);
    }
}

std::string SystemThread::tasksetCommand() const
{
    return "taskset -p -c " + (allowedCpus.empty() ? std::string("0") : allowedCpus) + " " + std::to_string(tid);
}

std::vector<SystemThread> listSystemThreads(bool interestingOnly, const std::string& procRoot)
{
    std::vector<SystemThread> out;
    for (const std::string& pid : numericEntries(procRoot)) {
        const std::string taskDir = procRoot + "/" + pid + "/task";
        for (const std::string& tid : numericEntries(taskDir)) {
            SystemThread t;
            const std::string base = taskDir + "/" + tid;
            if (!parseProcStat(readFile(base + "/stat"), t))
                continue; // exited while we read it
            t.pid = pid_t(std::stol(pid));
            t.tid = pid_t(std::stol(tid));
            if (interestingOnly && t.kernelPolicy == 0 && !t.interruptRelated)
                continue;
            t.allowedCpus = allowedCpusOf(base);
            out.push_back(std::move(t));
        }
    }
    std::sort(out.begin(), out.end(), [](const SystemThread& a, const SystemThread& b) {
        if (a.realtime() != b.realtime())
            return a.realtime();
        if (a.rtPriority != b.rtPriority)
            return a.rtPriority > b.rtPriority;
        return a.tid < b.tid;
    });
    return out;
}

std::vector<SystemThread> threadsNamedOnCpus(const std::string& name, const std::vector<int>& cpus, pid_t excludePid,
                                             const std::string& procRoot)
{
    std::vector<SystemThread> out;
    for (const std::string& pid : numericEntries(procRoot)) {
        if (std::stol(pid) == long(excludePid))
            continue;
        const std::string taskDir = procRoot + "/" + pid + "/task";
        for (const std::string& tid : numericEntries(taskDir)) {
            const std::string base = taskDir + "/" + tid;
            // comm first: the stat and status of every other thread on the machine are not worth reading.
            std::string comm = readFile(base + "/comm");
            if (!comm.empty() && comm.back() == '\n')
                comm.pop_back();
            if (comm != name)
                continue;
            SystemThread t;
            if (!parseProcStat(readFile(base + "/stat"), t))
                continue; // exited while we read it
            t.pid = pid_t(std::stol(pid));
            t.tid = pid_t(std::stol(tid));
            t.allowedCpus = allowedCpusOf(base);
            const std::vector<int> allowed = parseCpuList(t.allowedCpus, {}).value_or(std::vector<int>{});
            const bool shares = std::any_of(cpus.begin(), cpus.end(), [&](int c) {
                return c == t.lastCpu || std::find(allowed.begin(), allowed.end(), c) != allowed.end();
            });
            if (shares)
                out.push_back(std::move(t));
        }
    }
    return out;
}

std::vector<std::string> otherMeasurementWarnings(const std::vector<int>& cpus, pid_t self)
{
    std::map<pid_t, std::vector<int>> shared; // another process, and the CPUs of this run it may measure on
    for (const SystemThread& t : threadsNamedOnCpus(kMeasuringThreadName, cpus, self)) {
        const std::vector<int> allowed = parseCpuList(t.allowedCpus, {}).value_or(std::vector<int>{});
        std::vector<int>& mine = shared[t.pid];
        for (int c : cpus)
            if ((c == t.lastCpu || std::find(allowed.begin(), allowed.end(), c) != allowed.end()) &&
                std::find(mine.begin(), mine.end(), c) == mine.end())
                mine.push_back(c);
    }
    std::vector<std::string> out;
    for (auto& [pid, mine] : shared) {
        std::sort(mine.begin(), mine.end());
        std::string list;
        for (int c : mine)
            list += (list.empty() ? "" : ",") + std::to_string(c);
        out.push_back("another rtscope (PID " + std::to_string(pid) + ") is measuring on CPU " + list +
                      " as well; the two runs disturb each other (each one's wake-ups and hogs delay the other's), "
                      "so both count more latency and skipped periods: stop one, or give them different CPUs");
    }
    return out;
}

std::string describePlacement(const std::vector<SystemThread>& threads, Policy policy, int priority)
{
    const std::string self = policyLabel(policy, priority);
    if (!isRealtime(policy)) {
        size_t rt = 0;
        for (const auto& t : threads)
            rt += t.realtime();
        return self + ": below all " + std::to_string(rt) + " real-time threads (any RT thread preempts it)";
    }
    const SystemThread* highestBelow = nullptr;
    const SystemThread* lowestAbove = nullptr;
    size_t below = 0, above = 0, equal = 0;
    for (const auto& t : threads) {
        if (!t.realtime())
            continue;
        if (t.rtPriority < priority) {
            ++below;
            if (!highestBelow || t.rtPriority > highestBelow->rtPriority)
                highestBelow = &t;
        } else if (t.rtPriority > priority) {
            ++above;
            if (!lowestAbove || t.rtPriority < lowestAbove->rtPriority)
                lowestAbove = &t;
        } else {
            ++equal;
        }
    }
    std::ostringstream s;
    s << self << ": above " << below << " RT thread" << (below == 1 ? "" : "s");
    if (highestBelow)
        s << " (highest: " << highestBelow->name << " at " << highestBelow->rtPriority << ")";
    s << ", below " << above;
    if (lowestAbove)
        s << " (lowest: " << lowestAbove->name << " at " << lowestAbove->rtPriority << ")";
    if (equal)
        s << ", level with " << equal << " (FIFO order among equals: whoever runs first keeps the CPU)";
    return s.str();
}

} // namespace rtscope
