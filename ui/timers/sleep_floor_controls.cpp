#include "ui/timers/sleep_floor_controls.h"

#include "ui/timers/timer_controls.h"

#include "ui/widgets/experiment_controls.h"

#include "engine/util/units.h"
#include "ui/plot/chart_style.h"
#include "ui/widgets/duration_spin_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {
QStringList requestItems(const QString& text)
{
    QStringList items;
    for (const QString& part : text.split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts))
        items << part.trimmed();
    return items;
}

BlockedFields blocked(const SleepFloorControlWidgets& w)
{
    return BlockedFields(w.policy, w.priority, w.cpu, w.slack, w.samples, w.slackCustom, w.margin, w.requests, w.load,
                         w.methods);
}
} // namespace

void SleepFloorConfigMapper::populate(const std::vector<int>& cpus)
{
    const BlockedFields block = blocked(m_w);
    m_w.samples->setRange(1, int(SleepFloorConfig::kMaxSamples));
    slackWidgets().populate(SleepFloorConfig::kMaxSlackNs);
    // The lesson compares the ordinary policy with a real-time one (which the kernel exempts from slack).
    m_w.policy->clear();
    for (Policy p : {Policy::Other, Policy::Fifo})
        m_w.policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
    m_w.priority->setRange(priorityMin(Policy::Fifo), priorityMax(Policy::Fifo));
    m_w.priority->setValue(kDefaultRtPriority);
    m_w.margin->setRangeNs(0, SleepFloorConfig::kMaxMarginNs);
    m_w.cpu->clear();
    m_w.cpu->addItem(autoCpuText(cpus), -1);
    refillCpuCombo(m_w.cpu, cpus);
    setConfig(SleepFloorConfig{});
}

QString SleepFloorConfigMapper::requestText(const std::vector<int64_t>& requestsNs)
{
    // Exact, never rounded: the field must read back as the very same lengths.
    struct Unit {
        int64_t ns;
        const char* name;
    };
    static const Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}};
    QStringList out;
    for (int64_t ns : requestsNs) {
        QString text = QString("%1ns").arg(ns);
        if (ns == 0)
            text = "0";
        else
            for (const Unit& u : units)
                if (ns % u.ns == 0) {
                    text = QString("%1%2").arg(ns / u.ns).arg(QString::fromLatin1(u.name));
                    break;
                }
        out << text;
    }
    return out.join(", ");
}

QStringList SleepFloorConfigMapper::textProblems() const
{
    QStringList out;
    for (const QString& item : requestItems(m_w.requests->text()))
        if (!parseDuration(item.toStdString()))
            out << QString("requests: '%1' is not a duration (use ns, us, ms or s; a bare number is µs)").arg(item);
    return out;
}

QStringList SleepFloorConfigMapper::unrepresentable(const SleepFloorConfig& c) const
{
    QStringList out;
    if (c.policy != Policy::Other && c.policy != Policy::Fifo)
        out << QString("policy must be other or fifo in the window (got %1)").arg(policyName(c.policy));
    if (m_w.cpu->findData(c.cpu) < 0)
        out << QString("cpu must be one of the online CPUs (got %1)").arg(c.cpu);
    if (c.samples < 1 || c.samples > SleepFloorConfig::kMaxSamples)
        out << QString("samples must be between 1 and %1 in the window (got %2)")
                   .arg(SleepFloorConfig::kMaxSamples)
                   .arg(c.samples);
    return out;
}

void SleepFloorConfigMapper::setConfig(const SleepFloorConfig& c)
{
    const BlockedFields block = blocked(m_w);

    m_w.requests->setText(requestText(c.requestsNs));
    m_w.samples->setValue(int(std::clamp<int64_t>(c.samples, 1, SleepFloorConfig::kMaxSamples)));
    for (auto& [m, box] : m_w.methods)
        box->setChecked(std::find(c.methods.begin(), c.methods.end(), m) != c.methods.end());
    slackWidgets().show(c.timerSlackNs);
    m_w.policy->setCurrentIndex(m_w.policy->findData(int(c.policy)));
    if (isRealtime(c.policy))
        m_w.priority->setValue(c.priority);
    m_w.load->setChecked(c.backgroundLoad);
    m_w.margin->setValueNs(c.hybridMarginNs);
    m_w.cpu->setCurrentIndex(m_w.cpu->findData(c.cpu));
    updateEnabled();
}

SleepFloorConfig SleepFloorConfigMapper::config(const SleepFloorConfig& base) const
{
    SleepFloorConfig c = base;
    c.requestsNs.clear();
    for (const QString& item : requestItems(m_w.requests->text()))
        if (auto ns = parseDuration(item.toStdString()))
            c.requestsNs.push_back(*ns);
    c.samples = m_w.samples->value();
    c.methods.clear();
    for (SleepMethod m : kSleepMethods)
        if (auto it = m_w.methods.find(m); it != m_w.methods.end() && it->second->isChecked())
            c.methods.push_back(m);
    c.timerSlackNs = slackWidgets().slackNs();
    c.policy = Policy(comboData(m_w.policy, int(base.policy)));
    c.priority = isRealtime(c.policy) ? m_w.priority->value() : 0;
    c.backgroundLoad = m_w.load->isChecked();
    c.hybridMarginNs = m_w.margin->valueNs();
    c.cpu = comboData(m_w.cpu, base.cpu);
    return c;
}

void SleepFloorConfigMapper::updateEnabled()
{
    m_w.priority->setEnabled(isRealtime(Policy(comboData(m_w.policy, int(Policy::Other)))));
    slackWidgets().updateEnabled();
    if (auto it = m_w.methods.find(SleepMethod::Hybrid); it != m_w.methods.end())
        m_w.margin->setEnabled(it->second->isChecked());
}

SleepFloorControls::SleepFloorControls(const std::vector<int>& cpus, QWidget* parent)
    : MappedControls(tr("One pinned thread asks for every length with every method, taking turns sample "
                        "by sample. The sweep ends by itself."),
                     parent)
{
    SleepFloorControlWidgets w;
    w.requests = newField<QLineEdit>("requests",
                                     tr("Requested lengths, swept in this order: ns, us, ms, s (a bare number is µs); "
                                        "0 … 100 ms, at most %1")
                                         .arg(SleepFloorConfig::kMaxRequests));
    w.samples = newSpinField<QSpinBox>("samples");
    w.samples->setSuffix(tr(" per request"));
    w.slack =
        newField<QComboBox>("slack", tr("prctl(PR_SET_TIMERSLACK) in the measuring thread. Ignored under SCHED_FIFO."));
    w.slackCustom = newField<DurationSpinBox>("slackCustom");
    w.policy = newField<QComboBox>("policy");
    w.priority = newSpinField<QSpinBox>("priority");
    w.load = new QCheckBox(tr("Keep the other CPUs busy"), form());
    w.load->setObjectName("load");
    w.load->setToolTip(tr("A SCHED_OTHER spinner on every other usable CPU, so they never enter an idle state"));
    w.margin = newField<DurationSpinBox>("margin", tr("Hybrid: sleep until this long before the deadline, then spin"));
    w.cpu = newField<QComboBox>("cpu");
    QGroupBox* methodBox = methodSwitches(form(), kSleepMethods, sleepMethodLabel, sleepMethodName, w.methods);
    setUpMapper(w, cpus);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Re&quests"), w.requests);
    form->addRow(tr("S&amples"), w.samples);
    form->addRow(tr("Timer &slack"), m_mapper->slackWidgets().row());
    form->addRow(tr("&Policy"), w.policy);
    form->addRow(tr("P&riority"), w.priority);
    form->addRow(tr("&Load"), w.load);
    form->addRow(tr("Hybrid &margin"), w.margin);
    form->addRow(tr("&CPU"), w.cpu);
    stackFormOverMethods(this->form(), form, methodBox);

    watchMapped(w.requests, w.samples, w.slack, w.slackCustom, w.policy, w.priority, w.load, w.margin, w.cpu,
                w.methods);
}

} // namespace rtscope

#include "moc_sleep_floor_controls.cpp"
