#pragma once
/// @file cyclictest's histogram text (`-h US --histfile`) and `--json` layouts, written and read.
/// Checked against cyclictest 2.4 (rt-tests); each layout is spelled out on its function below, and
/// docs/import-export.md describes what the exports and imports do with them.
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

class Histogram;

/// @brief One measuring thread's figures, in cyclictest's units (microseconds, truncated like its calcdiff).
struct CyclictestThread {
    std::vector<uint64_t> bins;           ///< bins[i] = samples with latency in [i, i+1) µs
    uint64_t overflows = 0;               ///< samples with latency >= bins.size() µs
    std::vector<uint64_t> overflowCycles; ///< cycle numbers of the first overflows (cyclictest keeps bins.size())
    uint64_t cycles = 0;                  ///< all samples, including overflows
    int64_t minUs = 0;
    double avgUs = 0; ///< written truncated in the text format, with 2 decimals in JSON
    int64_t maxUs = 0;
    int cpu = -1;
    int tid = 0;
    int priority = 0;
    int64_t intervalUs = 0;
};

struct CyclictestData {
    std::vector<std::string> preamble; ///< "# ..." lines before "# Histogram" (e.g. the dma latency note)
    std::vector<CyclictestThread> threads;
    /// "# ..." lines after the footer's "# Thread N:" lines (rtscope's machine identity, a vendor's "# Kernel:"):
    /// where a reader of cyclictest's text, which stops at the footer, never meets them.
    std::vector<std::string> trailer;
    std::string host;   ///< the JSON's sysinfo.nodename; empty when the file does not say (the -h text never does)
    std::string kernel; ///< the JSON's sysinfo.release; empty when the file does not say
};

/// @brief Fills a thread's bins/overflows/min/avg/max/cycles from a Histogram with exact µs bins.
CyclictestThread cyclictestThreadFrom(const Histogram& h, size_t binsUs);

/// @brief The `-h` text exactly as cyclictest writes it: "# Histogram", one "%06d" row per bin with the
/// threads' "%06lu" counts separated by tabs, then # Total / Min / Avg / Max / Histogram Overflows /
/// Overflow at cycle number / "# Thread N:" lines, the trailer's comment lines (none in cyclictest's files), and a
/// blank line. @p keepGoing, when given, is asked every 1024 rows (a replay's 128 threads × 131 072 bins are 100 MB
/// of text): false stops the writing there and the text returned is empty.
std::string writeCyclictestHistogram(const CyclictestData& data, const std::function<bool()>& keepGoing = {});

/// @brief Reads that text (also cyclictest's own files, with or without preamble; comment lines after the thread
/// lines go to the trailer, anything else there is skipped). Never throws; on a
/// malformed file returns false and sets @p error to "line N: what is wrong".
bool parseCyclictestHistogram(std::string_view text, CyclictestData& out, std::string& error);

/// @brief cyclictest's JSON layout: file_version, "cmdline:", "rt_test_version:", start/end time,
/// return_code, sysinfo, num_threads, resolution_in_ns, thread."N".{histogram (non-zero bins only),
/// cycles, min, max, avg, cpu, node}. The caller may add an "rtscope" object.
nlohmann::json cyclictestJson(const CyclictestData& data, const std::string& cmdline, int64_t startUnixSec,
                              int64_t endUnixSec);

/// @brief Reads cyclictest's JSON (or ours). Never throws; false with @p error naming the key on failure.
bool parseCyclictestJson(std::string_view text, CyclictestData& out, std::string& error);

} // namespace rtscope
