#pragma once
// Latency samples made up in code: one a period, each as late as a list says, as a measuring thread would have
// taken them.
#include "engine/pipeline/latency_aggregator.h"
#include "engine/util/clock.h"

#include <cstdint>
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

} // namespace rtscope::test
