#include "ui/locks/inversion/inversion_controls.h"

#include "engine/rt/sched_policy.h"
#include "ui/locks/inversion/inversion_view_data.h"
#include "ui/widgets/duration_spin_box.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

namespace rtscope {

namespace {
constexpr int kNoCompare = -1;

BlockedFields blocked(const InversionControlWidgets& w)
{
    return BlockedFields(w.lock, w.burst, w.hold, w.period, w.duration, w.cpu, w.lowPriority, w.mediumPriority,
                         w.highPriority);
}
} // namespace

void InversionConfigMapper::populate(const std::vector<int>& cpus)
{
    {
        const BlockedFields block = blocked(m_w);
        m_w.lock->clear();
        for (LockKind k : InversionConfig::inversionKinds())
            m_w.lock->addItem(inversionLockText(k), int(k));
        m_w.burst->setRangeNs(InversionConfig::kMinBurstNs, InversionConfig::kMaxBurstNs);
        m_w.hold->setRangeNs(InversionConfig::kMinHoldNs, InversionConfig::kMaxHoldNs);
        m_w.period->setRangeNs(InversionConfig::kMinPeriodNs, InversionConfig::kMaxPeriodNs);
        m_w.duration->setRangeNs(InversionConfig::kMinDurationNs, InversionConfig::kMaxDurationNs);
        m_w.cpu->clear();
        m_w.cpu->addItem(QObject::tr("auto (highest free CPU)"), -1);
        refillCpuCombo(m_w.cpu, cpus);
        for (QSpinBox* s : {m_w.lowPriority, m_w.mediumPriority, m_w.highPriority})
            s->setRange(priorityMin(Policy::Fifo), InversionConfig::kMaxPriority);
    }
    setConfig(InversionConfig{});
}

QStringList InversionConfigMapper::unrepresentable(const InversionConfig& c) const
{
    QStringList out;
    if (m_w.cpu->findData(c.cpu) < 0)
        out << QString("cpu must be one of the online CPUs or auto in the window (got %1)").arg(c.cpu);
    return out;
}

void InversionConfigMapper::setConfig(const InversionConfig& c)
{
    const BlockedFields block = blocked(m_w);
    selectComboData(m_w.lock, int(c.lock));
    m_w.burst->setValueNs(c.mediumBurstNs);
    m_w.hold->setValueNs(c.holdNs);
    m_w.period->setValueNs(c.periodNs);
    m_w.duration->setValueNs(c.durationNs);
    selectComboData(m_w.cpu, c.cpu);
    m_w.lowPriority->setValue(c.lowPriority);
    m_w.mediumPriority->setValue(c.mediumPriority);
    m_w.highPriority->setValue(c.highPriority);
}

InversionConfig InversionConfigMapper::config(const InversionConfig& base) const
{
    InversionConfig c = base;
    c.lock = LockKind(comboData(m_w.lock, int(base.lock)));
    c.mediumBurstNs = m_w.burst->valueNs();
    c.holdNs = m_w.hold->valueNs();
    c.periodNs = m_w.period->valueNs();
    c.durationNs = m_w.duration->valueNs();
    c.cpu = comboData(m_w.cpu, base.cpu);
    c.lowPriority = m_w.lowPriority->value();
    c.mediumPriority = m_w.mediumPriority->value();
    c.highPriority = m_w.highPriority->value();
    return c;
}

InversionControls::InversionControls(const std::vector<int>& cpus, QWidget* parent)
    : MappedControls(tr("Three SCHED_FIFO threads on one CPU, never the first one: it stays free for this window, "
                        "the collector and the watchdog. The medium burst is bounded by its own clock and by the "
                        "watchdog."),
                     tr("The settings are fixed during a run: stop to change them."), parent)
    , m_compare(new QComboBox(form()))
{
    QWidget* f = form();
    InversionControlWidgets w;
    w.lock = newField<QComboBox>("lock", tr("The lock the low and the high thread share"));
    w.burst = newField<DurationSpinBox>(
        "burst", tr("How long the medium thread spins each period, without the lock (100 µs … 1 s)"));
    w.hold = newField<DurationSpinBox>(
        "hold", tr("The low thread's critical section: CPU work while holding the lock (at most half the "
                   "period)"));
    w.period = newField<DurationSpinBox>("period", tr("All three threads are released once per period"));
    w.duration = newField<DurationSpinBox>("duration");
    w.cpu =
        newField<QComboBox>("cpu", tr("The one CPU of all three threads. The first CPU is reserved for the window, the "
                                      "collector and the watchdog."));
    w.lowPriority = newField<QSpinBox>("lowPriority");
    w.mediumPriority = newField<QSpinBox>("mediumPriority");
    w.highPriority =
        newField<QSpinBox>("highPriority", tr("Also the ceiling of the ceiling lock; 99 is kept for the watchdog"));
    for (QSpinBox* s : {w.lowPriority, w.mediumPriority, w.highPriority})
        s->setKeyboardTracking(false);
    setUpMapper(w, cpus);
    m_autoNamesCpu = false; // auto is not one CPU here

    m_compare->setObjectName("compareWith");
    m_compare->addItem(tr("nothing: stop"), kNoCompare);
    for (LockKind k : InversionConfig::inversionKinds())
        m_compare->addItem(tr("hold it, then run %1").arg(QString::fromLatin1(lockKindName(k))), int(k));
    m_compare->setToolTip(tr("When the run ends by itself, keep it as the reference and start the same setup "
                             "with another lock: both runs side by side with one Start"));

    auto* priorities = new QHBoxLayout;
    priorities->addWidget(new QLabel(tr("low"), f));
    priorities->addWidget(w.lowPriority, 1);
    priorities->addWidget(new QLabel(tr("medium"), f));
    priorities->addWidget(w.mediumPriority, 1);
    priorities->addWidget(new QLabel(tr("high"), f));
    priorities->addWidget(w.highPriority, 1);

    auto* grid = new QFormLayout(f);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    grid->addRow(tr("&Lock"), w.lock);
    grid->addRow(tr("Medium &burst"), w.burst);
    grid->addRow(tr("Low's &hold"), w.hold);
    grid->addRow(tr("&Period"), w.period);
    grid->addRow(tr("&Duration"), w.duration);
    grid->addRow(tr("&CPU"), w.cpu);
    grid->addRow(tr("FIFO priorities"), priorities);
    grid->addRow(tr("&After the run"), m_compare);

    watchFields(
        this, [this] { emit edited(); }, w.lock, w.cpu, w.burst, w.hold, w.period, w.duration, w.lowPriority,
        w.mediumPriority, w.highPriority);
}

std::optional<LockKind> InversionControls::compareWith() const
{
    const int v = comboData(m_compare, kNoCompare);
    return v == kNoCompare ? std::nullopt : std::optional<LockKind>(LockKind(v));
}

void InversionControls::setCompareWith(std::optional<LockKind> lock)
{
    selectComboData(m_compare, lock ? int(*lock) : kNoCompare);
}

} // namespace rtscope

#include "moc_inversion_controls.cpp"
