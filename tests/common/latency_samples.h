#pragma once
// Latency samples made up in code: one a period, each as late as a list says, as a measuring thread would have
// taken them; and samples read back from a recording's CSV.
#include "engine/pipeline/latency_aggregator.h"
#include "engine/util/clock.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace rtscope::test {

/// A sample per value of @p latencies: numbered from @p firstSeq, due a @p periodNs apart from @p startNs, each
/// waking that late (nothing skipped, epoch 0).
inline std::vector<LatencySample> periodicSamples(const std::vector<int64_t>& latencies, uint64_t firstSeq,
                                                  int64_t startNs, int64_t periodNs = kNsPerMs)
{
    std::vector<LatencySample> out;
    out.reserve(latencies.size());
    for (size_t i = 0; i < latencies.size(); ++i) {
        const int64_t deadlineNs = startNs + int64_t(i) * periodNs;
        out.push_back({firstSeq + i, deadlineNs, deadlineNs + latencies[i], latencies[i], 0, 0});
    }
    return out;
}

/// The first line of a recording's samples as CSV (replay --csv, the desktop app's CSV export).
inline const std::string kSampleCsvHeader = "cpu,seq,deadline_ns,wake_ns,latency_ns,skipped_periods,epoch";

/// One line after kSampleCsvHeader: the CPU and the sample (its deadline relative to the run's start).
struct CsvSample {
    int cpu = 0;
    LatencySample sample;
};

/// @p line read as a CsvSample; nullopt unless it holds the seven fields.
inline std::optional<CsvSample> parseCsvSample(const std::string& line)
{
    int cpu = 0;
    unsigned long long seq = 0;
    long long deadline = 0, wake = 0, latency = 0;
    unsigned skipped = 0, epoch = 0;
    if (std::sscanf(line.c_str(), "%d,%llu,%lld,%lld,%lld,%u,%u", &cpu, &seq, &deadline, &wake, &latency, &skipped,
                    &epoch) != 7)
        return std::nullopt;
    return CsvSample{cpu, {seq, deadline, wake, latency, skipped, epoch}};
}

} // namespace rtscope::test
