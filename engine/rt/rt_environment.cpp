#include "engine/rt/rt_environment.h"

#include "engine/rt/system_probe.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

namespace rtscope {

namespace {

std::vector<std::string> splitOn(const std::string& text, char sep)
{
    std::vector<std::string> parts;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, sep))
        parts.push_back(item);
    return parts;
}

bool fileExists(const std::string& path)
{
    return access(path.c_str(), F_OK) == 0;
}

// Where this process sits in the hierarchy that carries @p controller ("" = the cgroup v2 hierarchy), as a
// directory under the mount point: /proc/self/cgroup gives the path, /proc/self/mountinfo the mount.
std::string cgroupDirectory(const std::string& controller)
{
    std::string path;
    {
        std::ifstream in("/proc/self/cgroup");
        std::string line;
        while (std::getline(in, line)) {
            const size_t a = line.find(':');
            const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
            if (b == std::string::npos)
                continue;
            const std::string controllers = line.substr(a + 1, b - a - 1);
            const bool match = controller.empty() ? controllers.empty() && line.compare(0, a, "0") == 0
                                                  : std::ranges::count(splitOn(controllers, ','), controller) > 0;
            if (match) {
                path = line.substr(b + 1);
                break;
            }
        }
    }
    if (path.empty())
        return {};
    std::ifstream in("/proc/self/mountinfo");
    std::string line;
    while (std::getline(in, line)) {
        // proc(5): "id parent major:minor root mountpoint options [optional...] - fstype source superoptions"
        const size_t dash = line.find(" - ");
        if (dash == std::string::npos)
            continue;
        const std::vector<std::string> head = splitOn(line.substr(0, dash), ' ');
        const std::vector<std::string> tail = splitOn(line.substr(dash + 3), ' ');
        if (head.size() < 5 || tail.size() < 3)
            continue;
        const bool v2 = tail[0] == "cgroup2";
        const bool v1 = tail[0] == "cgroup";
        if (controller.empty() ? !v2 : !(v1 && std::ranges::count(splitOn(tail[2], ','), controller) > 0))
            continue;
        const std::string& root = head[3];
        std::string rel = path;
        if (root != "/" && rel.compare(0, root.size(), root) == 0)
            rel = rel.substr(root.size());
        std::string dir = head[4] + (rel == "/" ? std::string() : rel);
        if (fileExists(dir))
            return dir;
    }
    return {};
}

} // namespace

std::string readFirstLine(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
        line.pop_back();
    return line;
}

std::optional<int64_t> readIntegerFile(const std::string& path)
{
    const std::string text = readFirstLine(path);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc())
        return std::nullopt;
    return value;
}

bool hasEffectiveCapability(int cap)
{
    // /proc/self/status is per thread for most fields but CapEff is shared by the thread group in practice
    // (capset(2) changes only the caller, which we never do); reading it avoids a libcap dependency.
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, 7, "CapEff:") != 0)
            continue;
        uint64_t mask = 0;
        std::istringstream hex(line.substr(7));
        hex >> std::hex >> mask;
        return cap >= 0 && cap < 64 && ((mask >> cap) & 1u);
    }
    return geteuid() == 0;
}

Limit resourceLimit(int resource)
{
    rlimit r{};
    Limit l;
    if (getrlimit(resource, &r) != 0)
        return l;
    l.soft = r.rlim_cur == RLIM_INFINITY ? -1 : int64_t(r.rlim_cur);
    l.hard = r.rlim_max == RLIM_INFINITY ? -1 : int64_t(r.rlim_max);
    return l;
}

std::optional<RtGroupBudget> cgroupRtBudget()
{
    // cgroup v1 exposes cpu.rt_runtime_us when CONFIG_RT_GROUP_SCHED is on; recent kernels may expose it on
    // the v2 hierarchy as well, so look in both.
    for (const std::string& controller : {std::string("cpu"), std::string()}) {
        const std::string dir = cgroupDirectory(controller);
        if (dir.empty())
            continue;
        const std::string file = dir + "/cpu.rt_runtime_us";
        if (const auto v = readIntegerFile(file))
            return RtGroupBudget{file, *v};
    }
    return std::nullopt;
}

std::vector<int> onlineCpuList()
{
    return parseSysfsCpuList(readFirstLine("/sys/devices/system/cpu/online"));
}

std::vector<int> cpusForNewThreads()
{
    const std::vector<int> online = onlineCpuList();
    std::vector<int> allowed;
    for (const std::string& name : {std::string("cpuset.effective_cpus"), std::string("cpuset.cpus.effective")}) {
        for (const std::string& controller : {std::string("cpuset"), std::string()}) {
            const std::string dir = cgroupDirectory(controller);
            if (!dir.empty() && fileExists(dir + "/" + name)) {
                allowed = parseSysfsCpuList(readFirstLine(dir + "/" + name));
                if (!allowed.empty())
                    break;
            }
        }
        if (!allowed.empty())
            break;
    }
    if (allowed.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(getpid(), sizeof set, &set) == 0)
            for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
                if (CPU_ISSET(cpu, &set))
                    allowed.push_back(cpu);
    }
    if (online.empty())
        return allowed;
    std::vector<int> usable;
    for (int cpu : allowed)
        if (std::ranges::binary_search(online, cpu))
            usable.push_back(cpu);
    return usable;
}

std::string errnoName(int err)
{
    const char* name = strerrorname_np(err);
    return name ? std::string(name) : "errno " + std::to_string(err);
}

} // namespace rtscope
