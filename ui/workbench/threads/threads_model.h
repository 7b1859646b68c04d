#pragma once
// The machine's RT and interrupt threads as a table, each row marked by how it stands against "your" measuring
// thread (policy and priority chosen on the page): can it preempt yours, does yours preempt it, or do they share
// the CPU fairly. ThreadsFilterModel sorts by the raw values and filters by a pattern and a kind.
#include "engine/rt/sched_policy.h"
#include "engine/rt/system_threads.h"

#include "ui/common/column_table_model.h"

#include <QRegularExpression>
#include <QSortFilterProxyModel>

#include <vector>

namespace rtscope {

class ThreadsModel : public RowTableModel<SystemThread> {
    Q_OBJECT
public:
    enum Column { Pid, Tid, Name, Policy, Priority, Nice, Cpus, State, Kind, Relation, ColumnCount };
    /// How a listed thread stands against yours.
    enum class Standing { PreemptsYours, YoursPreempts, Level, Fair };
    // RawValueRole: numbers as numbers (for sorting), text as text.

    explicit ThreadsModel(QObject* parent = nullptr);

    void setThreads(std::vector<SystemThread> threads);
    const std::vector<SystemThread>& threads() const { return m_rows; }
    const SystemThread& thread(int row) const { return m_rows[size_t(row)]; }
    /// The row of thread @p tid, or −1.
    int rowOf(pid_t tid) const;

    /// Your measuring thread's policy and priority: the reference of the Relation column and the tints.
    void setReference(rtscope::Policy policy, int priority);
    Standing standing(const SystemThread& thread) const;
    /// Rows tinted for a dark palette.
    void setDark(bool dark);
    /// Threads of this process are shown in bold ("rtscope-…").
    void setOwnPid(pid_t pid) { m_ownPid = pid; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    /// The columns' headers, and the rows numbered (the table shows the numbers).
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString kindText(const SystemThread& thread);

private:
    QVariant raw(const SystemThread& t, int column) const;
    QString standingText(Standing s) const;

    rtscope::Policy m_policy = rtscope::Policy::Fifo;
    int m_priority = 80;
    bool m_dark = false;
    pid_t m_ownPid = 0;
};

class ThreadsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Show { All, Realtime, Interrupt };

    explicit ThreadsFilterModel(QObject* parent = nullptr);

    /// A case-insensitive regular expression matched against name, policy and kind ("irq/|fifo"); text that is
    /// not a valid expression is matched literally.
    void setPattern(const QString& pattern);
    QString pattern() const { return m_text; }
    void setShow(Show show);
    Show show() const { return m_show; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    QRegularExpression m_pattern;
    Show m_show = Show::All;
};

} // namespace rtscope
