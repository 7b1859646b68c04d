#pragma once
/// @file Validation sentences and the method list's JSON reading shared by the timer lab's configs (drift, sleep
/// floor), so both word the same problem the same way.
#include "engine/rt/sched_policy.h"
#include "engine/util/json_fields.h"
#include "engine/util/json_table.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct CpuTopology;

/// @brief "default" for 0, the duration otherwise.
std::string slackText(int64_t slackNs);

/// @brief Priority against the policy's range (the latency config's wording).
void checkSchedulingFields(std::vector<std::string>& out, Policy policy, int priority);
/// @brief 0 (the thread's default) … @p maxNs.
void checkTimerSlack(std::vector<std::string>& out, int64_t slackNs, int64_t maxNs);
/// @brief An online CPU this process may use (-1 = automatic); under fifo/rr another usable CPU must remain,
/// so a real-time thread never holds every CPU.
void checkMeasuringCpu(std::vector<std::string>& out, int cpu, const CpuTopology& cpus, Policy policy);

/// @brief Non-empty, every entry allowed, none repeated.
template <class T, class Valid, class Name>
void checkMethodList(std::vector<std::string>& out, const std::vector<T>& methods, Valid valid, Name name,
                     const std::string& choices)
{
    if (methods.empty()) {
        out.push_back("methods must name at least one of " + choices + " (got none)");
        return;
    }
    // Each method named once in each sentence, however often the list repeats it.
    std::vector<T> refused, repeated;
    const auto once = [](std::vector<T>& list, const T& m) {
        if (std::find(list.begin(), list.end(), m) == list.end())
            list.push_back(m);
    };
    for (size_t i = 0; i < methods.size(); ++i) {
        if (!valid(methods[i]))
            once(refused, methods[i]);
        else if (std::find(methods.begin(), methods.begin() + i, methods[i]) != methods.begin() + i)
            once(repeated, methods[i]);
    }
    for (const T& m : refused)
        out.push_back("methods: '" + name(m) + "' is not allowed here; choose from " + choices);
    if (!repeated.empty()) {
        std::string names;
        for (const T& m : repeated)
            names += (names.empty() ? "'" : ", '") + name(m) + "'";
        out.push_back("methods must not repeat " + names);
    }
}

/// @brief Reads the list of methods at @p key: names that @p parse accepts. The first it does not is reported
/// ("methods: unknown method \"busy\"; choose from …") and leaves @p dst as it was.
template <class T, class Parse>
void readMethodList(JsonFields& f, const char* key, std::vector<T>& dst, Parse parse, const std::string& choices)
{
    std::vector<T> parsed;
    bool known = true;
    const bool isList =
        f.list({key, Presence::Optional, "must be a list of names"}, [&](const nlohmann::json& item, size_t) {
            const std::optional<T> m = item.is_string() ? parse(item.get<std::string>()) : std::nullopt;
            if (!m) {
                f.add(f.pathOf(key) + ": unknown method " + item.dump() + "; choose from " + choices);
                known = false;
                return false;
            }
            parsed.push_back(*m);
            return true;
        });
    if (isList && known)
        dst = std::move(parsed);
}

/// @brief The method list as a field of a config's table (engine/util/json_table.h): written as the methods' names,
/// read by readMethodList().
template <class T, class Access>
constexpr auto jsonMethodList(const char* key, Access access, const char* (*name)(T),
                              std::optional<T> (*parse)(std::string_view), std::string (*choices)())
{
    return jsonCustom(
        key, [=](JsonFields& f, auto& c) { readMethodList(f, key, std::invoke(access, c), parse, choices()); },
        [=](nlohmann::json& j, const auto& c) {
            nlohmann::json methods = nlohmann::json::array();
            for (T m : std::invoke(access, c))
                methods.push_back(name(m));
            j[key] = methods;
        });
}

} // namespace rtscope
