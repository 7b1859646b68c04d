#include "ui/plot/laid_out_widget.h"

#include <QEvent>

namespace rtscope::plot {

void LaidOutWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void LaidOutWidget::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        updateGeometry();
        relayout();
        update();
    }
}

} // namespace rtscope::plot

#include "moc_laid_out_widget.cpp"
