#pragma once
/// @file Parsing and printing of durations with units (ns, us, ms, s; bare numbers are µs, as in cyclictest).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief Parses "250", "250us", "1.5ms", "2s", "100ns" into nanoseconds. Bare numbers are microseconds.
/// Returns nullopt on anything else (empty, negative, unknown unit, overflow beyond 1e8 s).
std::optional<int64_t> parseDuration(std::string_view text);

/// @brief Like parseDuration but a bare number means @p bareUnitNs nanoseconds (e.g. seconds for --duration).
std::optional<int64_t> parseDuration(std::string_view text, int64_t bareUnitNs);

/// @brief Human form with a unit chosen for readability: "850 ns", "12.3 us", "1.50 ms", "2.000 s".
std::string formatDuration(int64_t ns);
/// @brief @p ns to the nanosecond, in the largest unit that has it as a whole number or a decimal fraction: "10 s",
/// "10.000000001 s", "1.5 ms", "850 ns". For the value a refusal quotes: formatDuration() rounds 10.000000001 s,
/// just above a 10 s limit, to "10.000 s".
std::string formatDurationExact(int64_t ns);
/// @brief @p text with every "us" that follows a number ("4.0 us") written as "µs"; the rest unchanged. The engine and
/// the CLI write ASCII "us" like cyclictest; the desktop app writes "µs" (ui/common/text_format.h applies this).
std::string withMicroSign(std::string_view text);

/// @brief Parses a CPU list "0,2-3" (or "all" when @p allCpus is given) into sorted unique CPU numbers.
std::optional<std::vector<int>> parseCpuList(std::string_view text, const std::vector<int>& allCpus);

/// @brief "LO and HI" with formatDuration(), for the "between … and …" of a range sentence.
std::string formatDurationRange(int64_t lo, int64_t hi);

/// @brief @p ns in seconds.
inline double toSeconds(int64_t ns)
{
    return double(ns) / 1e9;
}

/// @brief @p v with exactly @p decimals digits after the point (CSV columns: the CSV writer's six significant digits
/// would lose microseconds of a timestamp).
std::string formatFixed(double v, int decimals);

/// @brief A resource limit as getrlimit gives it: "unlimited" for a negative (RLIM_INFINITY) value, else the number.
std::string formatLimit(int64_t v);

/// @brief Splits "a,b,c" into trimmed, non-empty items.
std::vector<std::string> splitList(std::string_view text, char sep = ',');

/// @brief Whether @p word is one of the whitespace-separated words of @p text ("PREEMPT_RT" in a kernel version).
bool containsWord(const std::string& text, const std::string& word);

} // namespace rtscope
