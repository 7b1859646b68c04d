#pragma once
// Presentation mode and the keys of a live talk. F11 switches to full screen with fonts ×1.5, plot lines ×2, a
// high-contrast palette and the controls and system docks hidden (the plots get the width); F11 again puts every
// one of those back exactly as it was.
// Also owns the View and Help menus: C shows or hides the controls, Space pauses the display (unless a focused
// button, check box or field wants the Space), S saves the current page as a PNG.
#include <QByteArray>
#include <QFont>
#include <QObject>
#include <QPalette>
#include <QSize>
#include <QString>

#include <optional>

class QAction;
class QDockWidget;
class QMenu;
class QToolBar;

namespace rtscope {

class MainWindow;

class PresentationMode : public QObject {
    Q_OBJECT
public:
    static constexpr double kFontScale = 1.5;
    static constexpr double kLineScale = 2.0;

    /// Adds the View and Help menus to @p window's menu bar (after File and Presets) and watches its keys.
    explicit PresentationMode(MainWindow* window);

    void setActive(bool on);
    bool isActive() const { return m_saved.has_value(); }

    void setControlsVisible(bool visible);
    bool controlsVisible() const;

    /// "S": the current page's snapshotWidget() as a PNG in snapshotFolder(); returns the path ("" on failure)
    /// and says where (or why not) in the status bar.
    QString saveSnapshot();
    QString snapshotFolder() const { return m_snapshotFolder; }
    void setSnapshotFolder(const QString& folder) { m_snapshotFolder = folder; }

    QAction* toggleAction() const { return m_toggle; }
    QAction* controlsAction() const { return m_controls; }
    QAction* snapshotAction() const { return m_snapshot; }
    QMenu* viewMenu() const { return m_viewMenu; }
    QMenu* helpMenu() const { return m_helpMenu; }

    /// The keyboard table of the Help menu (also in docs/gui.md).
    static QString keyboardHelpHtml();

signals:
    void activeChanged(bool active);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showKeyboardHelp();

    /// Everything presentation mode changes, as it was before.
    struct Saved {
        QPalette palette;
        QFont font;
        double lineScale = 1;
        Qt::WindowStates windowState;
        QByteArray geometry;
        bool controlsVisible = true;
        QSize iconSize;
        bool systemVisible = true;
        bool windowFontSet = false; ///< the window had a font of its own (else it follows the application's)
        bool windowPaletteSet = false;
        QFont windowFont;
        QPalette windowPalette;
    };

    MainWindow* m_window;
    QDockWidget* m_controlsDock;
    QDockWidget* m_systemDock;
    QToolBar* m_toolbar;
    QAction* m_toggle;
    QAction* m_controls;
    QAction* m_snapshot;
    QMenu* m_viewMenu;
    QMenu* m_helpMenu;
    QString m_snapshotFolder;
    std::optional<Saved> m_saved;
};

} // namespace rtscope
