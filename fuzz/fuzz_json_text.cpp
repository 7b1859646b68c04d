// The one parser every JSON from outside goes through (engine/util/json_text.h: recordings, presets, imports,
// settings, agent frames): what it accepts nests at most kMaxJsonDepth levels, so the recursive operations the
// readers apply next (copy, compare, dump) are bounded; what it refuses comes with a sentence.
#include "engine/util/json_text.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const rtscope::ParsedJson parsed = rtscope::parseJsonText(text, "fuzz");
    if (!parsed.ok()) {
        if (parsed.error("").empty() && parsed.notJson.empty())
            __builtin_trap(); // a refusal must say why
        return 0;
    }
    const std::string dumped = parsed.value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (rtscope::jsonNestingDepth(dumped) > rtscope::kMaxJsonDepth)
        __builtin_trap(); // accepted deeper than the limit
    const nlohmann::json copy = parsed.value;
    if (copy != parsed.value)
        __builtin_trap();
    return 0;
}
