#include "engine/util/json_text.h"

#include <algorithm>

namespace rtscope {

size_t jsonNestingDepth(std::string_view text)
{
    size_t depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

ParsedJson parseJsonText(std::string_view text, std::string_view source, size_t maxDepth)
{
    ParsedJson out;
    if (const size_t depth = jsonNestingDepth(text); depth > maxDepth) {
        out.tooDeep = std::string(source) + " nests lists and objects " + std::to_string(depth) +
                      " levels deep; rtscope reads at most " + std::to_string(maxDepth);
        return out;
    }
    try {
        out.value = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        // "[json.exception.parse_error.101] parse error at line 3, column 5: …": the part after the tag.
        std::string why = e.what();
        if (const size_t tag = why.find("] "); tag != std::string::npos)
            why = why.substr(tag + 2);
        out.notJson = why.empty() ? std::string("not JSON") : why;
    }
    return out;
}

} // namespace rtscope
