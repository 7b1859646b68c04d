#pragma once
// The life of a page that polls an engine experiment, written once: a refresh QTimer while a run is on, Start and
// Stop with the control panel's problems and run status (read-only while running), the display pause, the
// controls' config with the fields they do not show kept from the last valid config, applyConfig()/JSON through
// the engine's one validation path, and the saved settings ("config" and the splitters). A page keeps only what it
// draws.
//
// PolledPage is the part that does not depend on the experiment's types (the sweep page uses it directly);
// PolledExperimentPage adds the typed part for an experiment with start(config)/stop()/running()/finished(),
// busyCpus() and a snapshot() with a generation, driven through an ExperimentControls panel with a mapper().
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"
#include "ui/common/config_json.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/text_format.h"
#include "ui/common/unpinned_topology.h"
#include "ui/experiment_page.h"

#include <QPointer>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

class QSplitter;
class QTimer;

namespace rtscope {

class PolledPage : public ExperimentPage {
    Q_OBJECT
public:
    ~PolledPage() override;

    QWidget* controls() override { return m_panel; }
    void setDisplayPaused(bool paused) override;
    bool displayPaused() const override { return m_paused; }
    /// Every figure of these pages belongs to one run, which Start begins afresh: there is nothing to reset.
    void resetStatistics() override {}
    bool supportsReset() const override { return false; }
    /// Writes the config (configJson()) and the splitters, then saveViewSettings().
    void saveSettings(QSettings& settings) const override;
    /// Restores the splitters and restoreViewSettings(), then the config through applyConfigJson(); what was not
    /// applied is shown next to the controls.
    void restoreSettings(QSettings& settings) override;

    /// Pulls a snapshot and redraws if it is new (the refresh timer's slot; tests call it directly).
    virtual void refreshNow() = 0;
    uint64_t framesDrawn() const { return m_frames; }
    /// The problems shown next to the controls.
    virtual QStringList problems() const = 0;

protected:
    PolledPage(const SystemProbe& probe, int refreshMs, QWidget* parent);

    /// The panel for the dock: deleted with the page unless the main window took it.
    void setPanel(QWidget* panel) { m_panel = panel; }
    /// The panel's problem list and run status (the verbs of ExperimentControls).
    virtual void showProblems(const QStringList& problems) = 0;
    virtual void showRunning(bool running, const QString& status) = 0;
    /// A refused start or a failed run: every line next to the controls, the first in the status bar.
    void showError(const QString& message);
    /// After the experiment started: the panel goes read-only with @p status, the timer runs, and the main window
    /// hears of it (and of the busy CPUs).
    void beginPolling(const QString& status, const QString& started);
    /// The timer stops and the panel is editable again; announceStopped() follows the last redraw.
    void endPolling();
    void announceStopped(const QString& message);
    void countFrame() { ++m_frames; }
    /// Saved under @p key and restored before the config.
    void keepSplitter(const QString& key, QSplitter* splitter);
    virtual void saveViewSettings(QSettings& settings) const { (void)settings; }
    /// Returns the problems with the view settings, shown with the config's.
    virtual QStringList restoreViewSettings(QSettings& settings)
    {
        (void)settings;
        return {};
    }

    const SystemProbe m_probe;
    QTimer* m_timer;

private:
    QPointer<QWidget> m_panel;
    std::vector<std::pair<QString, QSplitter*>> m_splitters;
    uint64_t m_frames = 0;
    bool m_paused = false;
};

/// @p Controls is an ExperimentControls with a mapper() (config(base), setConfig(), unrepresentable()) constructed
/// from the online CPUs; @p fromJson is the engine's xxxConfigFromJson.
template <class Config, class Experiment, class Controls,
          Config (*fromJson)(const nlohmann::json&, std::vector<std::string>&)>
class PolledExperimentPage : public PolledPage {
public:
    using Snapshot = std::remove_cvref_t<decltype(*std::declval<const Experiment&>().snapshot())>;

    bool start() override
    {
        if (m_experiment->running())
            return true;
        const Config c = config();
        const CpuTopology topo = topology();
        if (const QStringList problems = configProblems(c, topo); !problems.isEmpty()) {
            showProblems(problems);
            return false;
        }
        prepareStart(c);
        Error e;
        {
            // The threads inherit the affinity of the thread that starts them: the GUI's own, not a parked one.
            const GuiThreadAffinity::Unpinned unpinned;
            if constexpr (requires { m_experiment->start(c, topo); })
                e = m_experiment->start(c, topo);
            else
                e = m_experiment->start(c);
        }
        if (e) {
            // Never a silent fallback: a refused policy stays refused, and says why.
            showError(QString::fromStdString(e.message));
            return false;
        }
        m_base = c;
        m_lastDrawn.reset();
        runStarting(c);
        const QString label = QString::fromStdString(m_experiment->config().label());
        beginPolling(tr("Running: %1").arg(label), tr("Started: %1").arg(label));
        return true;
    }
    void stop() override
    {
        if (!m_experiment->running())
            return;
        m_experiment->stop();
        endPolling();
        refreshNow(); // the final snapshot, everything drained
        const QString error = runError();
        if (!error.isEmpty())
            showError(error);
        announceStopped(m_lastDrawn && m_lastDrawn->finished && error.isEmpty() ? finishedMessage() : tr("Stopped"));
    }
    bool isRunning() const override { return m_experiment->running(); }
    std::vector<int> busyCpus() const override { return m_experiment->busyCpus(); }
    QStringList applyConfigJson(const nlohmann::json& config) override
    {
        return applyConfigJsonWith(
            config, fromJson, [this](const Config& c) { return applyConfig(c); },
            [this](const QStringList& problems) { showProblems(problems); });
    }
    nlohmann::json configJson() const override { return toJson(config()); }
    void refreshNow() override
    {
        std::shared_ptr<const Snapshot> snap = m_experiment->snapshot();
        if (!snap)
            return;
        // The run ended by itself: join every thread now, so none lingers.
        if (m_experiment->running() && m_experiment->finished()) {
            runFinished();
            return;
        }
        if (displayPaused() || (snap == m_lastDrawn && snap->generation == m_lastGeneration))
            return;
        m_lastDrawn = snap;
        m_lastGeneration = snap->generation;
        draw(*snap);
        countFrame();
    }
    QStringList problems() const override { return m_controls->problems(); }

    /// The config the controls describe.
    Config config() const { return m_controls->mapper().config(m_base); }
    /// Shows @p config in the controls; returns the problems (validate()'s sentences, or values the controls
    /// cannot show), and with problems nothing changes. Not while running.
    QStringList applyConfig(const Config& config)
    {
        const Config c = adopt(config);
        QStringList problems = toQt(c.validate(topology()));
        problems << m_controls->mapper().unrepresentable(c);
        if (m_experiment->running())
            problems << tr("the configuration cannot change during a run: stop first");
        if (!problems.isEmpty()) {
            showProblems(problems);
            return problems;
        }
        m_controls->mapper().setConfig(c);
        m_base = c;
        m_controls->clearProblems();
        configChanged(c);
        return {};
    }
    Experiment& experiment() { return *m_experiment; }

protected:
    /// @p topo gives the CPUs offered in the controls (with the probe's online CPUs when it has them).
    PolledExperimentPage(const SystemProbe& probe, int refreshMs, const CpuTopology& topo, QWidget* parent)
        : PolledPage(probe, refreshMs, parent)
        , m_experiment(std::make_unique<Experiment>())
        , m_controls(new Controls(probe.onlineCpus.empty() ? topo.online : probe.onlineCpus))
    {
        setPanel(m_controls);
        QObject::connect(m_controls, &Controls::edited, this, [this] { controlsEdited(); });
        m_base = m_controls->mapper().config(Config{});
    }

    /// The CPUs a config may use.
    virtual CpuTopology topology() const { return unpinnedTopology(); }
    /// Everything that keeps @p c from running, as sentences.
    virtual QStringList configProblems(const Config& c, const CpuTopology& topo) const
    {
        return toQt(c.validate(topo));
    }
    /// @p c as this page runs it (fields that belong to this session rather than to a preset's author).
    virtual Config adopt(Config c) const { return c; }
    /// Just before the experiment starts with @p c.
    virtual void prepareStart(const Config& c) { (void)c; }
    /// The experiment runs @p c: clear what the last run drew.
    virtual void runStarting(const Config& c) { (void)c; }
    /// The run ended by itself.
    virtual void runFinished() { stop(); }
    /// The status line of a run that ended by itself.
    virtual QString finishedMessage() const { return tr("Stopped"); }
    /// A valid @p c is in the controls (edited or applied): show what Start will do.
    virtual void configChanged(const Config& c) { (void)c; }
    virtual void draw(const Snapshot& snapshot) = 0;

    void showProblems(const QStringList& problems) override { m_controls->showProblems(problems); }
    void showRunning(bool running, const QString& status) override
    {
        m_controls->setRunning(running);
        m_controls->setStatus(status);
    }

    std::unique_ptr<Experiment> m_experiment;
    Config m_base; ///< the last valid config: the fields without a control come from it
    QPointer<Controls> m_controls;
    std::shared_ptr<const Snapshot> m_lastDrawn;

private:
    void controlsEdited()
    {
        const Config c = config();
        if (const QStringList problems = configProblems(c, topology()); !problems.isEmpty()) {
            showProblems(problems);
            return;
        }
        m_controls->clearProblems();
        configChanged(c);
    }
    QString runError() const
    {
        if constexpr (requires(const Snapshot& s) { s.error; })
            return m_lastDrawn ? QString::fromStdString(m_lastDrawn->error) : QString();
        return {};
    }

    uint64_t m_lastGeneration = 0;
};

} // namespace rtscope
