#include "engine/pipeline/contention_aggregator.h"

#include "engine/util/name_list.h"

#include <algorithm>
#include <utility>

namespace rtscope {

void AcquisitionCounts::add(const AcquisitionCounts& o)
{
    acquisitions += o.acquisitions;
    uncontended += o.uncontended;
    spun += o.spun;
    slept += o.slept;
    sleptOwnerNotRunning += o.sleptOwnerNotRunning;
    sleptOwnerOnThisCpu += o.sleptOwnerOnThisCpu;
    sleptSpinLimit += o.sleptSpinLimit;
    spinIterations += o.spinIterations;
    futexSleeps += o.futexSleeps;
}

const char* kindRunStateName(KindRunState s)
{
    return enumName<KindRunState::Failed>(s, {"pending", "running", "done", "stopped", "failed"});
}

double jainFairness(const std::vector<uint64_t>& counts)
{
    long double sum = 0, squares = 0;
    for (uint64_t c : counts) {
        sum += static_cast<long double>(c);
        squares += static_cast<long double>(c) * static_cast<long double>(c);
    }
    if (counts.empty() || squares == 0)
        return 0;
    return double(sum * sum / (static_cast<long double>(counts.size()) * squares));
}

ContentionAggregator::ContentionAggregator(int64_t startNs, int64_t endNs)
    : m_startNs(startNs)
    , m_endNs(endNs)
{}

void ContentionAggregator::add(const LockWaitSample* samples, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        m_wait.record(samples[i].waitNs);
}

ContentionKindFigures ContentionAggregator::figures(KindRunState state, int64_t nowNs, int64_t stoppedNs,
                                                    std::vector<ContentionThreadStats> threads) const
{
    ContentionKindFigures r;
    r.state = state;
    r.startNs = m_startNs;
    const int64_t end = stoppedNs > 0 ? stoppedNs : std::min(nowNs, m_endNs);
    r.elapsedNs = std::max<int64_t>(0, end - m_startNs);
    r.wait = m_wait;
    std::vector<uint64_t> perThread;
    perThread.reserve(threads.size());
    int64_t cpuNs = 0;
    for (const ContentionThreadStats& t : threads) {
        r.counts.add(t.counts);
        r.voluntarySwitches += t.voluntarySwitches;
        r.involuntarySwitches += t.involuntarySwitches;
        r.samplesDropped += t.samplesDropped;
        cpuNs += t.cpuNs;
        perThread.push_back(t.counts.acquisitions);
    }
    r.threads = std::move(threads);
    if (r.elapsedNs > 0)
        r.acquisitionsPerSec = double(r.counts.acquisitions) * 1e9 / double(r.elapsedNs);
    if (r.counts.acquisitions > 0) {
        // Acquisitions come from the workers' counters, so there is at least one worker here.
        r.cpuNsPerAcquisition = double(cpuNs) / double(r.counts.acquisitions);
        const double mean = double(r.counts.acquisitions) / double(perThread.size());
        r.minShare = double(*std::min_element(perThread.begin(), perThread.end())) / mean;
        r.maxShare = double(*std::max_element(perThread.begin(), perThread.end())) / mean;
    }
    r.fairness = jainFairness(perThread);
    return r;
}

} // namespace rtscope
