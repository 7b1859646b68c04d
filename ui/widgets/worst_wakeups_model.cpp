#include "ui/widgets/worst_wakeups_model.h"

#include "ui/common/colors.h"
#include "ui/common/text_format.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <tuple>
#include <utility>

namespace rtscope {

namespace {
QString worstTaskName(const AnatomyTaskShare& s)
{
    if (s.pid < 0)
        return QObject::tr("a task the events do not name");
    const QString comm = s.comm.empty() ? QObject::tr("pid %1").arg(s.pid) : QString::fromStdString(s.comm);
    return QObject::tr("%1 (pid %2)").arg(comm).arg(s.pid);
}
} // namespace

QString mainCulprit(const WakeupAnatomy& a)
{
    if (!a.consistent)
        return QObject::tr("unknown");
    struct Part {
        int64_t ns;
        int which; // 0 timer, 1 interrupts, 2 scheduling, 3 return, 4 unaccounted
    };
    std::vector<Part> parts;
    if (a.timerIrqDelayNs)
        parts.push_back({*a.timerIrqDelayNs, 0});
    if (a.irqNs)
        parts.push_back({*a.irqNs, 1});
    if (a.schedulingNs)
        parts.push_back({*a.schedulingNs, 2});
    if (a.returnToUserNs)
        parts.push_back({*a.returnToUserNs, 3});
    if (a.unaccountedNs > 0)
        parts.push_back({a.unaccountedNs, 4});
    if (parts.empty())
        return QObject::tr("unknown");
    const Part top = *std::max_element(parts.begin(), parts.end(), [](const Part& x, const Part& y) {
        return x.ns < y.ns; // the first of equal parts (time order) wins
    });
    switch (top.which) {
    case 0:
        return a.idleAtTimer ? QObject::tr("timer IRQ delay (idle exit)") : QObject::tr("timer IRQ delay");
    case 1: {
        const auto it = std::find_if(a.interrupts.begin(), a.interrupts.end(),
                                     [](const AnatomyInterrupt& i) { return !i.ownTimer && i.ns > 0; });
        return it != a.interrupts.end() ? QString::fromStdString(it->name) : QObject::tr("its own timer callback");
    }
    case 2: {
        const std::vector<AnatomyTaskShare> shares = taskShares(a);
        if (!shares.empty() && shares.front().ns > 0)
            return worstTaskName(shares.front());
        const bool fromIdle =
            std::any_of(a.tasks.begin(), a.tasks.end(), [](const AnatomySlice& s) { return s.idle(); });
        return fromIdle ? QObject::tr("the scheduler (from idle)") : QObject::tr("the scheduler");
    }
    case 3:
        return QObject::tr("return to user");
    default:
        return QObject::tr("unknown");
    }
}

WorstWakeupsModel::WorstWakeupsModel(QObject* parent)
    : RowTableModel({tr("Rank"), tr("Latency"), tr("CPU"), tr("When"), tr("Culprit"), tr("Verdict")}, parent)
{
    Q_ASSERT(columnCount() == ColumnCount);
}

void WorstWakeupsModel::setTracing(std::shared_ptr<const LatencyTracing> tracing, int64_t startNs, int64_t nowNs)
{
    std::vector<WorstWakeupRow> rows;
    if (tracing) {
        const AnatomyFigures& f = tracing->figures;
        int rank = 0;
        for (const TracedWakeup& w : f.worst)
            rows.push_back({&w, tracing->thresholdNs > 0 && w.anatomy.latencyNs > tracing->thresholdNs, ++rank});
        // Those over the threshold that are not among the worst, latest first.
        for (auto it = f.overThreshold.rbegin(); it != f.overThreshold.rend(); ++it) {
            const bool listed = std::any_of(f.worst.begin(), f.worst.end(), [&](const TracedWakeup& w) {
                return w.thread == it->thread && w.seq == it->seq;
            });
            if (!listed)
                rows.push_back({&*it, true, 0});
        }
    }
    // The old rows point into the old tracing: it lives until they are replaced. With the same wake-ups listed, only
    // "when" moves on (and the rows now point into the new figures).
    const std::shared_ptr<const LatencyTracing> old = std::exchange(m_tracing, std::move(tracing));
    m_startNs = startNs;
    m_nowNs = nowNs;
    assignRowsBy(std::move(rows),
                 [](const WorstWakeupRow& r) { return std::tuple(r.wakeup->thread, r.wakeup->seq, r.over, r.rank); });
}

const TracedWakeup* WorstWakeupsModel::wakeup(int row) const
{
    return row >= 0 && size_t(row) < m_rows.size() ? m_rows[size_t(row)].wakeup : nullptr;
}

bool WorstWakeupsModel::overThreshold(int row) const
{
    return row >= 0 && size_t(row) < m_rows.size() && m_rows[size_t(row)].rank == 0;
}

int WorstWakeupsModel::rowOf(size_t thread, uint64_t seq) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].wakeup->thread == thread && m_rows[i].wakeup->seq == seq)
            return int(i);
    return -1;
}

QVariant WorstWakeupsModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const WorstWakeupRow& r = rowAt(index);
    const WakeupAnatomy& a = r.wakeup->anatomy;
    const int64_t threshold = m_tracing ? m_tracing->thresholdNs : 0;
    const int cpu = a.runCpu >= 0 ? a.runCpu : a.query.cpu;
    if (role == RawValueRole) {
        switch (index.column()) {
        case Latency:
            return qlonglong(a.latencyNs);
        case Cpu:
            return cpu;
        case When:
            return qlonglong(a.query.wakeNs - m_startNs);
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case List:
            if (r.rank > 0)
                return r.over ? tr("#%1, over %2").arg(r.rank).arg(formatLatency(double(threshold)))
                              : tr("#%1").arg(r.rank);
            return tr("over %1").arg(formatLatency(double(threshold)));
        case Latency:
            return formatLatency(double(a.latencyNs));
        case Cpu:
            return cpu;
        case When: {
            const double ago = double(m_nowNs - a.query.wakeNs) / 1e9;
            const double since = double(a.query.wakeNs - m_startNs) / 1e9;
            return tr("%1 s ago (at %2 s)").arg(ago, 0, 'f', 1).arg(since, 0, 'f', 1);
        }
        case Culprit:
            return mainCulprit(a);
        case Verdict:
            return QString::fromStdString(anatomyVerdict(a, MicroUnit::Sign));
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == Verdict || index.column() == Culprit)
            return QString::fromStdString(anatomyVerdict(a, MicroUnit::Sign));
        if (index.column() == List)
            return r.rank > 0
                       ? tr("Number %1 of the worst wake-ups of the run so far").arg(r.rank)
                       : tr("Later than the threshold (%1), not among the worst").arg(formatLatency(double(threshold)));
        if (index.column() == When)
            return tr("Seconds before the newest snapshot, and since the run started");
        return {};
    }
    if (role == Qt::TextAlignmentRole) {
        if (index.column() == Latency || index.column() == Cpu)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return int(Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (role == Qt::FontRole && index.column() == Latency)
        return boldFont();
    if (role == Qt::ForegroundRole && index.column() == List && r.over)
        return QBrush(QColor(colors::kWarningRed));
    return {};
}

QVariant WorstWakeupsModel::headerToolTip(int column) const
{
    switch (column) {
    case List:
        return tr("#N: the Nth worst wake-up so far; \"over …\": later than the threshold");
    case Culprit:
        return tr("The cause of the largest part of the latency");
    default:
        return {};
    }
}

} // namespace rtscope

#include "moc_worst_wakeups_model.cpp"
