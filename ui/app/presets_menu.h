#pragma once
// The Presets menu: one entry per built-in lesson (resources/presets, compiled in) by title, and "Open preset
// file…". A refused preset is shown in a message box and the status bar, naming the file, field and range.
#include <QMenu>
#include <QStringList>

namespace rtscope {

class MainWindow;
class PresetRunner;

class PresetsMenu : public QMenu {
    Q_OBJECT
public:
    PresetsMenu(PresetRunner* runner, MainWindow* window);

    /// Runs a built-in preset or a file, as the menu's entries do; returns the problems it showed.
    QStringList run(const QString& nameOrFile);
    /// The actions of the built-in presets, in lesson order (their data() is the preset id).
    QList<QAction*> presetActions() const { return m_presetActions; }

signals:
    /// A preset was refused: the sentences shown to the user.
    void refused(const QStringList& problems);

private:
    void openFile();
    void showRefusal(const QStringList& problems);

    PresetRunner* m_runner;
    MainWindow* m_window;
    QList<QAction*> m_presetActions;
    QString m_lastDir;
};

} // namespace rtscope
