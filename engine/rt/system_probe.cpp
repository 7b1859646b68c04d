#include "engine/rt/system_probe.h"

#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_environment.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/throttle_settings.h"
#include "engine/rt/waiter.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <pthread.h>
#include <sched.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace rtscope {

namespace {

std::string trim(std::string s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
    return s.substr(i);
}

std::pair<int, int> kernelMajorMinor(const std::string& release)
{
    int major = 0, minor = 0;
    std::sscanf(release.c_str(), "%d.%d", &major, &minor);
    return {major, minor};
}

// The current mode is the parenthesised word of /sys/kernel/debug/sched/preempt ("none voluntary (full) lazy").
std::string dynamicPreemptMode()
{
    const std::string line = readFirstLine("/sys/kernel/debug/sched/preempt");
    const size_t open = line.find('('), close = line.find(')');
    if (open != std::string::npos && close != std::string::npos && close > open)
        return line.substr(open + 1, close - open - 1);
    // Without debugfs, an explicit preempt= on the command line is the next best witness.
    std::istringstream cmdline(readFirstLine("/proc/cmdline"));
    std::string word;
    while (cmdline >> word)
        if (word.compare(0, 8, "preempt=") == 0)
            return word.substr(8);
    return {};
}

// The build-time preemption model, from the config a distribution installs next to the kernel.
std::string configuredPreempt(const std::string& release)
{
    std::ifstream in("/boot/config-" + release);
    std::string line;
    while (std::getline(in, line)) {
        if (line == "CONFIG_PREEMPT_NONE=y")
            return "none";
        if (line == "CONFIG_PREEMPT_VOLUNTARY=y")
            return "voluntary";
        if (line == "CONFIG_PREEMPT=y")
            return "full";
        if (line == "CONFIG_PREEMPT_LAZY=y")
            return "lazy";
    }
    return {};
}

std::string preemptModelOf(const std::string& release, const std::string& version, bool& rt)
{
    rt = readFirstLine("/sys/kernel/realtime") == "1" || containsWord(version, "PREEMPT_RT");
    if (rt)
        return "PREEMPT_RT";
    if (containsWord(version, "PREEMPT_DYNAMIC")) {
        std::string mode = dynamicPreemptMode();
        if (mode.empty())
            mode = configuredPreempt(release);
        return mode.empty() ? "PREEMPT_DYNAMIC" : "PREEMPT_DYNAMIC (" + mode + ")";
    }
    if (containsWord(version, "PREEMPT_LAZY"))
        return "PREEMPT_LAZY";
    if (containsWord(version, "PREEMPT"))
        return "PREEMPT";
    const std::string configured = configuredPreempt(release);
    return configured.empty() ? "unknown" : configured;
}

std::string cpuinfoField(const std::string& key, bool& hypervisorFlag)
{
    std::ifstream in("/proc/cpuinfo");
    std::string line, value;
    while (std::getline(in, line)) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        const std::string k = trim(line.substr(0, colon));
        if (value.empty() && k == key)
            value = trim(line.substr(colon + 1));
        if (k == "flags" && containsWord(line.substr(colon + 1), "hypervisor"))
            hypervisorFlag = true;
        if (k == "flags" && !value.empty())
            break;
    }
    return value;
}

// CPUID leaf 0x40000000 carries the hypervisor's vendor signature when the "hypervisor" bit is set.
std::string cpuidHypervisor()
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid(0x40000000, a, b, c, d);
    char sig[13] = {};
    std::memcpy(sig + 0, &b, 4);
    std::memcpy(sig + 4, &c, 4);
    std::memcpy(sig + 8, &d, 4);
    struct Signature {
        const char* signature;
        const char* name;
    };
    static constexpr Signature kSignatures[] = {{"KVMKVMKVM", "KVM"},           {"Microsoft Hv", "Hyper-V"},
                                                {"VMwareVMware", "VMware"},     {"XenVMMXenVMM", "Xen"},
                                                {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"ACRNACRNACRN", "ACRN"},
                                                {" lrpepyh  vr", "Parallels"},  {"VBoxVBoxVBox", "VirtualBox"}};
    const std::string s(sig);
    for (const Signature& k : kSignatures)
        if (s == k.signature)
            return k.name;
    return {};
#else
    return {};
#endif
}

std::string dmiHypervisor(const std::string& vendor, const std::string& product)
{
    const auto has = [](const std::string& s, const char* needle) {
        return s.find(needle) != std::string::npos;
    };
    if (has(vendor, "QEMU") || has(product, "KVM"))
        return "KVM";
    if (has(vendor, "VMware"))
        return "VMware";
    if (has(vendor, "innotek") || has(product, "VirtualBox"))
        return "VirtualBox";
    if (has(vendor, "Microsoft") && has(product, "Virtual"))
        return "Hyper-V";
    if (has(vendor, "Xen"))
        return "Xen";
    if (has(vendor, "Amazon EC2"))
        return "KVM (Amazon EC2)";
    if (has(vendor, "Google"))
        return "KVM (Google Compute Engine)";
    if (has(vendor, "Firecracker") || has(product, "Firecracker"))
        return "Firecracker";
    return {};
}

void* exitAtOnce(void*)
{
    return nullptr;
}

// Creates a SCHED_FIFO priority-1 thread that returns immediately: the only honest test of "may we use RT",
// since a capability, an rlimit, RT group budgets and container policies all take part in the answer.
[[nodiscard]] int tryRealtimeThread()
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
    sched_param param{};
    param.sched_priority = 1;
    pthread_attr_setschedparam(&attr, &param);
    pthread_t thread;
    const int rc = pthread_create(&thread, &attr, exitAtOnce, nullptr);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_join(thread, nullptr);
    return rc;
}

std::string yesNo(bool b)
{
    return b ? "yes" : "no";
}

} // namespace

std::vector<int> parseSysfsCpuList(const std::string& text)
{
    std::vector<int> cpus;
    const std::string t = trim(text);
    if (t.empty())
        return cpus;
    std::istringstream in(t);
    std::string item;
    const auto parseNumber = [](const std::string& s, int& out) {
        // Linux caps NR_CPUS at 8192; anything far beyond is garbage, not a CPU list to expand.
        if (s.empty() || s.size() > 5 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return false;
        out = std::stoi(s);
        return out < 65536;
    };
    while (std::getline(in, item, ',')) {
        const size_t dash = item.find('-');
        int lo = 0, hi = 0;
        if (dash == std::string::npos) {
            if (!parseNumber(item, lo))
                return {};
            hi = lo;
        } else if (!parseNumber(item.substr(0, dash), lo) || !parseNumber(item.substr(dash + 1), hi) || hi < lo) {
            return {};
        }
        for (int cpu = lo; cpu <= hi; ++cpu)
            cpus.push_back(cpu);
    }
    // A trailing comma leaves no item for getline, but it is still malformed.
    if (t.back() == ',')
        return {};
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

SystemProbe probeSystem()
{
    SystemProbe p;
    utsname u{};
    if (uname(&u) == 0) {
        p.kernelRelease = u.release;
        p.kernelVersion = u.version;
        p.machine = u.machine;
        p.hostname = u.nodename;
    }
    p.preemptModel = preemptModelOf(p.kernelRelease, p.kernelVersion, p.preemptRt);
    const auto [major, minor] = kernelMajorMinor(p.kernelRelease);
    const auto atLeast = [major = major, minor = minor](int ma, int mi) {
        return major > ma || (major == ma && minor >= mi);
    };
    p.scheduler = atLeast(6, 6) ? "EEVDF" : "CFS";
    p.fairServer = atLeast(6, 12);
    if (p.fairServer) {
        std::string note;
        for (int cpu : onlineCpuList()) {
            const ThrottleSettings t = readThrottleSettings(cpu);
            if (t.fairServerRuntimeNs && t.fairServerPeriodNs)
                p.fairServerCpus.push_back(t.fairServerText());
            else
                note = t.fairServerNote;
        }
        // The reason is the same for every CPU (debugfs not mounted, not readable): said once.
        if (p.fairServerCpus.empty() && !note.empty())
            p.fairServerCpus.push_back(note);
    }

    p.clocksource = readFirstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    timespec res{};
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
        p.clockResolutionNs = int64_t(res.tv_sec) * 1000000000 + res.tv_nsec;
    p.timerSlackNs = timerSlack();
    p.rtRuntimeUs = readIntegerFile("/proc/sys/kernel/sched_rt_runtime_us").value_or(0);
    p.rtPeriodUs = readIntegerFile("/proc/sys/kernel/sched_rt_period_us").value_or(0);
    const Limit rtprio = resourceLimit(RLIMIT_RTPRIO);
    p.rlimitRtprioSoft = rtprio.soft;
    p.rlimitRtprioHard = rtprio.hard;
    p.rlimitMemlockSoft = resourceLimit(RLIMIT_MEMLOCK).soft;
    p.capSysNice = hasEffectiveCapability(kCapSysNice);
    p.isRoot = geteuid() == 0;

    const int rc = tryRealtimeThread();
    p.rtAvailable = rc == 0;
    if (!p.rtAvailable) {
        ThreadSpec spec;
        spec.policy = Policy::Fifo;
        spec.priority = 1;
        spec.name = "probe";
        p.rtUnavailableReason = explainSchedulingError(rc, spec).message;
    }
    if (p.rtAvailable)
        p.rtPath = p.capSysNice ? "CAP_SYS_NICE" : "rtprio limit";

    p.onlineCpus = onlineCpuList();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set))
                p.allowedCpus.push_back(cpu);
    p.isolatedCpus = parseSysfsCpuList(readFirstLine("/sys/devices/system/cpu/isolated"));
    p.nohzFullCpus = parseSysfsCpuList(readFirstLine("/sys/devices/system/cpu/nohz_full"));

    bool hypervisorFlag = false;
    p.cpuModel = cpuinfoField("model name", hypervisorFlag);
    if (p.cpuModel.empty()) // arm64 and others name it differently
        p.cpuModel = cpuinfoField("Model", hypervisorFlag);
    const std::string xenType = readFirstLine("/sys/hypervisor/type");
    const std::string dmi =
        dmiHypervisor(readFirstLine("/sys/class/dmi/id/sys_vendor"), readFirstLine("/sys/class/dmi/id/product_name"));
    if (hypervisorFlag)
        p.hypervisor = cpuidHypervisor();
    if (p.hypervisor.empty())
        p.hypervisor = !dmi.empty() ? dmi : xenType == "xen" ? "Xen" : std::string();
    p.virtualMachine = hypervisorFlag || !p.hypervisor.empty();

    // Opening registers a PM QoS request at the default (no constraint) and closing drops it: a harmless try.
    const int fd = ::open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        p.dmaLatencyAvailable = true;
        ::close(fd);
    } else {
        const int err = errno;
        p.dmaLatencyReason = "/dev/cpu_dma_latency: " + errnoName(err) + " (" + std::strerror(err) + ")";
    }
    return p;
}

std::string SystemProbe::fairServerText() const
{
    if (!fairServer)
        return "no (kernel " + kernelRelease + " < 6.12: RT throttling alone keeps SCHED_OTHER's share)";
    std::string values;
    for (const std::string& v : fairServerCpus)
        values += (values.empty() ? "" : "; ") + v;
    return "yes: " + (values.empty() ? std::string("values unknown") : values) +
           ". It is a SCHED_DEADLINE reservation on each CPU that runs SCHED_OTHER tasks when real-time tasks "
           "would starve them: the starvation lab's 50 ms OTHER window per second is this server.";
}

std::string SystemProbe::fairServerSummary() const
{
    if (!fairServer)
        return "no (kernel < 6.12)";
    const bool readable = !fairServerCpus.empty() && !fairServerCpus.front().starts_with("not readable");
    if (!readable)
        return "yes (values not readable)";
    std::string values;
    for (const std::string& v : fairServerCpus)
        values += (values.empty() ? "" : "; ") + v;
    return "yes: " + values;
}

std::string SystemProbe::toText() const
{
    std::vector<std::pair<std::string, std::string>> rows = {
        {"kernel", kernelRelease},
        {"kernel version", kernelVersion},
        {"machine", machine},
        {"hostname", hostname},
        {"cpu model", cpuModel.empty() ? "unknown" : cpuModel},
        {"preemption", preemptModel},
        {"preempt_rt", yesNo(preemptRt)},
        {"scheduler", scheduler + (fairServer ? " (with fair server)" : "")},
        {"fair server", fairServerText()},
        {"clocksource", clocksource.empty() ? "unknown" : clocksource},
        {"clock resolution", std::to_string(clockResolutionNs) + " ns"},
        {"timer slack", std::to_string(timerSlackNs) + " ns"},
        {"rt runtime", rtRuntimeUs < 0 ? "unlimited (no RT throttling)"
                                       : std::to_string(rtRuntimeUs) + " us of " + std::to_string(rtPeriodUs) + " us"},
        {"rlimit rtprio", formatLimit(rlimitRtprioSoft) + " (hard " + formatLimit(rlimitRtprioHard) + ")"},
        {"rlimit memlock", rlimitMemlockSoft < 0 ? "unlimited" : std::to_string(rlimitMemlockSoft / 1024) + " KiB"},
        {"cap_sys_nice", yesNo(capSysNice)},
        {"root", yesNo(isRoot)},
        {"rt available", rtAvailable ? "yes" : "no: " + rtUnavailableReason},
        {"online cpus", formatCpuListOrNone(onlineCpus)},
        {"allowed cpus", formatCpuListOrNone(allowedCpus)},
        {"isolated cpus", formatCpuListOrNone(isolatedCpus)},
        {"nohz_full cpus", formatCpuListOrNone(nohzFullCpus)},
        {"virtual machine",
         virtualMachine ? "yes" + (hypervisor.empty() ? std::string() : " (" + hypervisor + ")") : std::string("no")},
        {"cpu_dma_latency", dmaLatencyAvailable ? "available" : "unavailable: " + dmaLatencyReason},
    };
    size_t width = 0;
    for (const auto& [key, value] : rows)
        width = std::max(width, key.size());
    std::string out;
    for (const auto& [key, value] : rows)
        out += key + ':' + std::string(width - key.size() + 1, ' ') + value + '\n';
    return out;
}

} // namespace rtscope
