#include "ui/timers/drift_controls.h"

#include "ui/timers/timer_controls.h"

#include "ui/widgets/experiment_controls.h"

#include "ui/common/text_format.h"

#include "engine/util/units.h"
#include "ui/plot/chart_style.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/period_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {
BlockedFields blocked(const DriftControlWidgets& w)
{
    return BlockedFields(w.policy, w.priority, w.cpu, w.slack, w.lengthMode, w.ticks, w.workPercent, w.duration,
                         w.slackCustom, w.methods);
}
} // namespace

void DriftConfigMapper::populate(const std::vector<int>& cpus)
{
    const BlockedFields block = blocked(m_w);
    m_w.policy->clear();
    for (Policy p : kAllPolicies)
        m_w.policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
    m_w.priority->setRange(priorityMin(Policy::Fifo), priorityMax(Policy::Fifo));
    m_w.priority->setValue(kDefaultRtPriority);
    m_w.workPercent->setRange(0, DriftConfig::kMaxWorkPercent);
    m_w.lengthMode->clear();
    m_w.lengthMode->addItem(QObject::tr("ticks"), 0);
    m_w.lengthMode->addItem(QObject::tr("duration"), 1);
    m_w.ticks->setRange(int(DriftConfig::kMinTicks), int(DriftConfig::kMaxTicks));
    m_w.duration->setRangeNs(kMinDurationNs, DriftConfig::kMaxRunNs);
    m_w.duration->setValueNs(1'000'000'000);
    slackWidgets().populate(DriftConfig::kMaxSlackNs);
    m_w.cpu->clear();
    m_w.cpu->addItem(autoCpuText(cpus), -1);
    refillCpuCombo(m_w.cpu, cpus);
    setConfig(DriftConfig{});
}

QStringList DriftConfigMapper::unrepresentable(const DriftConfig& c) const
{
    QStringList out;
    if (c.periodNs < DriftConfig::kMinPeriodNs || c.periodNs > DriftConfig::kMaxPeriodNs)
        return out; // validate() already names the period; the work percentage cannot be judged without it
    if (c.workNs >= 0 && (c.workNs * 100) % c.periodNs != 0)
        out << QString("work must be a whole percentage of the period in the window (got %1 of %2)")
                   .arg(durationQt(c.workNs), durationQt(c.periodNs));
    if (c.durationNs != 0 && (c.durationNs < kMinDurationNs || c.durationNs > DriftConfig::kMaxRunNs))
        out << QString("duration must be between %1 and %2 in the window (got %3)")
                   .arg(durationQt(kMinDurationNs), durationQt(DriftConfig::kMaxRunNs), durationQt(c.durationNs));
    if (m_w.cpu->findData(c.cpu) < 0)
        out << QString("cpu must be one of the online CPUs (got %1)").arg(c.cpu);
    for (WaiterKind k : c.methods)
        if (!m_w.methods.count(k))
            out << QString("methods: '%1' has no switch in the window").arg(QString::fromLatin1(driftMethodName(k)));
    return out;
}

void DriftConfigMapper::setConfig(const DriftConfig& c)
{
    const BlockedFields block = blocked(m_w);

    m_w.period->setPeriodNs(c.periodNs);
    if (c.periodNs > 0)
        m_w.workPercent->setValue(int(c.workNs * 100 / c.periodNs));
    m_w.lengthMode->setCurrentIndex(c.durationNs > 0 ? 1 : 0);
    m_w.ticks->setValue(int(std::clamp<int64_t>(c.ticks, DriftConfig::kMinTicks, DriftConfig::kMaxTicks)));
    if (c.durationNs > 0)
        m_w.duration->setValueNs(c.durationNs);
    m_w.policy->setCurrentIndex(m_w.policy->findData(int(c.policy)));
    // A non-RT policy has priority 0, which the spin box cannot show: it keeps the last RT value, greyed out.
    if (isRealtime(c.policy))
        m_w.priority->setValue(c.priority);
    slackWidgets().show(c.timerSlackNs);
    m_w.cpu->setCurrentIndex(m_w.cpu->findData(c.cpu));
    for (auto& [k, box] : m_w.methods)
        box->setChecked(std::find(c.methods.begin(), c.methods.end(), k) != c.methods.end());
    updateEnabled();
}

DriftConfig DriftConfigMapper::config(const DriftConfig& base) const
{
    DriftConfig c = base;
    c.periodNs = m_w.period->periodNs();
    c.workNs = c.periodNs * m_w.workPercent->value() / 100;
    c.ticks = m_w.ticks->value();
    c.durationNs = comboData(m_w.lengthMode, 0) == 1 ? m_w.duration->valueNs() : 0;
    c.policy = Policy(comboData(m_w.policy, int(base.policy)));
    c.priority = isRealtime(c.policy) ? m_w.priority->value() : 0;
    c.timerSlackNs = slackWidgets().slackNs();
    c.cpu = comboData(m_w.cpu, base.cpu);
    c.methods.clear();
    // The table and the legend follow the canonical order: naive first, the absolute timers after it.
    for (WaiterKind k : kDriftMethods)
        if (auto it = m_w.methods.find(k); it != m_w.methods.end() && it->second->isChecked())
            c.methods.push_back(k);
    return c;
}

void DriftConfigMapper::updateEnabled()
{
    m_w.priority->setEnabled(isRealtime(Policy(comboData(m_w.policy, int(Policy::Other)))));
    slackWidgets().updateEnabled();
    const bool byDuration = comboData(m_w.lengthMode, 0) == 1;
    m_w.ticks->setEnabled(!byDuration);
    m_w.duration->setEnabled(byDuration);
}

DriftControls::DriftControls(const std::vector<int>& cpus, QWidget* parent)
    : MappedControls(tr("Every method runs in its own thread, all from one shared start t0. Press Start; "
                        "the run ends by itself after its ticks."),
                     parent)
{
    DriftControlWidgets w;
    w.period = new PeriodEditor(DriftConfig::kMinPeriodNs, DriftConfig::kMaxPeriodNs, form());
    w.period->setObjectName("period");
    w.period->spinBox()->setObjectName("periodSpin");
    w.period->slider()->setObjectName("periodSlider");
    w.workPercent = newField<QSpinBox>("workPercent");
    w.workPercent->setSuffix(tr(" % of the period"));
    w.workPercent->setKeyboardTracking(false);
    w.workPercent->setToolTip(tr("Busy work after every wake-up: the naive loop adds it to its schedule"));
    w.lengthMode = newField<QComboBox>("lengthMode");
    w.ticks = newSpinField<QSpinBox>("ticks");
    w.ticks->setSuffix(tr(" ticks"));
    w.duration = newField<DurationSpinBox>("duration");
    w.policy = newField<QComboBox>("policy", tr("Scheduling policy of every method's thread"));
    w.priority = newSpinField<QSpinBox>("priority");
    w.slack = newField<QComboBox>(
        "slack", tr("prctl(PR_SET_TIMERSLACK) in every method's thread: how late the kernel may wake a "
                    "sleeping call to batch wake-ups. Ignored under FIFO/RR."));
    w.slackCustom = newField<DurationSpinBox>("slackCustom");
    w.cpu = newField<QComboBox>(
        "cpu", tr("The CPU every method runs on (all share it: same machine, same moment, same noise)"));
    QGroupBox* methodBox = methodSwitches(form(), kDriftMethods, driftMethodLabel, driftMethodName, w.methods);
    setUpMapper(w, cpus);

    auto* length = new QHBoxLayout;
    length->addWidget(w.lengthMode);
    length->addWidget(w.ticks, 1);
    length->addWidget(w.duration, 1);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("P&eriod"), w.period);
    form->addRow(tr("&Work"), w.workPercent);
    form->addRow(tr("&Length"), length);
    form->addRow(tr("&Policy"), w.policy);
    form->addRow(tr("P&riority"), w.priority);
    form->addRow(tr("Timer &slack"), m_mapper->slackWidgets().row());
    form->addRow(tr("&CPU"), w.cpu);
    stackFormOverMethods(this->form(), form, methodBox);

    watchMapped(w.period, w.workPercent, w.lengthMode, w.ticks, w.duration, w.policy, w.priority, w.slack,
                w.slackCustom, w.cpu, w.methods);
}

} // namespace rtscope

#include "moc_drift_controls.cpp"
