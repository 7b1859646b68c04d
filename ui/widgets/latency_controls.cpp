#include "ui/widgets/latency_controls.h"

#include "ui/common/text_label.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/widgets/period_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace rtscope {

LatencyControls::LatencyControls(const std::vector<int>& cpus, QWidget* parent)
    : MappedControls(tr("Every change applies to the running experiment at once and leaves a marker on the timeline."),
                     parent)
{
    LatencyControlWidgets w;
    w.policy = newField<QComboBox>("policy", tr("Scheduling policy of the measuring thread"));
    w.priority = newSpinField<QSpinBox>("priority");
    w.period = new PeriodEditor(LatencyConfigMapper::kMinPeriodNs, LatencyConfigMapper::kMaxPeriodNs, form());
    w.runtime = newField<DurationSpinBox>(
        "runtime", tr("SCHED_DEADLINE: the CPU time the measuring thread may use in each period; the kernel "
                      "admits it only if every CPU's declared bandwidth stays under its limit"));
    w.deadline = newField<DurationSpinBox>(
        "deadline", tr("SCHED_DEADLINE: the runtime is due within this time of each period's start, "
                       "runtime ≤ deadline ≤ period; type 0 for the period"));
    w.hogs = newSpinField<QSpinBox>("hogs", tr("CPU-bound SCHED_OTHER threads competing for the hog CPU"));
    w.cpu = newField<QComboBox>("cpu", tr("The CPU the measuring thread is pinned to"));
    w.hogCpu = newField<QComboBox>("hogCpu", tr("The CPU the hogs are pinned to"));
    w.waiter = newField<QComboBox>("waiter", tr("How the measuring thread waits for its next period"));
    m_traceRow = new QWidget(form());
    w.trace = new QCheckBox(tr("E&xplain spikes (kernel tracing)"), m_traceRow);
    w.trace->setObjectName("trace");
    m_traceNote = new QLabel(m_traceRow);
    initTextLabel(m_traceNote, "traceNote");
    auto* traceLayout = new QVBoxLayout(m_traceRow);
    traceLayout->setContentsMargins(0, 4, 0, 0);
    traceLayout->setSpacing(2);
    traceLayout->addWidget(w.trace);
    traceLayout->addWidget(m_traceNote);
    setUpMapper(w, cpus);
    w.priority->setToolTip(tr("Real-time priority %1–%2 (sched_get_priority_min/max), for FIFO and RR only")
                               .arg(w.priority->minimum())
                               .arg(w.priority->maximum()));

    QFormLayout* rows = formLayout();
    rows->addRow(tr("&Policy"), w.policy);
    rows->addRow(tr("P&riority"), w.priority);
    rows->addRow(tr("P&eriod"), w.period);
    rows->addRow(tr("R&untime"), w.runtime);
    rows->addRow(tr("&Deadline"), w.deadline);
    rows->addRow(tr("CPU &hogs"), w.hogs);
    rows->addRow(tr("&Measuring CPU"), w.cpu);
    rows->addRow(tr("H&og CPU"), w.hogCpu);
    rows->addRow(tr("&Waiter"), w.waiter);
    rows->addRow(m_traceRow);
    m_mapper->updateEnabled(); // again, now that the deadline rows are in the form
    setTraceProbe(TraceSession::probe());

    watchMapped(w.policy);
    watchFields(
        this, [this] { emit edited(); }, w.priority, w.period, w.runtime, w.deadline, w.hogs, w.cpu, w.hogCpu, w.waiter,
        w.trace);
}

void LatencyControls::setCpus(const std::vector<int>& cpus)
{
    if (m_mapper->setCpus(cpus))
        emit edited();
}

void LatencyControls::insertRow(int row, const QString& label, QWidget* field)
{
    formLayout()->insertRow(row, label, field);
}

void LatencyControls::setRowVisible(QWidget* field, bool visible)
{
    formLayout()->setRowVisible(field, visible);
}

void LatencyControls::setTraceProbe(const TraceProbe& probe)
{
    m_traceProbe = probe;
    QCheckBox* box = m_mapper->widgets().trace;
    const QString what =
        tr("Records the kernel's scheduler, interrupt and timer events on the measured CPU (a private tracefs "
           "instance) and explains the worst wake-ups: timer IRQ delay, interrupts, scheduling delay with the task "
           "that held the CPU, return to user. Applies to the running experiment at once.");
    QString note;
    if (!probe.usable) {
        note = tr("Unavailable: %1").arg(QString::fromStdString(probe.reason));
        box->setToolTip(note);
    } else {
        if (!probe.reason.empty()) // tracefs needs mounting: the run will do it
            note = QString::fromStdString(probe.reason) + ".";
        if (!probe.missingEvents.empty())
            note += (note.isEmpty() ? "" : " ") + tr("This kernel lacks %n of the events (parts that need them stay "
                                                     "unknown).",
                                                     nullptr, int(probe.missingEvents.size()));
        box->setToolTip(note.isEmpty() ? what : what + "\n\n" + note);
    }
    box->setEnabled(probe.usable);
    m_traceNote->setText(note);
    m_traceNote->setVisible(!note.isEmpty());
}

void LatencyControls::setTraceTarget(bool onTarget)
{
    if (!onTarget)
        return setTraceProbe(TraceSession::probe());
    TraceProbe target;
    target.usable = true; // the agent checks; a refusal there reaches the page as the run's "tracing unavailable"
    target.reason = tr("On the target: its tracefs is checked when the run starts there, and the explanation arrives "
                       "when the run ends")
                        .toStdString();
    setTraceProbe(target);
}

QString LatencyControls::traceNote() const
{
    return m_traceNote->text();
}

} // namespace rtscope

#include "moc_latency_controls.cpp"
