#include "ui/locks/contention/contention_table_model.h"

#include "ui/common/colors.h"
#include "ui/common/text_format.h"
#include "ui/plot/contention_chart.h"

#include <QBrush>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

namespace rtscope {

namespace {
const QString kNone = QStringLiteral("–");
} // namespace

QString sleepReasonsText(const ContentionKindSummary& k)
{
    if (k.kind != LockKind::Adaptive || !k.hasFigures())
        return {};
    return QObject::tr("%1 slept because: owner on this CPU %2 · spin limit %3 · owner blocked %4 (%5 futex sleeps)")
        .arg(QString::fromLatin1(lockKindName(k.kind)))
        .arg(k.counts.sleptOwnerOnThisCpu)
        .arg(k.counts.sleptSpinLimit)
        .arg(k.counts.sleptOwnerNotRunning)
        .arg(k.counts.futexSleeps);
}

ContentionTableModel::ContentionTableModel(QObject* parent)
    // Two-line headers keep the twelve columns on screen.
    : RowTableModel({tr("Kind"), tr("State"), tr("Acq. / s"), tr("vs\nmutex"), tr("Wait\np50"), tr("p99"), tr("max"),
                     tr("Switches /1k\nvol · invol"), tr("CPU /\nacq."), tr("Fairness\n(Jain)"),
                     tr("Uncont. · spun\n· slept (%)"), tr("Dropped")},
                    parent)
{
    Q_ASSERT(columnCount() == Count);
}

void ContentionTableModel::setKinds(const std::vector<ContentionKindSummary>& kinds)
{
    std::vector<ContentionKindSummary> rows;
    for (size_t i : throughputRanking(kinds))
        rows.push_back(kinds[i]);
    assignRowsBy(std::move(rows), &ContentionKindSummary::kind);
}

QVariant ContentionTableModel::raw(const ContentionKindSummary& k, int column) const
{
    using K = ContentionKindSummary;
    return rawColumn(
        k, column, [](const K& k) { return QString::fromLatin1(lockKindName(k.kind)); },
        [](const K& k) { return QString::fromLatin1(kindRunStateName(k.state)); }, &K::acquisitionsPerSec, &K::vsMutex,
        &K::waitP50Ns, &K::waitP99Ns, &K::waitMaxNs,
        [](const K& k) {
            return QVariantList{k.voluntaryPer1k, k.involuntaryPer1k};
        },
        &K::cpuNsPerAcquisition, &K::fairness,
        [](const K& k) {
            return QVariantList{k.uncontendedPercent, k.spunPercent, k.sleptPercent};
        },
        &K::samplesDropped);
}

QVariant ContentionTableModel::display(const ContentionKindSummary& k, int column) const
{
    const bool figures = k.hasFigures();
    const bool waits = k.waitSamples > 0;
    switch (Column(column)) {
    case Kind:
        return QString::fromLatin1(lockKindName(k.kind));
    case State:
        return QObject::tr(kindRunStateName(k.state)); // the engine's names, translated
    case Throughput:
        return figures ? formatRate(k.acquisitionsPerSec) : kNone;
    case VsMutex:
        return figures && k.vsMutex > 0 ? formatRatio(k.vsMutex) : kNone;
    case WaitP50:
        return waits ? formatLatency(double(k.waitP50Ns)) : kNone;
    case WaitP99:
        return waits ? formatLatency(double(k.waitP99Ns)) : kNone;
    case WaitMax:
        return waits ? formatLatency(double(k.waitMaxNs)) : kNone;
    case Switches:
        return figures ? QString("%1 · %2").arg(k.voluntaryPer1k, 0, 'f', 1).arg(k.involuntaryPer1k, 0, 'f', 1) : kNone;
    case CpuPerAcquisition:
        return figures ? formatLatency(k.cpuNsPerAcquisition) : kNone;
    case Fairness:
        return figures ? QString::number(k.fairness, 'f', 3) : kNone;
    case Paths:
        return figures ? QString("%1 · %2 · %3")
                             .arg(k.uncontendedPercent, 0, 'f', 1)
                             .arg(k.spunPercent, 0, 'f', 1)
                             .arg(k.sleptPercent, 0, 'f', 1)
                       : kNone;
    case Dropped:
        return QString::number(k.samplesDropped);
    case Count:
        break;
    }
    return {};
}

QVariant ContentionTableModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const ContentionKindSummary& k = rowAt(index);
    switch (role) {
    case Qt::DisplayRole:
        return display(k, index.column());
    case RawValueRole:
        return raw(k, index.column());
    case Qt::TextAlignmentRole:
        return int((index.column() <= State ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    case Qt::DecorationRole:
        if (index.column() == Kind)
            return lockKindColor(k.colorIndex, QGuiApplication::palette());
        return {};
    case Qt::FontRole:
        if (index.column() == Throughput || index.column() == Kind)
            return boldFont();
        return {};
    case Qt::ForegroundRole:
        if ((index.column() == Dropped && k.samplesDropped > 0) ||
            (index.column() == State && k.state == KindRunState::Failed))
            return QBrush(QColor(colors::kWarningRed));
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Kind)
            return QString::fromLatin1(lockKindLabel(k.kind));
        if (index.column() == State)
            return k.error.isEmpty() ? tr("%1 s measured").arg(k.elapsedSec, 0, 'f', 3) : k.error;
        if (index.column() == Paths && k.hasFigures()) {
            const QString why = sleepReasonsText(k);
            return tr("%1 acquisitions: %2 uncontended, %3 spun and won, %4 slept%5")
                .arg(k.acquisitions)
                .arg(k.counts.uncontended)
                .arg(k.counts.spun)
                .arg(k.counts.slept)
                .arg(why.isEmpty() ? QString() : "\n" + why);
        }
        if (index.column() == Fairness && k.hasFigures())
            return tr("Jain's index of the per-thread acquisition counts (1 = even, 1/threads = one thread took "
                      "all). The fewest and the most acquisitions of one thread: %1× and %2× the mean.")
                .arg(k.minShare, 0, 'f', 2)
                .arg(k.maxShare, 0, 'f', 2);
        if (index.column() == Switches && k.hasFigures())
            return tr("%1 voluntary (the worker slept) and %2 involuntary (it was preempted) in %3 acquisitions")
                .arg(k.voluntarySwitches)
                .arg(k.involuntarySwitches)
                .arg(k.acquisitions);
        if (index.column() == WaitP50 || index.column() == WaitP99 || index.column() == WaitMax)
            return tr("%1 waits measured (from the request to holding the lock)").arg(k.waitSamples);
        return {};
    default:
        return {};
    }
}

} // namespace rtscope

#include "moc_contention_table_model.cpp"
