#pragma once
// The base of the Qt Charts widgets: their colours, fonts and pens follow every palette, font and style change.
#include <QWidget>

namespace rtscope::plot {

class RestyledWidget : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

protected:
    void changeEvent(QEvent* event) override;
    /// Styles the widget from its palette and font as they are now. The subclass's constructor calls it once its
    /// chart is built: this base's constructor could not reach the override.
    virtual void restyle() = 0;
};

} // namespace rtscope::plot
