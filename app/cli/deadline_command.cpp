// `rtscope deadline`: the deadline lab (docs/experiments/deadline.md): SCHED_DEADLINE's admission control, the
// isolation of a throttled runaway, and EDF against inverted fixed priorities, as text and --json.
#include "app/cli/command_util.h"
#include "app/cli/remote_target.h"

#include "engine/experiments/deadline/deadline_experiment.h"
#include "engine/util/units.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace rtscope::cli {

namespace {

struct DeadlineOptions {
    std::string lesson = "admission";
    std::vector<std::string> tasks;
    std::string duration = "5s";
    std::string runaway = "10ms/50ms";
    std::string good = "2ms/20ms";
    std::string goodWork = "500us";
    int counterCpu = -1;
    std::string runawayPolicy = "deadline";
    int runawayPriority = DeadlineConfig().runawayPriority;
    std::string shortTask = "1.5ms/4ms";
    std::string longTask = "8ms/20ms";
    int priority = DeadlineConfig().priority;
    int cpu = -1;
    TableOutputOptions output;
    RemoteTarget target;
};

// "A/B" as two durations (bare numbers are microseconds) into @p a and @p b.
void readPair(const std::string& field, const std::string& text, const std::string& how, int64_t& a, int64_t& b,
              std::vector<std::string>& problems)
{
    const size_t slash = text.find('/');
    if (slash == std::string::npos) {
        problems.push_back(field + ": '" + text + "' is not " + how);
        return;
    }
    readDuration(field, text.substr(0, slash), kNsPerUs, how, a, problems);
    readDuration(field, text.substr(slash + 1), kNsPerUs, how, b, problems);
}

DeadlineConfig toConfig(const DeadlineOptions& o, std::vector<std::string>& problems)
{
    DeadlineConfig c;
    if (auto l = parseDeadlineLesson(o.lesson))
        c.lesson = *l;
    else
        problems.push_back("lesson must be admission, isolation or edf (got '" + o.lesson + "')");
    const std::string rp = "RUNTIME/PERIOD, e.g. 300us/1ms (bare numbers are microseconds)";
    for (const std::string& t : o.tasks) {
        DeadlineParams p;
        const size_t before = problems.size();
        readPair("task", t, rp, p.runtimeNs, p.periodNs, problems);
        p.deadlineNs = p.periodNs;
        // A task that did not read is said once, above: kept with its zeros, validate() would add "(got 0 ns)".
        if (problems.size() == before)
            c.tasks.push_back(p);
    }
    readDuration("duration", o.duration, kNsPerSec, "e.g. 5s (bare numbers are seconds)", c.durationNs, problems);
    readPair("runaway", o.runaway, rp, c.runaway.runtimeNs, c.runaway.periodNs, problems);
    c.runaway.deadlineNs = c.runaway.periodNs;
    readPair("good", o.good, rp, c.good.runtimeNs, c.good.periodNs, problems);
    c.good.deadlineNs = c.good.periodNs;
    readDuration("good-work", o.goodWork, kNsPerUs, kBareMicroseconds, c.goodWorkNs, problems);
    c.counterCpu = o.counterCpu;
    if (auto p = parseDeadlineRunawayPolicy(o.runawayPolicy))
        c.runawayPolicy = *p;
    else
        problems.push_back("runaway-policy must be deadline or fifo (got '" + o.runawayPolicy + "')");
    c.runawayPriority = o.runawayPriority;
    const std::string wp = "WORK/PERIOD, e.g. 1.5ms/4ms (bare numbers are microseconds)";
    readPair("short", o.shortTask, wp, c.shortWorkNs, c.shortPeriodNs, problems);
    readPair("long", o.longTask, wp, c.longWorkNs, c.longPeriodNs, problems);
    c.priority = o.priority;
    c.cpu = o.cpu;
    return c;
}

std::string dlPct(double share)
{
    return formatFixed(share * 100.0, 1) + " %";
}

std::string dlMs(int64_t ns)
{
    return formatFixed(double(ns) / 1e6, 3) + " ms";
}

std::string cpusText(const DeadlineTaskStats& t)
{
    std::string s;
    for (size_t cpu = 0; cpu < t.jobsPerCpu.size(); ++cpu)
        if (t.jobsPerCpu[cpu] > 0)
            s += (s.empty() ? "" : ", ") + std::string("CPU ") + std::to_string(cpu) + " ×" +
                 std::to_string(t.jobsPerCpu[cpu]);
    return s.empty() ? "-" : s;
}

const char* actionName(DeadlineAdmissionStep::Action a)
{
    switch (a) {
    case DeadlineAdmissionStep::Action::Add:
        return "add";
    case DeadlineAdmissionStep::Action::Remove:
        return "remove";
    case DeadlineAdmissionStep::Action::Retry:
        return "retry";
    }
    return "?";
}

void printAdmission(const DeadlineSnapshot& s)
{
    const DeadlineBudget& b = s.budget;
    std::printf("\nRoot domain: %d CPUs × %s (sched_rt_runtime_us/sched_rt_period_us)", b.cpus,
                b.perCpuLimit ? dlPct(*b.perCpuLimit).c_str() : "unknown (unreadable, or admission control off)");
    if (b.fairServerKernel)
        std::printf(", fair servers %s", b.fairServers ? dlPct(*b.fairServers).c_str() : "unknown (not readable)");
    if (auto l = b.limit())
        std::printf(" = %s for deadline tasks", dlPct(*l).c_str());
    std::printf("; other deadline tasks at the start: %s\n\n", dlPct(b.othersAtStart).c_str());
    std::printf("  step  task  runtime/period          share   own total  fits?  kernel's answer\n");
    int n = 0;
    for (const DeadlineAdmissionRow& r : s.admission) {
        const DeadlineAdmissionStep& st = r.step;
        const std::string rp = formatDuration(st.runtimeNs) + "/" + formatDuration(st.periodNs);
        const char* fits = !r.predicted   ? (st.action == DeadlineAdmissionStep::Action::Remove ? "" : "?")
                           : *r.predicted ? "yes"
                                          : "no";
        std::string answer = st.admitted ? (st.action == DeadlineAdmissionStep::Action::Remove ? "left" : "ADMITTED")
                                         : "REFUSED: " + st.answer;
        if (st.action == DeadlineAdmissionStep::Action::Retry)
            answer += " (after " + std::to_string(st.attempts) + " attempt" + (st.attempts == 1 ? "" : "s") + ")";
        std::printf("  %-2d %-6s %-4d %-22s %7s  %9s  %-5s  %s\n", ++n, actionName(st.action), st.task + 1, rp.c_str(),
                    dlPct(st.bandwidth()).c_str(), dlPct(r.ownTotal).c_str(), fits, answer.c_str());
    }
    std::printf("\nA refusal is the lesson: the kernel admits a reservation only while every declared bandwidth fits "
                "the root domain.\n");
}

std::string overrunsText(const DeadlineTaskStats& t)
{
    return t.overrunsCounted ? std::to_string(t.overruns) : t.overrunsNote;
}

void printTask(const DeadlineSnapshot& s, size_t i, bool withGaps)
{
    const DeadlineTaskStats& t = s.tasks[i];
    const double avgRan = t.jobs ? double(t.totalRanNs) / double(t.jobs) : 0;
    std::printf("  %-20s", s.slotNames[i].c_str());
    if (s.slotDeclared[i].periodNs > 0)
        std::printf(" declared %s\n  %-20s", deadlineText(s.slotDeclared[i]).c_str(), "");
    std::printf(" %llu jobs  runtime per job avg %s max %s", (unsigned long long)t.jobs, dlMs(int64_t(avgRan)).c_str(),
                dlMs(t.maxRanNs).c_str());
    if (withGaps)
        std::printf("  off the CPU %s in total (max %s)", dlMs(t.totalGapNs).c_str(), dlMs(t.maxGapNs).c_str());
    else
        std::printf("  deadline misses %llu  latest end %s", (unsigned long long)t.misses,
                    t.jobs ? (t.maxLateNs > 0 ? ("+" + dlMs(t.maxLateNs) + " late").c_str()
                                              : (dlMs(-t.maxLateNs) + " early").c_str())
                           : "-");
    std::printf("\n  %-20s ran on %s", "", cpusText(t).c_str());
    if (s.slotDeclared[i].periodNs > 0)
        std::printf("  overruns (SIGXCPU) %s", overrunsText(t).c_str());
    std::printf("\n");
}

void printIsolation(const DeadlineSnapshot& s)
{
    if (s.config.runawayPolicy == DeadlineRunawayPolicy::Fifo)
        std::printf("\nIsolation: the runaway is SCHED_FIFO %d, pinned to the counter's CPU %d, and never sleeps; "
                    "only the kernel's safety net (%s) lets SCHED_OTHER run there.\n",
                    s.config.runawayPriority, s.counterCpu, s.throttling.c_str());
    else
        std::printf("\nIsolation: the runaway asks for %s and then never sleeps; the kernel throttles it (tick %s: it "
                    "may overrun its runtime by up to one tick).\n",
                    deadlineText(s.config.runaway).c_str(), dlMs(s.tickNs).c_str());
    printTask(s, kDeadlineRunaway, true);
    printTask(s, kDeadlineGood, false);
    const DeadlineCounterStats& c = s.counter;
    std::printf("  %-20s SCHED_OTHER, pinned to CPU %d: %llu windows of one runaway period, %llu without progress, "
                "ops per window min %llu max %llu (longest window %s)\n",
                "counter", s.counterCpu, (unsigned long long)c.windows, (unsigned long long)c.stalledWindows,
                (unsigned long long)c.minOps, (unsigned long long)c.maxOps, dlMs(c.maxWindowNs).c_str());
    std::printf("  %-20s %s\n", "",
                s.counterVerdict.empty() ? "its CPU share is not known yet (no whole window)"
                                         : s.counterVerdict.c_str());
    std::printf("  watchdog             CPU %d, %zu trip(s)   dropped jobs %llu   memory %s\n", s.controllerCpu,
                s.watchdogTrips.size(), (unsigned long long)s.droppedJobs, s.memoryLock.c_str());
    std::printf("The deadline threads cannot be pinned (root-domain rule): \"ran on\" is where the kernel put them.\n");
}

void printEdf(const DeadlineSnapshot& s)
{
    std::printf("\nPhase 1: SCHED_FIFO on CPU %d, the long-period task above the short one (rate-monotonic inverted)\n",
                s.fifoCpu);
    printTask(s, kDeadlineFifoShort, false);
    printTask(s, kDeadlineFifoLong, false);
    std::printf("Phase 2: SCHED_DEADLINE (EDF), unpinned\n");
    if (!s.deadlinePhaseRan) {
        std::printf("  %s\n", s.deadlinePhaseNote.c_str());
        return;
    }
    printTask(s, kDeadlineDlShort, false);
    printTask(s, kDeadlineDlLong, false);
    // The root-domain rule keeps the deadline pair unpinned: on more than one CPU the kernel may run them side by
    // side, which is not the one-CPU contest of phase 1. Said whenever it happened.
    const auto& a = s.tasks[kDeadlineDlShort].jobsPerCpu;
    const auto& b = s.tasks[kDeadlineDlLong].jobsPerCpu;
    bool shared = false;
    for (size_t cpu = 0; cpu < std::min(a.size(), b.size()); ++cpu)
        shared = shared || (a[cpu] > 0 && b[cpu] > 0);
    if (!shared)
        std::printf("Note: the two deadline tasks never ran on the same CPU (they cannot be pinned): phase 2 shows the "
                    "deadline contract kept, not EDF on one CPU.\n");
    std::printf("dropped jobs %llu   memory %s\n", (unsigned long long)s.droppedJobs, s.memoryLock.c_str());
}

void printDeadline(const DeadlineSnapshot& s)
{
    switch (s.config.lesson) {
    case DeadlineLesson::Admission:
        printAdmission(s);
        break;
    case DeadlineLesson::Isolation:
        printIsolation(s);
        break;
    case DeadlineLesson::Edf:
        printEdf(s);
        break;
    }
    if (!s.error.empty())
        std::printf("  error: %s\n", s.error.c_str());
}

nlohmann::json taskJson(const DeadlineSnapshot& s, size_t i)
{
    const DeadlineTaskStats& t = s.tasks[i];
    nlohmann::json j{{"name", s.slotNames[i]},
                     {"jobs", t.jobs},
                     {"misses", t.misses},
                     {"total_ran_ns", t.totalRanNs},
                     {"max_ran_ns", t.maxRanNs},
                     {"total_off_cpu_ns", t.totalGapNs},
                     {"max_off_cpu_ns", t.maxGapNs},
                     {"max_late_ns", t.jobs ? nlohmann::json(t.maxLateNs) : nlohmann::json()},
                     {"jobs_per_cpu", t.jobsPerCpu},
                     {"overruns", t.overrunsCounted ? nlohmann::json(t.overruns) : nlohmann::json()},
                     {"overruns_counted", t.overrunsCounted}};
    if (!t.overrunsCounted)
        j["overruns_note"] = t.overrunsNote;
    if (s.slotDeclared[i].periodNs > 0)
        j["declared"] = {{"runtime_ns", s.slotDeclared[i].runtimeNs},
                         {"deadline_ns", s.slotDeclared[i].deadlineNs},
                         {"period_ns", s.slotDeclared[i].periodNs}};
    return j;
}

nlohmann::json deadlineReport(const DeadlineSnapshot& s)
{
    nlohmann::json r{{"experiment", "deadline"}, {"config", toJson(s.config)}, {"tick_ns", s.tickNs}};
    if (s.config.lesson == DeadlineLesson::Admission) {
        const DeadlineBudget& b = s.budget;
        auto opt = [](const std::optional<double>& v) {
            return v ? nlohmann::json(*v) : nlohmann::json();
        };
        r["budget"] = {{"per_cpu_limit", opt(b.perCpuLimit)},
                       {"cpus", b.cpus},
                       {"fair_server_kernel", b.fairServerKernel},
                       {"fair_servers", opt(b.fairServers)},
                       {"limit", opt(b.limit())},
                       {"others_at_start", b.othersAtStart}};
        nlohmann::json steps = nlohmann::json::array();
        for (const DeadlineAdmissionRow& row : s.admission)
            steps.push_back({{"action", actionName(row.step.action)},
                             {"task", row.step.task + 1},
                             {"runtime_ns", row.step.runtimeNs},
                             {"period_ns", row.step.periodNs},
                             {"bandwidth", row.step.bandwidth()},
                             {"admitted", row.step.admitted},
                             {"attempts", row.step.attempts},
                             {"answer", row.step.answer},
                             {"own_total", row.ownTotal},
                             {"fits", row.predicted ? nlohmann::json(*row.predicted) : nlohmann::json()}});
        r["admission"] = steps;
    } else {
        nlohmann::json tasks = nlohmann::json::array();
        for (size_t i = 0; i < s.tasks.size(); ++i)
            tasks.push_back(taskJson(s, i));
        r["tasks"] = tasks;
        nlohmann::json jobs = nlohmann::json::array();
        for (const DeadlineJob& j : s.jobs)
            jobs.push_back(
                {j.slot, j.cpu, j.startNs - s.startNs, j.endNs - s.startNs, j.ranNs, j.gapNs, j.lateNs, j.missed});
        r["jobs_columns"] = {"slot", "cpu", "start_ns", "end_ns", "ran_ns", "off_cpu_ns", "late_ns", "missed"};
        r["jobs"] = jobs;
        r["jobs_not_kept"] = s.jobsNotKept;
        r["dropped_jobs"] = s.droppedJobs;
    }
    if (s.config.lesson == DeadlineLesson::Isolation) {
        r["counter"] = {{"cpu", s.counterCpu},
                        {"windows", s.counter.windows},
                        {"stalled_windows", s.counter.stalledWindows},
                        {"min_ops", s.counter.minOps},
                        {"max_ops", s.counter.maxOps},
                        {"total_ops", s.counter.totalOps},
                        {"max_window_ns", s.counter.maxWindowNs},
                        {"total_window_ns", s.counter.totalWindowNs},
                        {"cpu_ns", s.counter.cpuNs},
                        {"cpu_wall_ns", s.counter.cpuWallNs},
                        {"cpu_share", s.counter.cpuShare() ? nlohmann::json(*s.counter.cpuShare()) : nlohmann::json()},
                        {"verdict", s.counterVerdict}};
        r["throttling"] = s.throttling;
        r["watchdog_trips"] = s.watchdogTrips.size();
    }
    if (s.config.lesson == DeadlineLesson::Edf) {
        r["fifo_cpu"] = s.fifoCpu;
        r["deadline_phase_ran"] = s.deadlinePhaseRan;
        r["deadline_phase_note"] = s.deadlinePhaseNote;
    }
    return r;
}

std::string deadlineCsv(const DeadlineSnapshot& s)
{
    std::string out = "task,cpu,start_s,end_s,ran_us,off_cpu_us,late_us,missed\n";
    for (const DeadlineJob& j : s.jobs) {
        const std::string name = size_t(j.slot) < s.slotNames.size() ? s.slotNames[size_t(j.slot)] : "?";
        out += "\"" + name + "\"," + std::to_string(j.cpu) + "," + formatFixed(double(j.startNs - s.startNs) / 1e9, 6) +
               "," + formatFixed(double(j.endNs - s.startNs) / 1e9, 6) + "," + formatFixed(double(j.ranNs) / 1e3, 1) +
               "," + formatFixed(double(j.gapNs) / 1e3, 1) + "," + formatFixed(double(j.lateNs) / 1e3, 1) + "," +
               (j.missed ? "1" : "0") + "\n";
    }
    return out;
}

// The parts of a deadline run that are its own, on this machine or a target; @p header gives the run's label.
TableRun<DeadlineSnapshot> deadlineTable(std::function<std::string()> header, const DeadlineConfig&)
{
    return TableRun<DeadlineSnapshot>{
        .command = "deadline",
        .header = std::move(header),
        .progressInLog = Progress::InLog::Nothing,
        .progress =
            [](const DeadlineSnapshot& s) {
                uint64_t jobs = 0, misses = 0;
                for (const auto& t : s.tasks) {
                    jobs += t.jobs;
                    misses += t.misses;
                }
                return std::to_string(jobs) + " jobs, " + std::to_string(misses) + " misses";
            },
        .printTable = printDeadline,
        .report = [](const DeadlineSnapshot& s) { return withProbeAndCommandLine(deadlineReport(s)); },
        .csv = deadlineCsv,
        .figures =
            [](const DeadlineSnapshot& s) {
                std::vector<RunFigure> f;
                for (size_t i = 0; i < s.tasks.size(); ++i)
                    f.push_back({s.slotNames[i] + " misses", double(s.tasks[i].misses), ""});
                // The same names whatever the runaway's policy: a preset compares them (FIFO → DL).
                if (s.config.lesson == DeadlineLesson::Isolation) {
                    const DeadlineCounterStats& c = s.counter;
                    if (c.totalWindowNs > 0)
                        f.push_back(
                            {"counter progress", double(c.totalOps) / (double(c.totalWindowNs) / 1e9), "ops/s"});
                    if (const auto share = c.cpuShare())
                        f.push_back({"counter CPU share", *share * 100.0, "%"});
                }
                return f;
            },
    };
}

// The lab's first privileged thread: the edf lesson's FIFO task; the others' first deadline task (never pinned).
ThreadSpec firstThread(const DeadlineConfig& c, const CpuTopology& topo)
{
    if (c.lesson == DeadlineLesson::Edf)
        return threadSpec(Policy::Fifo, c.priority, 0, c.resolvedCpu(topo), "rtscope-dl-fifo");
    ThreadSpec spec = threadSpec(Policy::Deadline, 0, 0, -1, "rtscope-dl-probe");
    spec.deadline = c.lesson == DeadlineLesson::Isolation ? c.good : c.admissionTasks(DeadlineLimits::read()).front();
    return spec;
}

void addDeadlineFlags(CLI::App* sub, DeadlineOptions& o)
{
    sub->add_option("--lesson", o.lesson, "admission, isolation or edf")->capture_default_str();
    sub->add_option("--task", o.tasks,
                    "admission: a task RUNTIME/PERIOD (deadline = period), repeat for more, at most 16 "
                    "(default: 5ms/10ms tasks, one more than the CPUs hold)");
    sub->add_option("-D,--duration", o.duration, "isolation: the run; edf: each phase; 100ms..10min (bare: s)")
        ->capture_default_str();
    sub->add_option("--runaway", o.runaway,
                    "isolation: the runaway's RUNTIME/PERIOD, at least 1ms of the period unused, period ≤ 1s")
        ->capture_default_str();
    sub->add_option("--good", o.good, "isolation: the well-behaved task's RUNTIME/PERIOD")->capture_default_str();
    sub->add_option("--good-work", o.goodWork, "isolation: CPU time per job of the good task, 10us..its runtime")
        ->capture_default_str();
    noValueBelow(sub->add_option("--counter-cpu", o.counterCpu,
                                 "isolation: the SCHED_OTHER counter's CPU (default: the highest usable CPU)"));
    sub->add_option("--runaway-policy", o.runawayPolicy,
                    "isolation: deadline (throttled to --runaway, unpinned) or fifo (SCHED_FIFO, pinned to the "
                    "counter's CPU: the starvation lab's trap)")
        ->capture_default_str();
    sub->add_option("--runaway-priority", o.runawayPriority, "isolation: the FIFO runaway's priority, 1..97")
        ->capture_default_str();
    sub->add_option("--short", o.shortTask, "edf: the short-period task's WORK/PERIOD")->capture_default_str();
    sub->add_option("--long", o.longTask, "edf: the long-period task's WORK/PERIOD (together below 95 %)")
        ->capture_default_str();
    sub->add_option("-p,--priority", o.priority,
                    "edf: SCHED_FIFO priority of the short task, 1..97 (the long one runs one above)")
        ->capture_default_str();
    noValueBelow(sub->add_option("-a,--cpu", o.cpu, "edf: both FIFO tasks' CPU (default: the highest usable CPU)"));
    addTargetOptions(sub, o.target);
    addTableOutputOptions(sub, o.output, "write the lesson's figures (and every job) as JSON",
                          "write every job: task,cpu,start_s,end_s,ran_us,off_cpu_us,late_us,missed",
                          "no progress line, only the report");
}

} // namespace

const TableCommand<DeadlineExperiment, DeadlineOptions> kDeadlineCommand(
    "deadline", 45,
    "SCHED_DEADLINE lab: admission control, a throttled runaway, EDF vs "
    "inverted fixed priorities",
    {.addFlags = addDeadlineFlags, .toConfig = toConfig, .table = deadlineTable, .firstThread = firstThread});

} // namespace rtscope::cli
