#include "engine/experiments/noise/noise_attribution.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace rtscope {

namespace {

// Which exit closes a frame: the event's source and its number (IRQ, softirq vector, x86 vector).
enum NoiseFrameSource : int { kNoiseIrqHandler = 1, kNoiseSoftirq = 2, kNoiseVector = 3 };

constexpr int noiseFrameMatch(NoiseFrameSource source, int number)
{
    return (int(source) << 24) | (number & 0xffffff);
}

// The events the attribution reads; the others (wake-ups, hrtimers, markers) are not kept.
bool noiseKeepsEvent(TraceEventType t)
{
    const TracePayload p = tracePayload(t);
    return p == TracePayload::Sw || p == TracePayload::Irq || p == TracePayload::Nmi;
}

std::string noiseVectorCulprit(TraceVector v)
{
    if (v == TraceVector::LocalTimer)
        return traceVectorName(v);
    return std::string("IPI ") + traceVectorName(v);
}

} // namespace

NoiseAttribution::NoiseAttribution(const std::vector<Target>& targets, bool traced)
    : m_cpus(targets.size())
    , m_traced(traced)
{
    for (size_t i = 0; i < targets.size(); ++i) {
        m_cpus[i].figures.cpu = targets[i].cpu;
        m_cpus[i].figures.tid = targets[i].tid;
        if (targets[i].cpu >= 0) {
            if (size_t(targets[i].cpu) >= m_indexOfCpu.size())
                m_indexOfCpu.resize(size_t(targets[i].cpu) + 1, -1);
            m_indexOfCpu[size_t(targets[i].cpu)] = int(i);
        }
    }
}

void NoiseAttribution::setTid(size_t index, int tid)
{
    m_cpus[index].figures.tid = tid;
}

int64_t NoiseAttribution::defaultWatermarkNs() const
{
    return m_newestNs > 0 ? m_newestNs - kSettleLagNs : INT64_MIN;
}

void NoiseAttribution::addEvents(std::span<const TraceEvent> batch)
{
    if (!m_traced || batch.empty())
        return;
    // The batch is sorted as a whole, so each CPU's share of it is sorted too: cut it into runs of one CPU.
    std::vector<std::vector<TraceEvent>> perCpu(m_cpus.size());
    for (const TraceEvent& e : batch) {
        m_newestNs = std::max(m_newestNs, e.ts);
        if (e.cpu >= m_indexOfCpu.size() || m_indexOfCpu[e.cpu] < 0)
            continue;
        Cpu& c = m_cpus[size_t(m_indexOfCpu[e.cpu])];
        if (e.type == TraceEventType::Lost) {
            // The kernel (or the queue) dropped events on this CPU in (sinceNs, ts): nothing there can be trusted.
            m_lostEvents += e.lost.count;
            ++m_lossReports;
            const Span s{e.lost.sinceNs > 0 ? e.lost.sinceNs : INT64_MIN, e.ts};
            c.lost.insert(std::upper_bound(c.lost.begin(), c.lost.end(), s,
                                           [](const Span& a, const Span& b) { return a.fromNs < b.fromNs; }),
                          s);
            continue;
        }
        if (!noiseKeepsEvent(e.type))
            continue;
        if (e.ts < c.keptFromNs) {
            // Its time was let go already; it matters only when a settled gap covered it.
            if (e.ts <= c.lastSettledEndNs)
                ++m_lateEvents;
            continue;
        }
        perCpu[size_t(m_indexOfCpu[e.cpu])].push_back(e);
    }
    for (size_t i = 0; i < m_cpus.size(); ++i)
        if (!perCpu[i].empty())
            insertEvents(m_cpus[i], perCpu[i]);
}

void NoiseAttribution::insertEvents(Cpu& c, std::span<const TraceEvent> sorted)
{
    const auto byTime = [](const TraceEvent& a, const TraceEvent& b) {
        return a.ts < b.ts;
    };
    if (c.events.empty() || sorted.front().ts >= c.events.back().ts) {
        c.events.insert(c.events.end(), sorted.begin(), sorted.end());
    } else {
        // A late batch: merge it with the tail it overlaps. Equal times keep the earlier batch's events first.
        const auto from = std::upper_bound(c.events.begin(), c.events.end(), sorted.front(), byTime);
        m_merge.clear();
        std::merge(from, c.events.end(), sorted.begin(), sorted.end(), std::back_inserter(m_merge), byTime);
        c.events.erase(from, c.events.end());
        c.events.insert(c.events.end(), m_merge.begin(), m_merge.end());
    }
    if (c.events.size() > kMaxEventsPerCpu) {
        // Over the bound (the watermark did not move for long): let the oldest quarter go, and treat its span as
        // lost, so a gap there is not charged from half its events.
        const size_t n = c.events.size() - kMaxEventsPerCpu * 3 / 4;
        const Span s{c.events.front().ts, c.events[n].ts};
        c.events.erase(c.events.begin(), c.events.begin() + long(n));
        m_shedEvents += n;
        c.lost.insert(std::upper_bound(c.lost.begin(), c.lost.end(), s,
                                       [](const Span& a, const Span& b) { return a.fromNs < b.fromNs; }),
                      s);
    }
}

void NoiseAttribution::addGap(size_t index, const NoiseGap& gap)
{
    Cpu& c = m_cpus[index];
    c.pending.push_back(gap);
    if (!m_traced)
        settleCpu(index, c.progressNs);
    else if (c.pending.size() > kMaxPendingGapsPerCpu)
        settleCpu(index, INT64_MIN); // only the oldest: the bound's own rule in settleCpu
}

void NoiseAttribution::setProgress(size_t index, int64_t ns)
{
    Cpu& c = m_cpus[index];
    c.progressNs = std::max(c.progressNs, ns);
}

void NoiseAttribution::settle(int64_t watermarkNs)
{
    for (size_t i = 0; i < m_cpus.size(); ++i)
        settleCpu(i, m_traced ? std::min(watermarkNs, m_cpus[i].progressNs) : m_cpus[i].progressNs);
}

void NoiseAttribution::finish()
{
    for (size_t i = 0; i < m_cpus.size(); ++i) {
        Cpu& c = m_cpus[i];
        if (!c.pending.empty())
            c.progressNs = std::max(c.progressNs, c.pending.back().endNs);
        settleCpu(i, INT64_MAX);
        c.figures.settledNs = std::max(c.figures.settledNs, c.progressNs);
    }
}

void NoiseAttribution::settleCpu(size_t index, int64_t limitNs)
{
    Cpu& c = m_cpus[index];
    while (!c.pending.empty() && (c.pending.front().endNs <= limitNs || c.pending.size() > kMaxPendingGapsPerCpu)) {
        const NoiseGap gap = c.pending.front();
        c.pending.pop_front();
        attribute(index, gap);
        c.lastSettledEndNs = std::max(c.lastSettledEndNs, gap.endNs);
        c.figures.settledNs = std::max(c.figures.settledNs, gap.endNs);
    }
    if (limitNs != INT64_MAX && limitNs > c.figures.settledNs)
        c.figures.settledNs = limitNs; // finish() sets the end itself: the poller's last clock read
    // Events before the next gap to settle (or before the limit: no gap to come can start earlier) are done with.
    int64_t keepFrom = limitNs;
    if (!c.pending.empty())
        keepFrom = std::min(keepFrom, c.pending.front().startNs);
    trim(c, keepFrom);
}

void NoiseAttribution::trim(Cpu& c, int64_t keepFromNs)
{
    if (keepFromNs <= c.keptFromNs)
        return;
    c.keptFromNs = keepFromNs;
    while (!c.events.empty() && c.events.front().ts < keepFromNs)
        c.events.pop_front();
    std::erase_if(c.lost, [&](const Span& s) { return s.toNs < keepFromNs; });
}

void NoiseAttribution::attribute(size_t index, const NoiseGap& gap)
{
    Cpu& c = m_cpus[index];
    const int64_t total = std::max<int64_t>(gap.endNs - gap.startNs, 0);
    NoiseCpuAttribution& f = c.figures;
    ++f.gaps;
    f.noiseNs += total;
    f.maxSingleNs = std::max(f.maxSingleNs, total);
    if (!m_traced) {
        addRemainder(index, NoiseKind::Untraced, total, true);
        return;
    }
    // The poller had just read the clock at the gap's start: it was running, with nothing nested.
    c.frames.clear();
    bool touched = false;
    int64_t unexplained = 0;
    int64_t cursor = gap.startNs;
    const int64_t end = gap.startNs + total;
    auto it = std::lower_bound(c.events.begin(), c.events.end(), gap.startNs,
                               [](const TraceEvent& e, int64_t t) { return e.ts < t; });
    for (; it != c.events.end() && it->ts <= end; ++it) {
        if (it->ts > cursor) {
            charge(c, cursor, it->ts, unexplained);
            cursor = it->ts;
        }
        apply(index, *it, gap.startNs, touched, unexplained);
    }
    charge(c, cursor, end, unexplained);
    close(c, 0);
    if (!touched)
        ++f.untouchedGaps;
    if (unexplained > 0 || !touched)
        addRemainder(index, NoiseKind::Unexplained, unexplained, !touched);
}

void NoiseAttribution::charge(Cpu& c, int64_t fromNs, int64_t toNs, int64_t& unexplained)
{
    if (toNs <= fromNs)
        return;
    // The union of the lost spans inside [from, to): sorted by start, so one pass.
    int64_t lost = 0;
    int64_t covered = fromNs;
    for (const Span& s : c.lost) {
        if (s.fromNs >= toNs)
            break;
        const int64_t a = std::max(s.fromNs, covered);
        const int64_t b = std::min(s.toNs, toNs);
        if (b > a) {
            lost += b - a;
            covered = b;
        }
    }
    c.figures.lostNs += lost;
    unexplained += lost;
    const int64_t traced = toNs - fromNs - lost;
    if (c.frames.empty())
        unexplained += traced;
    else
        c.frames.back().ns += traced;
}

void NoiseAttribution::apply(size_t index, const TraceEvent& e, int64_t gapStartNs, bool& touched, int64_t& unexplained)
{
    Cpu& c = m_cpus[index];
    const auto push = [&](NoiseKind kind, int match, const std::string& name, int pid, const std::string& sched,
                          int64_t id, bool vector, int prio) {
        c.frames.push_back({kind, match, culpritIndex(index, kind, name, pid, sched, id, vector, prio), 0});
        touched = true;
    };
    const auto pop = [&](int match) {
        for (size_t i = c.frames.size(); i-- > 0;)
            if (c.frames[i].match == match) {
                close(c, i); // with whatever is still open above it: their exits were lost
                return;
            }
        // An exit without its entry: the entry came before the gap (it cannot, the poller was running) or was lost.
    };
    switch (e.type) {
    case TraceEventType::SchedSwitch:
        // A switch happens in no interrupt context: whatever is still open had its exit lost.
        close(c, 0);
        if (e.sw.next.pid != c.figures.tid)
            push(NoiseKind::Thread, -1, std::string(traceText(e.sw.next.comm)), e.sw.next.pid,
                 describeKernelPrio(e.sw.next.prio), e.sw.next.pid, false, e.sw.next.prio);
        break;
    case TraceEventType::IrqEntry:
        push(NoiseKind::Irq, noiseFrameMatch(kNoiseIrqHandler, e.irq.number),
             "irq " + std::to_string(e.irq.number) + " " + std::string(traceText(e.irq.name)), 0, {}, e.irq.number,
             false, -2);
        break;
    case TraceEventType::IrqExit:
        pop(noiseFrameMatch(kNoiseIrqHandler, e.irq.number));
        break;
    case TraceEventType::SoftirqEntry:
        push(NoiseKind::Softirq, noiseFrameMatch(kNoiseSoftirq, e.irq.number),
             std::string("softirq ") + softirqName(e.irq.number), 0, {}, e.irq.number, false, -2);
        break;
    case TraceEventType::SoftirqExit:
        pop(noiseFrameMatch(kNoiseSoftirq, e.irq.number));
        break;
    case TraceEventType::VectorEntry:
        push(NoiseKind::Irq, noiseFrameMatch(kNoiseVector, int(e.irq.vector)), noiseVectorCulprit(e.irq.vector), 0, {},
             int64_t(e.irq.vector), true, -2);
        break;
    case TraceEventType::VectorExit:
        pop(noiseFrameMatch(kNoiseVector, int(e.irq.vector)));
        break;
    case TraceEventType::Nmi: {
        // It ran [ts − delta, ts]: the part inside the gap was charged to what it interrupted, and comes back from
        // there (never more than that holds, so nothing goes negative).
        int64_t& from = c.frames.empty() ? unexplained : c.frames.back().ns;
        const int64_t ns = std::min({std::max<int64_t>(e.nmi.deltaNs, 0), e.ts - gapStartNs, from});
        from -= ns;
        NoiseCulprit& who = m_culprits[culpritIndex(index, NoiseKind::Nmi, "NMI", 0, {}, 0, false, -2)];
        ++who.count;
        who.totalNs += ns;
        who.maxNs = std::max(who.maxNs, ns);
        c.figures.kindNs[size_t(NoiseKind::Nmi)] += ns;
        ++c.figures.kindCount[size_t(NoiseKind::Nmi)];
        touched = true;
        break;
    }
    default:
        break;
    }
}

void NoiseAttribution::close(Cpu& c, size_t frameIndex)
{
    while (c.frames.size() > frameIndex) {
        const Frame& fr = c.frames.back();
        NoiseCulprit& who = m_culprits[fr.culprit];
        ++who.count;
        who.totalNs += fr.ns;
        who.maxNs = std::max(who.maxNs, fr.ns);
        c.figures.kindNs[size_t(fr.kind)] += fr.ns;
        ++c.figures.kindCount[size_t(fr.kind)];
        c.frames.pop_back();
    }
}

void NoiseAttribution::addRemainder(size_t index, NoiseKind kind, int64_t ns, bool countKind)
{
    Cpu& c = m_cpus[index];
    NoiseCulprit& who = m_culprits[culpritIndex(index, kind, noiseKindLabel(kind), 0, {})];
    ++who.count;
    who.totalNs += ns;
    who.maxNs = std::max(who.maxNs, ns);
    c.figures.kindNs[size_t(kind)] += ns;
    if (countKind)
        ++c.figures.kindCount[size_t(kind)];
}

size_t NoiseAttribution::culpritIndex(size_t index, NoiseKind kind, const std::string& name, int pid,
                                      const std::string& sched, int64_t id, bool vector, int prio)
{
    auto key = std::make_tuple(index, kind, name, pid);
    auto it = m_culpritIndex.find(key);
    if (it == m_culpritIndex.end() && m_culprits.size() >= kMaxCulpritEntries) {
        key = std::make_tuple(index, kind, std::string("(others)"), 0);
        it = m_culpritIndex.find(key);
    }
    if (it == m_culpritIndex.end()) {
        NoiseCulprit who;
        who.kind = kind;
        who.name = std::get<2>(key);
        who.cpu = m_cpus[index].figures.cpu;
        who.pid = std::get<3>(key);
        const bool others = who.name == "(others)";
        who.id = others ? -1 : id;
        who.vector = !others && vector;
        it = m_culpritIndex.emplace(std::move(key), m_culprits.size()).first;
        m_culprits.push_back(std::move(who));
    }
    if (!sched.empty() && std::get<2>(it->first) != "(others)") {
        m_culprits[it->second].sched = sched; // the latest: a thread's priority may change during the run
        m_culprits[it->second].prio = prio;
    }
    return it->second;
}

size_t NoiseAttribution::bufferedEvents() const
{
    size_t n = 0;
    for (const Cpu& c : m_cpus)
        n += c.events.size();
    return n;
}

std::vector<NoiseCulprit> NoiseAttribution::culprits(std::span<const int64_t> runtimeNs, size_t max) const
{
    std::vector<std::pair<size_t, size_t>> order; // (culprit, CPU index)
    order.reserve(m_culpritIndex.size());
    for (const auto& [key, i] : m_culpritIndex)
        order.emplace_back(i, std::get<0>(key));
    std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
        const NoiseCulprit& x = m_culprits[a.first];
        const NoiseCulprit& y = m_culprits[b.first];
        if (x.totalNs != y.totalNs)
            return x.totalNs > y.totalNs;
        return std::tie(x.cpu, x.name, x.pid) < std::tie(y.cpu, y.name, y.pid);
    });
    std::vector<NoiseCulprit> out;
    for (const auto& [i, cpuIndex] : order) {
        if (out.size() >= max)
            break;
        NoiseCulprit who = m_culprits[i];
        const int64_t runtime = cpuIndex < runtimeNs.size() ? runtimeNs[cpuIndex] : 0;
        who.percent = runtime > 0 ? 100.0 * double(who.totalNs) / double(runtime) : 0.0;
        out.push_back(std::move(who));
    }
    return out;
}

} // namespace rtscope
