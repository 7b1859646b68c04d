#include "ui/workbench/threads/threads_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace rtscope {

namespace {
constexpr int kDeadline = 6; // SCHED_DEADLINE
} // namespace

ThreadsModel::ThreadsModel(QObject* parent)
    : RowTableModel({tr("PID"), tr("TID"), tr("Name"), tr("Policy"), tr("RT prio"), tr("Nice"), tr("Allowed CPUs"),
                     tr("State"), tr("Kind"), tr("vs. yours")},
                    parent)
{
    Q_ASSERT(columnCount() == ColumnCount);
}

void ThreadsModel::setThreads(std::vector<SystemThread> threads)
{
    assignRows(std::move(threads), false);
}

int ThreadsModel::rowOf(pid_t tid) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].tid == tid)
            return int(i);
    return -1;
}

void ThreadsModel::setReference(rtscope::Policy policy, int priority)
{
    m_policy = policy;
    m_priority = isRealtime(policy) ? priority : 0;
    allCellsChanged();
}

void ThreadsModel::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::BackgroundRole});
}

ThreadsModel::Standing ThreadsModel::standing(const SystemThread& t) const
{
    // SCHED_DEADLINE runs before every FIFO/RR thread; RT before every fair thread; among RT the higher priority
    // wins, and equal priorities do not preempt each other.
    if (t.kernelPolicy == kDeadline)
        return Standing::PreemptsYours;
    if (!isRealtime(m_policy))
        return t.realtime() ? Standing::PreemptsYours : Standing::Fair;
    if (!t.realtime())
        return Standing::YoursPreempts;
    if (t.rtPriority > m_priority)
        return Standing::PreemptsYours;
    if (t.rtPriority < m_priority)
        return Standing::YoursPreempts;
    return Standing::Level;
}

QString ThreadsModel::standingText(Standing s) const
{
    switch (s) {
    case Standing::PreemptsYours:
        return tr("preempts yours");
    case Standing::YoursPreempts:
        return tr("yours preempts it");
    case Standing::Level:
        return tr("same priority");
    case Standing::Fair:
        return tr("fair share");
    }
    return {};
}

QString ThreadsModel::kindText(const SystemThread& t)
{
    if (t.interruptRelated)
        return tr("interrupt");
    return t.kernelThread ? tr("kernel") : tr("user");
}

QVariant ThreadsModel::raw(const SystemThread& t, int column) const
{
    using T = SystemThread;
    return rawColumn(
        t, column, &T::pid, &T::tid, &T::name, &T::policy, &T::rtPriority, &T::nice, &T::allowedCpus,
        [](const T& t) { return QString(QChar::fromLatin1(t.state)); }, &ThreadsModel::kindText,
        [this](const T& t) { return standing(t); });
}

QVariant ThreadsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SystemThread& t = rowAt(index);
    const int column = index.column();
    switch (role) {
    case RawValueRole:
        return raw(t, column);
    case Qt::DisplayRole:
        if (column == Relation)
            return standingText(standing(t));
        if (column == Priority && !t.realtime())
            return QStringLiteral("–");
        if (column == Nice && t.realtime())
            return QStringLiteral("–"); // nice does not apply to FIFO/RR
        return raw(t, column);
    case Qt::TextAlignmentRole:
        return int(column == Pid || column == Tid || column == Priority || column == Nice
                       ? (Qt::AlignRight | Qt::AlignVCenter)
                       : (Qt::AlignLeft | Qt::AlignVCenter));
    case Qt::BackgroundRole: {
        const Standing s = standing(t);
        if (s == Standing::PreemptsYours)
            return QBrush(m_dark ? QColor(0x5a, 0x22, 0x22) : QColor(0xff, 0xe0, 0xdc));
        if (s == Standing::YoursPreempts && t.realtime())
            return QBrush(m_dark ? QColor(0x1f, 0x3d, 0x22) : QColor(0xe3, 0xf4, 0xe0));
        if (s == Standing::Level)
            return QBrush(m_dark ? QColor(0x4a, 0x40, 0x12) : QColor(0xff, 0xf4, 0xc8));
        return {};
    }
    case Qt::FontRole:
        if (t.pid == m_ownPid) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (column == State)
            return tr("R running, S sleeping, D uninterruptible, I idle kernel thread, T stopped");
        if (column == Relation)
            return tr("Preemption between this thread and yours: a higher real-time priority (or SCHED_DEADLINE) "
                      "preempts a lower one; equal priorities run first come, first served; SCHED_OTHER, BATCH and "
                      "IDLE threads share the CPU by weight");
        if (t.pid == m_ownPid)
            return tr("A thread of this rtscope process");
        return {};
    default:
        return {};
    }
}

QVariant ThreadsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical)
        return QAbstractTableModel::headerData(section, orientation, role);
    return ColumnTableModel::headerData(section, orientation, role);
}

ThreadsFilterModel::ThreadsFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(ThreadsModel::RawValueRole);
}

void ThreadsFilterModel::setPattern(const QString& text)
{
    m_text = text;
    QRegularExpression re(text, QRegularExpression::CaseInsensitiveOption);
    if (!re.isValid())
        re = QRegularExpression(QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption);
    m_pattern = re;
    invalidateFilter();
}

void ThreadsFilterModel::setShow(Show show)
{
    m_show = show;
    invalidateFilter();
}

bool ThreadsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    auto* model = qobject_cast<const ThreadsModel*>(sourceModel());
    if (!model || sourceParent.isValid())
        return false;
    const SystemThread& t = model->thread(sourceRow);
    if (m_show == Show::Realtime && !t.realtime())
        return false;
    if (m_show == Show::Interrupt && !t.interruptRelated)
        return false;
    if (m_text.isEmpty())
        return true;
    for (const QString& field :
         {QString::fromStdString(t.name), QString::fromStdString(t.policy), ThreadsModel::kindText(t)})
        if (m_pattern.match(field).hasMatch())
            return true;
    return false;
}

} // namespace rtscope

#include "moc_threads_model.cpp"
