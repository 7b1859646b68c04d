#include "ui/latency/recording_banner.h"

#include "ui/common/colors.h"

#include <QLabel>

namespace rtscope {

ReplayBanner::ReplayBanner(QWidget* parent)
    : ActionBanner("replayBanner", "replayBannerText", Qt::RichText, 6, parent)
{
    // Fixed colours (like the RT banner): the strip must read as "not live" on the light and the dark theme.
    setStyleSheet(QString("#replayBanner { background: #e3f0fb; border: 2px solid %1; border-radius: 4px; }"
                          "#replayBanner QLabel { color: #0d2a4a; }")
                      .arg(colors::css(colors::kBlue800)));
    m_back = addButton(tr("Back to live"), "backToLive", &ReplayBanner::backToLive, Qt::AlignVCenter);
    m_back->setToolTip(tr("Leave the replay: the views show the live measurement again (Start does this too)"));
}

void ReplayBanner::setText(const QString& text)
{
    m_text->setText(text);
}

} // namespace rtscope

#include "moc_recording_banner.cpp"
