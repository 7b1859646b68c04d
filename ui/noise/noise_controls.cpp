#include "ui/noise/noise_controls.h"

#include "engine/rt/sched_policy.h"
#include "ui/widgets/duration_spin_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

#include <algorithm>
#include <memory>

namespace rtscope {

namespace {

constexpr int kCpuButtonsPerRow = 8;

} // namespace

NoiseControls::NoiseControls(const std::vector<int>& cpus, QWidget* parent)
    : ExperimentControls(tr("One thread per ticked CPU reads the clock in a tight loop; every gap at or above the "
                            "threshold is time the CPU was taken from it. No CPU ticked: the highest one. Press "
                            "Start."),
                         tr("Stop ends the run within a tenth of a second."), parent)
    , m_policy(new QComboBox(this))
    , m_priority(new QSpinBox(this))
    , m_threshold(new DurationSpinBox(this))
    , m_length(new QComboBox(this))
    , m_duration(new DurationSpinBox(this))
    , m_trace(new QCheckBox(tr("Name who took each gap (kernel trace events)"), this))
    , m_cpuGrid(new QGridLayout)
{
    m_cpuGrid->setSpacing(2);
    setCpuButtons(cpus);
    m_policy->setObjectName("policy");
    m_policy->setToolTip(tr("Scheduling policy of the polling threads: OTHER like osnoise's workload, or FIFO/RR to "
                            "see what still takes a real-time thread's CPU"));
    for (Policy p : {Policy::Other, Policy::Fifo, Policy::RR, Policy::Batch, Policy::Idle})
        m_policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
    m_priority->setObjectName("priority");
    m_priority->setRange(priorityMin(Policy::Fifo), priorityMax(Policy::Fifo));
    m_priority->setValue(kDefaultRtPriority);
    m_priority->setKeyboardTracking(false);
    m_threshold->setObjectName("threshold");
    m_threshold->setRangeNs(NoiseConfig::kMinThresholdNs, NoiseConfig::kMaxThresholdNs);
    m_threshold->setToolTip(tr("A gap between two clock reads at least this long counts as noise"));
    m_length->setObjectName("length");
    m_length->addItem(tr("until stopped"), 0);
    m_length->addItem(tr("for a duration"), 1);
    m_duration->setObjectName("duration");
    m_duration->setRangeNs(NoiseConfig::kMinDurationNs, NoiseConfig::kMaxDurationNs);
    m_duration->setValueNs(kDefaultDurationNs);
    m_trace->setObjectName("trace");
    m_trace->setToolTip(tr("With tracefs (root): interrupts, softirqs, NMIs and threads are named; without, every "
                           "gap is counted but shown as untraced"));

    auto* length = new QHBoxLayout;
    length->addWidget(m_length);
    length->addWidget(m_duration, 1);
    QFormLayout* form = formLayout();
    form->addRow(tr("CPUs"), m_cpuGrid); // a layout takes no buddy: no mnemonic
    form->addRow(tr("&Policy"), m_policy);
    form->addRow(tr("P&riority"), m_priority);
    form->addRow(tr("&Threshold"), m_threshold);
    form->addRow(tr("Length"), length);
    form->addRow(QString(), m_trace);
    setConfig(NoiseConfig{});
    m_length->setCurrentIndex(0); // the window's live mode: until stopped
    updateEnabled();

    watchFields(
        this,
        [this] {
            updateEnabled();
            emit edited();
        },
        m_policy, m_priority, m_threshold, m_length, m_duration, m_trace);
}

void NoiseControls::setCpuButtons(const std::vector<int>& cpus)
{
    for (QToolButton* b : m_cpus)
        delete b; // QLayout forgets a deleted widget
    m_cpus.clear();
    for (int cpu : cpus) {
        auto* b = new QToolButton(this);
        b->setObjectName(QString("cpu%1").arg(cpu));
        b->setText(QString::number(cpu));
        b->setCheckable(true);
        b->setToolTip(tr("Measure CPU %1").arg(cpu));
        const int i = int(m_cpus.size());
        m_cpuGrid->addWidget(b, i / kCpuButtonsPerRow, i % kCpuButtonsPerRow);
        m_cpus.push_back(b);
        connect(b, &QToolButton::toggled, this, &NoiseControls::edited);
    }
}

void NoiseControls::setCpus(const std::vector<int>& cpus)
{
    std::vector<int> ticked;
    for (QToolButton* b : m_cpus)
        if (b->isChecked())
            ticked.push_back(b->text().toInt());
    setCpuButtons(cpus);
    bool dropped = false;
    for (int cpu : ticked) {
        if (QToolButton* b = cpuButton(cpu)) {
            const QSignalBlocker block(b);
            b->setChecked(true);
        } else {
            dropped = true;
        }
    }
    if (dropped)
        emit edited(); // a ticked CPU the machine does not have is no longer in the config
}

QToolButton* NoiseControls::cpuButton(int cpu) const
{
    for (QToolButton* b : m_cpus)
        if (b->text().toInt() == cpu)
            return b;
    return nullptr;
}

NoiseConfig NoiseControls::config(const NoiseConfig& base) const
{
    NoiseConfig c = base;
    c.cpus.clear();
    for (QToolButton* b : m_cpus)
        if (b->isChecked())
            c.cpus.push_back(b->text().toInt());
    c.policy = Policy(comboData(m_policy, int(base.policy)));
    c.priority = isRealtime(c.policy) ? m_priority->value() : 0;
    c.thresholdNs = m_threshold->valueNs();
    c.durationNs = comboData(m_length, 0) == 1 ? m_duration->valueNs() : 0;
    c.trace = m_trace->isChecked();
    return c;
}

QStringList NoiseControls::unrepresentable(const NoiseConfig& c) const
{
    QStringList out;
    for (int cpu : c.cpus)
        if (!cpuButton(cpu))
            out << tr("cpus: CPU %1 is not among this machine's online CPUs").arg(cpu);
    if (m_policy->findData(int(c.policy)) < 0)
        out << tr("policy: %1 has no choice in the window (OTHER, FIFO, RR, BATCH, IDLE)")
                   .arg(QString::fromLatin1(policyKernelName(c.policy)));
    return out;
}

void NoiseControls::setConfig(const NoiseConfig& c)
{
    const BlockedFields block(m_policy, m_priority, m_threshold, m_length, m_duration, m_trace);
    for (QToolButton* b : m_cpus) {
        const QSignalBlocker block(b);
        b->setChecked(std::find(c.cpus.begin(), c.cpus.end(), b->text().toInt()) != c.cpus.end());
    }
    selectComboData(m_policy, int(c.policy));
    // A non-RT policy has priority 0, which the spin box cannot show: it keeps the last RT value, greyed out.
    if (isRealtime(c.policy))
        m_priority->setValue(c.priority);
    m_threshold->setValueNs(c.thresholdNs);
    m_length->setCurrentIndex(c.durationNs > 0 ? 1 : 0);
    if (c.durationNs > 0)
        m_duration->setValueNs(c.durationNs);
    m_trace->setChecked(c.trace);
    updateEnabled();
}

void NoiseControls::updateEnabled()
{
    m_priority->setEnabled(isRealtime(Policy(comboData(m_policy, int(Policy::Other)))));
    m_duration->setEnabled(comboData(m_length, 0) == 1);
}

} // namespace rtscope

#include "moc_noise_controls.cpp"
