#pragma once
/// @file Parsing and printing of durations with units (ns, us, ms, s; bare numbers are µs, as in cyclictest).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief Parses "250", "250us", "1.5ms", "2s", "100ns" into nanoseconds. Bare numbers are microseconds.
/// Returns nullopt on anything else (empty, negative, unknown unit, overflow beyond 1e6 s).
std::optional<int64_t> parseDuration(std::string_view text);

/// @brief Like parseDuration but a bare number means @p bareUnitNs nanoseconds (e.g. seconds for --duration).
std::optional<int64_t> parseDuration(std::string_view text, int64_t bareUnitNs);

/// @brief Human form with a unit chosen for readability: "850 ns", "12.3 us", "1.50 ms", "2.000 s".
std::string formatDuration(int64_t ns);

/// @brief Parses a CPU list "0,2-3" (or "all" when @p allCpus is given) into sorted unique CPU numbers.
std::optional<std::vector<int>> parseCpuList(std::string_view text, const std::vector<int>& allCpus);

/// @brief Splits "a,b,c" into trimmed, non-empty items.
std::vector<std::string> splitList(std::string_view text, char sep = ',');

} // namespace rtscope
