#pragma once
// The pages' applyConfigJson() in one place: the engine reads the JSON (its xxxConfigFromJson, the presets' and
// the CLI's parser), the page's applyConfig() validates and shows it. No range is checked here.
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rtscope {

/// Reads @p json with @p fromJson. Its sentences (unknown or mistyped fields) go to @p show and are returned,
/// and nothing changes; otherwise @p apply (the page's applyConfig) decides and returns its own sentences.
template <class FromJson, class Apply, class Show>
QStringList applyConfigJsonWith(const nlohmann::json& json, FromJson fromJson, Apply apply, Show show)
{
    std::vector<std::string> errors;
    auto config = fromJson(json, errors);
    if (errors.empty())
        return apply(config);
    QStringList problems;
    for (const std::string& e : errors)
        problems << QString::fromStdString(e);
    show(problems);
    return problems;
}

} // namespace rtscope
