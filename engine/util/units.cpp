#include "engine/util/units.h"

#include "engine/util/whole_number.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace rtscope {

namespace {

// Anything longer is a typo, not a latency experiment; it also keeps every product below inside __int128. It is
// well above the longest range of any flag (-D: 30 days), so that a value just past a range is told that range by
// validate() instead of "not a duration".
constexpr int64_t kMaxDurationNs = int64_t(100'000'000) * 1000 * 1000 * 1000; // 1e8 s, about 3 years
constexpr size_t kMaxFractionDigits = 18;
constexpr int kMaxCpu = 65535; // beyond any CONFIG_NR_CPUS; bounds the vector a range like "0-4000000000" would make

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

std::optional<int64_t> unitNs(std::string_view unit, int64_t bareUnitNs)
{
    if (unit.empty())
        return bareUnitNs;
    if (unit == "ns")
        return 1;
    // Accept the micro sign (U+00B5) and the Greek mu (U+03BC): keyboards and copy-paste produce either.
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs")
        return 1000;
    if (unit == "ms")
        return 1000 * 1000;
    if (unit == "s")
        return 1000 * 1000 * 1000;
    return std::nullopt;
}

std::optional<int> parseCpuNumber(std::string_view s)
{
    if (s.empty() || !std::all_of(s.begin(), s.end(), isDigit))
        return std::nullopt;
    const std::optional<int> value = wholeNumber<int>(s);
    if (!value || *value > kMaxCpu)
        return std::nullopt;
    return value;
}

} // namespace

std::optional<int64_t> parseDuration(std::string_view text)
{
    // cyclictest's -i, -d and -h take bare microseconds; users carry that habit over.
    return parseDuration(text, 1000);
}

std::optional<int64_t> parseDuration(std::string_view text, int64_t bareUnitNs)
{
    if (bareUnitNs <= 0)
        return std::nullopt;
    std::string_view s = trim(text);

    size_t pos = 0;
    while (pos < s.size() && isDigit(s[pos]))
        ++pos;
    const std::string_view intDigits = s.substr(0, pos);
    if (intDigits.empty())
        return std::nullopt; // also rejects a sign, ".5", "nan" and "inf"

    std::string_view fracDigits;
    if (pos < s.size() && s[pos] == '.') {
        const size_t start = ++pos;
        while (pos < s.size() && isDigit(s[pos]))
            ++pos;
        fracDigits = s.substr(start, pos - start);
        if (fracDigits.empty() || fracDigits.size() > kMaxFractionDigits)
            return std::nullopt;
    }

    // One space before the unit reads naturally ("1 ms", as formatDuration prints); a second one is rejected by
    // unitNs, and a trailing one was trimmed, so "1 " stays a bare number.
    std::string_view unit = s.substr(pos);
    if (unit.starts_with(' '))
        unit.remove_prefix(1);
    const std::optional<int64_t> unitValue = unitNs(unit, bareUnitNs);
    if (!unitValue)
        return std::nullopt;

    const auto limit = static_cast<__int128>(kMaxDurationNs);
    __int128 whole = 0;
    for (char c : intDigits) {
        whole = whole * 10 + (c - '0');
        if (whole > limit) // no unit is below 1 ns, so the result would exceed the limit too
            return std::nullopt;
    }
    __int128 result = whole * *unitValue;

    if (!fracDigits.empty()) {
        __int128 numerator = 0;
        __int128 denominator = 1;
        for (char c : fracDigits) {
            numerator = numerator * 10 + (c - '0');
            denominator *= 10;
        }
        // Round half up to whole nanoseconds: the engine has no finer clock, and "0.0015ms" should be 2 ns.
        const __int128 scaled = numerator * *unitValue;
        __int128 ns = scaled / denominator;
        if ((scaled % denominator) * 2 >= denominator)
            ++ns;
        result += ns;
    }
    if (result > limit)
        return std::nullopt;
    return static_cast<int64_t>(result);
}

std::string formatDuration(int64_t ns)
{
    // Work on the magnitude as unsigned so INT64_MIN has one too.
    const bool negative = ns < 0;
    const uint64_t mag = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    const char* sign = negative ? "-" : "";
    char buf[64];

    // Each unit is chosen after rounding, so 999.96 us prints as "1.00 ms" rather than "1000.0 us".
    if (mag < 1000) {
        std::snprintf(buf, sizeof buf, "%s%llu ns", sign, static_cast<unsigned long long>(mag));
        return buf;
    }
    const uint64_t tenthsUs = (mag + 50) / 100;
    if (tenthsUs < 10000) {
        std::snprintf(buf, sizeof buf, "%s%llu.%llu us", sign, static_cast<unsigned long long>(tenthsUs / 10),
                      static_cast<unsigned long long>(tenthsUs % 10));
        return buf;
    }
    const uint64_t hundredthsMs = (mag + 5000) / 10000;
    if (hundredthsMs < 100000) {
        std::snprintf(buf, sizeof buf, "%s%llu.%02llu ms", sign, static_cast<unsigned long long>(hundredthsMs / 100),
                      static_cast<unsigned long long>(hundredthsMs % 100));
        return buf;
    }
    const uint64_t ms = mag / 1000000 + ((mag % 1000000) >= 500000 ? 1 : 0);
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu s", sign, static_cast<unsigned long long>(ms / 1000),
                  static_cast<unsigned long long>(ms % 1000));
    return buf;
}

std::optional<std::vector<int>> parseCpuList(std::string_view text, const std::vector<int>& allCpus)
{
    const std::string_view s = trim(text);
    if (s == "all") {
        if (allCpus.empty())
            return std::nullopt;
        std::vector<int> cpus = allCpus;
        std::sort(cpus.begin(), cpus.end());
        cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
        return cpus;
    }
    if (s.empty())
        return std::nullopt;

    std::vector<int> cpus;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t comma = s.find(',', start);
        const size_t end = comma == std::string_view::npos ? s.size() : comma;
        // An empty item ("0,,2", "1,") is a typo worth reporting, unlike in splitList.
        const std::string_view item = trim(s.substr(start, end - start));
        const size_t dash = item.find('-');
        if (dash == std::string_view::npos) {
            const auto cpu = parseCpuNumber(item);
            if (!cpu)
                return std::nullopt;
            cpus.push_back(*cpu);
        } else {
            const auto first = parseCpuNumber(trim(item.substr(0, dash)));
            const auto last = parseCpuNumber(trim(item.substr(dash + 1)));
            if (!first || !last || *first > *last)
                return std::nullopt;
            for (int cpu = *first; cpu <= *last; ++cpu)
                cpus.push_back(cpu);
        }
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

std::vector<std::string> splitList(std::string_view text, char sep)
{
    std::vector<std::string> items;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t pos = text.find(sep, start);
        const size_t end = pos == std::string_view::npos ? text.size() : pos;
        const std::string_view item = trim(text.substr(start, end - start));
        if (!item.empty())
            items.emplace_back(item);
        if (pos == std::string_view::npos)
            break;
        start = pos + 1;
    }
    return items;
}

std::string formatDurationExact(int64_t ns)
{
    const bool negative = ns < 0;
    const uint64_t mag = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    static constexpr struct {
        uint64_t ns;
        int digits;
        const char* name;
    } kUnits[] = {{1'000'000'000, 9, "s"}, {1'000'000, 6, "ms"}, {1'000, 3, "us"}};
    for (const auto& u : kUnits) {
        if (mag < u.ns)
            continue;
        std::string out = (negative ? "-" : "") + std::to_string(mag / u.ns);
        if (const uint64_t rest = mag % u.ns) {
            std::string fraction = std::to_string(rest);
            fraction.insert(0, size_t(u.digits) - fraction.size(), '0');
            fraction.erase(fraction.find_last_not_of('0') + 1);
            out += "." + fraction;
        }
        return out + " " + u.name;
    }
    return (negative ? "-" : "") + std::to_string(mag) + " ns";
}

std::string formatDurationRange(int64_t lo, int64_t hi)
{
    return formatDuration(lo) + " and " + formatDuration(hi);
}

std::string formatFixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string formatLimit(int64_t v)
{
    return v < 0 ? "unlimited" : std::to_string(v);
}

std::string withMicroSign(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 8);
    for (size_t i = 0; i < text.size(); ++i) {
        const bool unit = text.compare(i, 3, " us") == 0 && i > 0 && text[i - 1] >= '0' && text[i - 1] <= '9' &&
                          (i + 3 == text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 3])));
        if (unit) {
            out += " \u00b5s";
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

bool containsWord(const std::string& text, const std::string& word)
{
    std::istringstream in(text);
    std::string w;
    while (in >> w)
        if (w == word)
            return true;
    return false;
}

} // namespace rtscope
