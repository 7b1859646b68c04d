#pragma once
// The base of the QPainter widgets that work out where each piece is drawn from their size and font, once, rather
// than on every paint.
#include <QWidget>

namespace rtscope::plot {

class LaidOutWidget : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

protected:
    void resizeEvent(QResizeEvent* event) override;
    /// A font or palette change lays the widget out again and asks for a new size hint (the text is measured).
    void changeEvent(QEvent* event) override;
    /// Places everything for the current size, font and data; the subclass calls it too when its data changes.
    virtual void relayout() = 0;
};

} // namespace rtscope::plot
