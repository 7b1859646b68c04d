#pragma once
// One experiment as the main window sees it: a view, a panel of controls for the left dock, and the toolbar's
// verbs. The main window knows pages only through this interface, so a new lab is one new subclass plus one
// line in experiment_pages.cpp.
#include <QString>
#include <QStringList>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <vector>

class QSettings;

namespace rtscope {

class TargetConnection;

class ExperimentPage : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    /// Stable identifier, used as the settings group ("latency").
    virtual QString name() const = 0;
    /// Tab text ("Latency").
    virtual QString shortTitle() const = 0;
    /// The controls shown in the left dock while this page is current. Created by the page without a parent;
    /// the main window takes ownership when it puts them in the dock.
    virtual QWidget* controls() = 0;

    /// Starts the experiment with the current controls; on failure the page shows why and returns false.
    virtual bool start() = 0;
    /// Stops and joins every worker thread of the page (within 100 ms). Idempotent.
    virtual void stop() = 0;
    virtual bool isRunning() const = 0;

    /// Freezes the views while the engine keeps collecting.
    virtual void setDisplayPaused(bool paused) = 0;
    virtual bool displayPaused() const = 0;
    virtual void resetStatistics() = 0;
    /// Whether resetStatistics() clears anything: the toolbar's Reset is disabled (and says why) where it does not.
    virtual bool supportsReset() const { return true; }

    /// Hold as reference: freeze the current result and overlay what follows on it.
    virtual bool supportsReference() const { return false; }
    virtual bool holdAsReference() { return false; }
    virtual void clearReference() {}
    virtual bool hasReference() const { return false; }

    /// What the experiment shows and how to read it, for the "What am I seeing?" help.
    virtual QString explanation() const = 0;

    /// Sets every control from the engine's JSON form of this page's config (the experiment's xxxConfigFromJson
    /// followed by validate(): the CLI's one validation path). Returns the problems as sentences naming the
    /// field and the allowed range; when there are any, nothing changes. Used by presets and recordings.
    virtual QStringList applyConfigJson(const nlohmann::json& config)
    {
        (void)config;
        return {QString("the %1 page takes no configuration").arg(name())};
    }
    /// The controls' current configuration in the same JSON form (toJson of the engine config); null if none.
    virtual nlohmann::json configJson() const { return nullptr; }

    /// The part of the page a snapshot (PNG/SVG export, presentation "S") shows: plots and tables, no controls.
    virtual QWidget* snapshotWidget() { return this; }

    /// CPUs the running workers load: the main window keeps the GUI thread elsewhere.
    virtual std::vector<int> busyCpus() const { return {}; }

    /// Presentation mode went on or off (ui/app/presentation_mode.*): a page may refresh faster while projected.
    virtual void setPresenting(bool on) { (void)on; }

    /// A remote target was connected (@p target, docs/remote.md) or disconnected (null). A page that can measure
    /// there answers true and measures the target from its next Start (a run in progress goes on where it is); false:
    /// the page keeps measuring this computer, and the banner says so. @p target outlives the page's use of it.
    virtual bool setTarget(TargetConnection* target)
    {
        (void)target;
        return false;
    }
    /// The machine the page's next Start measures: the target's name, or empty for this computer.
    virtual QString measuredMachine() const { return {}; }
    /// What this page changed on the machine and still holds (the doctor's fixes), a line each as a person reads it
    /// ("IRQ 36 (virtio1-req.0) CPUs: 0-1 → 0"): the window's banner lists them on every page.
    virtual QStringList machineChanges() const { return {}; }
    /// Puts them back (the banner's "Revert all", the window's close); true when nothing is left changed.
    virtual bool revertMachineChanges() { return true; }
    /// Leaves them until reboot (`rtscope doctor --undo` restores them); true when done.
    virtual bool keepMachineChanges() { return true; }
    /// Persist and restore the page's configuration and view choices (inside the page's settings group).
    virtual void saveSettings(QSettings& settings) const = 0;
    virtual void restoreSettings(QSettings& settings) = 0;

signals:
    void runningChanged(bool running);
    /// The set of busy CPUs changed while running (a CPU control was moved).
    void busyCpusChanged();
    void referenceChanged(bool held);
    void statusMessage(const QString& text);
    /// machineChanges() changed.
    void machineChangesChanged();
};

} // namespace rtscope
