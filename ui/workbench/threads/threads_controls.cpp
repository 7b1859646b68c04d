#include "ui/workbench/threads/threads_controls.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace rtscope {

ThreadsControls::ThreadsControls(QWidget* parent)
    : QWidget(parent)
    , m_policy(new QComboBox(this))
    , m_priority(new QSpinBox(this))
    , m_refresh(new QSpinBox(this))
{
    m_policy->setObjectName("policy");
    for (Policy p : {Policy::Other, Policy::Batch, Policy::Idle, Policy::Fifo, Policy::RR})
        m_policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
    m_policy->setToolTip(tr("The policy you plan to measure with"));
    m_priority->setObjectName("priority");
    // The kernel's range (sched_get_priority_min/max), as on the latency page.
    m_priority->setRange(priorityMin(Policy::Fifo), priorityMax(Policy::Fifo));
    m_priority->setKeyboardTracking(false);
    m_refresh->setObjectName("refreshSeconds");
    m_refresh->setRange(1, 60);
    m_refresh->setSuffix(tr(" s"));
    m_refresh->setToolTip(tr("How often the list is read again from /proc while the page is started"));
    setReference(Policy::Fifo, 80);
    m_refresh->setValue(kDefaultRefreshSeconds);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Your &policy"), m_policy);
    form->addRow(tr("Your p&riority"), m_priority);
    form->addRow(tr("Re&fresh every"), m_refresh);
    auto* hint = new QLabel(tr("Rows tinted red can preempt a thread with this policy and priority; green ones it "
                               "preempts. rtscope only reads /proc: copy a row's chrt or taskset line and run it "
                               "yourself to change a thread."),
                            this);
    hint->setWordWrap(true);
    hint->setEnabled(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(hint);
    layout->addStretch(1);

    connect(m_policy, &QComboBox::currentIndexChanged, this, [this] {
        m_priority->setEnabled(isRealtime(policy()));
        emit edited();
    });
    connect(m_priority, &QSpinBox::valueChanged, this, &ThreadsControls::edited);
    connect(m_refresh, &QSpinBox::valueChanged, this, &ThreadsControls::refreshIntervalChanged);
}

Policy ThreadsControls::policy() const
{
    return Policy(m_policy->currentData().toInt());
}

int ThreadsControls::priority() const
{
    return isRealtime(policy()) ? m_priority->value() : 0;
}

void ThreadsControls::setReference(Policy policy, int priority)
{
    const QSignalBlocker b1(m_policy), b2(m_priority);
    m_policy->setCurrentIndex(m_policy->findData(int(policy)));
    if (isRealtime(policy))
        m_priority->setValue(priority);
    m_priority->setEnabled(isRealtime(policy));
}

int ThreadsControls::refreshSeconds() const
{
    return m_refresh->value();
}

void ThreadsControls::setRefreshSeconds(int seconds)
{
    m_refresh->setValue(seconds);
}

} // namespace rtscope

#include "moc_threads_controls.cpp"
