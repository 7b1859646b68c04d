#pragma once
// The RT-threads page's control panel (left dock): the policy and priority of the thread you plan to measure with
// (its place among the machine's threads is shown on the page) and how often /proc is read again.
#include "engine/rt/sched_policy.h"

#include <QWidget>

class QComboBox;
class QSpinBox;

namespace rtscope {

class ThreadsControls : public QWidget {
    Q_OBJECT
public:
    static constexpr int kDefaultRefreshSeconds = 3;

    explicit ThreadsControls(QWidget* parent = nullptr);

    Policy policy() const;
    int priority() const; ///< 0 for the non-RT policies
    /// Shows @p policy and @p priority without emitting edited().
    void setReference(Policy policy, int priority);
    int refreshSeconds() const;
    void setRefreshSeconds(int seconds);

    QComboBox* policyBox() const { return m_policy; }
    QSpinBox* priorityBox() const { return m_priority; }

signals:
    void edited();
    void refreshIntervalChanged(int seconds);

private:
    QComboBox* m_policy;
    QSpinBox* m_priority;
    QSpinBox* m_refresh;
};

} // namespace rtscope
