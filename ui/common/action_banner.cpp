#include "ui/common/action_banner.h"

#include "ui/common/text_label.h"

#include <QHBoxLayout>
#include <QLabel>

namespace rtscope {

ActionBanner::ActionBanner(const char* name, const char* textName, Qt::TextFormat format, int verticalMargin,
                           QWidget* parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
{
    setObjectName(name);
    initTextLabel(m_text, textName, format);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, verticalMargin, 8, verticalMargin);
    layout->addWidget(m_text, 1);
}

QString ActionBanner::text() const
{
    return m_text->text();
}

QPushButton* ActionBanner::newButton(const QString& text, const char* name, Qt::Alignment alignment)
{
    auto* button = new QPushButton(text, this);
    button->setObjectName(name);
    static_cast<QHBoxLayout*>(layout())->addWidget(button, 0, alignment);
    return button;
}

} // namespace rtscope

#include "moc_action_banner.cpp"
