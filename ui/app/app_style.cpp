#include "ui/app/app_style.h"

#include <QApplication>
#include <QFont>
#include <QPalette>
#include <QStyleFactory>

// Q_INIT_RESOURCE declares the resource's init function in the enclosing namespace, so it must be used
// outside namespace rtscope.
static void initRtscopeQrc()
{
    Q_INIT_RESOURCE(rtscope);
}

namespace rtscope {

void initUiResources()
{
    static bool done = false;
    if (!done) {
        initRtscopeQrc();
        done = true;
    }
}

namespace {
/// The colours a theme chooses: both themes fill the same roles with them.
struct ThemeColors {
    QColor window;
    QColor base;
    QColor alternateBase;
    QColor toolTipBase;
    QColor text;
    QColor button;
    QColor highlight;
    QColor placeholder;
    QColor disabled; ///< the text of a disabled widget
};

QPalette themePalette(const ThemeColors& c)
{
    QPalette p;
    p.setColor(QPalette::Window, c.window);
    p.setColor(QPalette::WindowText, c.text);
    p.setColor(QPalette::Base, c.base);
    p.setColor(QPalette::AlternateBase, c.alternateBase);
    p.setColor(QPalette::ToolTipBase, c.toolTipBase);
    p.setColor(QPalette::ToolTipText, c.text);
    p.setColor(QPalette::Text, c.text);
    p.setColor(QPalette::Button, c.button);
    p.setColor(QPalette::ButtonText, c.text);
    p.setColor(QPalette::Highlight, c.highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, c.placeholder);
    p.setColor(QPalette::Disabled, QPalette::Text, c.disabled);
    p.setColor(QPalette::Disabled, QPalette::WindowText, c.disabled);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, c.disabled);
    return p;
}

QPalette darkPalette()
{
    const QColor window(0x2b, 0x2d, 0x31);
    QPalette p = themePalette({.window = window,
                               .base = QColor(0x1e, 0x1f, 0x22),
                               .alternateBase = QColor(0x27, 0x29, 0x2d),
                               .toolTipBase = window,
                               .text = QColor(0xe8, 0xe8, 0xe8),
                               .button = QColor(0x35, 0x37, 0x3c),
                               .highlight = QColor(0x42, 0x7f, 0xc8),
                               .placeholder = QColor(0x9a, 0x9a, 0x9a),
                               .disabled = QColor(0x80, 0x80, 0x80)});
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x64, 0xb5, 0xf6));
    return p;
}

QPalette lightPalette()
{
    return themePalette({.window = QColor(0xf3, 0xf4, 0xf6),
                         .base = Qt::white,
                         .alternateBase = QColor(0xf0, 0xf3, 0xf8),
                         .toolTipBase = QColor(0xff, 0xff, 0xe0),
                         .text = QColor(0x14, 0x14, 0x14),
                         .button = QColor(0xe6, 0xe8, 0xec),
                         .highlight = QColor(0x1e, 0x6f, 0xd9),
                         .placeholder = QColor(0x70, 0x70, 0x70),
                         .disabled = QColor(0x90, 0x90, 0x90)});
}
} // namespace

QPalette highContrastPalette(bool dark)
{
    QPalette p;
    const QColor bg = dark ? Qt::black : Qt::white;
    const QColor fg = dark ? Qt::white : Qt::black;
    for (QPalette::ColorRole role : {QPalette::Window, QPalette::Base, QPalette::Button, QPalette::ToolTipBase})
        p.setColor(role, bg);
    for (QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText, QPalette::PlaceholderText})
        p.setColor(role, fg);
    p.setColor(QPalette::AlternateBase, dark ? QColor(0x1a, 0x1a, 0x1a) : QColor(0xee, 0xf2, 0xff));
    p.setColor(QPalette::BrightText, dark ? QColor(0xff, 0x52, 0x52) : QColor(0xc6, 0x00, 0x00));
    p.setColor(QPalette::Link, dark ? QColor(0x82, 0xb1, 0xff) : QColor(0x00, 0x3c, 0xb4));
    p.setColor(QPalette::Highlight, dark ? QColor(0xff, 0xeb, 0x3b) : QColor(0x00, 0x3c, 0xb4));
    p.setColor(QPalette::HighlightedText, dark ? Qt::black : Qt::white);
    p.setColor(QPalette::Light, fg);
    p.setColor(QPalette::Mid, fg);
    p.setColor(QPalette::Dark, fg);
    p.setColor(QPalette::Shadow, fg);
    // Disabled controls stay legible: dimmed, not grey-on-grey.
    const QColor disabled = dark ? QColor(0xb0, 0xb0, 0xb0) : QColor(0x50, 0x50, 0x50);
    for (QPalette::ColorRole role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

bool applyTheme(QApplication& app, const QString& theme)
{
    if (theme.isEmpty())
        return true;
    if (theme != "light" && theme != "dark")
        return false;
    app.setStyle(QStyleFactory::create("Fusion"));
    app.setPalette(theme == "dark" ? darkPalette() : lightPalette());
    return true;
}

void applyFontSize(QApplication& app, double points)
{
    if (points <= 0)
        return;
    QFont f = app.font();
    f.setPointSizeF(points);
    app.setFont(f);
}

QIcon uiIcon(const QString& name)
{
    initUiResources();
    return QIcon(":/rtscope/icons/" + name + ".svg");
}

} // namespace rtscope
