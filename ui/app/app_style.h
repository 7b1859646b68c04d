#pragma once
// Application-wide look: a light or dark Fusion palette on request, a font size readable from the back of a
// lecture hall, and the compiled-in resources (icons).
#include <QIcon>
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

/// An icon from the resources by base name ("start", "stop", …).
QIcon uiIcon(const QString& name);

} // namespace rtscope
