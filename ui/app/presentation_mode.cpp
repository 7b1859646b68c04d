#include "ui/app/presentation_mode.h"

#include "ui/app/app_style.h"
#include "ui/app/page_snapshot.h"
#include "ui/experiment_page.h"
#include "ui/main_window.h"
#include "ui/plot/chart_style.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolBar>

namespace rtscope {

PresentationMode::PresentationMode(MainWindow* window)
    : QObject(window)
    , m_window(window)
    , m_controlsDock(window->findChild<QDockWidget*>("controlsDock"))
    , m_systemDock(window->findChild<QDockWidget*>("systemDock"))
    , m_toolbar(window->findChild<QToolBar*>("experimentToolbar"))
    , m_snapshotFolder(defaultSnapshotFolder())
{
    setObjectName("presentationMode");
    m_viewMenu = window->menuBar()->addMenu(tr("&View"));
    m_viewMenu->setObjectName("viewMenu");
    m_toggle = m_viewMenu->addAction(tr("&Presentation mode"));
    m_toggle->setObjectName("presentationMode");
    m_toggle->setCheckable(true);
    m_toggle->setShortcut(Qt::Key_F11);
    m_toggle->setToolTip(tr("Full screen, larger text, thicker lines, high contrast, controls hidden (F11)"));
    connect(m_toggle, &QAction::toggled, this, &PresentationMode::setActive);

    m_controls = m_viewMenu->addAction(tr("Show &controls"));
    m_controls->setObjectName("showControls");
    m_controls->setCheckable(true);
    m_controls->setShortcut(Qt::Key_C);
    m_controls->setChecked(controlsVisible());
    connect(m_controls, &QAction::toggled, this, &PresentationMode::setControlsVisible);
    if (m_controlsDock)
        // The dock's own show/hide (restoreState, a float closed) keeps the check mark true.
        connect(m_controlsDock->toggleViewAction(), &QAction::toggled, m_controls, &QAction::setChecked);
    if (m_systemDock) {
        QAction* a = m_systemDock->toggleViewAction();
        a->setText(tr("Show &system panel"));
        m_viewMenu->addAction(a);
    }
    m_viewMenu->addAction(window->explainAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(window->pauseAction());
    m_snapshot = m_viewMenu->addAction(tr("&Save snapshot"), this, &PresentationMode::saveSnapshot);
    m_snapshot->setObjectName("saveSnapshot");
    m_snapshot->setShortcut(Qt::Key_S);
    m_snapshot->setToolTip(tr("Save the current page's plots and tables as a PNG in %1 (S)").arg(m_snapshotFolder));

    m_helpMenu = window->menuBar()->addMenu(tr("&Help"));
    m_helpMenu->setObjectName("helpMenu");
    m_helpMenu->addAction(window->explainAction());
    m_helpMenu->addAction(tr("&Keyboard shortcuts"), this, &PresentationMode::showKeyboardHelp);

    window->installEventFilter(this);
}

bool PresentationMode::controlsVisible() const
{
    return m_controlsDock && !m_controlsDock->isHidden();
}

void PresentationMode::setControlsVisible(bool visible)
{
    if (m_controlsDock)
        m_controlsDock->setVisible(visible);
    const QSignalBlocker block(m_controls);
    m_controls->setChecked(visible);
}

void PresentationMode::setActive(bool on)
{
    if (on == isActive())
        return;
    if (on) {
        Saved s;
        s.palette = QApplication::palette();
        s.font = QApplication::font();
        s.lineScale = plot::lineWidthScale();
        s.windowState = m_window->windowState();
        s.geometry = m_window->saveGeometry();
        s.controlsVisible = controlsVisible();
        s.systemVisible = m_systemDock && !m_systemDock->isHidden();
        s.iconSize = m_toolbar ? m_toolbar->iconSize() : QSize();
        s.windowFontSet = m_window->testAttribute(Qt::WA_SetFont);
        s.windowPaletteSet = m_window->testAttribute(Qt::WA_SetPalette);
        s.windowFont = m_window->font();
        s.windowPalette = m_window->palette();
        m_saved = s;
        // Lines first: the font and palette changes make every chart restyle, and they read the scale then.
        plot::setLineWidthScale(s.lineScale * kLineScale);
        QFont big = s.windowFont;
        if (big.pointSizeF() > 0)
            big.setPointSizeF(big.pointSizeF() * kFontScale);
        else
            big.setPixelSize(int(big.pixelSize() * kFontScale + 0.5));
        const QPalette contrast = highContrastPalette(plot::isDarkPalette(s.palette));
        // The application's font and palette reach menus, dialogs and tooltips; the window's own reach every
        // page at once, event loop or not.
        QApplication::setPalette(contrast);
        QApplication::setFont(big);
        m_window->setPalette(contrast);
        m_window->setFont(big);
        if (m_toolbar && s.iconSize.isValid())
            m_toolbar->setIconSize(s.iconSize * kFontScale);
        setControlsVisible(false);
        if (m_systemDock)
            m_systemDock->hide();
        m_window->showFullScreen();
        m_window->statusBar()->showMessage(tr("Presentation mode: F11 leaves, C shows the controls, Space pauses, "
                                              "S saves a snapshot"),
                                           10000);
    } else {
        const Saved s = *m_saved;
        m_saved.reset();
        plot::setLineWidthScale(s.lineScale);
        QApplication::setPalette(s.palette);
        QApplication::setFont(s.font);
        // An empty font or palette clears the window's own, so it follows the application's again.
        m_window->setPalette(s.windowPaletteSet ? s.windowPalette : QPalette());
        m_window->setFont(s.windowFontSet ? s.windowFont : QFont());
        if (m_toolbar && s.iconSize.isValid())
            m_toolbar->setIconSize(s.iconSize);
        setControlsVisible(s.controlsVisible);
        if (m_systemDock)
            m_systemDock->setVisible(s.systemVisible);
        m_window->setWindowState(s.windowState);
        if (!(s.windowState & (Qt::WindowFullScreen | Qt::WindowMaximized)))
            m_window->restoreGeometry(s.geometry);
        m_window->statusBar()->clearMessage();
    }
    {
        const QSignalBlocker block(m_toggle);
        m_toggle->setChecked(on);
    }
    for (int i = 0; i < m_window->pageCount(); ++i)
        m_window->page(i)->setPresenting(on);
    emit activeChanged(on);
}

QString PresentationMode::saveSnapshot()
{
    QString error;
    const QString path = savePageSnapshot(m_window->currentPage(), m_snapshotFolder, &error);
    m_window->statusBar()->showMessage(
        path.isEmpty() ? tr("Snapshot not saved: %1").arg(error) : tr("Snapshot saved to %1").arg(path), 10000);
    return path;
}

bool PresentationMode::eventFilter(QObject* watched, QEvent* event)
{
    // Space reaches the window only when the focused widget did not take it: a button, check box, combo box or
    // text field keeps its Space, so this never steals it.
    if (watched == m_window && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Space && key->modifiers() == Qt::NoModifier && !key->isAutoRepeat()) {
            if (QAction* pause = m_window->pauseAction(); pause->isEnabled())
                pause->trigger();
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

QString PresentationMode::keyboardHelpHtml()
{
    const QList<QPair<QString, QString>> keys = {
        {"F5", tr("Start / Stop the current page's experiment")},
        {tr("Space or P"), tr("Pause / resume the display (the measurement goes on)")},
        {"R", tr("Reset statistics")},
        {"H", tr("Hold as reference")},
        {"S", tr("Save a snapshot (PNG) of the current page")},
        {"1 … 5", tr("Switch experiment page")},
        {"F1", tr("Show / hide the \"What am I seeing?\" pane")},
        {"F11", tr("Presentation mode: full screen, larger text, thicker lines, high contrast")},
        {"C", tr("Show / hide the controls")},
        {"Ctrl+Q", tr("Quit (stops and joins every thread)")},
    };
    QString rows;
    for (const auto& [key, what] : keys)
        rows += QString("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>").arg(key.toHtmlEscaped(), what);
    return "<table>" + rows + "</table>";
}

void PresentationMode::showKeyboardHelp()
{
    // Not modal, like every other box of the window: a nested event loop would outlive a SIGTERM.
    auto* box = new QMessageBox(QMessageBox::NoIcon, tr("Keyboard shortcuts"), keyboardHelpHtml(), QMessageBox::Close,
                                m_window);
    box->setObjectName("keyboardHelp");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::RichText);
    box->show();
}

} // namespace rtscope

#include "moc_presentation_mode.cpp"
