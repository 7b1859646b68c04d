#include "engine/experiments/timers/timer_config_util.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"

#include <limits>

namespace rtscope {

std::string slackText(int64_t slackNs)
{
    return slackNs == 0 ? std::string("default") : formatDuration(slackNs);
}

void checkSchedulingFields(std::vector<std::string>& out, Policy policy, int priority)
{
    if (isRealtime(policy)) {
        if (priority < priorityMin(policy) || priority > priorityMax(policy))
            out.push_back("priority must be between " + std::to_string(priorityMin(policy)) + " and " +
                          std::to_string(priorityMax(policy)) + " for " + policyName(policy) + " (got " +
                          std::to_string(priority) + ")");
    } else if (priority != 0) {
        out.push_back("priority must be 0 for " + std::string(policyName(policy)) + " (got " +
                      std::to_string(priority) + "); choose policy fifo or rr for a real-time priority");
    }
}

void checkTimerSlack(std::vector<std::string>& out, int64_t slackNs, int64_t maxNs)
{
    if (slackNs < 0 || slackNs > maxNs)
        out.push_back("slack must be between 0 (the default) and " + formatDuration(maxNs) + " (got " +
                      formatDuration(slackNs) + ")");
}

void checkMeasuringCpu(std::vector<std::string>& out, int cpu, const CpuTopology& cpus, Policy policy)
{
    if (cpus.lastUsable() < 0) {
        out.push_back("cpu: this process may not run on any online CPU");
        return;
    }
    if (cpu != -1 && !cpus.usable(cpu)) {
        out.push_back("cpu must be one of the online CPUs this process may use (" + cpus.usableText() + "); got " +
                      std::to_string(cpu));
        return;
    }
    const int resolved = cpu >= 0 ? cpu : cpus.lastUsable();
    if (isRealtime(policy) && cpus.otherThan({resolved}) < 0)
        out.push_back("cpu: a " + std::string(policyName(policy)) + " run needs a usable CPU besides CPU " +
                      std::to_string(resolved) + " (usable: " + cpus.usableText() +
                      "), so real-time threads never hold every CPU; choose policy other");
}

JsonFieldReader::JsonFieldReader(const nlohmann::json& j, const char* what, std::vector<std::string>& errors,
                                 std::initializer_list<const char*> known)
    : m_j(j)
    , m_errors(errors)
{
    if (!j.is_object()) {
        errors.push_back(std::string(what) + " must be a JSON object");
        m_ok = false;
        return;
    }
    for (const auto& [key, value] : j.items()) {
        bool found = false;
        for (const char* k : known)
            found = found || key == k;
        if (!found)
            errors.push_back("unknown field '" + key + "'");
    }
}

void JsonFieldReader::integer(const char* key, int64_t& dst)
{
    if (!m_j.contains(key))
        return;
    const nlohmann::json& v = m_j.at(key);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
        m_errors.push_back(std::string(key) + " must be an integer");
    else
        dst = v.get<int64_t>();
}

void JsonFieldReader::integer(const char* key, int& dst)
{
    int64_t wide = dst;
    const size_t before = m_errors.size();
    integer(key, wide);
    if (m_errors.size() != before)
        return;
    if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
        m_errors.push_back(std::string(key) + " is out of range");
    else
        dst = int(wide);
}

void JsonFieldReader::boolean(const char* key, bool& dst)
{
    if (!m_j.contains(key))
        return;
    if (!m_j.at(key).is_boolean())
        m_errors.push_back(std::string(key) + " must be true or false");
    else
        dst = m_j.at(key).get<bool>();
}

void JsonFieldReader::policy(const char* key, Policy& dst)
{
    if (!m_j.contains(key))
        return;
    const nlohmann::json& v = m_j.at(key);
    const std::optional<Policy> p = v.is_string() ? parsePolicy(v.get<std::string>()) : std::nullopt;
    if (!p)
        m_errors.push_back(std::string(key) + " must be one of other, batch, idle, fifo, rr");
    else
        dst = *p;
}

void JsonFieldReader::integerList(const char* key, std::vector<int64_t>& dst)
{
    if (!m_j.contains(key))
        return;
    const nlohmann::json& v = m_j.at(key);
    std::vector<int64_t> parsed;
    bool good = v.is_array();
    if (good)
        for (const nlohmann::json& item : v) {
            if (!item.is_number_integer() ||
                (item.is_number_unsigned() && item.get<uint64_t>() > uint64_t(INT64_MAX))) {
                good = false;
                break;
            }
            parsed.push_back(item.get<int64_t>());
        }
    if (!good)
        m_errors.push_back(std::string(key) + " must be a list of integers");
    else
        dst = std::move(parsed);
}

} // namespace rtscope
