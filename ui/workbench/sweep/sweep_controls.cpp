#include "ui/workbench/sweep/sweep_controls.h"

#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/field_edits.h"
#include "ui/widgets/latency_controls.h"
#include "ui/widgets/period_editor.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

namespace rtscope {

namespace {
// Rows of the latency controls' form after ours are inserted (see the constructor).
constexpr int kSettingsRow = 0;
constexpr int kEachRow = 1;
constexpr int kLoadRow = 5;    ///< before "CPU hogs"
constexpr int kCommandRow = 7; ///< after "CPU hogs"
} // namespace

SweepControls::SweepControls(const std::vector<int>& cpus, QWidget* parent)
    : QWidget(parent)
    , m_latency(new LatencyControls(cpus, this))
    , m_settings(new QLineEdit(this))
    , m_each(new DurationSpinBox(this))
    , m_load(new QComboBox(this))
    , m_command(new QLineEdit(this))
{
    m_settings->setObjectName("sweepSettings");
    m_settings->setText(QStringLiteral("other,fifo:1,fifo:50,fifo:80"));
    m_settings->setToolTip(tr("The settings to run, in order: other, batch, idle, fifo:PRIO, rr:PRIO, separated by "
                              "commas (as rtscope sweep --settings)"));
    m_each->setObjectName("sweepEach");
    m_each->setRangeNs(SweepConfig::kMinEachNs, SweepConfig::kMaxEachNs);
    m_each->setValueNs(5'000'000'000);
    m_each->setToolTip(tr("How long each setting runs"));
    m_load->setObjectName("sweepLoad");
    m_load->addItem(tr("none"), int(Load::None));
    m_load->addItem(tr("built-in CPU hogs"), int(Load::Hogs));
    m_load->addItem(tr("your command"), int(Load::Command));
    m_load->setCurrentIndex(int(Load::Hogs));
    m_command->setObjectName("sweepCommand");
    m_command->setPlaceholderText(tr("e.g. stress-ng --cpu 2, or yes > /dev/null"));
    m_command->setToolTip(tr("Run with /bin/sh -c for the whole sweep in its own process group, then stopped "
                             "(SIGTERM, then SIGKILL) and reaped, whatever happens"));

    const LatencyControlWidgets& w = m_latency->widgets();
    m_latency->insertRow(kSettingsRow, tr("&Settings"), m_settings);
    m_latency->insertRow(kEachRow, tr("&Time each"), m_each);
    m_latency->insertRow(kLoadRow, tr("&Load"), m_load);
    m_latency->insertRow(kCommandRow, tr("Co&mmand"), m_command);
    // Policy and priority are what the sweep varies: the settings list replaces them.
    m_latency->setRowVisible(w.policy, false);
    m_latency->setRowVisible(w.priority, false);
    m_latency->setRowVisible(m_latency->traceRow(), false); // the sweep shows no anatomy
    w.hogs->setValue(4);
    m_latency->setHint(tr("Each setting runs the latency experiment for the time given, one after the other, under "
                          "the same load. The settings cannot change while the sweep runs."));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_latency);

    connect(m_latency, &LatencyControls::edited, this, &SweepControls::edited);
    connect(m_settings, &QLineEdit::editingFinished, this, &SweepControls::edited);
    connect(m_command, &QLineEdit::editingFinished, this, &SweepControls::edited);
    connect(m_each, &DurationSpinBox::valueChanged, this, &SweepControls::edited);
    connect(m_load, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        emit edited();
    });
    updateEnabled();
}

void SweepControls::setCpus(const std::vector<int>& cpus)
{
    m_latency->setCpus(cpus);
}

SweepControls::Load SweepControls::load() const
{
    return Load(m_load->currentData().toInt());
}

SweepConfig SweepControls::config(const SweepConfig& base) const
{
    SweepConfig c = base;
    c.base = m_latency->mapper().config(base.base);
    c.base.policy = Policy::Other; // each setting brings its own
    c.base.priority = 0;
    std::vector<SweepSetting> settings;
    std::string error;
    if (parseSweepSettings(m_settings->text().toStdString(), settings, error))
        c.settings = settings;
    c.eachNs = m_each->valueNs();
    c.loadCmd.clear();
    if (load() != Load::Hogs)
        c.base.hogs = 0;
    if (load() == Load::Command)
        c.loadCmd = m_command->text().trimmed().toStdString();
    return c;
}

QStringList SweepControls::textProblems() const
{
    QStringList out;
    std::vector<SweepSetting> settings;
    std::string error;
    if (!parseSweepSettings(m_settings->text().toStdString(), settings, error))
        out << QString::fromStdString(error);
    if (load() == Load::Command && m_command->text().trimmed().isEmpty())
        out << tr("load-cmd: type the command to run as load, or choose another load");
    return out;
}

QStringList SweepControls::unrepresentable(const SweepConfig& c) const
{
    LatencyConfig shown = c.base; // the latency controls show everything but the policy, which the settings set
    shown.policy = Policy::Other;
    shown.priority = 0;
    // 'each' needs no check of its own: the spin box offers exactly validate()'s range.
    return m_latency->mapper().unrepresentable(shown);
}

void SweepControls::setConfig(const SweepConfig& c)
{
    m_latency->mapper().setConfig(c.base);
    const BlockedFields block(m_settings, m_each, m_load, m_command);
    m_settings->setText(QString::fromStdString(sweepSettingsText(c.settings)));
    m_each->setValueNs(c.eachNs);
    const Load l = !c.loadCmd.empty() ? Load::Command : c.base.hogs > 0 ? Load::Hogs : Load::None;
    m_load->setCurrentIndex(m_load->findData(int(l)));
    if (!c.loadCmd.empty())
        m_command->setText(QString::fromStdString(c.loadCmd));
    updateEnabled();
}

void SweepControls::setRunning(bool running)
{
    m_running = running;
    updateEnabled();
}

void SweepControls::updateEnabled()
{
    const LatencyControlWidgets& w = m_latency->widgets();
    for (QWidget* field : std::initializer_list<QWidget*>{m_settings, m_each, m_load, w.period, w.cpu, w.waiter})
        field->setEnabled(!m_running);
    w.hogs->setEnabled(!m_running && load() == Load::Hogs);
    w.hogCpu->setEnabled(!m_running && load() == Load::Hogs);
    m_command->setEnabled(!m_running && load() == Load::Command);
}

void SweepControls::showProblems(const QStringList& problems)
{
    m_latency->showProblems(problems);
}

QStringList SweepControls::problems() const
{
    return m_latency->problems();
}

void SweepControls::setStatus(const QString& text)
{
    m_latency->setStatus(text);
}

} // namespace rtscope

#include "moc_sweep_controls.cpp"
