// The rules every knob passes through makeKnob(): targets, paths, values. A new sysctl is one row of kSysctls.
#include "engine/doctor/knob_rules.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"
#include "engine/util/whole_number.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>

namespace rtscope::doctor {

namespace {

using detail::canonicalCpuList;
using detail::trimmed;

bool isDigits(std::string_view s)
{
    return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int64_t> parseInteger(std::string_view s)
{
    const std::string_view body = !s.empty() && s.front() == '-' ? s.substr(1) : s;
    if (!isDigits(body))
        return std::nullopt;
    return wholeNumber<int64_t>(s);
}

std::optional<std::string> integerIn(std::string_view text, int64_t lo, int64_t hi)
{
    const std::optional<int64_t> v = parseInteger(trimmed(text));
    if (!v || *v < lo || *v > hi)
        return std::nullopt;
    return std::to_string(*v);
}

std::optional<std::string> oneOf(std::string_view text, std::initializer_list<std::string_view> choices)
{
    const std::string t = trimmed(text);
    for (std::string_view c : choices)
        if (t == c)
            return t;
    return std::nullopt;
}

// The sysctls a knob may change, and what each takes. See sysctlNames() for why this is a list.
enum class SysctlValue { Boolean, Integer, CpuList };
struct SysctlRule {
    const char* name;
    SysctlValue value;
    int64_t lo = 0;
    int64_t hi = 0;
};
constexpr SysctlRule kSysctls[] = {
    // Documentation/admin-guide/sysctl/kernel.rst; the realtime profiles of tuned set the first, the watchdogs and
    // hung_task_timeout_secs, and vm.stat_interval.
    {"kernel.timer_migration", SysctlValue::Boolean},
    {"kernel.sched_rt_runtime_us", SysctlValue::Integer, -1, INT_MAX},
    {"kernel.sched_rt_period_us", SysctlValue::Integer, 1, INT_MAX},
    {"kernel.nmi_watchdog", SysctlValue::Boolean},
    {"kernel.watchdog", SysctlValue::Boolean},
    {"kernel.soft_watchdog", SysctlValue::Boolean},
    {"kernel.watchdog_cpumask", SysctlValue::CpuList},
    {"kernel.watchdog_thresh", SysctlValue::Integer, 0, 60},
    {"kernel.hung_task_timeout_secs", SysctlValue::Integer, 0, INT_MAX},
    {"vm.stat_interval", SysctlValue::Integer, 1, 86400},
};

const SysctlRule* sysctlRule(std::string_view name)
{
    for (const SysctlRule& r : kSysctls)
        if (name == r.name)
            return &r;
    return nullptr;
}

constexpr std::string_view kThpRoot = "/sys/kernel/mm/transparent_hugepage/";
constexpr std::string_view kCgroupRoot = "/sys/fs/cgroup";
constexpr std::string_view kDoctorCpusetPrefix = "rtscope-doctor-";
constexpr std::string_view kDebugfs = "/sys/kernel/debug";
constexpr std::string_view kPreemptPath = "/sys/kernel/debug/sched/preempt";
constexpr std::string_view kDmaDevice = "/dev/cpu_dma_latency";
constexpr std::string_view kWorkqueueMask = "/sys/devices/virtual/workqueue/cpumask";

std::vector<std::string_view> components(std::string_view path)
{
    std::vector<std::string_view> out;
    size_t start = 1;
    while (start <= path.size()) {
        const size_t slash = path.find('/', start);
        const size_t end = slash == std::string_view::npos ? path.size() : slash;
        out.push_back(path.substr(start, end - start));
        if (slash == std::string_view::npos)
            break;
        start = slash + 1;
    }
    return out;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

bool cgroupNameOk(std::string_view c)
{
    return !c.empty() && c.size() <= 64 && c != "." && c != ".." && std::all_of(c.begin(), c.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               std::string_view("_.,=:+-").find(ch) != std::string_view::npos;
    });
}

// A directory of a cgroup tree the doctor made: /sys/fs/cgroup[/…]/rtscope-doctor-NAME. The doctor removes only such
// a directory, so only such a one is a CpusetDirectory target.
bool doctorCpusetDirectory(std::string_view path)
{
    if (!startsWith(path, std::string(kCgroupRoot) + "/"))
        return false;
    const std::vector<std::string_view> parts = components(path);
    if (parts.size() < 4 || parts.size() > 12 || !std::all_of(parts.begin(), parts.end(), cgroupNameOk))
        return false;
    const std::string_view last = parts.back();
    return startsWith(last, kDoctorCpusetPrefix) && last.size() > kDoctorCpusetPrefix.size() &&
           std::all_of(last.begin() + long(kDoctorCpusetPrefix.size()), last.end(),
                       [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'; });
}

// A cgroup hierarchy's root: /sys/fs/cgroup (a cgroup2 mounted there) or /sys/fs/cgroup/NAME (a v1 controller's, or
// cgroup2 at /sys/fs/cgroup/unified).
bool cgroupHierarchyRoot(std::string_view path)
{
    if (path == kCgroupRoot)
        return true;
    const std::vector<std::string_view> parts = components(path);
    return startsWith(path, std::string(kCgroupRoot) + "/") && parts.size() == 4 && cgroupNameOk(parts.back());
}

constexpr std::string_view kDirectoryFiles[] = {"cpuset.cpus",           "cpuset.mems",
                                                "cpuset.cpu_exclusive",  "cpuset.sched_load_balance",
                                                "cpuset.cpus.partition", "cpuset.cpus.exclusive"};
constexpr std::string_view kHierarchyRootFiles[] = {"cpuset.sched_load_balance", "cgroup.subtree_control"};

std::string_view fileName(std::string_view path)
{
    return path.substr(path.rfind('/') + 1);
}

std::string_view directoryOf(std::string_view path)
{
    return path.substr(0, path.rfind('/'));
}

// A cpuset control file the doctor may write: one of a doctor's directory, or the load-balancing flag (v1) or the
// controllers (v2) of a hierarchy's root. Never another cgroup's: that would confine processes the doctor never saw.
bool cpusetFileAllowed(std::string_view path)
{
    const std::string_view name = fileName(path);
    const std::string_view dir = directoryOf(path);
    if (doctorCpusetDirectory(dir))
        return std::find(std::begin(kDirectoryFiles), std::end(kDirectoryFiles), name) != std::end(kDirectoryFiles);
    return cgroupHierarchyRoot(dir) && std::find(std::begin(kHierarchyRootFiles), std::end(kHierarchyRootFiles),
                                                 name) != std::end(kHierarchyRootFiles);
}

std::optional<std::string> cpusetFileValue(std::string_view path, std::string_view value)
{
    const std::string_view name = fileName(path);
    if (name == "cpuset.cpu_exclusive" || name == "cpuset.sched_load_balance")
        return oneOf(value, {"0", "1"});
    if (name == "cpuset.cpus.partition")
        return oneOf(value, {"member", "root", "isolated"});
    if (name == "cgroup.subtree_control")
        return oneOf(value, {"+cpuset", "-cpuset"});
    return canonicalCpuList(value, true);
}

std::optional<std::pair<int, int>> cpuidleTarget(std::string_view target)
{
    // "cpuN/stateK"
    const size_t slash = target.find('/');
    if (slash == std::string_view::npos || !startsWith(target, "cpu") || !startsWith(target.substr(slash + 1), "state"))
        return std::nullopt;
    const std::string_view cpu = target.substr(3, slash - 3);
    const std::string_view state = target.substr(slash + 6);
    if (!isDigits(cpu) || !isDigits(state) || cpu.size() > 5 || state.size() > 3)
        return std::nullopt;
    return std::pair{std::stoi(std::string(cpu)), std::stoi(std::string(state))};
}

std::optional<std::string> schedulingValue(std::string_view value)
{
    const std::string t = trimmed(value);
    const size_t space = t.find(' ');
    if (space == std::string::npos)
        return std::nullopt;
    const std::string policy = t.substr(0, space);
    const std::string number = trimmed(t.substr(space + 1));
    const bool rt = policy == "fifo" || policy == "rr";
    if (!rt && policy != "other" && policy != "batch" && policy != "idle")
        return std::nullopt;
    const std::optional<std::string> n = rt ? integerIn(number, 1, 99) : integerIn(number, -20, 19);
    if (!n)
        return std::nullopt;
    return policy + " " + *n;
}

Error refused(const std::string& field, const std::string& sentence)
{
    return failure(ErrorKind::InvalidConfig, field + " " + sentence);
}

} // namespace

std::string detail::trimmed(std::string_view text)
{
    const auto blank = [](char c) {
        return c == ' ' || c == '\n' || c == '\t' || c == '\r';
    };
    while (!text.empty() && blank(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && blank(text.back()))
        text.remove_suffix(1);
    return std::string(text);
}

std::optional<std::string> detail::canonicalCpuList(std::string_view text, bool allowEmpty)
{
    const std::string t = trimmed(text);
    if (t.empty())
        return allowEmpty ? std::optional<std::string>(std::string()) : std::nullopt;
    const std::optional<std::vector<int>> cpus = parseCpuList(t, {});
    if (!cpus || cpus->empty())
        return std::nullopt;
    return formatCpuList(*cpus);
}

std::optional<std::string> detail::cpuListFromMask(std::string_view mask)
{
    // "ff,ffffffff": 32-bit groups, most significant first.
    std::vector<int> cpus;
    std::string digits;
    for (char c : trimmed(mask))
        if (c != ',')
            digits += c;
    if (digits.empty() || digits.size() > 2048)
        return std::nullopt;
    for (size_t i = 0; i < digits.size(); ++i) {
        const char c = digits[digits.size() - 1 - i];
        int v = 0;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else
            return std::nullopt;
        for (int bit = 0; bit < 4; ++bit)
            if (v & (1 << bit))
                cpus.push_back(int(i) * 4 + bit);
    }
    return formatCpuList(cpus);
}

std::string detail::maskFromCpuList(std::string_view cpuList)
{
    const std::vector<int> cpus = parseCpuList(cpuList, {}).value_or(std::vector<int>{});
    const int highest = cpus.empty() ? 0 : cpus.back();
    std::vector<uint32_t> words(size_t(highest / 32 + 1), 0);
    for (int c : cpus)
        words[size_t(c / 32)] |= uint32_t(1) << (c % 32);
    std::string out;
    char buf[16];
    for (size_t i = words.size(); i-- > 0;) {
        // The most significant group without leading zeros, the others with all eight digits.
        std::snprintf(buf, sizeof buf, i + 1 == words.size() ? "%x" : "%08x", words[i]);
        out += (out.empty() ? "" : ",") + std::string(buf);
    }
    return out;
}

Expected<std::string> detail::derivedPath(KnobKind kind, std::string_view target)
{
    const std::string t(target);
    const auto notOne = [&](const std::string& what) {
        return refused("target '" + t + "'", "is not " + what);
    };
    switch (kind) {
    case KnobKind::IrqAffinity:
        if (!isDigits(t) || t.size() > 6 || t != std::to_string(std::stol(t)))
            return notOne("an IRQ number");
        return "/proc/irq/" + std::to_string(std::stol(t)) + "/smp_affinity_list";
    case KnobKind::Sysctl: {
        if (!sysctlRule(t)) {
            std::string names;
            for (const SysctlRule& r : kSysctls)
                names += (names.empty() ? "" : ", ") + std::string(r.name);
            return notOne("a sysctl the doctor may change (" + names + ")");
        }
        std::string path = "/proc/sys/" + t;
        std::replace(path.begin() + 10, path.end(), '.', '/');
        return path;
    }
    case KnobKind::Thp:
        if (t != "enabled" && t != "defrag" && t != "khugepaged/defrag")
            return notOne("a THP setting (enabled, defrag, khugepaged/defrag)");
        return std::string(kThpRoot) + t;
    case KnobKind::WorkqueueCpumask:
        if (t != "cpumask")
            return notOne("'cpumask'");
        return std::string(kWorkqueueMask);
    case KnobKind::CpuidleState: {
        const auto cs = cpuidleTarget(t);
        if (!cs)
            return notOne("an idle state such as cpu1/state2");
        return "/sys/devices/system/cpu/cpu" + std::to_string(cs->first) + "/cpuidle/state" +
               std::to_string(cs->second) + "/disable";
    }
    case KnobKind::DebugfsMount:
        if (t != kDebugfs)
            return notOne(std::string(kDebugfs));
        return t;
    case KnobKind::PreemptMode:
        if (t != "sched/preempt")
            return notOne("'sched/preempt'");
        return std::string(kPreemptPath);
    case KnobKind::CpusetDirectory:
        if (!doctorCpusetDirectory(t))
            return notOne("a directory the doctor makes (/sys/fs/cgroup/…/rtscope-doctor-NAME)");
        return t;
    case KnobKind::CpusetFile:
        if (!cpusetFileAllowed(t))
            return notOne("a cpuset file the doctor may write (a file of a rtscope-doctor-* directory, or the "
                          "sched_load_balance or subtree_control of a cgroup hierarchy's root)");
        return t;
    case KnobKind::ThreadAffinity:
    case KnobKind::ThreadScheduling: {
        const auto thread = ThreadIdentity::fromTarget(t);
        if (!thread)
            return notOne("a thread as TID@STARTTIME");
        const std::string tid = std::to_string(thread->tid);
        return "/proc/" + tid + "/task/" + tid;
    }
    case KnobKind::CpuDmaLatency:
        if (t != "held")
            return notOne("'held'");
        return std::string(kDmaDevice);
    }
    return notOne("known");
}

std::optional<std::string> detail::canonicalValue(KnobKind kind, std::string_view target, std::string_view value)
{
    switch (kind) {
    case KnobKind::IrqAffinity:
    case KnobKind::WorkqueueCpumask:
    case KnobKind::ThreadAffinity:
        return canonicalCpuList(value, false);
    case KnobKind::Sysctl: {
        const SysctlRule* r = sysctlRule(target);
        if (!r)
            return std::nullopt;
        switch (r->value) {
        case SysctlValue::Boolean:
            return oneOf(value, {"0", "1"});
        case SysctlValue::Integer:
            return integerIn(value, r->lo, r->hi);
        case SysctlValue::CpuList:
            return canonicalCpuList(value, true);
        }
        return std::nullopt;
    }
    case KnobKind::Thp:
        if (target == "enabled")
            return oneOf(value, {"always", "madvise", "never"});
        if (target == "defrag")
            return oneOf(value, {"always", "defer", "defer+madvise", "madvise", "never"});
        return oneOf(value, {"0", "1"});
    case KnobKind::CpuidleState:
        return oneOf(value, {"0", "1"});
    case KnobKind::DebugfsMount:
        return oneOf(value, {"mounted", "unmounted"});
    case KnobKind::PreemptMode:
        return oneOf(value, {"none", "voluntary", "full", "lazy"});
    case KnobKind::CpusetDirectory:
        return oneOf(value, {"present", "absent"});
    case KnobKind::CpusetFile:
        return cpusetFileValue(target, value);
    case KnobKind::ThreadScheduling:
        return schedulingValue(value);
    case KnobKind::CpuDmaLatency:
        return integerIn(value, 0, 2'000'000'000);
    }
    return std::nullopt;
}

std::string detail::valuesText(KnobKind kind, std::string_view target)
{
    switch (kind) {
    case KnobKind::IrqAffinity:
    case KnobKind::WorkqueueCpumask:
    case KnobKind::ThreadAffinity:
        return "a CPU list such as 0-1";
    case KnobKind::Sysctl: {
        const SysctlRule* r = sysctlRule(target);
        if (!r || r->value == SysctlValue::Boolean)
            return "0 or 1";
        if (r->value == SysctlValue::CpuList)
            return "a CPU list such as 0-1 (or nothing)";
        return "an integer from " + std::to_string(r->lo) + " to " + std::to_string(r->hi);
    }
    case KnobKind::Thp:
        return target == "enabled"  ? "always, madvise or never"
               : target == "defrag" ? "always, defer, defer+madvise, madvise or never"
                                    : "0 or 1";
    case KnobKind::CpuidleState:
        return "0 or 1";
    case KnobKind::DebugfsMount:
        return "mounted or unmounted";
    case KnobKind::PreemptMode:
        return "none, voluntary, full or lazy";
    case KnobKind::CpusetDirectory:
        return "present or absent";
    case KnobKind::CpusetFile: {
        const std::string_view name = fileName(target);
        if (name == "cpuset.cpus.partition")
            return "member, root or isolated";
        if (name == "cgroup.subtree_control")
            return "+cpuset or -cpuset";
        if (name == "cpuset.cpu_exclusive" || name == "cpuset.sched_load_balance")
            return "0 or 1";
        return "a CPU or node list such as 0-1 (or nothing)";
    }
    case KnobKind::ThreadScheduling:
        return "'fifo N' or 'rr N' (N 1 to 99), or 'other N', 'batch N', 'idle N' (N the nice value, -20 to 19)";
    case KnobKind::CpuDmaLatency:
        return "microseconds from 0 to 2000000000";
    }
    return "?";
}

std::string allowedRootsText()
{
    return "/proc/sys (the sysctls of the doctor's list), /proc/irq, /sys/kernel/mm/transparent_hugepage, "
           "/sys/devices/virtual/workqueue, /sys/devices/system/cpu/*/cpuidle, /sys/fs/cgroup (cpuset), "
           "/sys/kernel/debug (sched/preempt), /dev/cpu_dma_latency and /proc/TID/task/TID (threads)";
}

bool pathAllowed(std::string_view path)
{
    if (path.empty() || path.front() != '/' || path.size() > 4096)
        return false;
    const std::vector<std::string_view> parts = components(path);
    if (std::any_of(parts.begin(), parts.end(), [](std::string_view c) { return c.empty() || c == "." || c == ".."; }))
        return false;
    for (std::string_view root : {"/proc/sys/", "/proc/irq/", "/sys/kernel/mm/transparent_hugepage/",
                                  "/sys/devices/virtual/workqueue/", "/sys/fs/cgroup/"})
        if (startsWith(path, root))
            return true;
    if (path == kDebugfs || path == kPreemptPath || path == kDmaDevice || path == kCgroupRoot)
        return true;
    // /sys/devices/system/cpu/cpuN/cpuidle/…
    if (startsWith(path, "/sys/devices/system/cpu/cpu") && parts.size() >= 6 && parts[5] == "cpuidle")
        return isDigits(parts[4].substr(3));
    // /proc/TID/task/TID
    return parts.size() == 4 && parts[0] == "proc" && isDigits(parts[1]) && parts[2] == "task" && parts[3] == parts[1];
}

std::vector<std::string> sysctlNames()
{
    std::vector<std::string> names;
    for (const SysctlRule& r : kSysctls)
        names.emplace_back(r.name);
    return names;
}

Expected<std::unique_ptr<Knob>> makeKnob(RootFs& fs, KnobChange change, KnobOrigin origin)
{
    const std::string kind = kindName(change.kind);
    if (origin == KnobOrigin::Journal || !change.path.empty()) {
        if (!pathAllowed(change.path))
            return refused("path '" + change.path + "'",
                           "is outside the paths the doctor may change (" + allowedRootsText() + ")");
    }
    Expected<std::string> path = detail::derivedPath(change.kind, change.target);
    if (!path)
        return Error{path.error().kind, kind + " " + path.error().message};
    if (!change.path.empty() && change.path != *path)
        return refused("path '" + change.path + "'",
                       "is not the path of " + kind + " " + change.target + " (" + *path + ")");
    if (!pathAllowed(*path))
        return refused("path '" + *path + "'", "is outside the paths the doctor may change");
    change.path = *path;
    const auto checkValue = [&](const char* field, std::string& value) -> Error {
        const std::optional<std::string> v = detail::canonicalValue(change.kind, change.target, value);
        if (!v)
            return refused(std::string(field) + " '" + value + "'",
                           "is not a value " + kind + " " + change.target + " takes (" +
                               detail::valuesText(change.kind, change.target) + ")");
        value = *v;
        return Error::none();
    };
    if (Error e = checkValue("to", change.to))
        return e;
    if (origin == KnobOrigin::Journal) {
        if (Error e = checkValue("from", change.from))
            return e;
    } else if (!change.from.empty()) {
        return refused("from '" + change.from + "'", "is read from the machine, not given");
    }
    switch (change.kind) {
    case KnobKind::CpusetDirectory:
        return detail::makeCpusetDirectoryKnob(fs, std::move(change));
    case KnobKind::DebugfsMount:
        return detail::makeDebugfsMountKnob(fs, std::move(change));
    case KnobKind::ThreadAffinity:
    case KnobKind::ThreadScheduling: {
        const ThreadIdentity thread = *ThreadIdentity::fromTarget(change.target);
        return detail::makeThreadKnob(fs, std::move(change), thread);
    }
    case KnobKind::CpuDmaLatency:
        return detail::makeDmaLatencyKnob(fs, std::move(change));
    default:
        return detail::makeFileKnob(fs, std::move(change));
    }
}

namespace {

Expected<std::unique_ptr<Knob>> newKnob(RootFs& fs, KnobKind kind, std::string target, std::string to)
{
    KnobChange c;
    c.kind = kind;
    c.target = std::move(target);
    c.to = std::move(to);
    return makeKnob(fs, std::move(c), KnobOrigin::New);
}

} // namespace

Expected<std::unique_ptr<Knob>> irqAffinityKnob(RootFs& fs, int irq, const std::vector<int>& cpus)
{
    return newKnob(fs, KnobKind::IrqAffinity, std::to_string(irq), formatCpuList(cpus));
}

Expected<std::unique_ptr<Knob>> sysctlKnob(RootFs& fs, const std::string& name, const std::string& value)
{
    return newKnob(fs, KnobKind::Sysctl, name, value);
}

Expected<std::unique_ptr<Knob>> thpKnob(RootFs& fs, const std::string& setting, const std::string& value)
{
    return newKnob(fs, KnobKind::Thp, setting, value);
}

Expected<std::unique_ptr<Knob>> workqueueCpumaskKnob(RootFs& fs, const std::vector<int>& cpus)
{
    return newKnob(fs, KnobKind::WorkqueueCpumask, "cpumask", formatCpuList(cpus));
}

Expected<std::unique_ptr<Knob>> cpuidleStateKnob(RootFs& fs, int cpu, int state, bool disabled)
{
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle";
    if (!fs.isDirectory(dir)) {
        const Expected<std::string> driver = fs.readLine("/sys/devices/system/cpu/cpuidle/current_driver");
        return failure(ErrorKind::Unavailable,
                       "CPU " + std::to_string(cpu) + " has no idle states to limit (" + fs.shown(dir) +
                           " does not exist; cpuidle driver: " + (driver ? *driver : std::string("none")) + ")");
    }
    return newKnob(fs, KnobKind::CpuidleState, "cpu" + std::to_string(cpu) + "/state" + std::to_string(state),
                   disabled ? "1" : "0");
}

Expected<std::unique_ptr<Knob>> debugfsMountKnob(RootFs& fs)
{
    return newKnob(fs, KnobKind::DebugfsMount, std::string(kDebugfs), "mounted");
}

Expected<std::unique_ptr<Knob>> preemptModeKnob(RootFs& fs, const std::string& mode)
{
    return newKnob(fs, KnobKind::PreemptMode, "sched/preempt", mode);
}

Expected<std::unique_ptr<Knob>> threadAffinityKnob(RootFs& fs, const ThreadIdentity& thread,
                                                   const std::vector<int>& cpus)
{
    return newKnob(fs, KnobKind::ThreadAffinity, thread.target(), formatCpuList(cpus));
}

Expected<std::unique_ptr<Knob>> threadSchedulingKnob(RootFs& fs, const ThreadIdentity& thread, const std::string& value)
{
    return newKnob(fs, KnobKind::ThreadScheduling, thread.target(), value);
}

Expected<std::unique_ptr<Knob>> cpuDmaLatencyKnob(RootFs& fs, int microseconds)
{
    return newKnob(fs, KnobKind::CpuDmaLatency, "held", std::to_string(microseconds));
}

} // namespace rtscope::doctor
