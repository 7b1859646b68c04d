#include "ui/remote/target_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace rtscope {

namespace {
// Blue while measuring (a fact, not a warning), amber once the link is lost.
constexpr const char* kTargetBannerMeasuring = "QFrame#targetBanner { background: #e3f0fb; border: 2px solid #1f6fb2; "
                                               "border-radius: 4px; } QLabel { color: #0d3c61; font-weight: bold; }";
constexpr const char* kTargetBannerLost = "QFrame#targetBanner { background: #fff3cd; border: 2px solid #e0a800; "
                                          "border-radius: 4px; } QLabel { color: #5c3c00; font-weight: bold; }";
} // namespace

TargetBanner::TargetBanner(QWidget* parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
    , m_reconnect(new QPushButton(tr("Reconnect"), this))
    , m_disconnect(new QPushButton(tr("Disconnect"), this))
{
    setObjectName("targetBanner");
    m_text->setObjectName("targetBannerText");
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reconnect->setObjectName("targetReconnect");
    m_disconnect->setObjectName("targetDisconnect");
    m_disconnect->setToolTip(tr("Close the link (the agent stops and leaves) and measure this machine again"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_reconnect);
    layout->addWidget(m_disconnect);
    connect(m_reconnect, &QPushButton::clicked, this, &TargetBanner::reconnectRequested);
    connect(m_disconnect, &QPushButton::clicked, this, &TargetBanner::disconnectRequested);
    hide();
}

void TargetBanner::showMeasuring(const QString& machine, const QString& command)
{
    setStyleSheet(kTargetBannerMeasuring);
    m_text->setText(tr("Measuring on %1 via %2").arg(machine, command));
    m_reconnect->hide();
    show();
}

void TargetBanner::showLost(const QString& machine, const QString& lostText)
{
    setStyleSheet(kTargetBannerLost);
    m_text->setText(tr("%1: %2. Everything received is kept.").arg(machine, lostText));
    m_reconnect->show();
    show();
}

QString TargetBanner::text() const
{
    return m_text->text();
}

} // namespace rtscope
