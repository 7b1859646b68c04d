#include "engine/presets/preset.h"

#include "engine/experiments/registry.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/input_file.h"
#include "engine/util/json_text.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace rtscope {

namespace {

constexpr const char* kTopLevelKeys[] = {"title", "description", "experiment", "phase_seconds", "labels", "phases"};

// The default configuration's JSON keys: the names a validate() sentence's first word is mapped onto.
nlohmann::json defaultConfigJson(const std::string& experiment)
{
    nlohmann::json out = nlohmann::json::object();
    withExperimentConfigType(experiment, [&out]<class Config>(std::type_identity<Config>) { out = toJson(Config{}); });
    return out;
}

std::string joined(const std::vector<std::string>& items)
{
    std::string out;
    for (const std::string& s : items)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

// validate() words its sentences for the CLI, whose flags are "hog-cpu", "period", "stall-at"; a preset file
// has "hog_cpu", "period_ns", "stall_tick". The sentence keeps its wording, and its first word becomes the
// JSON path of the field the user has to change: "phases[1].period_ns must be between …".
std::string withFieldPath(const std::string& prefix, const std::string& message, const nlohmann::json& keys)
{
    static const std::map<std::string, std::string> aliases = {{"stall-at", "stall_tick"},
                                                               {"slack", "timer_slack_ns"},
                                                               {"margin", "hybrid_margin_ns"},
                                                               {"histogram", "histogram_us"},
                                                               {"reserve", "reserved_cpus"}};
    const size_t end = message.find_first_of(" :");
    if (end != std::string::npos && end > 0) {
        const std::string word = message.substr(0, end);
        std::string field = word;
        std::replace(field.begin(), field.end(), '-', '_');
        std::string found;
        if (auto it = aliases.find(word); it != aliases.end() && keys.contains(it->second))
            found = it->second;
        else
            for (const std::string& candidate : {field, field + "_ns", field + "_us"})
                if (found.empty() && keys.contains(candidate))
                    found = candidate;
        if (!found.empty()) {
            return prefix + "." + found + message.substr(end);
        }
    }
    return prefix + ": " + message;
}

std::string stemOf(const std::string& sourceName)
{
    std::string name = sourceName;
    if (const size_t slash = name.find_last_of('/'); slash != std::string::npos)
        name = name.substr(slash + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
        name.resize(name.size() - 5);
    return name;
}

// The deepest nesting of arrays and objects in @p text, strings skipped. nlohmann::json copies and destroys
// values recursively, so a hostile file of 100 000 brackets would overflow the stack after parsing.
std::string numberText(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

// One optional string field with a length limit; returns false (and says why) when present but wrong.
void readText(const nlohmann::json& j, const char* key, size_t maxChars, bool required, std::string& dst,
              std::vector<std::string>& errors)
{
    if (!j.contains(key)) {
        if (required)
            errors.push_back(std::string(key) + " is missing; it must be a text of 1 to " + std::to_string(maxChars) +
                             " characters");
        return;
    }
    const nlohmann::json& v = j.at(key);
    if (!v.is_string()) {
        errors.push_back(std::string(key) + " must be a text (got " + std::string(v.type_name()) + ")");
        return;
    }
    const std::string s = v.get<std::string>();
    if ((required && s.empty()) || s.size() > maxChars) {
        errors.push_back(std::string(key) + " must be " + (required ? "1 to " : "at most ") + std::to_string(maxChars) +
                         " characters long (got " + std::to_string(s.size()) + ")");
        return;
    }
    dst = s;
}

} // namespace

const std::vector<std::string>& presetExperiments()
{
    return experimentNames();
}

std::vector<std::string> validateExperimentConfig(const std::string& experiment, const nlohmann::json& config,
                                                  const CpuTopology* cpus)
{
    std::vector<std::string> errors;
    const bool known = withExperimentConfigType(experiment, [&]<class Config>(std::type_identity<Config>) {
        const Config c = ExperimentTraits<Config>::fromJson(config, errors);
        // Type errors first: a range check on a field that was not read would only repeat the default's verdict.
        if (errors.empty())
            errors = c.validate(cpus ? *cpus : ExperimentTraits<Config>::placementTopology());
    });
    if (!known)
        return {"experiment must be one of " + joined(presetExperiments()) + " (got '" + experiment + "')"};
    return errors;
}

PresetParseResult parsePreset(std::string_view text, const std::string& sourceName, const CpuTopology* cpus)
{
    PresetParseResult result;
    std::vector<std::string> errors;
    const auto finish = [&]() -> PresetParseResult& {
        for (const std::string& e : errors)
            result.errors.push_back(sourceName + ": " + e);
        if (!result.errors.empty())
            result.preset.reset();
        return result;
    };

    if (text.size() > Preset::kMaxFileBytes) {
        errors.push_back("the file is " + std::to_string(text.size()) + " bytes; a preset must be at most " +
                         std::to_string(Preset::kMaxFileBytes) + " bytes");
        return finish();
    }
    const ParsedJson parsed = parseJsonText(text, "the file", Preset::kMaxNesting);
    if (!parsed.ok()) {
        errors.push_back(parsed.error("not valid JSON (" + parsed.notJson + ")"));
        return finish();
    }
    const nlohmann::json& j = parsed.value;
    if (!j.is_object()) {
        errors.push_back(std::string("a preset must be a JSON object with ") + "title, experiment and phases (got " +
                         j.type_name() + ")");
        return finish();
    }
    for (const auto& item : j.items())
        if (std::none_of(std::begin(kTopLevelKeys), std::end(kTopLevelKeys),
                         [&key = item.key()](const char* k) { return key == k; }))
            errors.push_back("unknown field '" + item.key() +
                             "'; a preset has title, description, experiment, "
                             "phase_seconds, labels and phases");

    Preset p;
    p.id = stemOf(sourceName);
    p.source = sourceName;
    readText(j, "title", Preset::kMaxTitleChars, true, p.title, errors);
    readText(j, "description", Preset::kMaxDescriptionChars, false, p.description, errors);

    bool experimentOk = false;
    if (!j.contains("experiment")) {
        errors.push_back("experiment is missing; it must be one of " + joined(presetExperiments()));
    } else if (const auto& v = j.at("experiment"); !v.is_string()) {
        errors.push_back("experiment must be one of " + joined(presetExperiments()) + " (got " + v.dump() + ")");
    } else {
        p.experiment = v.get<std::string>();
        experimentOk = std::find(presetExperiments().begin(), presetExperiments().end(), p.experiment) !=
                       presetExperiments().end();
        if (!experimentOk)
            errors.push_back("experiment must be one of " + joined(presetExperiments()) + " (got '" + p.experiment +
                             "')");
    }

    if (j.contains("phase_seconds")) {
        const auto& v = j.at("phase_seconds");
        const double s = v.is_number() ? v.get<double>() : std::nan("");
        if (!v.is_number() || !(s >= Preset::kMinPhaseSeconds && s <= Preset::kMaxPhaseSeconds))
            errors.push_back("phase_seconds must be between " + numberText(Preset::kMinPhaseSeconds) + " and " +
                             numberText(Preset::kMaxPhaseSeconds) + " seconds (got " + v.dump() + ")");
        else
            p.phaseSeconds = s;
    }

    bool phasesOk = false;
    if (!j.contains("phases")) {
        errors.push_back("phases is missing; it must be a list of 1 or 2 configurations");
    } else if (const auto& v = j.at("phases"); !v.is_array() || v.empty() || v.size() > 2) {
        errors.push_back("phases must be a list of 1 or 2 configurations (got " +
                         (v.is_array() ? std::to_string(v.size()) + " entries" : std::string(v.type_name())) + ")");
    } else {
        phasesOk = true;
        for (const nlohmann::json& phase : v)
            p.phases.push_back(phase);
    }

    if (j.contains("labels")) {
        const auto& v = j.at("labels");
        const bool listOk = v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& l) {
                                return l.is_string() && !l.get<std::string>().empty() &&
                                       l.get<std::string>().size() <= Preset::kMaxLabelChars;
                            });
        if (!listOk)
            errors.push_back("labels must be a list of texts of 1 to " + std::to_string(Preset::kMaxLabelChars) +
                             " characters, one per phase");
        else if (phasesOk && v.size() != p.phases.size())
            errors.push_back("labels must have one entry per phase (" + std::to_string(p.phases.size()) + "; got " +
                             std::to_string(v.size()) + ")");
        else if (phasesOk)
            for (const nlohmann::json& l : v)
                p.labels.push_back(l.get<std::string>());
    }
    if (p.labels.empty())
        for (size_t i = 0; i < p.phases.size(); ++i)
            p.labels.push_back("phase " + std::to_string(i + 1));

    if (experimentOk && phasesOk) {
        const nlohmann::json keys = defaultConfigJson(p.experiment);
        for (size_t i = 0; i < p.phases.size(); ++i) {
            const std::string prefix = "phases[" + std::to_string(i) + "]";
            if (!p.phases[i].is_object()) {
                errors.push_back(prefix + " must be a JSON object: a " + p.experiment + " configuration (got " +
                                 p.phases[i].type_name() + ")");
                continue;
            }
            for (const std::string& e : validateExperimentConfig(p.experiment, p.phases[i], cpus))
                errors.push_back(withFieldPath(prefix, e, keys));
        }
    }
    if (errors.empty())
        result.preset = std::move(p);
    return finish();
}

std::vector<Preset> builtinPresets(std::vector<std::string>* errors)
{
    std::vector<Preset> out;
    for (const PresetFile& f : builtinPresetFiles()) {
        PresetParseResult r = parsePreset(f.text, std::string(f.name));
        if (r.preset)
            out.push_back(std::move(*r.preset));
        else if (errors)
            errors->insert(errors->end(), r.errors.begin(), r.errors.end());
    }
    const auto order = [](const Preset& p) {
        const auto& names = presetExperiments();
        return std::find(names.begin(), names.end(), p.experiment) - names.begin();
    };
    std::stable_sort(out.begin(), out.end(), [&](const Preset& a, const Preset& b) { return order(a) < order(b); });
    return out;
}

bool presetArgumentIsFile(const std::string& nameOrFile)
{
    return nameOrFile.find('/') != std::string::npos ||
           (nameOrFile.size() > 5 && nameOrFile.compare(nameOrFile.size() - 5, 5, ".json") == 0);
}

PresetParseResult loadPreset(const std::string& nameOrFile, const CpuTopology* cpus)
{
    if (!presetArgumentIsFile(nameOrFile)) {
        std::vector<std::string> ids;
        for (const PresetFile& f : builtinPresetFiles()) {
            const std::string id = stemOf(std::string(f.name));
            if (id == nameOrFile)
                return parsePreset(f.text, std::string(f.name), cpus);
            ids.push_back(id);
        }
        std::sort(ids.begin(), ids.end());
        return {std::nullopt,
                {"preset '" + nameOrFile + "' is not a built-in preset; the built-in presets are " + joined(ids) +
                 " (or give a file: a path ending in .json)"}};
    }
    std::string text, why;
    if (!readRegularFile(nameOrFile, Preset::kMaxFileBytes, text, why))
        return {std::nullopt, {why}};
    return parsePreset(text, nameOrFile, cpus);
}

} // namespace rtscope
