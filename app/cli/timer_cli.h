#pragma once
// Flag parsing shared by the timer lab's subcommands (`drift`, `sleep-floor`).
#include "app/cli/command_util.h"

#include "engine/util/units.h"

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope::cli {

// A leading minus is kept, so that "--work -100us" reaches validate() and gets its sentence with the range
// instead of a "not a duration" complaint.
inline std::optional<int64_t> parseSignedDuration(std::string_view text)
{
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') {
        const std::optional<int64_t> v = parseDuration(text.substr(1));
        return v ? std::optional<int64_t>(-*v) : std::nullopt;
    }
    return parseDuration(text);
}

inline std::string notADuration(const char* field, const std::string& text)
{
    return notADuration(field, text, kBareMicroseconds);
}

// @p text (bare numbers are microseconds, a leading minus kept for validate()) into @p dst, or notADuration() into
// @p problems.
inline void readSignedDuration(const char* field, const std::string& text, int64_t& dst,
                               std::vector<std::string>& problems)
{
    if (auto d = parseSignedDuration(text))
        dst = *d;
    else
        problems.push_back(notADuration(field, text));
}

// "default" (or 0) keeps the thread's default slack; anything else is a duration.
inline std::optional<int64_t> parseSlack(const std::string& text)
{
    if (text == "default")
        return 0;
    return parseSignedDuration(text);
}

// --slack into @p dst, or its sentence into @p problems.
inline void readSlack(const std::string& text, int64_t& dst, std::vector<std::string>& problems)
{
    if (auto s = parseSlack(text))
        dst = *s;
    else
        problems.push_back("slack: '" + text + "' is not 'default' or a duration such as 1ns or 100us");
}

// Names separated by commas; every unknown name is reported with the choices. An empty list stays empty, for
// validate() to say that at least one is needed.
template <class T, class Parse>
std::vector<T> parseMethodList(const std::string& text, Parse parse, const std::string& choices,
                               std::vector<std::string>& problems)
{
    std::vector<T> out;
    for (const std::string& name : splitList(text)) {
        if (const auto m = parse(name))
            out.push_back(*m);
        else
            problems.push_back("methods: unknown method '" + name + "'; choose from " + choices);
    }
    return out;
}

// "a, b, c" -> "a,b,c": the form a default shows in --help and a user types back.
inline std::string compactList(const std::string& list)
{
    std::string out;
    for (const std::string& item : splitList(list))
        out += (out.empty() ? "" : ",") + item;
    return out;
}

inline std::string usText(double ns, int decimals = 1)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, ns / 1000.0);
    return buf;
}

} // namespace rtscope::cli
