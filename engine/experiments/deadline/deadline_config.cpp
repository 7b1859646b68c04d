#include "engine/experiments/deadline/deadline_config.h"

#include "engine/experiments/config_json.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/json_fields.h"
#include "engine/util/units.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace rtscope {

namespace {

constexpr const char* kLessonNames[] = {"admission", "isolation", "edf"};
constexpr const char* kRunawayPolicyNames[] = {"deadline", "fifo"};

void deadlineCheckCpu(const char* field, int cpu, const CpuTopology& cpus, std::vector<std::string>& out)
{
    if (cpu != -1 && !cpus.usable(cpu))
        out.push_back(std::string(field) + " must be a usable CPU (" + cpus.usableText() +
                      ") or -1 for automatic (got " + std::to_string(cpu) + ")");
}

void deadlineCheckWork(const char* field, int64_t workNs, int64_t periodNs, std::vector<std::string>& out)
{
    if (workNs < 10'000 || workNs >= periodNs)
        out.push_back(std::string(field) + " work must be between 10 µs and its period (got " + formatDuration(workNs) +
                      ", period " + formatDuration(periodNs) + ")");
}

} // namespace

const char* deadlineLessonName(DeadlineLesson l)
{
    return kLessonNames[int(l)];
}

std::optional<DeadlineLesson> parseDeadlineLesson(std::string_view name)
{
    for (int i = 0; i < 3; ++i)
        if (name == kLessonNames[i])
            return DeadlineLesson(i);
    return std::nullopt;
}

const char* deadlineRunawayPolicyName(DeadlineRunawayPolicy p)
{
    return kRunawayPolicyNames[int(p)];
}

std::optional<DeadlineRunawayPolicy> parseDeadlineRunawayPolicy(std::string_view name)
{
    for (int i = 0; i < 2; ++i)
        if (name == kRunawayPolicyNames[i])
            return DeadlineRunawayPolicy(i);
    return std::nullopt;
}

std::vector<DeadlineParams> DeadlineConfig::defaultAdmissionTasks(const DeadlineLimits& limits)
{
    constexpr DeadlineParams half{5'000'000, 10'000'000, 10'000'000};
    const int cpus = std::max(limits.cpus, 1);
    const std::optional<double> perCpu = limits.perCpuLimit();
    const int n = perCpu ? int(std::floor(*perCpu * cpus / half.bandwidth())) + 1 : 2 * cpus + 1;
    return std::vector<DeadlineParams>(size_t(std::clamp(n, 1, kMaxTasks)), half);
}

std::vector<DeadlineParams> DeadlineConfig::admissionTasks(const DeadlineLimits& limits) const
{
    return tasks.empty() ? defaultAdmissionTasks(limits) : tasks;
}

DeadlineParams DeadlineConfig::edfReservation(int64_t workNs, int64_t periodNs)
{
    const int64_t runtime = std::min(workNs + workNs * kEdfRuntimeMarginPct / 100, periodNs);
    return {runtime, periodNs, periodNs};
}

int DeadlineConfig::resolvedCpu(const CpuTopology& cpus) const
{
    return cpu >= 0 ? cpu : cpus.lastUsable();
}

int DeadlineConfig::resolvedCounterCpu(const CpuTopology& cpus) const
{
    return counterCpu >= 0 ? counterCpu : cpus.lastUsable();
}

std::vector<std::string> DeadlineConfig::validate(const CpuTopology& cpus) const
{
    std::vector<std::string> out;
    const DeadlineLimits limits = DeadlineLimits::read();
    auto params = [&](const std::string& prefix, const DeadlineParams& p) {
        for (auto& s : deadlineProblems(p, limits, prefix))
            out.push_back(std::move(s));
        if (p.periodNs > kMaxPeriodNs)
            out.push_back(prefix + "period must be at most " + formatDuration(kMaxPeriodNs) + " in this lab (got " +
                          formatDuration(p.periodNs) + ")");
    };
    // The plain ranges hold whatever the lesson: a value the chosen lesson does not use is still refused, never
    // silently ignored (a typo in -p must not pass because the lesson is admission).
    if (priority < kMinPriority || priority > kMaxPriority)
        out.push_back("priority must be between " + std::to_string(kMinPriority) + " and " +
                      std::to_string(kMaxPriority) + " (the long task runs one above it; got " +
                      std::to_string(priority) + ")");
    if (runawayPriority < kMinPriority || runawayPriority > kMaxPriority)
        out.push_back("runaway-priority must be between " + std::to_string(kMinPriority) + " and " +
                      std::to_string(kMaxPriority) + " (the watchdog runs at " + std::to_string(kWatchdogPriority) +
                      "; got " + std::to_string(runawayPriority) + ")");
    deadlineCheckCpu("cpu", cpu, cpus, out);
    deadlineCheckCpu("counter-cpu", counterCpu, cpus, out);
    if (durationNs < kMinDurationNs || durationNs > kMaxDurationNs)
        out.push_back("duration must be between " + formatDurationRange(kMinDurationNs, kMaxDurationNs) + " (got " +
                      formatDuration(durationNs) + ")");
    if (goodWorkNs < 10'000 || goodWorkNs > good.runtimeNs)
        out.push_back("good-work must be between 10 µs and good-runtime (" + formatDuration(good.runtimeNs) + "; got " +
                      formatDuration(goodWorkNs) + ")");
    if (lesson == DeadlineLesson::Admission) {
        if (int(tasks.size()) > kMaxTasks)
            out.push_back("task: at most " + std::to_string(kMaxTasks) + " tasks (got " + std::to_string(tasks.size()) +
                          ")");
        for (size_t i = 0; i < tasks.size() && i < size_t(kMaxTasks); ++i)
            params("task " + std::to_string(i + 1) + " ", tasks[i]);
        return out;
    }
    if (lesson == DeadlineLesson::Isolation) {
        params("runaway-", runaway);
        params("good-", good);
        if (runaway.periodNs - runaway.runtimeNs < kMinRunawayIdleNs)
            out.push_back("runaway-runtime must leave at least " + formatDuration(kMinRunawayIdleNs) +
                          " of its period unused, so that its throttled time shows (got runtime " +
                          formatDuration(runaway.runtimeNs) + ", period " + formatDuration(runaway.periodNs) + ")");
        if (cpus.otherThan({resolvedCounterCpu(cpus)}) < 0)
            out.push_back("the isolation lesson needs two usable CPUs (the watchdog's and the counter's; got " +
                          cpus.usableText() + ")");
        return out;
    }
    deadlineCheckWork("short", shortWorkNs, shortPeriodNs, out);
    deadlineCheckWork("long", longWorkNs, longPeriodNs, out);
    if (!out.empty())
        return out;
    if (shortPeriodNs >= longPeriodNs)
        out.push_back("short period must be shorter than long period (got " + formatDuration(shortPeriodNs) + " and " +
                      formatDuration(longPeriodNs) + ")");
    const double u = double(shortWorkNs) / double(shortPeriodNs) + double(longWorkNs) / double(longPeriodNs);
    if (u >= 0.95)
        out.push_back("short and long together must need less than 95 % of a CPU, so that EDF can meet every "
                      "deadline (got " +
                      formatFixed(u * 100.0, 1) + " %)");
    params("short ", edfReservation(shortWorkNs, shortPeriodNs));
    params("long ", edfReservation(longWorkNs, longPeriodNs));
    return out;
}

std::string DeadlineConfig::label() const
{
    switch (lesson) {
    case DeadlineLesson::Admission:
        return std::string("admission · ") +
               (tasks.empty() ? std::string("default tasks") : std::to_string(tasks.size()) + " tasks");
    case DeadlineLesson::Isolation:
        return "isolation · runaway " +
               (runawayPolicy == DeadlineRunawayPolicy::Fifo ? "FIFO " + std::to_string(runawayPriority)
                                                             : deadlineText(runaway)) +
               " · good " + deadlineText(good) + " · " + formatDuration(durationNs);
    case DeadlineLesson::Edf:
        break;
    }
    return "edf · short " + formatDuration(shortWorkNs) + "/" + formatDuration(shortPeriodNs) + " · long " +
           formatDuration(longWorkNs) + "/" + formatDuration(longPeriodNs) + " · " + formatDuration(durationNs) +
           " per phase";
}

namespace {

void readDeadlineTasks(JsonFields& f, DeadlineConfig& c)
{
    std::vector<DeadlineParams> tasks;
    if (f.list("tasks", [&](const nlohmann::json&, size_t i) {
            JsonFields t = f.element("tasks", i);
            if (!t.ok())
                return false;
            t.rejectUnknown({"runtime_ns", "period_ns"});
            DeadlineParams p;
            t.integer(JsonField("runtime_ns", Presence::Required), p.runtimeNs);
            t.integer(JsonField("period_ns", Presence::Required), p.periodNs);
            p.deadlineNs = p.periodNs;
            tasks.push_back(p);
            return true;
        }))
        c.tasks = std::move(tasks);
}

void writeDeadlineTasks(nlohmann::json& j, const DeadlineConfig& c)
{
    nlohmann::json tasks = nlohmann::json::array();
    for (const DeadlineParams& p : c.tasks)
        tasks.push_back({{"runtime_ns", p.runtimeNs}, {"period_ns", p.periodNs}});
    j["tasks"] = tasks;
}

// The keys of toJson(DeadlineConfig), in the order deadlineConfigFromJson reads them. A reservation's deadline is
// its period (deadlineConfigFromJson sets it after the table).
constexpr auto kDeadlineFields = std::tuple{
    jsonName("lesson", &DeadlineConfig::lesson, deadlineLessonName, parseDeadlineLesson, "admission, isolation, edf"),
    jsonCustom("tasks", readDeadlineTasks, writeDeadlineTasks),
    jsonValue("duration_ns", &DeadlineConfig::durationNs),
    jsonValue("runaway_runtime_ns", jsonNested(&DeadlineConfig::runaway, &DeadlineParams::runtimeNs)),
    jsonValue("runaway_period_ns", jsonNested(&DeadlineConfig::runaway, &DeadlineParams::periodNs)),
    jsonValue("good_runtime_ns", jsonNested(&DeadlineConfig::good, &DeadlineParams::runtimeNs)),
    jsonValue("good_period_ns", jsonNested(&DeadlineConfig::good, &DeadlineParams::periodNs)),
    jsonValue("good_work_ns", &DeadlineConfig::goodWorkNs),
    jsonValue("counter_cpu", &DeadlineConfig::counterCpu),
    jsonName("runaway_policy", &DeadlineConfig::runawayPolicy, deadlineRunawayPolicyName, parseDeadlineRunawayPolicy,
             "deadline, fifo"),
    jsonValue("runaway_priority", &DeadlineConfig::runawayPriority),
    jsonValue("short_work_ns", &DeadlineConfig::shortWorkNs),
    jsonValue("short_period_ns", &DeadlineConfig::shortPeriodNs),
    jsonValue("long_work_ns", &DeadlineConfig::longWorkNs),
    jsonValue("long_period_ns", &DeadlineConfig::longPeriodNs),
    jsonValue("priority", &DeadlineConfig::priority),
    jsonValue("cpu", &DeadlineConfig::cpu),
};

} // namespace

nlohmann::json toJson(const DeadlineConfig& c)
{
    return tableToJson(c, kDeadlineFields);
}

DeadlineConfig deadlineConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    DeadlineConfig c = configFromJson<DeadlineConfig>(j, errors, "deadline config", kDeadlineFields);
    c.runaway.deadlineNs = c.runaway.periodNs;
    c.good.deadlineNs = c.good.periodNs;
    return c;
}

} // namespace rtscope
