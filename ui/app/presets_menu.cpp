#include "ui/app/presets_menu.h"

#include "engine/presets/preset.h"
#include "ui/app/preset_runner.h"
#include "ui/main_window.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QStatusBar>

namespace rtscope {

PresetsMenu::PresetsMenu(PresetRunner* runner, MainWindow* window)
    : QMenu(tr("&Presets"), window)
    , m_runner(runner)
    , m_window(window)
    , m_lastDir(QDir::homePath())
{
    setObjectName("presetsMenu");
    setToolTipsVisible(true);
    std::vector<std::string> errors;
    for (const Preset& p : builtinPresets(&errors)) {
        const QString id = QString::fromStdString(p.id);
        QAction* a = addAction(QString::fromStdString(p.title), this, [this, id] { run(id); });
        a->setData(id);
        a->setObjectName("preset-" + id);
        // The description says what the lesson shows; a page that is not in this window greys the entry out.
        a->setToolTip(QString::fromStdString(p.description));
        a->setEnabled(window->pageIndex(QString::fromStdString(p.experiment)) >= 0);
        m_presetActions << a;
    }
    // A built-in preset that does not validate on this machine (e.g. one CPU) says so in the menu itself.
    for (const std::string& e : errors) {
        QAction* a = addAction(tr("(unavailable) %1").arg(QString::fromStdString(e)));
        a->setEnabled(false);
    }
    addSeparator();
    QAction* open = addAction(tr("&Open preset file…"), this, &PresetsMenu::openFile);
    open->setObjectName("openPresetFile");
    connect(runner, &PresetRunner::progress, window,
            [window](const QString& text) { window->statusBar()->showMessage(text, 15000); });
}

QStringList PresetsMenu::run(const QString& nameOrFile)
{
    const QStringList problems = m_runner->start(nameOrFile);
    if (!problems.isEmpty())
        showRefusal(problems);
    return problems;
}

void PresetsMenu::openFile()
{
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open preset file"), m_lastDir,
                                                      tr("rtscope presets (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    m_lastDir = QFileInfo(path).absolutePath();
    // A bare name from the dialog is still a file: make it a path so it is never taken for a built-in id.
    run(QFileInfo(path).absoluteFilePath());
}

void PresetsMenu::showRefusal(const QStringList& problems)
{
    m_window->statusBar()->showMessage(tr("Preset refused: %1").arg(problems.first()), 15000);
    // Not modal: a nested event loop would keep running after a SIGTERM closed the window.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Preset refused"),
                                tr("The preset was not applied; nothing changed."), QMessageBox::Close, m_window);
    box->setObjectName("presetRefusedBox");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(problems.join("\n"));
    box->show();
    emit refused(problems);
}

} // namespace rtscope

#include "moc_presets_menu.cpp"
