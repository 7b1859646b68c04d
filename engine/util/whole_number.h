#pragma once
/// @file The number that is the whole of a text: std::from_chars with nothing left over, for the parsers that read
/// numbers from the kernel, a config or a command line.
#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace rtscope {

/// @brief The number @p text spells from its first character to its last, as std::from_chars reads it (no leading
/// white space or '+', no sign for an unsigned @p T); nullopt when it spells none, has more after it, or is out of
/// @p T's range.
template <class T> std::optional<T> wholeNumber(std::string_view text)
{
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

/// @brief wholeNumber() into @p out: false, and @p out untouched, when @p text is not a whole number.
template <class T> bool readWholeNumber(std::string_view text, T& out)
{
    const std::optional<T> value = wholeNumber<T>(text);
    if (value)
        out = *value;
    return value.has_value();
}

} // namespace rtscope
