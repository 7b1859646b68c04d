#include "ui/widgets/culprits_model.h"

#include "engine/pipeline/trace_event.h"
#include "ui/common/text_format.h"

#include <QFont>

#include <algorithm>

namespace rtscope {

CulpritsModel::CulpritsModel(QObject* parent)
    : RowTableModel({tr("Kind"), tr("Name"), tr("ID"), tr("Priority"), tr("Wake-ups"), tr("Total"), tr("Worst")},
                    parent)
{
    Q_ASSERT(columnCount() == ColumnCount);
}

void CulpritsModel::setCulprits(const std::vector<CulpritRow>& rows, uint64_t analysed)
{
    m_analysed = analysed; // read by data() only, and nothing is emitted before assignRowsBy() resets or updates
    assignRowsBy(rows, [](const CulpritRow& r) { return std::pair(r.kind, r.id); });
}

QVariant CulpritsModel::data(const QModelIndex& index, int role) const
{
    if (!isCell(index))
        return {};
    const CulpritRow& r = rowAt(index);
    const bool task = r.kind == CulpritKind::Task;
    if (role == RawValueRole) {
        if (index.column() < Id) // the kind and the name: as shown
            return data(index, Qt::DisplayRole);
        return rawColumn(
            r, index.column() - Id, &CulpritRow::id, [task](const CulpritRow& r) { return task ? r.prio : -2; },
            &CulpritRow::wakeups, &CulpritRow::totalNs, &CulpritRow::worstNs);
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Kind:
            return QString::fromLatin1(culpritKindName(r.kind));
        case Name:
            return QString::fromStdString(r.name);
        case Id:
            if (r.kind == CulpritKind::Hrtimer)
                return QStringLiteral("—"); // a kernel address, which says nothing here: the tooltip has it
            if (r.kind == CulpritKind::Softirq)
                return QStringLiteral("%1 (%2)").arg(r.id).arg(QString::fromLatin1(softirqName(int(r.id))));
            return qlonglong(r.id);
        case Prio:
            if (!task)
                return QStringLiteral("—"); // an interrupt has no scheduling priority
            if (r.prio == -1)
                return tr("DEADLINE");
            if (r.prio >= 0 && r.prio < 100)
                return tr("RT %1").arg(99 - r.prio); // FIFO or RR: the event does not say which
            if (r.prio >= 100)
                return tr("nice %1").arg(r.prio - 120); // OTHER, BATCH or IDLE
            return tr("unknown");
        case Wakeups:
            return QString::number(r.wakeups);
        case Total:
            return formatLatency(double(r.totalNs));
        case Worst:
            return formatLatency(double(r.worstNs));
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole) {
        if (index.column() >= Wakeups || index.column() == Id)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return int(Qt::AlignLeft | Qt::AlignVCenter);
    }
    if (role == Qt::FontRole && index.column() == Name)
        return boldFont();
    if (role == Qt::ToolTipRole && index.column() == Wakeups && m_analysed > 0)
        return tr("%1 of the %2 wake-ups analysed (%3 %)")
            .arg(r.wakeups)
            .arg(m_analysed)
            .arg(100.0 * double(r.wakeups) / double(m_analysed), 0, 'f', r.wakeups * 1000 < m_analysed ? 2 : 1);
    if (role == Qt::ToolTipRole && index.column() == Prio && task && r.prio >= -1)
        return QString::fromStdString(describeKernelPrio(r.prio));
    if (role == Qt::ToolTipRole && index.column() == Id) {
        switch (r.kind) {
        case CulpritKind::Task:
            return tr("Process/thread id (pid)");
        case CulpritKind::Irq:
            return tr("IRQ number (/proc/interrupts)");
        case CulpritKind::Softirq:
            return tr("Softirq vector");
        case CulpritKind::Vector:
            return tr("x86 interrupt vector");
        case CulpritKind::Hrtimer:
            return tr("An hrtimer callback, at 0x%1 (the name says which)").arg(qulonglong(r.id), 0, 16);
        }
    }
    return {};
}

QVariant CulpritsModel::headerToolTip(int column) const
{
    switch (column) {
    case Wakeups:
        return tr("How many of the %1 analysed wake-ups it held up (and their share)").arg(m_analysed);
    case Total:
        return tr("Its time between the timer and the switch-in, summed over every wake-up it delayed");
    case Worst:
        return tr("Its largest share of one wake-up's latency");
    case Prio:
        return tr("As the scheduler events name it: RT n = SCHED_FIFO or SCHED_RR priority n; nice n = "
                  "SCHED_OTHER, BATCH or IDLE at that nice value; DEADLINE");
    default:
        return {};
    }
}

} // namespace rtscope

#include "moc_culprits_model.cpp"
