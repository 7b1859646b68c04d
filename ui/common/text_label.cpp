#include "ui/common/text_label.h"

#include <QLabel>

namespace rtscope {

void initTextLabel(QLabel* label, const char* name, Qt::TextFormat format)
{
    label->setObjectName(QString::fromLatin1(name));
    label->setWordWrap(true);
    label->setTextFormat(format);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

} // namespace rtscope
