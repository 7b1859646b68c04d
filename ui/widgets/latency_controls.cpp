#include "ui/widgets/latency_controls.h"

#include "ui/widgets/period_editor.h"

#include <QComboBox>
#include <QFormLayout>
#include <QSpinBox>

namespace rtscope {

LatencyControls::LatencyControls(const std::vector<int>& cpus, QWidget* parent)
    : ExperimentControls(
          tr("Every change applies to the running experiment at once and leaves a marker on the timeline."), parent)
{
    LatencyControlWidgets w;
    w.policy = new QComboBox(form());
    w.policy->setObjectName("policy");
    w.policy->setToolTip(tr("Scheduling policy of the measuring thread"));
    w.priority = new QSpinBox(form());
    w.priority->setObjectName("priority");
    w.priority->setKeyboardTracking(false);
    w.period = new PeriodEditor(LatencyConfigMapper::kMinPeriodNs, LatencyConfigMapper::kMaxPeriodNs, form());
    w.hogs = new QSpinBox(form());
    w.hogs->setObjectName("hogs");
    w.hogs->setKeyboardTracking(false);
    w.hogs->setToolTip(tr("CPU-bound SCHED_OTHER threads competing for the hog CPU"));
    w.cpu = new QComboBox(form());
    w.cpu->setObjectName("cpu");
    w.cpu->setToolTip(tr("The CPU the measuring thread is pinned to"));
    w.hogCpu = new QComboBox(form());
    w.hogCpu->setObjectName("hogCpu");
    w.hogCpu->setToolTip(tr("The CPU the hogs are pinned to"));
    w.waiter = new QComboBox(form());
    w.waiter->setObjectName("waiter");
    w.waiter->setToolTip(tr("How the measuring thread waits for its next period"));
    m_mapper = std::make_unique<LatencyConfigMapper>(w);
    m_mapper->populate(cpus);
    w.priority->setToolTip(tr("Real-time priority %1–%2 (sched_get_priority_min/max), for FIFO and RR only")
                               .arg(w.priority->minimum())
                               .arg(w.priority->maximum()));

    QFormLayout* rows = formLayout();
    rows->addRow(tr("&Policy"), w.policy);
    rows->addRow(tr("P&riority"), w.priority);
    rows->addRow(tr("P&eriod"), w.period);
    rows->addRow(tr("CPU &hogs"), w.hogs);
    rows->addRow(tr("&Measuring CPU"), w.cpu);
    rows->addRow(tr("H&og CPU"), w.hogCpu);
    rows->addRow(tr("&Waiter"), w.waiter);

    auto changed = [this] {
        emit edited();
    };
    connect(w.policy, &QComboBox::currentIndexChanged, this, [this, changed] {
        m_mapper->updateEnabled();
        changed();
    });
    connect(w.priority, &QSpinBox::valueChanged, this, changed);
    connect(w.period, &PeriodEditor::periodChanged, this, changed);
    connect(w.hogs, &QSpinBox::valueChanged, this, changed);
    connect(w.cpu, &QComboBox::currentIndexChanged, this, changed);
    connect(w.hogCpu, &QComboBox::currentIndexChanged, this, changed);
    connect(w.waiter, &QComboBox::currentIndexChanged, this, changed);
}

LatencyControls::~LatencyControls() = default;

void LatencyControls::insertRow(int row, const QString& label, QWidget* field)
{
    formLayout()->insertRow(row, label, field);
}

void LatencyControls::setRowVisible(QWidget* field, bool visible)
{
    formLayout()->setRowVisible(field, visible);
}

} // namespace rtscope
