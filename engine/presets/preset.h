#pragma once
/// @file Presets: one lesson each (docs/presets.md, docs/science.md) as a small JSON file that names an experiment and
/// gives one or two of its configurations in the engine's JSON form. The GUI's Presets menu and `rtscope run --preset`
/// read the same files; both validate them here, through each experiment's own xxxConfigFromJson() and validate(),
/// so a preset can never set a value the CLI or a control would refuse.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

struct CpuTopology;

/// @brief One lesson: an experiment and one configuration, or two to compare (the first is held as reference).
struct Preset {
    static constexpr double kMinPhaseSeconds = 1;
    static constexpr double kMaxPhaseSeconds = 600;
    static constexpr double kDefaultPhaseSeconds = 8;
    static constexpr size_t kMaxFileBytes = 256 * 1024; ///< a preset is a few hundred bytes; anything far larger
                                                        ///< is a wrong file, refused before parsing
    static constexpr size_t kMaxNesting = 16;           ///< a preset nests 3 levels; deeper is refused before parsing
    static constexpr size_t kMaxTitleChars = 120;
    static constexpr size_t kMaxDescriptionChars = 4000;
    static constexpr size_t kMaxLabelChars = 120;

    std::string id;          ///< the file's stem: "fifo-vs-other"
    std::string source;      ///< the file name errors are reported against: "fifo-vs-other.json"
    std::string title;       ///< "FIFO vs OTHER under 16 hogs"
    std::string description; ///< what the lesson shows, one short paragraph
    std::string experiment;  ///< one of presetExperiments(): "latency", "starvation", …
    /// One or two configurations in the experiment's JSON form, exactly as written in the file (missing fields
    /// take the experiment's defaults when read).
    std::vector<nlohmann::json> phases;
    std::vector<std::string> labels;            ///< one per phase ("SCHED_OTHER, 16 hogs"); "phase N" when not given
    double phaseSeconds = kDefaultPhaseSeconds; ///< how long phase 0 runs before the second is applied

    bool isComparison() const { return phases.size() == 2; }
    /// @brief The label of the phase held as reference (the first).
    const std::string& referenceLabel() const { return labels.front(); }
};

/// @brief A preset, or every problem with it as "file: field must … (got …)" sentences.
struct PresetParseResult {
    std::optional<Preset> preset;
    std::vector<std::string> errors;
};

/// @brief The experiments a preset may name, in lesson order: latency, starvation, drift, sleep-floor,
/// inversion, contention (also the GUI pages' names).
const std::vector<std::string>& presetExperiments();

/// @brief Reads @p config with @p experiment's xxxConfigFromJson(), then validate()s it against @p cpus (the
/// starvation lab against StarvationConfig::placementTopology() when @p cpus is null, the others against
/// CpuTopology::current()). Returns the sentences, field first; empty when the config would run.
std::vector<std::string> validateExperimentConfig(const std::string& experiment, const nlohmann::json& config,
                                                  const CpuTopology* cpus = nullptr);

/// @brief Parses and validates a preset file's text. @p sourceName is the file name used in every error
/// ("fifo-vs-other.json: phases[1].priority must be between 1 and 99 for fifo (got 120)") and whose stem
/// becomes the id. Unknown keys are refused, at the top level and inside each phase.
PresetParseResult parsePreset(std::string_view text, const std::string& sourceName, const CpuTopology* cpus = nullptr);

/// @brief A preset file compiled into the binary from resources/presets/ (generated at build time).
struct PresetFile {
    std::string_view name; ///< "fifo-vs-other.json"
    std::string_view text;
};
const std::vector<PresetFile>& builtinPresetFiles();

/// @brief Every built-in preset, in lesson order. A built-in that fails to parse is left out and its errors go
/// to @p errors (a test fails on any).
std::vector<Preset> builtinPresets(std::vector<std::string>* errors = nullptr);

/// @brief "NAME|FILE": a built-in id, or a path (anything with a '/' or ending in ".json") read from disk. An
/// unknown name is reported with the list of built-in ids.
PresetParseResult loadPreset(const std::string& nameOrFile, const CpuTopology* cpus = nullptr);

/// @brief Whether @p nameOrFile is meant as a file rather than a built-in id.
bool presetArgumentIsFile(const std::string& nameOrFile);

} // namespace rtscope
