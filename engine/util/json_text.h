#pragma once
/// @file JSON text that comes from outside rtscope (a recording, a preset, an imported result, the GUI's settings, a
/// frame of the agent protocol) parsed with a limit on its nesting. nlohmann's parser keeps its own stack, but
/// copying, comparing, dumping and the typed readers recurse once per level: a value nested 100 000 deep
/// overflows the stack in whatever touches it next, long after the parse succeeded. The depth is counted on the
/// raw text before anything is parsed, so deeper input costs one pass over its bytes and is refused with a
/// sentence.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace rtscope {

/// @brief The deepest nesting of lists and objects rtscope reads from outside. Every format it reads nests less
/// than 10 levels (a snapshot, the deepest, 6); 64 levels of recursion cost a few KiB of stack on any thread.
inline constexpr size_t kMaxJsonDepth = 64;

/// @brief How deeply @p text nests lists and objects ('[' and '{' outside strings); 0 for a scalar. A scan of the
/// bytes, not a parse: text that is no JSON has a depth too.
[[nodiscard]] size_t jsonNestingDepth(std::string_view text);

/// @brief The result of parseJsonText(): the value, or why there is none.
struct [[nodiscard]] ParsedJson {
    nlohmann::json value; ///< null unless ok()
    std::string tooDeep;  ///< "<source> nests lists and objects N levels deep; rtscope reads at most M", or empty
    std::string notJson;  ///< the parser's words ("parse error at line 1, column 3: …") for text that is no JSON

    bool ok() const { return tooDeep.empty() && notJson.empty(); }
    /// @brief The one sentence to refuse the text with: the depth's, else @p whenNotJson.
    std::string error(std::string_view whenNotJson) const
    {
        return tooDeep.empty() ? std::string(whenNotJson) : tooDeep;
    }
};

/// @brief Parses @p text from @p source ("the recording's header", "status frame") unless it nests lists and
/// objects deeper than @p maxDepth.
ParsedJson parseJsonText(std::string_view text, std::string_view source, size_t maxDepth = kMaxJsonDepth);

} // namespace rtscope
