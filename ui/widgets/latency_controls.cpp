#include "ui/widgets/latency_controls.h"

#include "ui/common/problem_list.h"
#include "ui/plot/chart_style.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/period_editor.h"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace rtscope {

LatencyControls::LatencyControls(const std::vector<int>& cpus, QWidget* parent)
    : QWidget(parent)
    , m_form(new QFormLayout)
    , m_hint(new QLabel(this))
    , m_problemLabel(new QLabel(this))
    , m_statusLabel(new QLabel(this))
{
    LatencyControlWidgets w;
    w.policy = new QComboBox(this);
    w.policy->setObjectName("policy");
    w.policy->setToolTip(tr("Scheduling policy of the measuring thread"));
    w.priority = new QSpinBox(this);
    w.priority->setObjectName("priority");
    w.priority->setKeyboardTracking(false);
    w.period = new PeriodEditor(LatencyConfigMapper::kMinPeriodNs, LatencyConfigMapper::kMaxPeriodNs, this);
    w.hogs = new QSpinBox(this);
    w.hogs->setObjectName("hogs");
    w.hogs->setKeyboardTracking(false);
    w.hogs->setToolTip(tr("CPU-bound SCHED_OTHER threads competing for the hog CPU"));
    w.cpu = new QComboBox(this);
    w.cpu->setObjectName("cpu");
    w.cpu->setToolTip(tr("The CPU the measuring thread is pinned to"));
    w.hogCpu = new QComboBox(this);
    w.hogCpu->setObjectName("hogCpu");
    w.hogCpu->setToolTip(tr("The CPU the hogs are pinned to"));
    w.waiter = new QComboBox(this);
    w.waiter->setObjectName("waiter");
    w.waiter->setToolTip(tr("How the measuring thread waits for its next period"));
    m_mapper = std::make_unique<LatencyConfigMapper>(w);
    m_mapper->populate(cpus);
    w.priority->setToolTip(tr("Real-time priority %1–%2 (sched_get_priority_min/max), for FIFO and RR only")
                               .arg(w.priority->minimum())
                               .arg(w.priority->maximum()));

    QFormLayout* form = m_form;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("&Policy"), w.policy);
    form->addRow(tr("P&riority"), w.priority);
    form->addRow(tr("P&eriod"), w.period);
    form->addRow(tr("CPU &hogs"), w.hogs);
    form->addRow(tr("&Measuring CPU"), w.cpu);
    form->addRow(tr("H&og CPU"), w.hogCpu);
    form->addRow(tr("&Waiter"), w.waiter);

    initProblemList(m_problemLabel);
    m_statusLabel->setObjectName("runStatus");
    m_statusLabel->setWordWrap(true);
    m_statusLabel->hide();

    QLabel* hint = m_hint;
    hint->setText(tr("Every change applies to the running experiment at once and leaves a marker on the timeline."));
    hint->setWordWrap(true);
    hint->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problemLabel);
    layout->addWidget(m_statusLabel);
    layout->addWidget(hint);
    layout->addStretch(1);

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
    restyleProblems();
}

LatencyControls::~LatencyControls() = default;

void LatencyControls::showProblems(const QStringList& problems)
{
    m_problems = problems;
    showProblemList(m_problemLabel, problems);
}

void LatencyControls::setStatus(const QString& text)
{
    m_statusLabel->setText(text);
    m_statusLabel->setVisible(!text.isEmpty());
}

void LatencyControls::insertRow(int row, const QString& label, QWidget* field)
{
    m_form->insertRow(row, label, field);
}

void LatencyControls::setRowVisible(QWidget* field, bool visible)
{
    m_form->setRowVisible(field, visible);
}

void LatencyControls::setHint(const QString& text)
{
    m_hint->setText(text);
    m_hint->setVisible(!text.isEmpty());
}

void LatencyControls::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        restyleProblems();
}

void LatencyControls::restyleProblems()
{
    styleProblemLabel(m_problemLabel, plot::isDarkPalette(palette()));
}

} // namespace rtscope
