#include "ui/remote/target_banner.h"

#include <QLabel>

namespace rtscope {

namespace {
// Blue while measuring (a fact, not a warning), amber once the link is lost.
constexpr const char* kTargetBannerMeasuring = "QFrame#targetBanner { background: #e3f0fb; border: 2px solid #1f6fb2; "
                                               "border-radius: 4px; } QLabel { color: #0d3c61; font-weight: bold; }";
constexpr const char* kTargetBannerLost = "QFrame#targetBanner { background: #fff3cd; border: 2px solid #e0a800; "
                                          "border-radius: 4px; } QLabel { color: #5c3c00; font-weight: bold; }";
// Grey on a page that measures this computer: not an alarm, but not the blue of the target either.
constexpr const char* kTargetBannerLocal = "QFrame#targetBanner { background: #eeeeee; border: 2px solid #777777; "
                                           "border-radius: 4px; } QLabel { color: #222222; font-weight: bold; }";
} // namespace

TargetBanner::TargetBanner(QWidget* parent)
    : ActionBanner("targetBanner", "targetBannerText", Qt::AutoText, 4, parent)
{
    m_reconnect = addButton(tr("Reconnect"), "targetReconnect", &TargetBanner::reconnectRequested);
    m_save = addButton(tr("Save run so far…"), "targetSaveRun", &TargetBanner::saveRequested);
    m_save->setToolTip(tr("Save everything received from the target as a recording (.rtrec) to open later"));
    m_disconnect = addButton(tr("Disconnect"), "targetDisconnect", &TargetBanner::disconnectRequested);
    m_disconnect->setToolTip(tr("Close the link (the agent stops and leaves) and measure this machine again"));
    hide();
}

void TargetBanner::showMeasuring(const QString& machine, const QString& command)
{
    setStyleSheet(kTargetBannerMeasuring);
    m_text->setText(tr("Measuring on %1 via %2").arg(machine, command));
    m_reconnect->hide();
    m_save->hide();
    show();
}

void TargetBanner::showLost(const QString& machine, const QString& lostText, bool canSave)
{
    setStyleSheet(kTargetBannerLost);
    m_text->setText(tr("%1: %2. Everything received is kept.").arg(machine, lostText));
    m_reconnect->show();
    m_save->setVisible(canSave);
    show();
}

void TargetBanner::showLocalPage(const QString& page, const QString& localHost, const QString& machine,
                                 const QString& lostText)
{
    setStyleSheet(lostText.isEmpty() ? kTargetBannerLocal : kTargetBannerLost);
    QString text = tr("%1: this page measures this computer (%2), not %3: it does not run on a target yet.")
                       .arg(page, localHost, machine);
    if (!lostText.isEmpty())
        text += " " + tr("The link to it: %1.").arg(lostText);
    m_text->setText(text);
    m_reconnect->setVisible(!lostText.isEmpty());
    m_save->hide(); // a received recording is the Latency page's: saved from there
    show();
}

} // namespace rtscope

#include "moc_target_banner.cpp"
