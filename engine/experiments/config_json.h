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

/// @brief Defines the two JSON functions a config with a field table has, both from @p table:
/// `nlohmann::json toJson(const Config&)` and `Config reader(const nlohmann::json&, std::vector<std::string>& errors)`,
/// whose refusals start with @p subject ("drift config must be a JSON object"). Both are declared in the config's
/// header; a config whose JSON is more than its table (latency, deadline) writes them out instead.
#define RTSCOPE_CONFIG_JSON(Config, reader, subject, table)                                                            \
    nlohmann::json toJson(const Config& c)                                                                             \
    {                                                                                                                  \
        return tableToJson(c, table);                                                                                  \
    }                                                                                                                  \
    Config reader(const nlohmann::json& j, std::vector<std::string>& errors)                                           \
    {                                                                                                                  \
        return configFromJson<Config>(j, errors, subject, table);                                                      \
    }

/// @brief A scheduling policy by its name ("fifo"); @p choices is what a refusal lists.
template <class Access, class Choices = std::string (*)()>
constexpr auto jsonPolicy(
    const char* key, Access access, Choices choices = [] { return policyNameList(); })
{
    return jsonName(key, access, policyName, parsePolicy, choices);
}

} // namespace rtscope
