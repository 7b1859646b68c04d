#pragma once
/// @file What every experiment's config shares in JSON: its reader over its field table (engine/util/json_table.h)
/// and the scheduling policy field, so a config's fields are listed once and every config words a bad field the
/// same way.
#include "engine/rt/sched_policy.h"
#include "engine/util/json_table.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace rtscope {

/// @brief The config read from @p j as @p table says (a key the table does not list is refused); the problems are
/// appended to @p errors ("<subject> must be a JSON object", "unknown field 'x'", "priority must be an integer"), and
/// each field with one keeps its default.
template <class Config, class... Field>
Config configFromJson(const nlohmann::json& j, std::vector<std::string>& errors, std::string_view subject,
                      const std::tuple<Field...>& table)
{
    Config c;
    JsonFields f(j, errors, subject);
    if (!f.ok())
        return c;
    f.rejectUnknown(tableKeys(table));
    readTable(f, c, table);
    return c;
}

/// @brief A scheduling policy by its name ("fifo"); @p choices is what a refusal lists.
template <class Access, class Choices = std::string (*)()>
constexpr auto jsonPolicy(
    const char* key, Access access, Choices choices = [] { return policyNameList(); })
{
    return jsonName(key, access, policyName, parsePolicy, choices);
}

} // namespace rtscope
