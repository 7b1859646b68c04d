#include "ui/system_panel.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"
#include "ui/common/colors.h"
#include "ui/common/rtkit_client.h"
#include "ui/common/text_format.h"

#include <QFormLayout>
#include <QLabel>

namespace rtscope {

namespace {
QString cpuList(const std::vector<int>& cpus)
{
    return cpus.empty() ? QObject::tr("none") : QString::fromStdString(formatCpuList(cpus));
}
} // namespace

QList<QPair<QString, QString>> SystemPanel::rows(const SystemProbe& p)
{
    QList<QPair<QString, QString>> out;
    out << qMakePair(QObject::tr("Kernel"), QString::fromStdString(p.kernelRelease));
    out << qMakePair(QObject::tr("Preemption"), QString::fromStdString(p.preemptModel));
    out << qMakePair(QObject::tr("Scheduler"),
                     QString::fromStdString(p.scheduler) + (p.fairServer ? QObject::tr(" + fair server") : QString()));
    out << qMakePair(QObject::tr("Fair server"), QString::fromStdString(p.fairServerSummary()));
    out << qMakePair(QObject::tr("Clocksource"), QString::fromStdString(p.clocksource));
    out << qMakePair(QObject::tr("Timer slack"), durationQt(p.timerSlackNs));
    QString throttling;
    if (p.rtRuntimeUs < 0)
        throttling = QObject::tr("off (sched_rt_runtime_us = -1)");
    else
        throttling = QObject::tr("%1 of %2 µs").arg(p.rtRuntimeUs).arg(p.rtPeriodUs);
    out << qMakePair(QObject::tr("RT throttling"), throttling);
    out << qMakePair(QObject::tr("RT priority"),
                     p.rtAvailable ? QObject::tr("available") : QObject::tr("NOT available"));
    // Which way real-time priority comes, or why none does: the kernel (CAP_SYS_NICE, RLIMIT_RTPRIO) or rtkit.
    out << qMakePair(QObject::tr("RT path"), rtPathText(p));
    out << qMakePair(QObject::tr("Virtual machine"),
                     p.virtualMachine
                         ? QObject::tr("yes") +
                               (p.hypervisor.empty() ? QString() : " (" + QString::fromStdString(p.hypervisor) + ")")
                         : QObject::tr("no"));
    out << qMakePair(QObject::tr("CPUs"),
                     QObject::tr("%1 online, %2 isolated").arg(cpuList(p.onlineCpus), cpuList(p.isolatedCpus)));
    out << qMakePair(QObject::tr("cpu_dma_latency"),
                     p.dmaLatencyAvailable ? QObject::tr("writable") : QString::fromStdString(p.dmaLatencyReason));
    return out;
}

QString SystemPanel::rtBannerText(const SystemProbe& p)
{
    if (p.rtAvailable)
        return {};
    return QObject::tr("Real-time scheduling is not available to rtscope, so SCHED_FIFO and SCHED_RR cannot run "
                       "here: %1 They stay selectable; starting them shows the error instead of running "
                       "SCHED_OTHER.")
        .arg(QString::fromStdString(p.rtUnavailableReason));
}

SystemPanel::SystemPanel(const SystemProbe& probe, QWidget* parent)
    : QWidget(parent)
{
    setObjectName("systemPanel");
    auto* form = new QFormLayout(this);
    form->setLabelAlignment(Qt::AlignLeft);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const auto& [label, value] : rows(probe)) {
        auto* v = new QLabel(value, this);
        v->setWordWrap(true);
        v->setTextInteractionFlags(Qt::TextSelectableByMouse);
        if (label == QObject::tr("RT priority") && !probe.rtAvailable) {
            v->setStyleSheet(QString("QLabel { color: %1; font-weight: bold; }").arg(colors::css(colors::kRed700)));
            v->setToolTip(QString::fromStdString(probe.rtUnavailableReason));
        }
        if (label == QObject::tr("Fair server"))
            v->setToolTip(QString::fromStdString(probe.fairServerText())); // what it is, and why values are missing
        form->addRow(label, v);
    }
}

} // namespace rtscope

#include "moc_system_panel.cpp"
