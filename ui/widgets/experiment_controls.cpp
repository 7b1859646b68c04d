#include "ui/widgets/experiment_controls.h"

#include "ui/common/problem_list.h"
#include "ui/plot/chart_style.h"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace rtscope {

ExperimentControls::ExperimentControls(const QString& idleHint, const QString& runningHint, QWidget* parent)
    : QWidget(parent)
    , m_form(new QWidget(this))
    , m_problemLabel(new QLabel(this))
    , m_statusLabel(new QLabel(this))
    , m_hint(new QLabel(this))
    , m_idleHint(idleHint)
    , m_runningHint(runningHint)
{
    initProblemList(m_problemLabel);
    m_statusLabel->setObjectName("runStatus");
    m_statusLabel->setWordWrap(true);
    m_statusLabel->hide();
    m_hint->setObjectName("hint");
    m_hint->setWordWrap(true);
    m_hint->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_form);
    layout->addWidget(m_problemLabel);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_hint);
    layout->addStretch(1);
    setRunning(false);
    styleProblemLabel(m_problemLabel, plot::isDarkPalette(palette()));
}

ExperimentControls::~ExperimentControls() = default;

void ExperimentControls::showProblems(const QStringList& problems)
{
    m_problems = problems;
    showProblemList(m_problemLabel, problems);
}

void ExperimentControls::setStatus(const QString& text)
{
    m_statusLabel->setText(text);
    m_statusLabel->setVisible(!text.isEmpty());
}

QString ExperimentControls::status() const
{
    return m_statusLabel->text();
}

void ExperimentControls::setRunning(bool running)
{
    m_form->setEnabled(!running);
    m_hint->setText(running ? m_runningHint : m_idleHint);
}

void ExperimentControls::setHint(const QString& text)
{
    m_idleHint = text;
    m_runningHint = text;
    m_hint->setText(text);
    m_hint->setVisible(!text.isEmpty());
}

QFormLayout* ExperimentControls::formLayout()
{
    if (!m_formLayout) {
        m_formLayout = new QFormLayout(m_form);
        m_formLayout->setContentsMargins(0, 0, 0, 0);
        m_formLayout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    }
    return m_formLayout;
}

void ExperimentControls::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        styleProblemLabel(m_problemLabel, plot::isDarkPalette(palette()));
}

int comboData(const QComboBox* box, int fallback)
{
    const QVariant v = box->currentData();
    return v.isValid() ? v.toInt() : fallback;
}

bool selectComboData(QComboBox* box, int value)
{
    const int index = box->findData(value);
    box->setCurrentIndex(index);
    return index >= 0;
}

QString autoCpuText(const std::vector<int>& cpus)
{
    return cpus.empty() ? QObject::tr("auto") : QObject::tr("auto (CPU %1)").arg(cpus.back());
}

bool refillCpuCombo(QComboBox* box, const std::vector<int>& cpus, const QString& autoText)
{
    const QSignalBlocker block(box);
    const QVariant chosen = box->currentData();
    int lead = 0;
    while (lead < box->count() && box->itemData(lead).toInt() < 0)
        ++lead;
    while (box->count() > lead)
        box->removeItem(lead);
    if (lead > 0 && !autoText.isNull())
        box->setItemText(0, autoText);
    for (int cpu : cpus)
        box->addItem(QObject::tr("CPU %1").arg(cpu), cpu);
    if (!chosen.isValid() || selectComboData(box, chosen.toInt()))
        return false;
    box->setCurrentIndex(box->count() > 0 ? 0 : -1);
    return true;
}

} // namespace rtscope

#include "moc_experiment_controls.cpp"
