#pragma once
// Application-wide look: a light or dark Fusion palette on request, a font size readable from the back of a
// lecture hall, and the compiled-in resources (icons).
#include <QIcon>
#include <QPalette>
#include <QString>

class QApplication;

namespace rtscope {

/// Registers resources/rtscope.qrc, which lives in the static rtscope_ui library. Idempotent.
void initUiResources();

/// "light" or "dark" selects Fusion with that palette; an empty string keeps the platform's style.
/// Returns false for an unknown name.
bool applyTheme(QApplication& app, const QString& theme);
/// Sets the application font to @p points (> 0).
void applyFontSize(QApplication& app, double points);

/// Presentation mode's palette: black on white, or white on black when @p dark, with saturated highlights and no
/// mid greys, which a projector washes out.
QPalette highContrastPalette(bool dark);

/// An icon from the resources by base name ("start", "stop", …).
QIcon uiIcon(const QString& name);

} // namespace rtscope
