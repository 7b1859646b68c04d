#include "ui/locks/contention/contention_controls.h"

#include "engine/util/units.h"
#include "ui/widgets/duration_spin_box.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {
constexpr int kDefaultRtPriority = 50;

QString kindList(const std::vector<LockKind>& kinds)
{
    QStringList names;
    for (LockKind k : kinds)
        names << QString::fromLatin1(lockKindName(k));
    return names.join(", ");
}

// Every widget's signals blocked while it lives: showing a config is not a user's edit.
BlockedFields blocked(const ContentionControlWidgets& w)
{
    return BlockedFields(w.threads, w.placement, w.cpu, w.policy, w.priority, w.nice, w.hold, w.work, w.duration,
                         w.spinLimit, w.stealing, w.kinds);
}
} // namespace

void ContentionConfigMapper::populate(const std::vector<int>& cpus)
{
    {
        const BlockedFields block = blocked(m_w);
        m_w.threads->setRange(ContentionConfig::kMinThreads, ContentionConfig::kMaxThreads);
        m_w.placement->clear();
        m_w.placement->addItem(QObject::tr("spread: pinned round-robin"), int(Placement::Spread));
        m_w.placement->addItem(QObject::tr("all on one CPU"), int(Placement::OneCpu));
        m_w.cpu->clear();
        m_w.cpu->addItem(autoCpuText(cpus), -1);
        refillCpuCombo(m_w.cpu, cpus);
        m_w.policy->clear();
        for (Policy p : kAllPolicies)
            m_w.policy->addItem(QString::fromLatin1(policyKernelName(p)), int(p));
        m_w.priority->setRange(priorityMin(Policy::Fifo), priorityMax(Policy::Fifo));
        m_w.priority->setValue(kDefaultRtPriority);
        m_w.nice->setRange(-20, 19);
        m_w.hold->setRangeNs(0, ContentionConfig::kMaxHoldNs);
        m_w.work->setRangeNs(0, ContentionConfig::kMaxWorkNs);
        m_w.duration->setRangeNs(ContentionConfig::kMinDurationNs, ContentionConfig::kMaxDurationNs);
        m_w.spinLimit->setRange(0, ContentionConfig::kMaxSpinLimit);
    }
    setConfig(ContentionConfig{});
}

QStringList ContentionConfigMapper::unrepresentable(const ContentionConfig& c) const
{
    QStringList out;
    if (m_w.cpu->findData(c.cpu) < 0)
        out << QString("cpu must be one of the online CPUs or auto in the window (got %1)").arg(c.cpu);
    if (isRealtime(c.policy) && (c.priority < m_w.priority->minimum() || c.priority > m_w.priority->maximum()))
        out << QString("priority must be between %1 and %2 in the window (got %3)")
                   .arg(m_w.priority->minimum())
                   .arg(m_w.priority->maximum())
                   .arg(c.priority);
    std::vector<LockKind> unknown;
    for (LockKind k : c.kinds)
        if (!m_w.kinds.count(k))
            unknown.push_back(k);
    if (!unknown.empty())
        out << QString("kinds: %1 has no switch in the window").arg(kindList(unknown));
    return out;
}

void ContentionConfigMapper::setConfig(const ContentionConfig& c)
{
    {
        const BlockedFields block = blocked(m_w);
        for (auto& [k, box] : m_w.kinds)
            box->setChecked(std::find(c.kinds.begin(), c.kinds.end(), k) != c.kinds.end());
        m_w.threads->setValue(c.threads);
        selectComboData(m_w.placement, int(c.placement));
        selectComboData(m_w.cpu, c.cpu);
        selectComboData(m_w.policy, int(c.policy));
        // A non-RT policy has priority 0, which the spin box cannot show: it keeps the last RT value, greyed out.
        if (isRealtime(c.policy))
            m_w.priority->setValue(c.priority);
        m_w.nice->setValue(c.nice);
        m_w.hold->setValueNs(c.holdNs);
        m_w.work->setValueNs(c.workNs);
        m_w.duration->setValueNs(c.durationNs);
        m_w.spinLimit->setValue(c.spinLimit);
        m_w.stealing->setChecked(c.stealing);
    }
    updateEnabled();
}

ContentionConfig ContentionConfigMapper::config(const ContentionConfig& base) const
{
    ContentionConfig c = base;
    std::vector<LockKind> ticked;
    for (LockKind k : ContentionConfig::contentionKinds())
        if (auto it = m_w.kinds.find(k); it != m_w.kinds.end() && it->second->isChecked())
            ticked.push_back(k);
    std::vector<LockKind> sortedBase = base.kinds, sortedTicked = ticked;
    std::sort(sortedBase.begin(), sortedBase.end());
    std::sort(sortedTicked.begin(), sortedTicked.end());
    c.kinds = sortedBase == sortedTicked ? base.kinds : ticked;
    c.threads = m_w.threads->value();
    c.placement = Placement(comboData(m_w.placement, int(base.placement)));
    c.cpu = comboData(m_w.cpu, base.cpu);
    c.policy = Policy(comboData(m_w.policy, int(base.policy)));
    c.priority = isRealtime(c.policy) ? m_w.priority->value() : 0;
    c.nice = isRealtime(c.policy) ? 0 : m_w.nice->value(); // the box is disabled for fifo/rr; validate() refuses it
    c.holdNs = m_w.hold->valueNs();
    c.workNs = m_w.work->valueNs();
    c.durationNs = m_w.duration->valueNs();
    c.spinLimit = m_w.spinLimit->value();
    c.stealing = m_w.stealing->isChecked();
    return c;
}

void ContentionConfigMapper::updateEnabled()
{
    const bool rt = isRealtime(Policy(comboData(m_w.policy, int(Policy::Other))));
    m_w.priority->setEnabled(rt);
    m_w.nice->setEnabled(!rt);
    m_w.cpu->setEnabled(comboData(m_w.placement, 0) == int(Placement::OneCpu));
    const auto adaptive = m_w.kinds.find(LockKind::Adaptive);
    const bool tunables = adaptive != m_w.kinds.end() && adaptive->second->isChecked();
    m_w.spinLimit->setEnabled(tunables);
    m_w.stealing->setEnabled(tunables);
}

ContentionControls::ContentionControls(const std::vector<int>& cpus, QWidget* parent)
    : MappedControls(tr("Each ticked kind runs in turn with the same settings, for the duration each. Press "
                        "Start; the run ends by itself after the last kind."),
                     tr("The settings are fixed during a run: stop to change them."), parent)
{
    QWidget* f = form();
    ContentionControlWidgets w;
    auto* kindBox = new QGroupBox(tr("Lock kinds (run in turn)"), f);
    auto* kindLayout = new QVBoxLayout(kindBox);
    for (LockKind k : ContentionConfig::contentionKinds()) {
        auto* box = new QCheckBox(
            QString("%1 — %2").arg(QString::fromLatin1(lockKindName(k)), QString::fromLatin1(lockKindLabel(k))),
            kindBox);
        box->setObjectName(QString("kind_%1").arg(QString::fromLatin1(lockKindName(k))));
        kindLayout->addWidget(box);
        w.kinds[k] = box;
    }
    w.threads = newSpinField<QSpinBox>("threads", tr("Worker threads taking the one lock"));
    w.placement = newField<QComboBox>(
        "placement", tr("Spread: each worker pinned to its own CPU in turn. One CPU: the workers time-share "
                        "it, so a holder is often preempted by a waiter."));
    w.cpu = newField<QComboBox>("cpu");
    w.policy = newField<QComboBox>(
        "policy", tr("The workers' policy. FIFO/RR need all workers on one CPU that is not the first one, "
                     "and no spinlock."));
    w.priority = newSpinField<QSpinBox>("priority");
    w.nice = newSpinField<QSpinBox>("nice");
    w.hold = newField<DurationSpinBox>("hold", tr("Critical section: busy work while holding the lock (0 … 1 ms)"));
    w.work = newField<DurationSpinBox>(
        "work", tr("Busy work between acquisitions, without the lock (0 … 1 ms). Less work = more "
                   "contention."));
    w.duration = newField<DurationSpinBox>("duration", tr("How long each kind runs"));
    w.spinLimit = newSpinField<QSpinBox>("spinLimit");
    w.spinLimit->setGroupSeparatorShown(true);
    w.spinLimit->setToolTip(tr("rtscope adaptive: spin iterations before sleeping (the RT patch used 10 000)"));
    w.stealing = new QCheckBox(tr("Lock stealing (adaptive)"), f);
    w.stealing->setObjectName("stealing");
    w.stealing->setToolTip(tr("rtscope adaptive: a running waiter may take the lock ahead of a woken sleeper. "
                              "Faster, less fair."));
    setUpMapper(w, cpus);

    auto* grid = new QFormLayout;
    grid->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    grid->addRow(tr("&Threads"), w.threads);
    grid->addRow(tr("P&lacement"), w.placement);
    grid->addRow(tr("&CPU"), w.cpu);
    grid->addRow(tr("&Policy"), w.policy);
    grid->addRow(tr("P&riority"), w.priority);
    grid->addRow(tr("&Nice"), w.nice);
    grid->addRow(tr("&Hold"), w.hold);
    grid->addRow(tr("&Work"), w.work);
    grid->addRow(tr("&Duration per kind"), w.duration);
    grid->addRow(tr("&Spin limit"), w.spinLimit);
    grid->addRow(w.stealing);
    auto* layout = new QVBoxLayout(f);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(kindBox);
    layout->addLayout(grid);

    watchMapped(w.kinds, w.threads, w.priority, w.nice, w.spinLimit, w.placement, w.cpu, w.policy, w.hold, w.work,
                w.duration, w.stealing);
}

} // namespace rtscope

#include "moc_contention_controls.cpp"
