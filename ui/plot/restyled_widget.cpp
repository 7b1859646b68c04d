#include "ui/plot/restyled_widget.h"

#include <QEvent>

namespace rtscope::plot {

void RestyledWidget::setRestyle(std::function<void()> restyle)
{
    m_restyle = std::move(restyle);
    m_restyle();
}

void RestyledWidget::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    const QEvent::Type t = event->type();
    if (m_restyle && (t == QEvent::PaletteChange || t == QEvent::FontChange || t == QEvent::StyleChange))
        m_restyle();
}

} // namespace rtscope::plot

#include "moc_restyled_widget.cpp"
