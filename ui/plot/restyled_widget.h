#pragma once
// The base of the Qt Charts widgets: their colours, fonts and pens follow every palette, font and style change.
#include <QWidget>

#include <functional>

namespace rtscope::plot {

class RestyledWidget : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

protected:
    /// Styles the widget with @p restyle from its palette and font as they are now, and again after every palette,
    /// font or style change. The subclass's constructor calls it once its chart is built.
    void setRestyle(std::function<void()> restyle);
    void changeEvent(QEvent* event) override;

private:
    std::function<void()> m_restyle;
};

} // namespace rtscope::plot
