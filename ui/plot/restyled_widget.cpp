#include "ui/plot/restyled_widget.h"

#include "ui/plot/chart_setup.h"

namespace rtscope::plot {

void RestyledWidget::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (restylesFor(event))
        restyle();
}

} // namespace rtscope::plot
