#pragma once
/// @file The noise lab's second method: the kernel's osnoise tracer, read from its text output
/// (docs/experiments/noise.md "The kernel's osnoise tracer, side by side"). The tracer (CONFIG_OSNOISE_TRACER) runs
/// its own polling thread per CPU inside the kernel and, at the end of every period, writes one summary line per
/// CPU to the trace buffer:
///
///     osnoise/1-859 [001] .... 81.637220: 1000000 190 99.98100 9 18 0 1007 18 1
///
/// runtime (µs), noise (µs), % of CPU available, max single noise (µs), then its interference counters HW, NMI, IRQ,
/// softirq and thread. rtscope does not switch the machine's tracer itself (it is one global setting, shared with
/// whoever else traces); it reads a trace the user recorded (`cat /sys/kernel/tracing/trace`, or `trace-cmd
/// report` of `trace-cmd record -p osnoise`) and shows it beside its own measurement, in the same columns.
#include "engine/util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope {

/// @brief What the osnoise tracer counts over a period (and a sum of periods): time, noise and the interference by
/// kind.
struct OsnoiseCounts {
    int64_t runtimeUs = 0;
    int64_t noiseUs = 0;
    int64_t maxSingleUs = 0;
    uint64_t hw = 0, nmi = 0, irq = 0, softirq = 0, thread = 0;
    /// Adds @p other's times and counts; the longest single noise is the longer of the two.
    void add(const OsnoiseCounts& other);
};

/// @brief One period summary line of the osnoise tracer.
struct OsnoisePeriod : OsnoiseCounts {
    int cpu = -1;
    double availablePercent = 100;
};

/// @brief Every period of one CPU added up, as `rtla osnoise top` sums them.
struct OsnoiseCpuSummary : OsnoiseCounts {
    int cpu = -1;
    uint64_t periods = 0;
    /// (runtime − noise) / runtime in %, from the sums (not an average of the periods' percentages).
    double availablePercent() const;
};

/// @brief What a trace held: the per-CPU sums (by CPU number), how many lines were read and what was wrong.
struct OsnoiseTrace {
    std::string source; ///< the file it came from
    std::vector<OsnoiseCpuSummary> cpus;
    uint64_t lines = 0;        ///< every line read
    uint64_t periodLines = 0;  ///< period summaries taken
    uint64_t skippedLines = 0; ///< comments, the tracer's other events (irq_noise, sample_threshold …), blank lines
    /// Lines that looked like a period summary but could not be one ("line 12: noise 1200 us exceeds the runtime
    /// 1000 us"); the first kMaxProblems are kept, problemCount counts all.
    std::vector<std::string> problems;
    uint64_t problemCount = 0;
    static constexpr size_t kMaxProblems = 20;
};

/// @brief One line of osnoise tracer output: a period summary, or nullopt for anything else. A line that has the
/// shape of a summary (task, [CPU], flags, timestamp, numbers) but wrong values sets @p problem and gives nullopt.
std::optional<OsnoisePeriod> parseOsnoisePeriod(std::string_view line, std::string& problem);

/// @brief Sums every period summary in @p text per CPU; @p source names it in the result.
OsnoiseTrace readOsnoiseTrace(std::string_view text, std::string source);

/// @brief Reads the regular file @p path (at most kMaxOsnoiseTraceBytes) and sums it. An error names the path and
/// says why: not a regular file, too large, unreadable, or no period summary in it (with what was found instead).
inline constexpr size_t kMaxOsnoiseTraceBytes = size_t(512) << 20;
[[nodiscard]] Error loadOsnoiseTrace(const std::string& path, OsnoiseTrace& out);

} // namespace rtscope
