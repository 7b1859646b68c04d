#include "engine/doctor/diagnosis.h"

#include "engine/pipeline/trace_event.h"
#include "engine/rt/cpu_topology.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace rtscope::doctor {

namespace {

// The rules in the order docs/doctor.md lists them: the tie-break of the ranking.
const char* const kRuleOrder[] = {"thread-on-cpu", "threaded-irq",     "device-irq",    "softirq",
                                  "idle-exit",     "timer-migration",  "thp",           "workqueue",
                                  "preempt-model", "cpuset-isolation", "rt-throttling", "boot-isolation"};

int ruleRank(const std::string& rule)
{
    for (size_t i = 0; i < std::size(kRuleOrder); ++i)
        if (rule == kRuleOrder[i])
            return int(i);
    return int(std::size(kRuleOrder));
}

std::string durationText(int64_t ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, ns < 10'000'000 ? "%.1f us" : "%.2f ms",
                  ns < 10'000'000 ? double(ns) / 1e3 : double(ns) / 1e6);
    return buf;
}

// Shares and the sentence of how much a culprit explains.
struct Explained {
    double tail = 0;
    double all = 0;
};

class Builder {
public:
    Builder(const MachineFacts& facts, const MeasuredLateness& lateness, const DiagnosisContext& ctx)
        : m_facts(facts)
        , m_late(lateness)
        , m_ctx(ctx)
    {
        for (int c : ctx.onlineCpus)
            if (c != ctx.cpu)
                m_others.push_back(c);
        m_othersText = formatCpuList(m_others);
    }

    Explained explained(const CulpritShare& c) const
    {
        Explained e;
        if (m_late.tailNs > 0)
            e.tail = double(c.tailNs) / double(m_late.tailNs);
        if (m_late.analysedNs > 0)
            e.all = double(c.totalNs) / double(m_late.analysedNs);
        return e;
    }

    /// What the shares are shares of: the worst wake-ups' lateness, or the poller's noise (doctor --noise).
    bool noiseEvidence() const { return m_late.noise; }
    std::string tailLateness() const { return m_late.noise ? "the noise" : "the worst wake-ups' lateness"; }

    std::string culpritEvidence(const CulpritShare& c) const
    {
        if (m_late.noise)
            return std::to_string(c.tailWakeups) + " time(s) inside the " + std::to_string(m_late.tailWakeups) +
                   " gaps a busy poller lost (" + durationText(m_late.tailThresholdNs) + " or longer), for " +
                   durationText(c.tailNs) + " together, " + shareText(explained(c).tail) + " of the noise (longest " +
                   durationText(c.worstNs) + " at a time)";
        std::string s = "in " + std::to_string(c.tailWakeups) + " of the " + std::to_string(m_late.tailWakeups) +
                        " worst wake-ups (" + durationText(m_late.tailThresholdNs) + " late or more) for " +
                        durationText(c.tailNs) + " together, " + shareText(explained(c).tail) +
                        " of their lateness; in " + std::to_string(c.wakeups) + " of " +
                        std::to_string(m_late.analysed) + " wake-ups analysed for " + durationText(c.totalNs) +
                        " (worst " + durationText(c.worstNs) + " in one)";
        return s;
    }

    // Adds @p share to the finding @p id, making it with @p make the first time.
    template <class Make> Finding& add(const std::string& id, Explained share, Make&& make)
    {
        auto it = m_findings.find(id);
        if (it == m_findings.end()) {
            Finding f = make();
            f.id = id;
            it = m_findings.emplace(id, std::move(f)).first;
        }
        it->second.tailShare += share.tail;
        it->second.share += share.all;
        return it->second;
    }
    bool has(const std::string& id) const { return m_findings.count(id) != 0; }

    const SystemThread* thread(int64_t tid) const
    {
        for (const SystemThread& t : m_facts.threads)
            if (t.tid == tid)
                return &t;
        return nullptr;
    }
    const IrqFact* irq(int64_t number) const
    {
        for (const IrqFact& i : m_facts.irqs)
            if (i.irq == number)
                return &i;
        return nullptr;
    }

    Fix irqFix(const IrqFact& i) const
    {
        Fix f;
        f.kind = FixKind::IrqAffinity;
        f.target = "IRQ " + std::to_string(i.irq) + " (" + i.name + ")";
        f.from = i.affinity;
        f.to = m_othersText;
        f.changes.push_back({KnobKind::IrqAffinity, std::to_string(i.irq), "", "", m_othersText});
        f.permanent = "echo " + m_othersText + " > /proc/irq/" + std::to_string(i.irq) + "/smp_affinity_list";
        return f;
    }
    // Every device IRQ delivered to the measured CPU during the baseline, moved together.
    Fix sourcesFix() const
    {
        Fix f;
        f.kind = FixKind::IrqAffinity;
        std::string irqs;
        for (const IrqFact& i : m_facts.irqs) {
            if (i.irq < 0 || i.runCount == 0)
                continue;
            irqs += (irqs.empty() ? "" : ",") + std::to_string(i.irq);
            f.changes.push_back({KnobKind::IrqAffinity, std::to_string(i.irq), "", "", m_othersText});
            f.permanent += (f.permanent.empty() ? "" : "\n") + std::string("echo ") + m_othersText + " > /proc/irq/" +
                           std::to_string(i.irq) + "/smp_affinity_list";
        }
        f.target = irqs.empty() ? "no device IRQ fired on CPU " + std::to_string(m_ctx.cpu) : "IRQs " + irqs;
        f.from = "CPU " + std::to_string(m_ctx.cpu) + " among their CPUs";
        f.to = m_othersText;
        f.runtime = !f.changes.empty();
        return f;
    }
    Fix sysctlFix(const std::string& name, const std::string& from, const std::string& to) const
    {
        Fix f;
        f.kind = FixKind::Sysctl;
        f.target = name;
        f.from = from;
        f.to = to;
        f.changes.push_back({KnobKind::Sysctl, name, "", "", to});
        f.permanent = name + " = " + to;
        return f;
    }
    Fix bootFix(const std::string& words) const
    {
        Fix f;
        f.kind = FixKind::KernelCmdline;
        f.target = "kernel command line";
        f.from = "(none of these)";
        f.to = words;
        f.runtime = false;
        f.permanent = words;
        return f;
    }
    std::string isolationWords() const
    {
        const std::string c = std::to_string(m_ctx.cpu);
        return "isolcpus=managed_irq,domain," + c + " nohz_full=" + c + " rcu_nocbs=" + c +
               " irqaffinity=" + m_othersText + " skew_tick=1";
    }

    void task(const CulpritShare& c);
    void interrupt(const CulpritShare& c);
    void idle();
    void settings();

    std::vector<Finding> ranked()
    {
        std::vector<Finding> out;
        for (auto& [id, f] : m_findings)
            out.push_back(std::move(f));
        std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
            if (a.tailShare != b.tailShare)
                return a.tailShare > b.tailShare;
            if (a.share != b.share)
                return a.share > b.share;
            return ruleRank(a.rule) < ruleRank(b.rule);
        });
        return out;
    }

    // Shares gathered for the setting rules from the culprits they cover.
    Explained timerShare, thpShare, workqueueShare, preemptShare, isolationShare, bootShare;
    std::string bootSeen;
    int minorTasks = 0; ///< tasks too small for a finding of their own

private:
    const MachineFacts& m_facts;
    const MeasuredLateness& m_late;
    const DiagnosisContext& m_ctx;
    std::vector<int> m_others;
    std::string m_othersText;
    std::map<std::string, Finding> m_findings;
};

Explained& operator+=(Explained& a, Explained b)
{
    a.tail += b.tail;
    a.all += b.all;
    return a;
}

void Builder::task(const CulpritShare& c)
{
    const Explained share = explained(c);
    const std::string name = c.name.empty() ? "TID " + std::to_string(c.id) : c.name;
    const SystemThread* t = thread(c.id);
    const std::string who = "'" + name + "' (TID " + std::to_string(c.id) +
                            (c.prio >= -1 ? ", " + describeKernelPrio(c.prio) : std::string()) + ")";
    // Threaded interrupt handlers follow their IRQ's affinity (kernel/irq/manage.c, irq_thread_check_affinity).
    if (name.rfind("irq/", 0) == 0) {
        const int number = std::atoi(name.c_str() + 4);
        if (const IrqFact* i = irq(number)) {
            add("irq-" + std::to_string(number), share, [&] {
                Finding f;
                f.rule = "threaded-irq";
                f.title = "the interrupt thread " + who + " of IRQ " + std::to_string(number) + " ran on CPU " +
                          std::to_string(m_ctx.cpu);
                f.evidence = "It held the CPU " + culpritEvidence(c) + "; IRQ " + std::to_string(number) + " fired " +
                             std::to_string(i->runCount) + " time(s) on CPU " + std::to_string(m_ctx.cpu) +
                             " during the baseline. Its thread follows the IRQ's affinity.";
                f.fix = irqFix(*i);
                return f;
            });
            return;
        }
    }
    const int boundCpu = perCpuKthreadCpu(name);
    if (name.rfind("kworker/u", 0) == 0) {
        workqueueShare += share;
        return;
    }
    if (name.rfind("khugepaged", 0) == 0 || name.rfind("kcompactd", 0) == 0) {
        thpShare += share;
        return;
    }
    if (boundCpu >= 0) {
        // A per-CPU kernel thread (ksoftirqd/N, kworker/N:M, rcuc/N, migration/N) cannot leave its CPU; what it
        // does there is moved off by the boot-time isolation (Documentation/admin-guide/kernel-per-CPU-kthreads.rst).
        bootShare += share;
        bootSeen += (bootSeen.empty() ? "" : ", ") + name;
        return;
    }
    // A task that delayed none of the worst wake-ups and under 0.5 % of all is noise on a shared machine (a compiler
    // that held the CPU for 3 us once): it counts in the isolation finding's share, not as a finding of its own.
    const bool minor = share.tail <= 0 && share.all < 0.005;
    const bool hog = name == "rtscope-hog";
    const bool above = c.prio >= 0 && c.prio < 99 && 99 - c.prio >= m_ctx.priority;
    if (c.prio >= 100)
        preemptShare += share;
    if (c.prio >= 100 && !hog)
        isolationShare += share;
    if (minor) {
        ++minorTasks;
        return;
    }
    add("thread-" + std::to_string(c.id), share, [&] {
        Finding f;
        f.rule = "thread-on-cpu";
        f.title = hog ? "CPU " + std::to_string(m_ctx.cpu) + " is shared with the load's hog " + who
                      : (above ? "a real-time thread above the measuring thread shares CPU " : "a thread shares CPU ") +
                            std::to_string(m_ctx.cpu) + ": " + who;
        f.evidence = "It held the CPU " + culpritEvidence(c) + ".";
        f.fix.kind = FixKind::ThreadAffinity;
        f.fix.target = "thread " + std::to_string(c.id) + " (" + name + ")";
        f.fix.to = m_othersText;
        if (t) {
            f.fix.from = t->allowedCpus;
            f.evidence += " It may run on CPUs " + t->allowedCpus + " (" + t->policy +
                          (t->realtime() ? " " + std::to_string(t->rtPriority) : "") + ").";
            f.fix.changes.push_back({KnobKind::ThreadAffinity,
                                     std::to_string(t->tid) + "@" + std::to_string(t->startTime), "", "",
                                     m_othersText});
            f.fix.permanent = t->tasksetCommand() + "  # now; to keep it, start it with taskset -c " + m_othersText;
        } else {
            f.fix.from = "(the thread has exited)";
            f.evidence += " It has exited since.";
        }
        return f;
    });
}

void Builder::interrupt(const CulpritShare& c)
{
    const Explained share = explained(c);
    switch (c.kind) {
    case CulpritKind::Irq: {
        const IrqFact* i = irq(c.id);
        add("irq-" + std::to_string(c.id), share, [&] {
            Finding f;
            f.rule = "device-irq";
            const std::string name = i ? i->name : c.name;
            f.title =
                "IRQ " + std::to_string(c.id) + " (" + name + ") is delivered to CPU " + std::to_string(m_ctx.cpu);
            f.evidence = "It ran " + culpritEvidence(c) + ".";
            if (i) {
                f.evidence += " It fired " + std::to_string(i->runCount) + " time(s) on CPU " +
                              std::to_string(m_ctx.cpu) + " during the baseline; affinity " + i->affinity +
                              ", delivered to " + i->effective + ".";
                f.fix = irqFix(*i);
            } else {
                f.fix = irqFix(IrqFact{int(c.id), c.name, {}, {}, {}, {}, 0});
            }
            f.evidence += " A managed interrupt (a multi-queue driver's) cannot be moved at run time; "
                          "isolcpus=managed_irq keeps it off the CPU from boot.";
            return f;
        });
        return;
    }
    case CulpritKind::Softirq: {
        const std::string vec = softirqName(int(c.id));
        if (vec == "TIMER" || vec == "HRTIMER") {
            timerShare += share;
            return;
        }
        if (vec == "RCU") {
            bootShare += share;
            bootSeen += (bootSeen.empty() ? "" : ", ") + std::string("softirq RCU");
            return;
        }
        if (vec == "SCHED") {
            isolationShare += share;
            return;
        }
        add("softirq-" + vec, share, [&] {
            Finding f;
            f.rule = "softirq";
            f.title = "softirq " + vec + " ran on CPU " + std::to_string(m_ctx.cpu);
            f.evidence = "It ran " + culpritEvidence(c) +
                         ". A softirq runs on the CPU whose interrupt raised it: moving the device interrupts that "
                         "fired there moves it too.";
            f.fix = sourcesFix();
            return f;
        });
        return;
    }
    case CulpritKind::Vector: {
        const auto v = TraceVector(c.id);
        if (v == TraceVector::LocalTimer) {
            bootShare += share;
            bootSeen += (bootSeen.empty() ? "" : ", ") + std::string("local timer ticks");
        } else {
            isolationShare += share; // IPIs: other CPUs' work sent here (reschedule, function calls)
        }
        return;
    }
    case CulpritKind::Hrtimer:
        // Another timer's callback on this CPU: the tick (tick_nohz_handler, tick_sched_timer) is boot-only
        // (nohz_full); the others follow timer migration.
        if (c.name.find("tick") != std::string::npos) {
            bootShare += share;
            bootSeen += (bootSeen.empty() ? "" : ", ") + std::string("the tick");
        } else {
            timerShare += share;
        }
        return;
    case CulpritKind::Task:
        return;
    }
}

void Builder::idle()
{
    if (m_late.tailIdleExits == 0)
        return;
    // The exit from idle is in the timer IRQ delay of a wake-up that found the CPU idle; what it costs is that delay
    // beyond the one of the wake-ups that found the CPU busy.
    const uint64_t busy = m_late.tailWakeups - m_late.tailIdleExits;
    const double idleMean = double(m_late.tailIdleTimerDelayNs) / double(m_late.tailIdleExits);
    const double busyMean = busy > 0 ? double(m_late.tailTimerDelayNs) / double(busy) : 0.0;
    const double excess = std::max(0.0, idleMean - busyMean) * double(m_late.tailIdleExits);
    Explained share;
    if (m_late.tailNs > 0)
        share.tail = excess / double(m_late.tailNs);
    add("idle-exit", share, [&] {
        Finding f;
        f.rule = "idle-exit";
        f.title = "CPU " + std::to_string(m_ctx.cpu) + " wakes the measuring thread out of idle";
        f.evidence = std::to_string(m_late.tailIdleExits) + " of the " + std::to_string(m_late.tailWakeups) +
                     " worst wake-ups found the CPU idle; their timer interrupt came " +
                     durationText(int64_t(idleMean)) + " after the deadline on average" +
                     (busy > 0 ? " against " + durationText(int64_t(busyMean)) + " when it was busy" : std::string()) +
                     ". Idle driver " + (m_facts.idleDriver.empty() ? "?" : m_facts.idleDriver) + ", governor " +
                     (m_facts.idleGovernor.empty() ? "?" : m_facts.idleGovernor) + ", " +
                     std::to_string(m_facts.idleStates.size()) + " idle state(s).";
        f.fix.kind = FixKind::CpuDmaLatency;
        f.fix.target = "/dev/cpu_dma_latency";
        f.fix.from = "no request";
        f.fix.to = "0 us (held while measuring)";
        f.fix.changes.push_back({KnobKind::CpuDmaLatency, "held", "", "", "0"});
        f.fix.permanent = "force_latency = 0  # tuned, or hold /dev/cpu_dma_latency open (rtscope latency "
                          "--dma-latency)";
        return f;
    });
}

void Builder::settings()
{
    const std::string cpu = std::to_string(m_ctx.cpu);
    if (m_facts.timerMigration == 1)
        add("timer-migration", timerShare, [&] {
            Finding f;
            f.rule = "timer-migration";
            f.title = "timer migration is on: other CPUs' timers may expire on CPU " + cpu;
            f.evidence = "Timer softirqs and other hrtimer callbacks explain " + shareText(timerShare.tail) + " of " +
                         tailLateness() + "; kernel.timer_migration is 1.";
            f.fix = sysctlFix("kernel.timer_migration", "1", "0");
            return f;
        });
    const bool thpAlways = m_facts.thpEnabled == "always";
    const bool defragSync = m_facts.thpDefrag == "always" || m_facts.thpDefrag == "madvise";
    if (thpAlways || defragSync)
        add("thp", thpShare, [&] {
            Finding f;
            f.rule = "thp";
            f.title = "transparent huge pages: enabled " + m_facts.thpEnabled + ", defrag " + m_facts.thpDefrag;
            f.evidence = "khugepaged and kcompactd explain " + shareText(thpShare.tail) + " of " + tailLateness() +
                         "; a page fault that compacts memory stalls its thread "
                         "and the compaction threads run anywhere.";
            f.fix.kind = FixKind::Thp;
            f.fix.target = "/sys/kernel/mm/transparent_hugepage";
            f.fix.from = "enabled " + m_facts.thpEnabled + ", defrag " + m_facts.thpDefrag;
            f.fix.to = std::string(thpAlways ? "enabled madvise, " : "") + "defrag never";
            if (thpAlways)
                f.fix.changes.push_back({KnobKind::Thp, "enabled", "", "", "madvise"});
            f.fix.changes.push_back({KnobKind::Thp, "defrag", "", "", "never"});
            f.fix.permanent = std::string(thpAlways ? "transparent_hugepage=madvise " : "") +
                              "(and echo never > /sys/kernel/mm/transparent_hugepage/defrag)";
            return f;
        });
    const std::vector<int> wq = parseSysfsCpuList(m_facts.workqueueCpumask);
    if (std::find(wq.begin(), wq.end(), m_ctx.cpu) != wq.end() && !m_others.empty())
        add("workqueue", workqueueShare, [&] {
            Finding f;
            f.rule = "workqueue";
            f.title =
                "unbound kworkers may run on CPU " + cpu + " (workqueue cpumask " + m_facts.workqueueCpumask + ")";
            f.evidence = "Unbound kworkers (kworker/u*) explain " + shareText(workqueueShare.tail) + " of " +
                         tailLateness() + ".";
            f.fix.kind = FixKind::WorkqueueCpumask;
            f.fix.target = "/sys/devices/virtual/workqueue/cpumask";
            f.fix.from = m_facts.workqueueCpumask;
            f.fix.to = m_othersText;
            f.fix.changes.push_back({KnobKind::WorkqueueCpumask, "cpumask", "", "", m_othersText});
            f.fix.permanent = "workqueue.unbound_cpus=" + m_othersText;
            return f;
        });
    const std::string& mode = m_facts.preemptMode;
    const std::string& model = m_facts.probe.preemptModel;
    const bool dynamic = model.rfind("PREEMPT_DYNAMIC", 0) == 0;
    const bool notPreemptible =
        (dynamic && (mode == "none" || mode == "voluntary")) || (!dynamic && (model == "none" || model == "voluntary"));
    if (notPreemptible && !m_facts.probe.preemptRt)
        add("preempt-model", preemptShare, [&] {
            Finding f;
            f.rule = "preempt-model";
            f.title =
                "the kernel is not fully preemptible (" + (dynamic ? "PREEMPT_DYNAMIC, mode " + mode : model) + ")";
            f.evidence = "Normal (SCHED_OTHER) tasks explain " + shareText(preemptShare.tail) + " of " +
                         tailLateness() +
                         ": in a kernel that is not fully preemptible, their system "
                         "calls hold off a real-time thread until they reach a preemption point.";
            f.fix.kind = dynamic ? FixKind::PreemptMode : FixKind::KernelCmdline;
            f.fix.target = dynamic ? "/sys/kernel/debug/sched/preempt" : "kernel";
            f.fix.from = dynamic ? mode : model;
            f.fix.to = "full";
            f.fix.runtime = dynamic;
            if (dynamic) {
                f.fix.changes.push_back({KnobKind::DebugfsMount, "/sys/kernel/debug", "", "", "mounted"});
                f.fix.changes.push_back({KnobKind::PreemptMode, "sched/preempt", "", "", "full"});
            }
            f.fix.permanent = dynamic ? "preempt=full" : "a kernel built with CONFIG_PREEMPT or PREEMPT_RT";
            return f;
        });
    if (!m_facts.cpuInPartition && !m_others.empty() && (isolationShare.tail > 0 || isolationShare.all > 0))
        add("cpuset-isolation", isolationShare, [&] {
            Finding f;
            f.rule = "cpuset-isolation";
            f.title = "CPU " + cpu + " is not isolated: the load balancer brings other work to it";
            f.evidence = "Normal tasks, scheduler softirqs and IPIs explain " + shareText(isolationShare.tail) +
                         " of " + tailLateness() +
                         (minorTasks > 0 ? " (" + std::to_string(minorTasks) +
                                               " task(s) too small for a finding of their own among them)"
                                         : std::string()) +
                         ".";
            f.fix.kind = FixKind::CpusetPartition;
            const bool v2 = !m_facts.cpusets.v2.empty();
            f.fix.target = v2 ? m_facts.cpusets.v2 + "/" + kIsolatedCpuset : m_facts.cpusets.v1 + "/" + kIsolatedCpuset;
            f.fix.from = "CPU " + cpu + " load-balanced with " + m_othersText;
            f.fix.to = v2 ? "an isolated partition of CPU " + cpu
                          : "an exclusive cpuset of CPU " + cpu + " without load balancing (cgroup v1)";
            f.fix.runtime = v2 || !m_facts.cpusets.v1.empty();
            f.fix.permanent = "isolcpus=domain," + cpu + "  (or a cpuset partition made at boot)";
            return f;
        });
    if (m_facts.probe.rtRuntimeUs >= 0 && m_facts.probe.rtPeriodUs > 0 &&
        m_facts.probe.rtRuntimeUs < m_facts.probe.rtPeriodUs)
        add("rt-throttling", Explained{}, [&] {
            Finding f;
            f.rule = "rt-throttling";
            f.title = "RT throttling: real-time tasks may use " + std::to_string(m_facts.probe.rtRuntimeUs) +
                      " us of every " + std::to_string(m_facts.probe.rtPeriodUs) + " us";
            f.evidence = "A thread that uses less than that (the measuring thread does) is never throttled; a "
                         "real-time load that spins would be, and the rest of its period lost.";
            f.fix = sysctlFix("kernel.sched_rt_runtime_us", std::to_string(m_facts.probe.rtRuntimeUs), "-1");
            return f;
        });
    const bool isolated = std::find(m_facts.probe.nohzFullCpus.begin(), m_facts.probe.nohzFullCpus.end(), m_ctx.cpu) !=
                          m_facts.probe.nohzFullCpus.end();
    if (!isolated && !m_others.empty())
        add("boot-isolation", bootShare, [&] {
            Finding f;
            f.rule = "boot-isolation";
            f.title = "CPU " + cpu + " is not isolated at boot (no isolcpus, nohz_full, rcu_nocbs)";
            f.evidence =
                "What only a boot-time isolation moves off the CPU explains " + shareText(bootShare.tail) + " of " +
                tailLateness() + (bootSeen.empty() ? "" : " (" + bootSeen + ")") +
                ". Kernel command line now: " + (m_facts.cmdline.empty() ? "?" : m_facts.cmdline.substr(0, 200));
            f.fix = bootFix(isolationWords());
            return f;
        });
}

} // namespace

int perCpuKthreadCpu(const std::string& comm)
{
    // "ksoftirqd/1", "migration/1", "rcuc/1", "cpuhp/1", "kworker/1:2", "kworker/1:2H"; not "kworker/u8:3".
    const size_t slash = comm.find('/');
    if (slash == std::string::npos || slash + 1 >= comm.size() || comm.rfind("irq/", 0) == 0)
        return -1;
    size_t i = slash + 1;
    int cpu = 0;
    bool digits = false;
    while (i < comm.size() && comm[i] >= '0' && comm[i] <= '9') {
        cpu = cpu * 10 + (comm[i] - '0');
        digits = true;
        ++i;
    }
    if (!digits || (i < comm.size() && comm[i] != ':'))
        return -1;
    return cpu;
}

MeasuredLateness summarizeLateness(const AnatomyFigures& figures, double meanNs)
{
    MeasuredLateness m;
    m.analysed = figures.wakeupsAnalysed;
    m.analysedNs = int64_t(meanNs * double(m.analysed));
    for (const CulpritRow& r : figures.culprits)
        m.culprits.push_back({r.kind, r.id, r.name, r.prio, r.wakeups, r.totalNs, r.worstNs, 0, 0});
    const auto culprit = [&](CulpritKind kind, int64_t id, const std::string& name, int32_t prio) -> CulpritShare& {
        for (CulpritShare& c : m.culprits)
            if (c.kind == kind && c.id == id)
                return c;
        m.culprits.push_back({kind, id, name, prio, 0, 0, 0, 0, 0});
        return m.culprits.back();
    };
    m.tailThresholdNs = figures.worst.empty() ? 0 : INT64_MAX;
    for (const TracedWakeup& w : figures.worst) {
        const WakeupAnatomy& a = w.anatomy;
        ++m.tailWakeups;
        m.tailNs += a.latencyNs;
        m.tailThresholdNs = std::min(m.tailThresholdNs, a.latencyNs);
        if (a.timerIrqDelayNs) {
            if (a.idleAtTimer) {
                ++m.tailIdleExits;
                m.tailIdleTimerDelayNs += *a.timerIrqDelayNs;
            } else {
                m.tailTimerDelayNs += *a.timerIrqDelayNs;
            }
        }
        for (const AnatomyInterrupt& i : a.interrupts) {
            if (i.ownTimer || i.ns <= 0)
                continue;
            CulpritShare& c = culprit(i.kind, i.id, i.name, -2);
            c.tailNs += i.ns;
            ++c.tailWakeups;
        }
        for (const AnatomyTaskShare& t : taskShares(a)) {
            CulpritShare& c = culprit(CulpritKind::Task, t.pid, t.comm, t.prio);
            c.tailNs += t.ns;
            ++c.tailWakeups;
        }
    }
    return m;
}

MeasuredLateness summarizeNoise(const NoiseSnapshot& snap, int cpu)
{
    MeasuredLateness m;
    m.noise = true;
    for (const NoiseCpuStats& c : snap.cpus)
        if (c.cpu == cpu) {
            m.analysed = m.tailWakeups = c.gaps;
            m.analysedNs = m.tailNs = c.noiseNs;
        }
    m.tailThresholdNs = snap.config.thresholdNs;
    for (const NoiseCulprit& k : snap.culprits) {
        if (k.cpu != cpu || k.id < 0)
            continue;
        CulpritKind kind = CulpritKind::Task;
        int32_t prio = -2;
        if (k.kind == NoiseKind::Irq)
            kind = k.vector ? CulpritKind::Vector : CulpritKind::Irq;
        else if (k.kind == NoiseKind::Softirq)
            kind = CulpritKind::Softirq;
        else if (k.kind == NoiseKind::Thread)
            prio = k.prio;
        else
            continue; // NMIs: no rule acts on one
        m.culprits.push_back({kind, k.id, k.name, prio, k.count, k.totalNs, k.maxNs, k.count, k.totalNs});
    }
    return m;
}

std::vector<Finding> diagnose(const MachineFacts& facts, const MeasuredLateness& lateness, const DiagnosisContext& ctx)
{
    Builder b(facts, lateness, ctx);
    for (const CulpritShare& c : lateness.culprits) {
        if (c.kind == CulpritKind::Task) {
            if (c.id <= 0 ||
                std::find(ctx.measuringTids.begin(), ctx.measuringTids.end(), c.id) != ctx.measuringTids.end())
                continue;
            b.task(c);
        } else {
            b.interrupt(c);
        }
    }
    // Device interrupts delivered to the CPU during the baseline that delayed none of the wake-ups analysed: a risk
    // the run did not meet, listed with a share of 0 (tried only by --thorough).
    for (const IrqFact& i : facts.irqs)
        if (i.irq >= 0 && i.runCount > 0 && !b.has("irq-" + std::to_string(i.irq)))
            b.add("irq-" + std::to_string(i.irq), Explained{}, [&] {
                Finding f;
                f.rule = "device-irq";
                f.title =
                    "IRQ " + std::to_string(i.irq) + " (" + i.name + ") is delivered to CPU " + std::to_string(ctx.cpu);
                f.evidence = "It fired " + std::to_string(i.runCount) + " time(s) on CPU " + std::to_string(ctx.cpu) +
                             " during the baseline, in none of the " +
                             (b.noiseEvidence() ? "gaps measured" : "wake-ups analysed") + "; affinity " + i.affinity +
                             ", delivered to " + i.effective + ".";
                f.fix = b.irqFix(i);
                return f;
            });
    b.idle();
    b.settings();
    return b.ranked();
}

} // namespace rtscope::doctor
