#pragma once
// Plays a preset in the window: switches to its experiment's page, sets every control from phase 1 and starts;
// for a comparison it lets phase 1 run, holds it as reference, applies phase 2 and keeps running. It talks to
// pages only through ExperimentPage, so any page with applyConfigJson() can be driven by a preset.
#include "engine/presets/preset.h"
#include "ui/experiment_page.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <optional>

class QTimer;

namespace rtscope {

class MainWindow;

class PresetRunner : public QObject {
    Q_OBJECT
public:
    explicit PresetRunner(MainWindow* window);

    /// Starts @p preset. Returns the problems as "file: …" sentences naming the field and range; with problems
    /// nothing changes (a page that was running is given its configuration back and restarted).
    QStringList start(const Preset& preset);
    /// A built-in id or a preset file, loaded and validated (engine/presets/preset.h), then start()ed.
    QStringList start(const QString& nameOrFile);
    /// Stops the script, not the experiment: the page keeps running as it is. The window calls it when the user
    /// starts or stops by hand, and before it closes.
    void cancel();

    bool isActive() const { return m_active; }
    /// 0-based phase being shown; -1 before the first start.
    int phase() const { return m_phase; }
    const std::optional<Preset>& preset() const { return m_preset; }
    ExperimentPage* page() const { return m_page; }

signals:
    /// One sentence per step, for the status bar and the terminal.
    void progress(const QString& what);
    /// The last phase has run its time (or its page stopped on its own). @p ok is false when a step failed
    /// (the page says why).
    void finished(bool ok);

private:
    void advance();
    void pageRunningChanged(bool running);
    /// Applies phase @p index: live on a page that holds a reference and takes live changes, otherwise stopped,
    /// applied and started again.
    QStringList applyPhase(int index, bool live);
    QString phaseText(int index) const;

    MainWindow* m_window;
    QTimer* m_timer;
    std::optional<Preset> m_preset;
    QPointer<ExperimentPage> m_page;
    int m_phase = -1;
    bool m_active = false;
    bool m_switching = false; ///< our own stop/start: not the page finishing on its own
    bool m_ok = true;
};

} // namespace rtscope
