#include "ui/latency/recording_banner.h"

#include "ui/common/colors.h"
#include "ui/common/text_label.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace rtscope {

ReplayBanner::ReplayBanner(QWidget* parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
    , m_back(new QPushButton(tr("Back to live"), this))
{
    setObjectName("replayBanner");
    // Fixed colours (like the RT banner): the strip must read as "not live" on the light and the dark theme.
    setStyleSheet(QString("#replayBanner { background: #e3f0fb; border: 2px solid %1; border-radius: 4px; }"
                          "#replayBanner QLabel { color: #0d2a4a; }")
                      .arg(colors::css(colors::kBlue800)));
    initTextLabel(m_text, "replayBannerText", Qt::RichText);
    m_back->setObjectName("backToLive");
    m_back->setToolTip(tr("Leave the replay: the views show the live measurement again (Start does this too)"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_back, 0, Qt::AlignVCenter);
    connect(m_back, &QPushButton::clicked, this, &ReplayBanner::backToLive);
}

void ReplayBanner::setText(const QString& text)
{
    m_text->setText(text);
}

QString ReplayBanner::text() const
{
    return m_text->text();
}

} // namespace rtscope
