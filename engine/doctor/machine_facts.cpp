#include "engine/doctor/machine_facts.h"

#include "engine/doctor/knob_rules.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <sstream>

namespace rtscope::doctor {

namespace {

std::string factLine(const RootFs& fs, const std::string& path, const std::string& fallback = {})
{
    const Expected<std::string> v = fs.readLine(path);
    return v ? *v : fallback;
}

int factInt(const RootFs& fs, const std::string& path, int fallback)
{
    const std::string text = factLine(fs, path);
    int v = fallback;
    if (std::from_chars(text.data(), text.data() + text.size(), v).ec != std::errc())
        return fallback;
    return v;
}

// "always [madvise] never" → "madvise".
std::string bracketedWord(const std::string& text)
{
    const size_t open = text.find('[');
    const size_t close = text.find(']', open);
    if (open == std::string::npos || close == std::string::npos)
        return text;
    return text.substr(open + 1, close - open - 1);
}

bool cpuListHas(const std::string& cpuList, int cpu)
{
    const std::vector<int> cpus = parseSysfsCpuList(cpuList);
    return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end();
}

} // namespace

std::vector<IrqFact> parseInterrupts(const std::string& text)
{
    std::vector<IrqFact> rows;
    std::istringstream in(text);
    std::string line;
    size_t columns = 0;
    if (std::getline(in, line)) {
        std::istringstream header(line);
        std::string word;
        while (header >> word)
            ++columns;
    }
    while (std::getline(in, line)) {
        std::istringstream row(line);
        std::string label;
        if (!(row >> label) || label.empty() || label.back() != ':')
            continue;
        label.pop_back();
        IrqFact f;
        int number = -1;
        if (std::from_chars(label.data(), label.data() + label.size(), number).ec == std::errc() &&
            std::to_string(number) == label)
            f.irq = number;
        // The counts: as many numbers as there are CPU columns (ERR and MIS have one only).
        for (size_t c = 0; c < columns; ++c) {
            const std::streampos at = row.tellg();
            uint64_t n = 0;
            if (!(row >> n)) {
                row.clear();
                row.seekg(at);
                break;
            }
            f.counts.push_back(n);
        }
        std::string rest;
        std::getline(row, rest);
        rest = detail::trimmed(rest);
        if (f.irq >= 0) {
            // "PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0": the chip and its hardware IRQ, then the action
            // names.
            std::istringstream words(rest);
            std::vector<std::string> w;
            std::string one;
            while (words >> one)
                w.push_back(one);
            if (w.size() >= 3) {
                f.chip = w[0] + " " + w[1];
                for (size_t i = 2; i < w.size(); ++i)
                    f.name += (i > 2 ? " " : "") + w[i];
            } else {
                f.name = rest;
            }
        } else {
            f.name = label + (rest.empty() ? "" : " (" + rest + ")");
        }
        rows.push_back(std::move(f));
    }
    return rows;
}

std::vector<uint64_t> interruptsSince(const std::vector<IrqFact>& before, const std::vector<IrqFact>& after, int cpu)
{
    std::vector<uint64_t> out(after.size(), 0);
    for (size_t k = 0; k < after.size(); ++k) {
        const IrqFact& a = after[k];
        if (cpu < 0 || size_t(cpu) >= a.counts.size())
            continue;
        uint64_t was = 0;
        for (const IrqFact& b : before)
            if (b.irq == a.irq && b.name == a.name && size_t(cpu) < b.counts.size())
                was = b.counts[size_t(cpu)];
        const uint64_t now = a.counts[size_t(cpu)];
        out[k] = now >= was ? now - was : 0;
    }
    return out;
}

std::string DamonFact::text() const
{
    std::string t = "kdamond " + std::to_string(index) + " " + (state.empty() ? "in an unknown state" : state);
    if (!operations.empty())
        t += ": " + operations;
    if (sampleUs >= 0)
        t += std::string(operations.empty() ? ": " : ", ") + "a sample every " + formatDurationExact(sampleUs * 1000);
    return t;
}

namespace {

std::vector<DamonFact> readDamonFacts(const RootFs& fs)
{
    const std::string dir = "/sys/kernel/mm/damon/admin/kdamonds";
    std::vector<DamonFact> out;
    for (const std::string& name : fs.list(dir)) {
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])))
            continue; // nr_kdamonds
        DamonFact d;
        d.index = std::atoi(name.c_str());
        const std::string k = dir + "/" + name;
        d.state = factLine(fs, k + "/state");
        d.operations = factLine(fs, k + "/contexts/0/operations");
        const std::string sample = factLine(fs, k + "/contexts/0/monitoring_attrs/intervals/sample_us");
        if (!sample.empty() && std::all_of(sample.begin(), sample.end(), [](char c) { return std::isdigit(c); }))
            d.sampleUs = std::atoll(sample.c_str());
        out.push_back(d);
    }
    return out;
}

} // namespace

MachineFacts readMachineFacts(const RootFs& fs, int cpu)
{
    MachineFacts f;
    f.cpu = cpu;
    f.probe = probeSystem();
    const Expected<std::string> preempt = fs.readLine("/sys/kernel/debug/sched/preempt");
    if (!preempt)
        f.preemptModeNote = preempt.error().message;
    // "none voluntary (full) lazy": debugfs marks the current mode with parentheses.
    if (preempt) {
        const size_t open = preempt->find('(');
        const size_t close = preempt->find(')', open);
        f.preemptMode = open != std::string::npos && close != std::string::npos
                            ? preempt->substr(open + 1, close - open - 1)
                            : std::string();
    }
    f.cmdline = factLine(fs, "/proc/cmdline");

    if (const Expected<std::string> text = fs.readText("/proc/interrupts", 1 << 20))
        f.irqs = parseInterrupts(*text);
    for (IrqFact& irq : f.irqs) {
        if (irq.irq < 0)
            continue;
        const std::string dir = "/proc/irq/" + std::to_string(irq.irq);
        irq.affinity = factLine(fs, dir + "/smp_affinity_list");
        irq.effective = factLine(fs, dir + "/effective_affinity_list");
    }

    const std::string procRoot = fs.isRealRoot() ? "/proc" : fs.root() + "/proc";
    for (SystemThread& t : listSystemThreads(false, procRoot))
        if (t.lastCpu == cpu || cpuListHas(t.allowedCpus, cpu))
            f.threads.push_back(std::move(t));

    f.idleDriver = factLine(fs, "/sys/devices/system/cpu/cpuidle/current_driver");
    f.idleGovernor = factLine(fs, "/sys/devices/system/cpu/cpuidle/current_governor");
    const std::string cpuDir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    for (const std::string& name : fs.list(cpuDir + "/cpuidle")) {
        if (name.rfind("state", 0) != 0)
            continue;
        IdleStateFact s;
        s.index = std::atoi(name.c_str() + 5);
        s.name = factLine(fs, cpuDir + "/cpuidle/" + name + "/name");
        s.exitLatencyUs = factInt(fs, cpuDir + "/cpuidle/" + name + "/latency", 0);
        s.disabled = factInt(fs, cpuDir + "/cpuidle/" + name + "/disable", 0) != 0;
        f.idleStates.push_back(s);
    }
    f.cpufreqGovernor = factLine(fs, cpuDir + "/cpufreq/scaling_governor");
    f.thpEnabled = bracketedWord(factLine(fs, "/sys/kernel/mm/transparent_hugepage/enabled"));
    f.thpDefrag = bracketedWord(factLine(fs, "/sys/kernel/mm/transparent_hugepage/defrag"));
    f.damon = readDamonFacts(fs);
    f.timerMigration = factInt(fs, "/proc/sys/kernel/timer_migration", -1);
    f.nmiWatchdog = factInt(fs, "/proc/sys/kernel/nmi_watchdog", -1);
    f.softWatchdog = factInt(fs, "/proc/sys/kernel/soft_watchdog", -1);
    f.watchdogCpumask = factLine(fs, "/proc/sys/kernel/watchdog_cpumask");
    const std::string wq = factLine(fs, "/sys/devices/virtual/workqueue/cpumask");
    f.workqueueCpumask = detail::cpuListFromMask(wq).value_or(wq);
    f.smtSiblings = parseSysfsCpuList(factLine(fs, cpuDir + "/topology/thread_siblings_list"));
    f.cpusets = findCpusetHierarchies(fs);
    const auto& isolated = f.probe.isolatedCpus;
    f.cpuInPartition = std::find(isolated.begin(), isolated.end(), cpu) != isolated.end();
    if (!f.cpusets.v1.empty() && fs.isDirectory(f.cpusets.v1 + "/" + kIsolatedCpuset))
        f.cpuInPartition =
            f.cpuInPartition || cpuListHas(factLine(fs, f.cpusets.v1 + "/" + kIsolatedCpuset + "/cpuset.cpus"), cpu);
    return f;
}

} // namespace rtscope::doctor
