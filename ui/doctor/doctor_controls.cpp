#include "ui/doctor/doctor_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QSpinBox>

namespace rtscope {

using doctor::DoctorDepth;
using doctor::DoctorLoadKind;
using doctor::DoctorPlan;

DoctorControls::DoctorControls(const std::vector<int>& cpus, QWidget* parent)
    : ExperimentControls(tr("The doctor measures the CPU under this load with the anatomy on, names what made its "
                            "wake-ups late, then tries each run-time fix for a few seconds at a time, alternated with "
                            "the machine as it was, and puts everything back after each trial."),
                         tr("Stop ends the run within a tenth of a second and puts back whatever is changed."), parent)
    , m_cpu(new QComboBox(this))
    , m_policy(new QComboBox(this))
    , m_priority(new QSpinBox(this))
    , m_periodUs(new QSpinBox(this))
    , m_load(new QComboBox(this))
    , m_depth(new QComboBox(this))
    , m_tryFixes(new QCheckBox(tr("Try the run-time fixes"), this))
{
    m_cpu->setObjectName("cpu");
    m_cpu->addItem(QString(), -1);
    refillCpuCombo(m_cpu, cpus, autoCpuText(cpus));
    m_policy->setObjectName("policy");
    for (Policy p : {Policy::Fifo, Policy::RR, Policy::Other})
        m_policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
    m_priority->setObjectName("priority");
    m_priority->setRange(1, 98); // 99 is the guardian's and the kernel's (DoctorPlan::validate)
    m_priority->setKeyboardTracking(false);
    m_periodUs->setObjectName("periodUs");
    m_periodUs->setRange(100, 100'000);
    m_periodUs->setSuffix(tr(" µs"));
    m_periodUs->setKeyboardTracking(false);
    m_load->setObjectName("load");
    m_load->addItem(tr("what the machine does anyway"), int(DoctorLoadKind::None));
    m_load->addItem(tr("a CPU hog on the measured CPU"), int(DoctorLoadKind::Hogs));
    m_load->addItem(tr("disk writes and syncs"), int(DoctorLoadKind::Io));
    m_depth->setObjectName("depth");
    m_depth->addItem(tr("quick (about 30 s)"), int(DoctorDepth::Quick));
    m_depth->addItem(tr("default (at most 2 min)"), int(DoctorDepth::Default));
    m_depth->addItem(tr("thorough (every fix)"), int(DoctorDepth::Thorough));
    m_tryFixes->setObjectName("tryFixes");
    m_tryFixes->setToolTip(tr("Off: measure and diagnose only; nothing on the machine is changed"));

    QFormLayout* form = formLayout();
    form->addRow(tr("&CPU"), m_cpu);
    form->addRow(tr("&Policy"), m_policy);
    form->addRow(tr("P&riority"), m_priority);
    form->addRow(tr("Pe&riod"), m_periodUs);
    form->addRow(tr("&Load"), m_load);
    form->addRow(tr("&Depth"), m_depth);
    form->addRow(QString(), m_tryFixes);
    setPlan(DoctorPlan{});

    watchFields(
        this, [this] { emit edited(); }, m_cpu, m_policy, m_load, m_depth, m_priority, m_periodUs, m_tryFixes);
    connect(m_policy, &QComboBox::currentIndexChanged, this,
            [this] { m_priority->setEnabled(isRealtime(Policy(comboData(m_policy, int(Policy::Fifo))))); });
}

DoctorPlan DoctorControls::plan(DoctorPlan base) const
{
    base.cpu = comboData(m_cpu, -1);
    base.policy = Policy(comboData(m_policy, int(Policy::Fifo)));
    base.priority = m_priority->value();
    base.periodNs = int64_t(m_periodUs->value()) * 1000;
    base.load = DoctorLoadKind(comboData(m_load, int(DoctorLoadKind::None)));
    base.depth = DoctorDepth(comboData(m_depth, int(DoctorDepth::Default)));
    base.phases = doctor::phasePlan(base.depth);
    base.tryFixes = m_tryFixes->isChecked();
    return base;
}

void DoctorControls::setPlan(const DoctorPlan& plan)
{
    const BlockedFields block(m_cpu, m_policy, m_priority, m_periodUs, m_load, m_depth, m_tryFixes);
    if (!selectComboData(m_cpu, plan.cpu))
        selectComboData(m_cpu, -1);
    selectComboData(m_policy, int(plan.policy));
    m_priority->setValue(plan.priority);
    m_priority->setEnabled(isRealtime(plan.policy));
    m_periodUs->setValue(int(plan.periodNs / 1000));
    selectComboData(m_load, int(plan.load));
    selectComboData(m_depth, int(plan.depth));
    m_tryFixes->setChecked(plan.tryFixes);
}

} // namespace rtscope

#include "moc_doctor_controls.cpp"
