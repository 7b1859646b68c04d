#include "ui/widgets/latency_config_mapper.h"

#include "ui/widgets/experiment_controls.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"
#include "ui/common/text_format.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/period_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>

namespace rtscope {

namespace {
BlockedFields blocked(const LatencyControlWidgets& w)
{
    return BlockedFields(w.policy, w.priority, w.hogs, w.cpu, w.hogCpu, w.waiter);
}
} // namespace

void LatencyConfigMapper::populate(const std::vector<int>& cpus)
{
    const BlockedFields block = blocked(m_w);
    m_w.policy->clear();
    for (Policy p : kLatencyPolicies) // the latency experiment implements SCHED_DEADLINE
        m_w.policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
    // FIFO and RR share the range; it comes from the kernel (sched_get_priority_min/max), not from a constant.
    m_w.priority->setRange(priorityMin(Policy::Fifo), priorityMax(Policy::Fifo));
    m_w.priority->setValue(kDefaultRtPriority);
    m_w.hogs->setRange(0, kMaxHogs);
    if (m_w.runtime && m_w.deadline) {
        m_w.runtime->setRangeNs(kMinRuntimeNs, kMaxDeadlineNs);
        m_w.runtime->setValueNs(kDefaultRuntimeNs);
        // 0 is "the period" (LatencyConfig::deadlineNs), shown as such.
        m_w.deadline->setRangeNs(0, kMaxDeadlineNs);
        m_w.deadline->setSpecialValueText(QObject::tr("= period"));
        m_w.deadline->setValueNs(0);
    }
    m_w.cpu->clear();
    m_w.hogCpu->clear();
    m_w.cpu->addItem(autoCpuText(cpus), -1);
    m_w.hogCpu->addItem(QObject::tr("same as measuring"), -1);
    setCpus(cpus);
    m_w.waiter->clear();
    for (WaiterKind k : waiterKinds())
        m_w.waiter->addItem(QString::fromLatin1(waiterLabel(k)), int(k));
    updateEnabled();
}

bool LatencyConfigMapper::setCpus(const std::vector<int>& cpus)
{
    const bool measuring = refillCpuCombo(m_w.cpu, cpus, autoCpuText(cpus));
    const bool hog = refillCpuCombo(m_w.hogCpu, cpus); // its first choice keeps its text (the per-CPU page's own)
    return measuring || hog;
}

QStringList LatencyConfigMapper::unrepresentable(const LatencyConfig& c) const
{
    QStringList out;
    if (c.periodNs < kMinPeriodNs || c.periodNs > kMaxPeriodNs)
        out << screenText("period must be between " + formatDuration(kMinPeriodNs) + " and " +
                          formatDuration(kMaxPeriodNs) + " in the window (got " + formatDuration(c.periodNs) + ")");
    if (c.hogs < 0 || c.hogs > kMaxHogs)
        out << QString("hogs must be between 0 and %1 in the window (got %2)").arg(kMaxHogs).arg(c.hogs);
    if (m_w.cpu->findData(c.cpu) < 0)
        out << QString("cpu must be one of the online CPUs (got %1)").arg(c.cpu);
    if (m_w.hogCpu->findData(c.hogCpu) < 0)
        out << QString("hog-cpu must be one of the online CPUs (got %1)").arg(c.hogCpu);
    if (!c.cpus.empty())
        out << QString("cpus: the window measures one CPU at a time (got %1); use 'rtscope latency --cpus' for several")
                   .arg(QString::fromStdString(formatCpuList(c.cpus)));
    if (m_w.runtime && isDeadline(c.policy) && (c.runtimeNs < kMinRuntimeNs || c.runtimeNs > kMaxDeadlineNs))
        out << screenText("runtime must be between " + formatDurationRange(kMinRuntimeNs, kMaxDeadlineNs) +
                          " in the window (got " + formatDuration(c.runtimeNs) + ")");
    if (m_w.deadline && (c.deadlineNs < 0 || c.deadlineNs > kMaxDeadlineNs))
        out << screenText("deadline must be between 0 (the period) and " + formatDuration(kMaxDeadlineNs) +
                          " in the window (got " + formatDuration(c.deadlineNs) + ")");
    if (!m_w.runtime && (isDeadline(c.policy) || c.runtimeNs != 0 || c.deadlineNs != 0))
        out << QString("policy deadline cannot be shown in these controls (got %1)").arg(policyName(c.policy));
    if (isRealtime(c.policy) && (c.priority < m_w.priority->minimum() || c.priority > m_w.priority->maximum()))
        out << QString("priority must be between %1 and %2 for %3 (got %4)")
                   .arg(m_w.priority->minimum())
                   .arg(m_w.priority->maximum())
                   .arg(policyName(c.policy))
                   .arg(c.priority);
    return out;
}

void LatencyConfigMapper::setConfig(const LatencyConfig& c)
{
    const BlockedFields block = blocked(m_w);
    m_w.policy->setCurrentIndex(m_w.policy->findData(int(c.policy)));
    // A non-RT config has priority 0, which the spin box cannot show; it keeps the last RT priority instead,
    // greyed out, ready for a switch back to FIFO.
    if (isRealtime(c.policy))
        m_w.priority->setValue(c.priority);
    m_w.period->setPeriodNs(c.periodNs);
    if (m_w.runtime && m_w.deadline && isDeadline(c.policy)) {
        // Like the priority: a config of another policy keeps the last runtime, ready for a switch to deadline.
        const QSignalBlocker b8(m_w.runtime), b9(m_w.deadline);
        m_w.runtime->setValueNs(c.runtimeNs);
        m_w.deadline->setValueNs(c.deadlineNs);
    }
    m_w.hogs->setValue(c.hogs);
    m_w.cpu->setCurrentIndex(m_w.cpu->findData(c.cpu));
    m_w.hogCpu->setCurrentIndex(m_w.hogCpu->findData(c.hogCpu));
    m_w.waiter->setCurrentIndex(m_w.waiter->findData(int(c.waiter)));
    if (m_w.trace) {
        // Shown as the config says even where tracing cannot work (the box is disabled then): such a run goes on
        // untraced and says why, rather than the box dropping the setting silently.
        const QSignalBlocker b7(m_w.trace);
        m_w.trace->setChecked(c.trace);
    }
    updateEnabled();
}

LatencyConfig LatencyConfigMapper::config(const LatencyConfig& base) const
{
    LatencyConfig c = base;
    c.policy = Policy(comboData(m_w.policy, int(base.policy)));
    c.priority = isRealtime(c.policy) ? m_w.priority->value() : 0;
    c.periodNs = m_w.period->periodNs();
    const bool deadline = isDeadline(c.policy) && m_w.runtime && m_w.deadline;
    c.runtimeNs = deadline ? m_w.runtime->valueNs() : 0;
    c.deadlineNs = deadline ? m_w.deadline->valueNs() : 0;
    c.hogs = m_w.hogs->value();
    c.cpu = comboData(m_w.cpu, base.cpu);
    c.hogCpu = comboData(m_w.hogCpu, base.hogCpu);
    c.waiter = WaiterKind(comboData(m_w.waiter, int(base.waiter)));
    c.trace = m_w.trace ? m_w.trace->isChecked() : base.trace;
    return c;
}

void LatencyConfigMapper::updateEnabled()
{
    const Policy p = Policy(comboData(m_w.policy, int(Policy::Other)));
    m_w.priority->setEnabled(isRealtime(p));
    for (QWidget* field : {static_cast<QWidget*>(m_w.runtime), static_cast<QWidget*>(m_w.deadline)}) {
        if (!field)
            continue;
        // The row, label included, when the field sits in a form (LatencyControls); else the field alone.
        auto* form = field->parentWidget() ? qobject_cast<QFormLayout*>(field->parentWidget()->layout()) : nullptr;
        if (form && form->indexOf(field) >= 0)
            form->setRowVisible(field, isDeadline(p));
        else
            field->setVisible(isDeadline(p));
    }
}

} // namespace rtscope
