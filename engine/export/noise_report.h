#pragma once
/// @file The noise lab's outputs (docs/experiments/noise.md): the --json report (osnoise's summary per CPU and the
/// culprits), the --csv table (every culprit, and per CPU what no traced work explains) and the --histfile loop-length
/// histogram in cyclictest's -h layout (one column per measured CPU), plus the loop-length figures the oslat
/// comparison reads.
#include "engine/experiments/noise/noise_snapshot.h"
#include "engine/experiments/noise/osnoise_trace.h"
#include "engine/formats/cyclictest_format.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>

namespace rtscope {

/// @brief Loop lengths read from a histogram of 1 µs buckets (bucket i: [i, i+1) µs; the last bucket open-ended).
/// Percentiles are a bucket's lower edge, as oslat and cyclictest report them; -1 when there is no loop.
struct LoopFigures {
    uint64_t loops = 0;
    int64_t p50Us = -1;
    int64_t p99Us = -1;
    int64_t p999Us = -1;
    int64_t maxUs = -1;          ///< the highest non-empty bucket (the exact maximum is NoiseCpuStats::maxLoopNs)
    double shareAtLeast10Us = 0; ///< loops of 10 µs or more, of all loops (0..1)
};
LoopFigures loopFigures(std::span<const uint64_t> histogram);

/// @brief osnoise's counts per CPU: HW is the gaps no traced work touched (NoiseKind::Unexplained).
nlohmann::json noiseReportJson(const NoiseSnapshot& snap);
/// @brief The kernel osnoise tracer's summary read from a file (--osnoise-file), in the report's per-CPU keys:
/// {"method": "osnoise tracer", "source", "periods", "cpus": [{cpu, periods, runtime_us, noise_us, available_percent,
/// max_single_us, hw, nmi, irq, softirq, thread}], "problems", "problem_count"}.
nlohmann::json osnoiseTraceJson(const OsnoiseTrace& trace);
/// @brief cpu,kind,name,pid,sched,count,total_ns,max_ns,percent: every culprit, the per-CPU "unexplained" and
/// "untraced" entries among them, so a CPU's rows add up to its noise (unless more than kMaxCulprits were kept).
std::string noiseCsv(const NoiseSnapshot& snap);
/// @brief The loop-length histograms as cyclictest's -h data: one thread per measured CPU, 1 µs bins.
CyclictestData noiseHistogramData(const NoiseSnapshot& snap);

} // namespace rtscope
