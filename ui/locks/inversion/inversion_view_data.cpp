#include "ui/locks/inversion/inversion_view_data.h"

#include "engine/rt/sched_policy.h"

#include <QObject>

#include <algorithm>

namespace rtscope {

namespace {
InversionTimelineData::Lane laneOf(InversionLane l)
{
    switch (l) {
    case InversionLane::High:
        return InversionTimelineData::High;
    case InversionLane::Medium:
        return InversionTimelineData::Medium;
    case InversionLane::Low:
        break;
    }
    return InversionTimelineData::Low;
}

LaneActivity activityOf(SegmentState s)
{
    switch (s) {
    case SegmentState::HoldingLock:
        return LaneActivity::Holding;
    case SegmentState::WaitingForLock:
        return LaneActivity::Waiting;
    case SegmentState::Running:
        break;
    }
    return LaneActivity::Running;
}
} // namespace

InversionRunSummary summarizeInversion(const InversionSnapshot& s)
{
    InversionRunSummary r;
    r.lock = s.config.lock;
    r.state = s.running    ? QObject::tr("running")
              : s.finished ? QObject::tr("finished")
              : s.startNs  ? QObject::tr("stopped")
                           : QObject::tr("ready");
    r.periods = s.highPeriods;
    r.contended = s.highContended;
    r.missed = s.highMissed;
    r.skipped = s.highSkipped;
    r.waitP50Ns = s.highWait.percentile(50);
    r.waitP99Ns = s.highWait.percentile(99);
    r.waitMaxNs = s.highWait.max();
    r.waitTotalNs = s.highWaitTotalNs;
    r.mediumRanWhileHighWaitedNs = s.mediumRanWhileHighWaitedNs;
    r.lowRanWhileHighWaitedNs = s.lowRanWhileHighWaitedNs;
    r.drops = s.ringDrops;
    r.watchdogTrips = int(s.watchdogTrips.size());
    r.error = QString::fromStdString(s.error);
    return r;
}

QString inversionLockText(LockKind lock)
{
    switch (lock) {
    case LockKind::Pi:
        return QObject::tr("pi — priority inheritance");
    case LockKind::Ceiling:
        return QObject::tr("ceiling — priority protect");
    case LockKind::Mutex:
        return QObject::tr("mutex — no inheritance");
    default:
        break;
    }
    return QString::fromLatin1(lockKindName(lock));
}

QString inversionPriorityText(const InversionConfig& c)
{
    return QObject::tr("FIFO %1/%2/%3 · %4")
        .arg(c.lowPriority)
        .arg(c.mediumPriority)
        .arg(c.highPriority)
        .arg(c.cpu >= 0 ? QObject::tr("CPU %1").arg(c.cpu) : QObject::tr("CPU auto"));
}

int64_t lastCompletePeriod(const InversionSnapshot& s)
{
    const int64_t period = std::max<int64_t>(1, s.config.periodNs);
    if (!s.t0Ns || s.publishedNs < s.t0Ns + period)
        return -1;
    const int64_t periodsInRun = (s.config.durationNs + period - 1) / period;
    return std::min((s.publishedNs - s.t0Ns) / period - 1, periodsInRun - 1);
}

InversionTimelineData inversionTimelineData(const InversionSnapshot& s, int periods, const QString& title)
{
    InversionTimelineData d;
    d.title = title;
    const InversionConfig& c = s.config;
    d.laneNames = {QObject::tr("high · %1").arg(c.highPriority), QObject::tr("medium · %1").arg(c.mediumPriority),
                   QObject::tr("low · %1").arg(c.lowPriority)};
    const int64_t period = std::max<int64_t>(1, c.periodNs);
    periods = std::max(1, periods);
    const int64_t last = lastCompletePeriod(s);
    const int64_t first = std::max<int64_t>(0, last - periods + 1);
    d.originNs = s.t0Ns + first * period;
    d.fromNs = d.originNs;
    d.toNs = d.originNs + periods * period;
    for (int64_t k = 0; k <= periods; ++k)
        d.periodStarts.push_back(d.originNs + k * period);
    for (const TimelineSegment& seg : s.timeline) {
        if (seg.endNs <= d.fromNs || seg.startNs >= d.toNs)
            continue;
        const auto lane = laneOf(seg.lane);
        const LaneActivity activity = activityOf(seg.state);
        d.lanes[lane].push_back({seg.startNs, seg.endNs, activity});
        if (lane == InversionTimelineData::High && activity == LaneActivity::Waiting)
            d.highWaits.push_back({seg.startNs, seg.endNs});
    }
    if (!s.t0Ns)
        d.emptyText = QObject::tr("Press Start: three SCHED_FIFO threads share one CPU and one lock");
    else if (d.lanes[0].empty() && d.lanes[1].empty() && d.lanes[2].empty())
        d.emptyText = QObject::tr("waiting for the first period");
    return d;
}

} // namespace rtscope
