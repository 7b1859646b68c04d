#include "engine/pipeline/deadline_aggregator.h"

#include <algorithm>
#include <numeric>

namespace rtscope {

std::optional<double> DeadlineBudget::limit() const
{
    // On a kernel with fair servers whose share could not be read, the limit is not known: no guess.
    if (!perCpuLimit || (fairServerKernel && !fairServers))
        return std::nullopt;
    return *perCpuLimit * cpus - fairServers.value_or(0.0);
}

DeadlineAggregator::DeadlineAggregator(int slots)
    : m_tasks(size_t(std::clamp(slots, 0, kMaxSlots)))
{}

void DeadlineAggregator::addAdmission(const DeadlineAdmissionStep& step)
{
    if (step.task < 0)
        return;
    if (size_t(step.task) >= m_admitted.size())
        m_admitted.resize(size_t(step.task) + 1, 0.0);
    DeadlineAdmissionRow row;
    row.step = step;
    const double before = std::accumulate(m_admitted.begin(), m_admitted.end(), 0.0);
    if (step.action == DeadlineAdmissionStep::Action::Remove) {
        m_admitted[size_t(step.task)] = 0.0;
    } else {
        // What the arithmetic says before the kernel answers: the lesson's admitted tasks, the others seen at the
        // start and this one against the limit. The kernel's own answer is step.admitted; the two can differ
        // (a task that just left still holds its bandwidth until its period ends, other tasks come and go).
        if (const std::optional<double> limit = m_budget.limit())
            row.predicted = m_budget.othersAtStart + before + step.bandwidth() <= *limit + 1e-9;
        if (step.admitted)
            m_admitted[size_t(step.task)] = step.bandwidth();
    }
    row.ownTotal = std::accumulate(m_admitted.begin(), m_admitted.end(), 0.0);
    m_rows.push_back(std::move(row));
}

void DeadlineAggregator::add(const DeadlineJob& job)
{
    if (job.slot < 0 || size_t(job.slot) >= m_tasks.size()) {
        ++m_badSlots;
        return;
    }
    DeadlineTaskStats& t = m_tasks[size_t(job.slot)];
    if (t.jobs == 0)
        t.firstNs = job.startNs;
    t.lastNs = std::max(t.lastNs, job.endNs);
    ++t.jobs;
    if (job.missed)
        ++t.misses;
    t.totalRanNs += job.ranNs;
    t.maxRanNs = std::max(t.maxRanNs, job.ranNs);
    t.totalGapNs += job.gapNs;
    t.maxGapNs = std::max(t.maxGapNs, job.gapNs);
    t.maxLateNs = std::max(t.maxLateNs, job.lateNs);
    if (job.cpu >= 0 && job.cpu < kMaxCpus) {
        if (size_t(job.cpu) >= t.jobsPerCpu.size())
            t.jobsPerCpu.resize(size_t(job.cpu) + 1, 0);
        ++t.jobsPerCpu[size_t(job.cpu)];
    }
    if (m_jobs.size() < kMaxJobRecords)
        m_jobs.push_back(job);
    else
        ++m_jobsNotKept;
}

void DeadlineAggregator::addCounter(const DeadlineCounterSample& s)
{
    if (m_lastCounter && s.tNs > m_lastCounter->tNs && s.ops >= m_lastCounter->ops) {
        const uint64_t ops = s.ops - m_lastCounter->ops;
        DeadlineCounterStats& c = m_counter;
        c.minOps = c.windows == 0 ? ops : std::min(c.minOps, ops);
        c.maxOps = std::max(c.maxOps, ops);
        ++c.windows;
        if (ops == 0)
            ++c.stalledWindows;
        c.totalOps += ops;
        c.maxWindowNs = std::max(c.maxWindowNs, s.tNs - m_lastCounter->tNs);
        c.totalWindowNs += s.tNs - m_lastCounter->tNs;
        if (s.cpuNs >= 0 && m_lastCounter->cpuNs >= 0 && s.cpuNs >= m_lastCounter->cpuNs) {
            c.cpuNs += s.cpuNs - m_lastCounter->cpuNs;
            c.cpuWallNs += s.tNs - m_lastCounter->tNs;
        }
    }
    m_lastCounter = s;
}

} // namespace rtscope
