#pragma once
// Putting a widget on the (offscreen) screen before a test reads what it drew or clicks on it.
#include <QTest>
#include <QWidget>

namespace rtscope::test {

/// Resizes @p w to @p width × @p height, shows it and waits until the window system exposes it; false when it was
/// not exposed in time.
[[nodiscard]] inline bool showExposed(QWidget& w, int width, int height)
{
    w.resize(width, height);
    w.show();
    return QTest::qWaitForWindowExposed(&w);
}

} // namespace rtscope::test
