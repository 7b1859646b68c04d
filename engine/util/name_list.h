#pragma once
/// @file A list of choices written out for a help text or a sentence, from the table that defines them: "abs, rel,
/// busy" or "abs, rel or busy". One table per kind of name (waiters, policies, methods), one list made from it.
#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace rtscope {

/// @brief The names @p name gives the items of @p items, joined by ", " and, before the last, by @p lastJoin.
template <class Range, class Name>
std::string nameList(const Range& items, Name&& name, std::string_view lastJoin = ", ")
{
    std::string list;
    const size_t n = std::size(items);
    size_t i = 0;
    for (const auto& item : items) {
        if (i > 0)
            list += i + 1 == n ? lastJoin : std::string_view(", ");
        list += name(item);
        ++i;
    }
    return list;
}

} // namespace rtscope
