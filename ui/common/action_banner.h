#pragma once
// A strip above the pages that says something and offers what to do about it: its text fills the width, its buttons
// stand on the right, each a signal of the banner. The banners (the replay, the target, the doctor's changes) differ
// in their colours, their text and their buttons only.
#include <QFrame>
#include <QPushButton>

class QLabel;

namespace rtscope {

class ActionBanner : public QFrame {
    Q_OBJECT
public:
    QString text() const;
    QLabel* textLabel() const { return m_text; }

protected:
    /// A banner named @p name whose text is named @p textName in @p format, @p verticalMargin px from its edges.
    ActionBanner(const char* name, const char* textName, Qt::TextFormat format, int verticalMargin, QWidget* parent);

    /// A button @p text on the right (after those added before), named @p name, whose click emits @p signal of the
    /// banner; @p alignment its place in the row.
    template <class Banner>
    QPushButton* addButton(const QString& text, const char* name, void (Banner::*signal)(),
                           Qt::Alignment alignment = {})
    {
        QPushButton* button = newButton(text, name, alignment);
        connect(button, &QPushButton::clicked, static_cast<Banner*>(this), signal);
        return button;
    }

    QLabel* m_text;

private:
    QPushButton* newButton(const QString& text, const char* name, Qt::Alignment alignment);
};

} // namespace rtscope
