#include "ui/explanation_pane.h"

#include "engine/rt/system_probe.h"
#include "engine/util/units.h"
#include "ui/common/text_format.h"
#include "ui/experiment_page.h"

#include <QFontMetrics>
#include <QTextBrowser>

namespace rtscope {

QString explanationHtml(const Explanation& e)
{
    QString machine;
    for (const QString& s : e.thisMachine)
        machine += "<li>" + s + "</li>";
    return QString("<h3>%1</h3>"
                   "<p><b>What you are looking at.</b> %2</p>"
                   "<p><b>What to expect.</b> %3</p>"
                   "<p><b>Why.</b> %4</p>"
                   "<p><b>On this machine:</b></p><ul>%5</ul>")
        .arg(e.title, e.looking, e.expect, e.why, machine);
}

QString kernelSentence(const SystemProbe& p)
{
    return QObject::tr("Linux %1, <b>%2</b> scheduler, preemption <b>%3</b>%4.")
        .arg(QString::fromStdString(p.kernelRelease).toHtmlEscaped(), QString::fromStdString(p.scheduler),
             QString::fromStdString(p.preemptModel).toHtmlEscaped(),
             p.preemptRt ? QObject::tr(": nearly all kernel code can be preempted, so real-time wake-ups are at "
                                       "their tightest")
                         : QString());
}

QString schedulerSentence(const SystemProbe& p, const QString& eevdf, const QString& cfs)
{
    return p.scheduler == "EEVDF" ? eevdf : cfs;
}

QString vmSentence(const SystemProbe& p)
{
    if (!p.virtualMachine)
        return QObject::tr("No hypervisor detected.");
    return QObject::tr("A <b>virtual machine</b>%1: the hypervisor can take the CPU away at any moment, which shows "
                       "as spikes no setting in the guest removes.")
        .arg(p.hypervisor.empty() ? QString() : " (" + QString::fromStdString(p.hypervisor).toHtmlEscaped() + ")");
}

QString rtSentence(const SystemProbe& p)
{
    if (p.rtAvailable)
        return QObject::tr("SCHED_FIFO is allowed for this process.");
    return QObject::tr("<b>SCHED_FIFO is refused here</b>: %1")
        .arg(QString::fromStdString(p.rtUnavailableReason).toHtmlEscaped());
}

QString slackSentence(const SystemProbe& p)
{
    return QObject::tr("<b>Timer slack</b> of this process: <b>%1</b>; a sleeping SCHED_OTHER thread may wake up "
                       "that much late. SCHED_FIFO and SCHED_RR threads get zero slack.")
        .arg(durationQt(p.timerSlackNs));
}

ExplanationPane::ExplanationPane(QWidget* parent)
    : QDockWidget(tr("What am I seeing?"), parent)
    , m_text(new QTextBrowser(this))
{
    setObjectName("explanationDock");
    setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    m_text->setObjectName("explanationText");
    m_text->setOpenExternalLinks(false);
    m_text->setFrameShape(QFrame::NoFrame);
    // Wide enough for a short paragraph per line at lecture-hall sizes, narrow enough to leave the plots room.
    m_text->setMinimumWidth(QFontMetrics(font()).averageCharWidth() * 34);
    setWidget(m_text);
}

void ExplanationPane::showPage(const ExperimentPage* page)
{
    m_pageTitle = page ? page->shortTitle() : QString();
    setWindowTitle(page ? tr("What am I seeing? — %1").arg(m_pageTitle) : tr("What am I seeing?"));
    m_text->setHtml(page ? page->explanation() : QString());
}

QString ExplanationPane::text() const
{
    return m_text->toPlainText();
}

} // namespace rtscope

#include "moc_explanation_pane.cpp"
