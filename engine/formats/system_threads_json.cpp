#include "engine/formats/system_threads_json.h"

#include "engine/util/json_fields.h"

#include <algorithm>
#include <cctype>

namespace rtscope {

namespace {

// PID_MAX_LIMIT on 64-bit Linux: no pid or tid is larger.
constexpr int kSystemThreadsJsonMaxPid = 4'194'304;
// A comm is 16 bytes, a kernel thread's full name in stat at most 64; room to spare.
constexpr size_t kSystemThreadsJsonMaxName = 256;
// "0-4095" or a list of single CPUs of a large machine.
constexpr size_t kSystemThreadsJsonMaxCpus = 4096;

constexpr const char* kSystemThreadsJsonPolicies[] = {"OTHER", "FIFO", "RR", "BATCH", "IDLE", "DEADLINE", "?"};

} // namespace

nlohmann::json toJson(const SystemThread& t)
{
    return {{"pid", t.pid},
            {"tid", t.tid},
            {"name", t.name},
            {"policy", t.policy},
            {"kernel_policy", t.kernelPolicy},
            {"rt_priority", t.rtPriority},
            {"nice", t.nice},
            {"allowed_cpus", t.allowedCpus},
            {"last_cpu", t.lastCpu},
            {"state", std::string(1, t.state)},
            {"kernel_thread", t.kernelThread},
            {"interrupt_related", t.interruptRelated},
            {"chrt", t.chrtCommand()},
            {"taskset", t.tasksetCommand()}};
}

std::vector<SystemThread> systemThreadsFromJson(const nlohmann::json& j, const std::string& path, std::string& problem)
{
    if (!j.is_array() || j.size() > kMaxSystemThreadsJson) {
        problem = path + " must be a list of at most " + std::to_string(kMaxSystemThreadsJson) + " threads";
        return {};
    }
    std::vector<SystemThread> out;
    out.reserve(j.size());
    std::vector<std::string> problems;
    for (size_t i = 0; i < j.size() && problems.empty(); ++i) {
        JsonFields f(j[i], problems, {}, JsonWording::sentences(), path + "[" + std::to_string(i) + "]");
        SystemThread t;
        const auto req = [](const char* key, std::string phrase) {
            return JsonField(key, Presence::Required, std::move(phrase));
        };
        const std::string pidRange = "must be an integer 1.." + std::to_string(kSystemThreadsJsonMaxPid);
        f.integer(req("pid", pidRange), t.pid, 1, kSystemThreadsJsonMaxPid);
        f.integer(req("tid", pidRange), t.tid, 1, kSystemThreadsJsonMaxPid);
        const std::string nameRule =
            "must be a string of at most " + std::to_string(kSystemThreadsJsonMaxName) + " bytes";
        if (f.string(req("name", nameRule), t.name) && t.name.size() > kSystemThreadsJsonMaxName)
            f.report("name", nameRule);
        if (f.string(req("policy", "must be one of OTHER, FIFO, RR, BATCH, IDLE, DEADLINE, ?"), t.policy) &&
            std::find(std::begin(kSystemThreadsJsonPolicies), std::end(kSystemThreadsJsonPolicies), t.policy) ==
                std::end(kSystemThreadsJsonPolicies))
            f.report("policy", "must be one of OTHER, FIFO, RR, BATCH, IDLE, DEADLINE, ?");
        f.integer(req("kernel_policy", "must be an integer 0..255"), t.kernelPolicy, 0, 255);
        f.integer(req("rt_priority", "must be an integer 0..99"), t.rtPriority, 0, 99);
        f.integer(req("nice", "must be an integer -20..19"), t.nice, -20, 19);
        // The taskset line built from it is pasted into a shell: nothing but a CPU list may get through.
        const std::string cpusRule = "must be a CPU list of digits, ',' and '-' (at most " +
                                     std::to_string(kSystemThreadsJsonMaxCpus) + " bytes)";
        if (f.string(req("allowed_cpus", cpusRule), t.allowedCpus) &&
            (t.allowedCpus.size() > kSystemThreadsJsonMaxCpus ||
             !std::all_of(t.allowedCpus.begin(), t.allowedCpus.end(),
                          [](char c) { return std::isdigit(uint8_t(c)) || c == ',' || c == '-'; })))
            f.report("allowed_cpus", cpusRule);
        f.integer(req("last_cpu", "must be an integer -1..65535"), t.lastCpu, -1, 65535);
        std::string state;
        if (f.string(req("state", "must be one letter"), state)) {
            if (state.size() == 1 && std::isalpha(uint8_t(state[0])))
                t.state = state[0];
            else
                f.report("state", "must be one letter");
        }
        f.boolean(req("kernel_thread", "must be true or false"), t.kernelThread);
        f.boolean(req("interrupt_related", "must be true or false"), t.interruptRelated);
        out.push_back(std::move(t));
    }
    if (!problems.empty()) {
        problem = problems.front();
        return {};
    }
    return out;
}

} // namespace rtscope
