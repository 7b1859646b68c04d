#include "ui/widgets/culprits_model.h"

#include "engine/pipeline/trace_event.h"
#include "ui/common/text_format.h"

#include <QFont>

#include <algorithm>

namespace rtscope {

CulpritsModel::CulpritsModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

void CulpritsModel::setCulprits(const std::vector<CulpritRow>& rows, uint64_t analysed)
{
    const bool same = rows.size() == m_rows.size() && std::equal(rows.begin(), rows.end(), m_rows.begin(),
                                                                 [](const CulpritRow& x, const CulpritRow& y) {
                                                                     return x.kind == y.kind && x.id == y.id;
                                                                 });
    if (same) {
        m_rows = rows;
        m_analysed = analysed;
        if (!m_rows.empty())
            emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = rows;
    m_analysed = analysed;
    endResetModel();
}

int CulpritsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CulpritsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CulpritsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_rows.size())
        return {};
    const CulpritRow& r = m_rows[size_t(index.row())];
    const bool task = r.kind == CulpritKind::Task;
    if (role == RawValueRole) {
        switch (index.column()) {
        case Id:
            return qlonglong(r.id);
        case Prio:
            return task ? r.prio : -2;
        case Wakeups:
            return qulonglong(r.wakeups);
        case Total:
            return qlonglong(r.totalNs);
        case Worst:
            return qlonglong(r.worstNs);
        default:
            return data(index, Qt::DisplayRole);
        }
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
    if (role == Qt::FontRole && index.column() == Name) {
        QFont f;
        f.setBold(true);
        return f;
    }
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

QVariant CulpritsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Kind:
            return tr("Kind");
        case Name:
            return tr("Name");
        case Id:
            return tr("ID");
        case Prio:
            return tr("Priority");
        case Wakeups:
            return tr("Wake-ups");
        case Total:
            return tr("Total");
        case Worst:
            return tr("Worst");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
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
    return {};
}

} // namespace rtscope
