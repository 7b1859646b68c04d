#include "ui/starvation/starvation_controls.h"

#include "engine/util/units.h"
#include "ui/common/text_format.h"
#include "ui/widgets/duration_spin_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QSpinBox>

namespace rtscope {

namespace {
constexpr Policy kRealtimePolicies[] = {Policy::Fifo, Policy::RR};

QString rangeSentence(const char* field, int lo, int hi, int got)
{
    return QString("%1 must be between %2 and %3 in the window (got %4)").arg(field).arg(lo).arg(hi).arg(got);
}

BlockedFields blocked(const StarvationControlWidgets& w)
{
    return BlockedFields(w.burst, w.gap, w.bursts, w.policy, w.priority, w.counters, w.counterNice, w.cpu,
                         w.controlCounter);
}
} // namespace

void StarvationConfigMapper::populate(const std::vector<int>& cpus)
{
    const BlockedFields block = blocked(m_w);
    m_w.burst->setRangeNs(StarvationConfig::kMinBurstNs, StarvationConfig::kMaxBurstNs);
    m_w.gap->setRangeNs(StarvationConfig::kMinGapNs, StarvationConfig::kMaxGapNs);
    m_w.bursts->setRange(0, StarvationConfig::kMaxBursts);
    m_w.bursts->setSpecialValueText(QObject::tr("repeat until stopped"));
    m_w.policy->clear();
    for (Policy p : kRealtimePolicies)
        m_w.policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
    // The spinner must stay below the watchdog, which takes the top priority.
    m_w.priority->setRange(priorityMin(Policy::Fifo), StarvationConfig::kWatchdogPriority - 1);
    m_w.counters->setRange(1, StarvationConfig::kMaxCounters);
    m_w.counterNice->setRange(-20, 19);
    m_w.cpu->clear();
    m_w.cpu->addItem(QObject::tr("auto (highest free CPU)"), -1);
    refillCpuCombo(m_w.cpu, cpus);
    setConfig(StarvationConfig{});
}

QStringList StarvationConfigMapper::unrepresentable(const StarvationConfig& c) const
{
    QStringList out;
    if (m_w.policy->findData(int(c.policy)) < 0)
        out << QString("policy must be SCHED_FIFO or SCHED_RR in the window (got %1)").arg(policyName(c.policy));
    if (c.priority < m_w.priority->minimum() || c.priority > m_w.priority->maximum())
        out << rangeSentence("priority", m_w.priority->minimum(), m_w.priority->maximum(), c.priority);
    if (c.burstNs < StarvationConfig::kMinBurstNs || c.burstNs > StarvationConfig::kMaxBurstNs)
        out << screenText("burst must be between " + formatDuration(StarvationConfig::kMinBurstNs) + " and " +
                          formatDuration(StarvationConfig::kMaxBurstNs) + " (got " + formatDuration(c.burstNs) + ")");
    if (c.gapNs < StarvationConfig::kMinGapNs || c.gapNs > StarvationConfig::kMaxGapNs)
        out << screenText("gap must be between " + formatDuration(StarvationConfig::kMinGapNs) + " and " +
                          formatDuration(StarvationConfig::kMaxGapNs) + " (got " + formatDuration(c.gapNs) + ")");
    if (c.bursts < 0 || c.bursts > StarvationConfig::kMaxBursts)
        out << rangeSentence("bursts", 0, StarvationConfig::kMaxBursts, c.bursts);
    if (c.counters < 1 || c.counters > StarvationConfig::kMaxCounters)
        out << rangeSentence("counters", 1, StarvationConfig::kMaxCounters, c.counters);
    if (c.counterNice < -20 || c.counterNice > 19)
        out << rangeSentence("counter-nice", -20, 19, c.counterNice);
    if (m_w.cpu->findData(c.cpu) < 0)
        out << QString("cpu must be one of the online CPUs or auto (got %1)").arg(c.cpu);
    return out;
}

void StarvationConfigMapper::setConfig(const StarvationConfig& c)
{
    const BlockedFields block = blocked(m_w);
    m_w.burst->setValueNs(c.burstNs);
    m_w.gap->setValueNs(c.gapNs);
    m_w.bursts->setValue(c.bursts);
    m_w.policy->setCurrentIndex(m_w.policy->findData(int(c.policy)));
    m_w.priority->setValue(c.priority);
    m_w.counters->setValue(c.counters);
    m_w.counterNice->setValue(c.counterNice);
    m_w.cpu->setCurrentIndex(m_w.cpu->findData(c.cpu));
    m_w.controlCounter->setChecked(c.controlCounter);
}

StarvationConfig StarvationConfigMapper::config(const StarvationConfig& base) const
{
    StarvationConfig c = base;
    c.burstNs = m_w.burst->valueNs();
    c.gapNs = m_w.gap->valueNs();
    c.bursts = m_w.bursts->value();
    c.policy = Policy(comboData(m_w.policy, int(base.policy)));
    c.priority = m_w.priority->value();
    c.counters = m_w.counters->value();
    c.counterNice = m_w.counterNice->value();
    c.cpu = comboData(m_w.cpu, base.cpu);
    c.controlCounter = m_w.controlCounter->isChecked();
    return c;
}

StarvationControls::StarvationControls(const std::vector<int>& cpus, QWidget* parent)
    : MappedControls(tr("The spinner runs on one CPU only, bounded by its own deadline checks and by a "
                        "watchdog on another CPU."),
                     tr("The settings are fixed while the spinner runs: stop to change them."), parent)
{
    StarvationControlWidgets w;
    w.burst = newField<DurationSpinBox>("burst",
                                        tr("How long the real-time spinner busy-loops without blocking (10 ms … 5 s)"));
    w.gap =
        newField<DurationSpinBox>("gap", tr("The spinner sleeps this long before the first burst and after each one"));
    w.bursts = newSpinField<QSpinBox>("bursts");
    w.policy =
        newField<QComboBox>("policy", tr("The spinner's real-time policy: neither is time-sliced against SCHED_OTHER"));
    w.priority = newSpinField<QSpinBox>("priority");
    w.counters =
        newSpinField<QSpinBox>("counters", tr("SCHED_OTHER threads on the spinner's CPU counting as fast as they can"));
    w.counterNice = newSpinField<QSpinBox>(
        "counterNice", tr("Nice value of the counters: it changes nothing against a real-time spinner"));
    w.cpu = newField<QComboBox>(
        "cpu", tr("The CPU the spinner starves. CPU 0 is reserved for the window, the watchdog and the "
                  "collector."));
    w.controlCounter = new QCheckBox(tr("Control counter on another CPU"), form());
    w.controlCounter->setObjectName("controlCounter");
    w.controlCounter->setToolTip(tr("One more counter away from the spinner: it must not notice the bursts"));
    setUpMapper(w, cpus);
    m_autoNamesCpu = false; // auto is not one CPU here
    w.priority->setToolTip(tr("Real-time priority %1–%2: the watchdog runs above it at %3")
                               .arg(w.priority->minimum())
                               .arg(w.priority->maximum())
                               .arg(StarvationConfig::kWatchdogPriority));

    QFormLayout* rows = formLayout();
    rows->addRow(tr("&Burst"), w.burst);
    rows->addRow(tr("&Gap"), w.gap);
    rows->addRow(tr("B&ursts"), w.bursts);
    rows->addRow(tr("Spinner &policy"), w.policy);
    rows->addRow(tr("P&riority"), w.priority);
    rows->addRow(tr("C&ounters"), w.counters);
    rows->addRow(tr("Counter &nice"), w.counterNice);
    rows->addRow(tr("Spinner &CPU"), w.cpu);
    rows->addRow(w.controlCounter);

    watchFields(
        this, [this] { emit edited(); }, w.burst, w.gap, w.bursts, w.policy, w.priority, w.counters, w.counterNice,
        w.cpu, w.controlCounter);
}

} // namespace rtscope

#include "moc_starvation_controls.cpp"
