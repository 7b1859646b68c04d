#include "ui/deadline/deadline_controls.h"

#include "engine/util/clock.h"
#include "engine/util/units.h"
#include "ui/common/text_format.h"
#include "ui/widgets/duration_spin_box.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

namespace rtscope {

namespace {
// The spin boxes take any value the kernel could: the lab's own rules are validate()'s to state.
constexpr int64_t kDeadlineCtlMinNs = 1'000;                        // 1 µs
constexpr int64_t kDeadlineCtlMaxNs = DeadlineConfig::kMaxPeriodNs; // 1 s

// One duration as the field shows it: "5 ms", or exact nanoseconds when the short form would round.
QString deadlineTaskDuration(int64_t ns)
{
    QString s = DurationSpinBox::formatNs(ns);
    const std::optional<int64_t> back = parseDuration(QString(s).remove(' ').toStdString());
    return back && *back == ns ? s : QString("%1 ns").arg(ns);
}

// "5ms/10ms, 3 ms / 10 ms": every task, or the sentence naming what is not RUNTIME/PERIOD.
std::vector<DeadlineParams> deadlineParseTasks(const QString& text, QStringList* problems)
{
    std::vector<DeadlineParams> out;
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return out;
    const QStringList items = trimmed.split(',', Qt::SkipEmptyParts);
    for (int i = 0; i < items.size(); ++i) {
        const QString item = QString(items[i]).remove(' ');
        const QStringList parts = item.split('/');
        std::optional<int64_t> rt, per;
        if (parts.size() == 2) {
            rt = parseDuration(parts[0].toStdString(), kNsPerUs);
            per = parseDuration(parts[1].toStdString(), kNsPerUs);
        }
        if (!rt || !per) {
            if (problems)
                *problems << QObject::tr("tasks: '%1' (task %2) is not RUNTIME/PERIOD, e.g. 5ms/10ms; separate "
                                         "tasks with commas (bare numbers are microseconds)")
                                 .arg(items[i].trimmed())
                                 .arg(i + 1);
            continue;
        }
        out.push_back({*rt, *per, *per});
    }
    return out;
}

QString deadlineRangeSentence(const char* field, int lo, int hi, int got)
{
    return QObject::tr("%1 must be between %2 and %3 in the window (got %4)").arg(field).arg(lo).arg(hi).arg(got);
}
} // namespace

QString DeadlineControls::tasksText(const std::vector<DeadlineParams>& tasks)
{
    QStringList parts;
    for (const DeadlineParams& p : tasks)
        parts << deadlineTaskDuration(p.runtimeNs) + "/" + deadlineTaskDuration(p.periodNs);
    return parts.join(", ");
}

DeadlineControls::DeadlineControls(const std::vector<int>& cpus, QWidget* parent)
    : ExperimentControls(tr("Deadline threads cannot be pinned (the root-domain rule): the kernel places them. The "
                            "runaway is bounded by its own end and by a watchdog on another CPU."),
                         tr("The settings are fixed while a lesson runs: stop to change them."), parent)
{
    auto spin = [this](const char* name, int64_t lo, int64_t hi, const QString& tip) {
        auto* s = new DurationSpinBox(form());
        s->setObjectName(name);
        s->setRangeNs(lo, hi);
        s->setToolTip(tip);
        return s;
    };
    auto cpuBox = [this, &cpus](const char* name, const QString& tip) {
        auto* b = new QComboBox(form());
        b->setObjectName(name);
        b->addItem(tr("auto (highest usable CPU)"), -1);
        refillCpuCombo(b, cpus);
        b->setToolTip(tip);
        return b;
    };
    m_w.lesson = newField<QComboBox>("lesson");
    m_w.lesson->addItem(tr("Admission: the kernel's bandwidth limit"), int(DeadlineLesson::Admission));
    m_w.lesson->addItem(tr("Isolation: a throttled runaway"), int(DeadlineLesson::Isolation));
    m_w.lesson->addItem(tr("EDF vs inverted FIFO priorities"), int(DeadlineLesson::Edf));
    m_w.tasks = newField<QLineEdit>("tasks");
    m_w.tasks->setPlaceholderText(tr("default: 5 ms/10 ms tasks until one is refused"));
    m_w.tasks->setToolTip(tr("The deadline tasks to add one by one, RUNTIME/PERIOD separated by commas (deadline = "
                             "period; bare numbers are µs), at most %1. Empty: 50 % tasks, one more than the CPUs "
                             "hold.")
                              .arg(DeadlineConfig::kMaxTasks));
    m_w.duration = spin("duration", DeadlineConfig::kMinDurationNs, DeadlineConfig::kMaxDurationNs,
                        tr("Isolation: the whole run; EDF: each of the two phases"));
    m_w.runawayPolicy = newField<QComboBox>("runawayPolicy");
    m_w.runawayPolicy->addItem(tr("SCHED_DEADLINE (throttled)"), int(DeadlineRunawayPolicy::Deadline));
    m_w.runawayPolicy->addItem(tr("SCHED_FIFO (the starvation trap)"), int(DeadlineRunawayPolicy::Fifo));
    m_w.runawayPolicy->setToolTip(tr("DEADLINE: the runaway is held to its runtime every period. FIFO: it is "
                                     "pinned to the counter's CPU and spins for the whole run, as in the "
                                     "starvation lab: run it, hold it (H), then run the DEADLINE one."));
    m_w.runawayPriority = newSpinField<QSpinBox>("runawayPriority");
    m_w.runawayPriority->setRange(DeadlineConfig::kMinPriority, DeadlineConfig::kMaxPriority);
    m_w.runawayPriority->setToolTip(
        tr("The FIFO runaway's priority; the watchdog runs above it at %1").arg(DeadlineConfig::kWatchdogPriority));
    m_w.runawayRuntime = spin("runawayRuntime", kDeadlineCtlMinNs, kDeadlineCtlMaxNs,
                              tr("The runtime the runaway declares; it then spins and never sleeps"));
    m_w.runawayPeriod = spin("runawayPeriod", kDeadlineCtlMinNs, kDeadlineCtlMaxNs,
                             tr("The runaway's period (= deadline): it is throttled for the rest of each period"));
    m_w.goodRuntime =
        spin("goodRuntime", kDeadlineCtlMinNs, kDeadlineCtlMaxNs, tr("The well-behaved task's declared runtime"));
    m_w.goodPeriod =
        spin("goodPeriod", kDeadlineCtlMinNs, kDeadlineCtlMaxNs, tr("The well-behaved task's period (= deadline)"));
    m_w.goodWork = spin("goodWork", kDeadlineCtlMinNs, kDeadlineCtlMaxNs,
                        tr("The CPU time each job of the well-behaved task needs (at most its runtime)"));
    m_w.counterCpu = cpuBox("counterCpu", tr("The SCHED_OTHER counter's CPU: it must keep counting"));
    m_w.shortWork = spin("shortWork", kDeadlineCtlMinNs, kDeadlineCtlMaxNs, tr("CPU time per job of the short task"));
    m_w.shortPeriod = spin("shortPeriod", kDeadlineCtlMinNs, kDeadlineCtlMaxNs, tr("The short task's period"));
    m_w.longWork = spin("longWork", kDeadlineCtlMinNs, kDeadlineCtlMaxNs, tr("CPU time per job of the long task"));
    m_w.longPeriod = spin("longPeriod", kDeadlineCtlMinNs, kDeadlineCtlMaxNs,
                          tr("The long task's period; in the FIFO phase it runs one priority above the short task"));
    m_w.priority = newSpinField<QSpinBox>("priority");
    m_w.priority->setRange(DeadlineConfig::kMinPriority, DeadlineConfig::kMaxPriority);
    m_w.priority->setToolTip(tr("FIFO phase: the short task's priority %1–%2; the long task runs one above (the "
                                "rate-monotonic order inverted)")
                                 .arg(DeadlineConfig::kMinPriority)
                                 .arg(DeadlineConfig::kMaxPriority));
    m_w.cpu = cpuBox("cpu", tr("FIFO phase: the CPU both tasks share"));

    QFormLayout* rows = formLayout();
    rows->addRow(tr("&Lesson"), m_w.lesson);
    rows->addRow(tr("&Tasks"), m_w.tasks);
    rows->addRow(tr("&Duration"), m_w.duration);
    rows->addRow(tr("Runaway &policy"), m_w.runawayPolicy);
    rows->addRow(tr("Runaway priority"), m_w.runawayPriority);
    rows->addRow(tr("Runaway runtime"), m_w.runawayRuntime);
    rows->addRow(tr("Runaway period"), m_w.runawayPeriod);
    rows->addRow(tr("Good runtime"), m_w.goodRuntime);
    rows->addRow(tr("Good period"), m_w.goodPeriod);
    rows->addRow(tr("Good work"), m_w.goodWork);
    rows->addRow(tr("Counter CPU"), m_w.counterCpu);
    rows->addRow(tr("Short work"), m_w.shortWork);
    rows->addRow(tr("Short period"), m_w.shortPeriod);
    rows->addRow(tr("Long work"), m_w.longWork);
    rows->addRow(tr("Long period"), m_w.longPeriod);
    rows->addRow(tr("P&riority"), m_w.priority);
    rows->addRow(tr("FIFO &CPU"), m_w.cpu);
    setConfig(DeadlineConfig{});

    watchFields(
        this,
        [this] {
            showLessonRows();
            emit edited();
        },
        m_w.lesson, m_w.runawayPolicy);
    watchFields(
        this, [this] { emit edited(); }, m_w.tasks, m_w.duration, m_w.runawayRuntime, m_w.runawayPeriod,
        m_w.goodRuntime, m_w.goodPeriod, m_w.goodWork, m_w.shortWork, m_w.shortPeriod, m_w.longWork, m_w.longPeriod,
        m_w.counterCpu, m_w.runawayPriority, m_w.priority, m_w.cpu);
}

DeadlineControls::~DeadlineControls() = default;

void DeadlineControls::setCpus(const std::vector<int>& cpus)
{
    // The deadline tasks themselves are never pinned (the root-domain rule): only the counter's and the FIFO phase's
    // CPU are choices.
    const bool counter = refillCpuCombo(m_w.counterCpu, cpus);
    const bool fifo = refillCpuCombo(m_w.cpu, cpus);
    if (counter || fifo)
        emit edited();
}

void DeadlineControls::showLessonRows()
{
    const auto lesson = DeadlineLesson(comboData(m_w.lesson, 0));
    const bool adm = lesson == DeadlineLesson::Admission, iso = lesson == DeadlineLesson::Isolation,
               edf = lesson == DeadlineLesson::Edf;
    QFormLayout* rows = formLayout();
    rows->setRowVisible(m_w.tasks, adm);
    rows->setRowVisible(m_w.duration, !adm);
    for (QWidget* w : std::initializer_list<QWidget*>{m_w.runawayPolicy, m_w.goodRuntime, m_w.goodPeriod, m_w.goodWork,
                                                      m_w.counterCpu})
        rows->setRowVisible(w, iso);
    // The FIFO runaway has a priority and no reservation; the deadline one the reverse.
    const bool fifo = DeadlineRunawayPolicy(comboData(m_w.runawayPolicy, 0)) == DeadlineRunawayPolicy::Fifo;
    rows->setRowVisible(m_w.runawayPriority, iso && fifo);
    rows->setRowVisible(m_w.runawayRuntime, iso && !fifo);
    rows->setRowVisible(m_w.runawayPeriod, iso && !fifo);
    for (QWidget* w : std::initializer_list<QWidget*>{m_w.shortWork, m_w.shortPeriod, m_w.longWork, m_w.longPeriod,
                                                      m_w.priority, m_w.cpu})
        rows->setRowVisible(w, edf);
}

DeadlineConfig DeadlineControls::config(const DeadlineConfig& base) const
{
    DeadlineConfig c = base;
    c.lesson = DeadlineLesson(comboData(m_w.lesson, int(base.lesson)));
    QStringList problems;
    const std::vector<DeadlineParams> tasks = deadlineParseTasks(m_w.tasks->text(), &problems);
    if (problems.isEmpty())
        c.tasks = tasks; // with a typing error the page refuses to start (tasksProblems()); base keeps its list
    c.durationNs = m_w.duration->valueNs();
    c.runaway = {m_w.runawayRuntime->valueNs(), m_w.runawayPeriod->valueNs(), m_w.runawayPeriod->valueNs()};
    c.good = {m_w.goodRuntime->valueNs(), m_w.goodPeriod->valueNs(), m_w.goodPeriod->valueNs()};
    c.goodWorkNs = m_w.goodWork->valueNs();
    c.runawayPolicy = DeadlineRunawayPolicy(comboData(m_w.runawayPolicy, int(base.runawayPolicy)));
    c.runawayPriority = m_w.runawayPriority->value();
    c.counterCpu = comboData(m_w.counterCpu, base.counterCpu);
    c.shortWorkNs = m_w.shortWork->valueNs();
    c.shortPeriodNs = m_w.shortPeriod->valueNs();
    c.longWorkNs = m_w.longWork->valueNs();
    c.longPeriodNs = m_w.longPeriod->valueNs();
    c.priority = m_w.priority->value();
    c.cpu = comboData(m_w.cpu, base.cpu);
    return c;
}

QStringList DeadlineControls::tasksProblems() const
{
    QStringList problems;
    deadlineParseTasks(m_w.tasks->text(), &problems);
    return problems;
}

QStringList DeadlineControls::unrepresentable(const DeadlineConfig& c) const
{
    QStringList out;
    if (m_w.lesson->findData(int(c.lesson)) < 0)
        out << tr("lesson must be admission, isolation or edf (got %1)").arg(int(c.lesson));
    auto duration = [&out](const char* field, int64_t ns, const DurationSpinBox* s) {
        if (ns < int64_t(s->minimum()) || ns > int64_t(s->maximum()))
            out << screenText(std::string(field) + " must be between " +
                              formatDurationRange(int64_t(s->minimum()), int64_t(s->maximum())) +
                              " in the window (got " + formatDuration(ns) + ")");
    };
    duration("duration", c.durationNs, m_w.duration);
    duration("runaway-runtime", c.runaway.runtimeNs, m_w.runawayRuntime);
    duration("runaway-period", c.runaway.periodNs, m_w.runawayPeriod);
    duration("good-runtime", c.good.runtimeNs, m_w.goodRuntime);
    duration("good-period", c.good.periodNs, m_w.goodPeriod);
    duration("good-work", c.goodWorkNs, m_w.goodWork);
    duration("short-work", c.shortWorkNs, m_w.shortWork);
    duration("short-period", c.shortPeriodNs, m_w.shortPeriod);
    duration("long-work", c.longWorkNs, m_w.longWork);
    duration("long-period", c.longPeriodNs, m_w.longPeriod);
    if (c.runaway.deadlineNs != c.runaway.periodNs || c.good.deadlineNs != c.good.periodNs)
        out << tr("runaway and good: the window sets deadline = period (got a different deadline)");
    for (size_t i = 0; i < c.tasks.size(); ++i)
        if (c.tasks[i].deadlineNs != c.tasks[i].periodNs)
            out << tr("tasks: the window sets deadline = period (task %1 has another deadline)").arg(i + 1);
    if (m_w.runawayPolicy->findData(int(c.runawayPolicy)) < 0)
        out << tr("runaway-policy must be deadline or fifo (got %1)").arg(int(c.runawayPolicy));
    if (c.runawayPriority < m_w.runawayPriority->minimum() || c.runawayPriority > m_w.runawayPriority->maximum())
        out << deadlineRangeSentence("runaway-priority", m_w.runawayPriority->minimum(), m_w.runawayPriority->maximum(),
                                     c.runawayPriority);
    if (c.priority < m_w.priority->minimum() || c.priority > m_w.priority->maximum())
        out << deadlineRangeSentence("priority", m_w.priority->minimum(), m_w.priority->maximum(), c.priority);
    if (m_w.cpu->findData(c.cpu) < 0)
        out << tr("cpu must be one of the online CPUs or auto (got %1)").arg(c.cpu);
    if (m_w.counterCpu->findData(c.counterCpu) < 0)
        out << tr("counter-cpu must be one of the online CPUs or auto (got %1)").arg(c.counterCpu);
    return out;
}

void DeadlineControls::setConfig(const DeadlineConfig& c)
{
    const BlockedFields block(m_w.lesson, m_w.tasks, m_w.counterCpu, m_w.priority, m_w.cpu, m_w.runawayPolicy,
                              m_w.runawayPriority);
    selectComboData(m_w.lesson, int(c.lesson));
    m_w.tasks->setText(tasksText(c.tasks));
    const std::pair<DurationSpinBox*, int64_t> spins[] = {{m_w.duration, c.durationNs},
                                                          {m_w.runawayRuntime, c.runaway.runtimeNs},
                                                          {m_w.runawayPeriod, c.runaway.periodNs},
                                                          {m_w.goodRuntime, c.good.runtimeNs},
                                                          {m_w.goodPeriod, c.good.periodNs},
                                                          {m_w.goodWork, c.goodWorkNs},
                                                          {m_w.shortWork, c.shortWorkNs},
                                                          {m_w.shortPeriod, c.shortPeriodNs},
                                                          {m_w.longWork, c.longWorkNs},
                                                          {m_w.longPeriod, c.longPeriodNs}};
    for (const auto& [s, ns] : spins) {
        const QSignalBlocker b(s);
        s->setValueNs(ns);
    }
    selectComboData(m_w.counterCpu, c.counterCpu);
    selectComboData(m_w.runawayPolicy, int(c.runawayPolicy));
    m_w.runawayPriority->setValue(c.runawayPriority);
    m_w.priority->setValue(c.priority);
    selectComboData(m_w.cpu, c.cpu);
    showLessonRows();
}

} // namespace rtscope

#include "moc_deadline_controls.cpp"
