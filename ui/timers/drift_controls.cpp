#include "ui/timers/drift_controls.h"

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
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {} // namespace

DriftConfigMapper::DriftConfigMapper(const DriftControlWidgets& widgets)
    : m_w(widgets)
{}

void DriftConfigMapper::populate(const std::vector<int>& cpus)
{
    const QSignalBlocker b1(m_w.policy), b2(m_w.priority), b3(m_w.cpu), b4(m_w.slack), b5(m_w.lengthMode),
        b6(m_w.ticks), b7(m_w.workPercent), b8(m_w.duration), b9(m_w.slackCustom);
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
    m_w.slack->clear();
    m_w.slack->addItem(QObject::tr("default (thread's own)"), int(SlackChoice::Default));
    m_w.slack->addItem(QObject::tr("1 ns (smallest)"), int(SlackChoice::OneNs));
    m_w.slack->addItem(QObject::tr("custom"), int(SlackChoice::Custom));
    m_w.slackCustom->setRangeNs(1, DriftConfig::kMaxSlackNs);
    m_w.slackCustom->setValueNs(10'000);
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
    const QSignalBlocker b1(m_w.policy), b2(m_w.priority), b3(m_w.cpu), b4(m_w.slack), b5(m_w.lengthMode),
        b6(m_w.ticks), b7(m_w.workPercent), b8(m_w.duration), b9(m_w.slackCustom);
    std::vector<std::unique_ptr<QSignalBlocker>> methodBlockers;
    for (auto& [k, box] : m_w.methods)
        methodBlockers.push_back(std::make_unique<QSignalBlocker>(box));

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
    if (c.timerSlackNs == 0) {
        m_w.slack->setCurrentIndex(m_w.slack->findData(int(SlackChoice::Default)));
    } else if (c.timerSlackNs == 1) {
        m_w.slack->setCurrentIndex(m_w.slack->findData(int(SlackChoice::OneNs)));
    } else {
        m_w.slack->setCurrentIndex(m_w.slack->findData(int(SlackChoice::Custom)));
        m_w.slackCustom->setValueNs(c.timerSlackNs);
    }
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
    switch (SlackChoice(comboData(m_w.slack, int(SlackChoice::Default)))) {
    case SlackChoice::Default:
        c.timerSlackNs = 0;
        break;
    case SlackChoice::OneNs:
        c.timerSlackNs = 1;
        break;
    case SlackChoice::Custom:
        c.timerSlackNs = m_w.slackCustom->valueNs();
        break;
    }
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
    m_w.slackCustom->setEnabled(comboData(m_w.slack, 0) == int(SlackChoice::Custom));
    const bool byDuration = comboData(m_w.lengthMode, 0) == 1;
    m_w.ticks->setEnabled(!byDuration);
    m_w.duration->setEnabled(byDuration);
}

DriftControls::DriftControls(const std::vector<int>& cpus, QWidget* parent)
    : ExperimentControls(tr("Every method runs in its own thread, all from one shared start t0. Press Start; "
                            "the run ends by itself after its ticks."),
                         parent)
{
    DriftControlWidgets w;
    w.period = new PeriodEditor(DriftConfig::kMinPeriodNs, DriftConfig::kMaxPeriodNs, form());
    w.period->setObjectName("period");
    w.period->spinBox()->setObjectName("periodSpin");
    w.period->slider()->setObjectName("periodSlider");
    w.workPercent = new QSpinBox(form());
    w.workPercent->setObjectName("workPercent");
    w.workPercent->setSuffix(tr(" % of the period"));
    w.workPercent->setKeyboardTracking(false);
    w.workPercent->setToolTip(tr("Busy work after every wake-up: the naive loop adds it to its schedule"));
    w.lengthMode = new QComboBox(form());
    w.lengthMode->setObjectName("lengthMode");
    w.ticks = new QSpinBox(form());
    w.ticks->setObjectName("ticks");
    w.ticks->setKeyboardTracking(false);
    w.ticks->setSuffix(tr(" ticks"));
    w.duration = new DurationSpinBox(form());
    w.duration->setObjectName("duration");
    w.policy = new QComboBox(form());
    w.policy->setObjectName("policy");
    w.policy->setToolTip(tr("Scheduling policy of every method's thread"));
    w.priority = new QSpinBox(form());
    w.priority->setObjectName("priority");
    w.priority->setKeyboardTracking(false);
    w.slack = new QComboBox(form());
    w.slack->setObjectName("slack");
    w.slack->setToolTip(tr("prctl(PR_SET_TIMERSLACK) in every method's thread: how late the kernel may wake a "
                           "sleeping call to batch wake-ups. Ignored under FIFO/RR."));
    w.slackCustom = new DurationSpinBox(form());
    w.slackCustom->setObjectName("slackCustom");
    w.cpu = new QComboBox(form());
    w.cpu->setObjectName("cpu");
    w.cpu->setToolTip(tr("The CPU every method runs on (all share it: same machine, same moment, same noise)"));
    auto* methodBox = new QGroupBox(tr("Methods"), form());
    auto* methodGrid = new QVBoxLayout(methodBox);
    for (WaiterKind k : kDriftMethods) {
        auto* box = new QCheckBox(QString::fromLatin1(driftMethodLabel(k)), methodBox);
        box->setObjectName(QString("method_%1").arg(QString::fromLatin1(driftMethodName(k))));
        methodGrid->addWidget(box);
        w.methods[k] = box;
    }
    m_mapper = std::make_unique<DriftConfigMapper>(w);
    m_mapper->populate(cpus);

    auto* length = new QHBoxLayout;
    length->addWidget(w.lengthMode);
    length->addWidget(w.ticks, 1);
    length->addWidget(w.duration, 1);
    auto* slack = new QHBoxLayout;
    slack->addWidget(w.slack, 1);
    slack->addWidget(w.slackCustom, 1);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("P&eriod"), w.period);
    form->addRow(tr("&Work"), w.workPercent);
    form->addRow(tr("&Length"), length);
    form->addRow(tr("&Policy"), w.policy);
    form->addRow(tr("P&riority"), w.priority);
    form->addRow(tr("Timer &slack"), slack);
    form->addRow(tr("&CPU"), w.cpu);
    auto* formLayout = new QVBoxLayout(this->form());
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addLayout(form);
    formLayout->addWidget(methodBox);

    auto changed = [this] {
        m_mapper->updateEnabled();
        emit edited();
    };
    connect(w.period, &PeriodEditor::periodChanged, this, changed);
    connect(w.workPercent, &QSpinBox::valueChanged, this, changed);
    connect(w.lengthMode, &QComboBox::currentIndexChanged, this, changed);
    connect(w.ticks, &QSpinBox::valueChanged, this, changed);
    connect(w.duration, &DurationSpinBox::valueChanged, this, changed);
    connect(w.policy, &QComboBox::currentIndexChanged, this, changed);
    connect(w.priority, &QSpinBox::valueChanged, this, changed);
    connect(w.slack, &QComboBox::currentIndexChanged, this, changed);
    connect(w.slackCustom, &DurationSpinBox::valueChanged, this, changed);
    connect(w.cpu, &QComboBox::currentIndexChanged, this, changed);
    for (auto& [k, box] : w.methods)
        connect(box, &QCheckBox::toggled, this, changed);
}

DriftControls::~DriftControls() = default;

void DriftControls::setCpus(const std::vector<int>& cpus)
{
    if (refillCpuCombo(m_mapper->widgets().cpu, cpus, autoCpuText(cpus)))
        emit edited();
}

} // namespace rtscope
