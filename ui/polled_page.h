#pragma once
// The life of a page, written once: a refresh QTimer while a run is on, Start and Stop with the control panel's
// problems and run status, the display pause, the running/busy-CPU/status signals to the main window, the controls'
// config with the fields they do not show kept from the last valid config, applyConfig()/JSON through the engine's
// one validation path, and the saved settings ("config", the splitters and headers). A page keeps only what it
// draws.
//
// PolledPage is the part that does not depend on the experiment's types (the RT-threads page, which reads /proc
// rather than running an experiment, uses it directly); PolledExperimentPage adds the typed part for an experiment
// with start(config, topology)/stop()/running(), busyCpus() and a snapshot() with a generation, driven through a
// control panel with a mapper() (config(base), setConfig(), unrepresentable(); the panel itself when it maps its own
// widgets).
//
// Optional capabilities, which a page opts into instead of writing them again:
// - hold as reference (PolledPage): the page says supportsReference(), freezes a result in holdAsReference() and
//   calls referenceHeld(); clearReference() and hasReference() are the base's, releaseReference() clears the views.
// - reconfigure while running and statistics reset (PolledExperimentPage's PageCapabilities argument): control
//   edits go to the running experiment's reconfigure(), Reset to its resetStatistics().
#include "engine/experiments/registry.h"
#include "engine/remote/remote_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"
#include "ui/common/config_json.h"
#include "ui/common/experiment_name.h"
#include "ui/common/rtkit_client.h"
#include "ui/common/text_format.h"
#include "ui/common/unpinned_topology.h"
#include "ui/experiment_page.h"
#include "ui/remote/target_connection.h"

#include <QByteArray>
#include <QPointer>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

class QHeaderView;
class QLayout;
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
    /// By default there is nothing to reset: every figure belongs to one run, which Start begins afresh, or to one
    /// reading of the machine. PageCapabilities::resetStatistics says otherwise.
    void resetStatistics() override {}
    bool supportsReset() const override { return false; }
    /// Hold as reference, for a page that offers it: whether a result is held (referenceHeld() was called and
    /// clearReference() not since), and dropping it (releaseReference() takes it out of the views).
    bool hasReference() const override { return m_referenceHeld; }
    void clearReference() override;
    /// Writes the config (configJson(), unless savesConfig() says no), the kept splitters and headers, then
    /// saveViewSettings().
    void saveSettings(QSettings& settings) const override;
    /// Restores the kept splitters and headers and restoreViewSettings(), then the config through
    /// applyConfigJson(); what was not applied is shown next to the controls.
    void restoreSettings(QSettings& settings) override;

    /// Pulls what is new and redraws (the refresh timer's slot; tests call it directly).
    virtual void refreshNow() = 0;
    uint64_t framesDrawn() const { return m_frames; }
    /// The refresh timer's interval now.
    int refreshIntervalMs() const;
    /// The problems shown next to the controls.
    virtual QStringList problems() const = 0;
    /// The probe of the machine the page measures: this computer's, or a connected target's (its hello) on a page
    /// that runs there. What the page says of "this machine" (the explanation, kernel defaults) comes from it.
    virtual const SystemProbe& measuredProbe() const { return m_probe; }

protected:
    PolledPage(const SystemProbe& probe, int refreshMs, QWidget* parent);

    /// The panel for the dock: deleted with the page unless the main window took it.
    void setPanel(QWidget* panel) { m_panel = panel; }
    /// The panel's problem list and run status (the verbs of ExperimentControls).
    virtual void showProblems(const QStringList& problems) = 0;
    virtual void showRunning(bool running, const QString& status) = 0;
    /// A refused start or a failed run: every line next to the controls, the first in the status bar.
    void showError(const QString& message);
    /// After the run started: the timer runs, the panel shows @p status, and the main window hears of it (and of
    /// the busy CPUs); @p started goes to the status bar.
    void beginPolling(const QString& status, const QString& started);
    /// The timer stops and the panel is idle again; announceStopped() follows the last redraw.
    void endPolling();
    void announceStopped(const QString& message);
    void countFrame() { ++m_frames; }
    /// The display pause ended: by default refreshNow() draws what came in meanwhile.
    virtual void displayResumed() { refreshNow(); }
    /// Sets what the page styles from its font explicitly (tables, big figures): a page calls it once built, and it
    /// runs again on every font change (presentation mode enlarges the window's font, which an explicitly set font
    /// would not follow).
    virtual void restyle() {}
    void changeEvent(QEvent* event) override;

    /// Hold as reference: the page froze a result as the reference (the toolbar follows); @p status goes to the
    /// status bar.
    void referenceHeld(const QString& status);
    /// Takes the frozen result out of the views (clearReference(), only while one is held).
    virtual void releaseReference() {}

    /// Saved under @p key and restored before the config.
    void keepSplitter(const QString& key, QSplitter* splitter);
    /// @p top over @p bottom in a vertical splitter (a child of @p parent, this page when null), their heights shared
    /// @p topStretch : @p bottomStretch, neither collapsible, kept as "splitter" (keepSplitter()).
    QSplitter* keptVerticalSplitter(QWidget* top, QWidget* bottom, int topStretch, int bottomStretch,
                                    QWidget* parent = nullptr);
    void keepHeader(const QString& key, QHeaderView* header);
    /// One row of the page (stackRows()): a widget or a layout, and its share of the spare height.
    struct Row {
        Row(QWidget* w, int s = 0)
            : widget(w)
            , stretch(s)
        {}
        Row(QLayout* l, int s = 0)
            : layout(l)
            , stretch(s)
        {}
        QWidget* widget = nullptr;
        QLayout* layout = nullptr;
        int stretch = 0;
    };
    /// Lays the page out as @p rows, top to bottom, 4 px from its edges.
    void stackRows(std::initializer_list<Row> rows);
    /// The page in "The saved … settings were not applied:"; name() unless a page says it otherwise.
    virtual QString settingsName() const { return name(); }
    /// Whether saveSettings() keeps configJson() under "config" (restored through applyConfigJson()). A page whose
    /// settings have always been keys of their own says no and keeps them in saveViewSettings().
    virtual bool savesConfig() const { return true; }
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
    struct KeptState {
        QString key;
        std::function<QByteArray()> save;
        std::function<void(const QByteArray&)> restore;
    };

    QPointer<QWidget> m_panel;
    std::vector<KeptState> m_states;
    uint64_t m_frames = 0;
    bool m_paused = false;
    bool m_referenceHeld = false;
};

/// What a PolledExperimentPage does beyond a run with a fixed config (its last template argument).
struct PageCapabilities {
    /// Control edits and applyConfig() reach the running experiment at once (its reconfigure()): the panel stays
    /// editable while running, and a change the engine refuses puts the controls back and says why.
    bool reconfigureWhileRunning = false;
    /// Reset restarts the running experiment's statistics (its resetStatistics()); with reconfigureWhileRunning, so
    /// does every change while resetOnChange().
    bool resetStatistics = false;
};

/// Whether @p Config is an experiment of the engine's registry (engine/experiments/registry.h): it has a name there.
// clang-format off
template <class Config>
concept RegisteredExperiment = requires { ExperimentTraits<Config>::kName; };
// clang-format on

/// Whether a page of @p Config run by @p Experiment can run on a remote target through the agent (RemoteExperiment):
/// an experiment of the registry, other than latency (whose pages have a remote source of their own).
// clang-format off
template <class Config, class Experiment>
concept RemotableExperiment = !std::is_same_v<Config, LatencyConfig> &&
    requires { typename ExperimentTraits<Config>::Experiment; } &&
    std::is_same_v<typename ExperimentTraits<Config>::Experiment, Experiment>;
// clang-format on

/// @p Controls is a panel with showProblems(), clearProblems(), problems(), setStatus() (and setRunning() unless
/// the page reconfigures while running), a mapper() (config(base), setConfig(), unrepresentable(); a panel that maps
/// its own widgets returns itself) and, on a page that runs on a target, setCpus(cpus) for the measured machine's
/// CPUs; it is constructed from the online CPUs. @p Experiment has start(config, topology), stop(), running(),
/// finished(), config() (as run), busyCpus() and snapshot() (a RunSnapshot). @p fromJson is the engine's
/// xxxConfigFromJson. What is missing is a compile error here, never a silently skipped step.
template <class Config, class Experiment, class Controls,
          Config (*fromJson)(const nlohmann::json&, std::vector<std::string>&), PageCapabilities kCapabilities = {}>
class PolledExperimentPage : public PolledPage {
public:
    using Snapshot = std::remove_cvref_t<decltype(*std::declval<const Experiment&>().snapshot())>;
    static constexpr bool kLive = kCapabilities.reconfigureWhileRunning;
    static constexpr bool kResets = kCapabilities.resetStatistics;
    static_assert(
        !kLive || requires(Experiment & e, const Config& c) { e.reconfigure(c); },
        "reconfigureWhileRunning needs the experiment's reconfigure(config)");
    static_assert(
        !kResets || requires(Experiment & e) { e.resetStatistics(); },
        "resetStatistics needs the experiment's resetStatistics()");
    /// Runs on a connected remote target (setTarget()) as well as on this computer.
    static constexpr bool kRemotable = RemotableExperiment<Config, Experiment>;
    static_assert(!kRemotable || (!kLive && !kResets),
                  "a remote run takes neither live changes nor a statistics reset: the protocol has neither for it");

    /// The experiment's name in the engine's registry. A page that is not one registered experiment (the sweep's
    /// settings, the per-CPU page, a test's fake) says its own.
    QString name() const override
    {
        if constexpr (RegisteredExperiment<Config>)
            return experimentName<Config>();
        else
            return QString();
    }
    bool start() override
    {
        if (experimentRunning())
            return true;
        const Config c = config();
        const CpuTopology topo = runTopology();
        if (const QStringList problems = configProblems(c, topo); !problems.isEmpty()) {
            showProblems(problems);
            return false;
        }
        prepareStart(c);
        // The CPUs are explicit: topology() is the GUI thread's affinity from before any parking.
        if (const Error e = startExperiment(c, topo)) {
            // rtkit refused a priority above its maximum: with the user's yes, once more at its maximum.
            if (!onTarget() && offerRtkitCeiling(this))
                return start();
            // Never a silent fallback: a refused policy stays refused, and says why.
            showError(QString::fromStdString(e.message));
            return false;
        }
        m_base = c;
        m_lastDrawn.reset();
        runStarting(c);
        // A run on a target says where it runs, in the panel and the status bar.
        const QString machine = measuredMachine();
        const QString where = machine.isEmpty() ? QString() : tr(" on %1").arg(machine);
        beginPolling(runningStatus(c) + where, startedMessage(c) + where);
        return true;
    }
    void stop() override
    {
        if (!experimentRunning())
            return;
        if constexpr (kRemotable)
            if (m_remote)
                m_remote->stop();
        if (!onTarget())
            m_experiment->stop();
        runEnded();
    }
    bool isRunning() const override { return experimentRunning(); }
    std::vector<int> busyCpus() const override
    {
        return onTarget() ? std::vector<int>() : m_experiment->busyCpus(); // a target's CPUs are not this computer's
    }
    void resetStatistics() override
    {
        if constexpr (kResets)
            if (m_experiment->running())
                m_experiment->resetStatistics();
    }
    /// With a target, Start runs the experiment there through the agent (RemoteExperiment), its config checked
    /// against the target's CPUs; without, on this computer. A run in progress is stopped first; the views keep
    /// what they show until the next Start. The same target again changes nothing (a Reconnect).
    bool setTarget(TargetConnection* target) override
    {
        if constexpr (!kRemotable) {
            (void)target;
            return false;
        } else {
            if (target == m_target && (target != nullptr) == (m_remote != nullptr))
                return true;
            stop();
            m_target = target;
            m_remote = target ? std::make_unique<RemoteExperiment<Config>>(target->session()) : nullptr;
            if (m_remote)
                for (const auto& [key, value] : m_remoteView.items())
                    m_remote->setViewOption(key.c_str(), value.template get<int64_t>());
            // The CPU choices are the measured machine's: every panel of a remotable page has setCpus().
            m_controls->setCpus(target ? target->topology().online : m_localCpus);
            return true;
        }
    }
    QString measuredMachine() const override { return onTarget() ? m_target->machine() : QString(); }
    const SystemProbe& measuredProbe() const override { return onTarget() ? m_target->probe() : m_probe; }
    bool supportsReset() const override { return kResets; }
    QStringList applyConfigJson(const nlohmann::json& config) override
    {
        return applyConfigJsonWith(
            config, fromJson, [this](const Config& c) { return applyConfig(c); },
            [this](const QStringList& problems) { showProblems(problems); });
    }
    nlohmann::json configJson() const override { return toJson(config()); }
    void refreshNow() override
    {
        std::shared_ptr<const Snapshot> snap = latestSnapshot();
        if (!snap)
            return;
        // The run ended by itself: join every thread now, so none lingers.
        if (experimentRunning() && endedByItself()) {
            runFinished();
            return;
        }
        if (snap == m_lastDrawn && snap->generation == m_lastGeneration)
            return;
        snapshotArrived(*snap);
        if (displayPaused())
            return;
        m_lastDrawn = snap;
        m_lastGeneration = snap->generation;
        draw(*snap);
        countFrame();
    }
    QStringList problems() const override { return m_controls->problems(); }

    /// The config the controls describe.
    virtual Config config() const { return mapper().config(m_base); }
    /// Shows @p config in the controls; returns the problems (validate()'s sentences, or values the controls
    /// cannot show), and with problems nothing changes. While running it is refused, unless the page reconfigures
    /// while running: then the running experiment takes it.
    QStringList applyConfig(const Config& config)
    {
        const Config c = adopt(config);
        QStringList problems = toQt(c.validate(runTopology()));
        problems << unrepresentable(c);
        const bool running = experimentRunning();
        if (running && !kLive)
            problems << runningRefusal();
        if (!problems.isEmpty()) {
            showProblems(problems);
            return problems;
        }
        showConfig(c);
        if constexpr (kLive) {
            if (running)
                return applyRunning(c) ? QStringList() : m_controls->problems();
        }
        m_base = c;
        m_controls->clearProblems();
        configChanged(c);
        return {};
    }
    Experiment& experiment() { return *m_experiment; }

protected:
    /// @p topo gives the CPUs offered in the controls (with the probe's online CPUs when it has them).
    PolledExperimentPage(const SystemProbe& probe, int refreshMs, const CpuTopology& topo, QWidget* parent)
        : PolledExperimentPage(probe, refreshMs, topo, std::make_unique<Experiment>(), parent)
    {}
    /// For an @p experiment made elsewhere (a source of snapshots the caller chooses: live, or a replay in tests).
    PolledExperimentPage(const SystemProbe& probe, int refreshMs, const CpuTopology& topo,
                         std::unique_ptr<Experiment> experiment, QWidget* parent)
        : PolledPage(probe, refreshMs, parent)
        , m_experiment(std::move(experiment))
        , m_controls(new Controls(probe.onlineCpus.empty() ? topo.online : probe.onlineCpus))
        , m_localCpus(probe.onlineCpus.empty() ? topo.online : probe.onlineCpus)
    {
        setPanel(m_controls);
        QObject::connect(m_controls, &Controls::edited, this, [this] { controlsEdited(); });
        m_base = mapper().config(Config{});
    }

    /// The CPUs a config may use on this computer.
    virtual CpuTopology topology() const { return unpinnedTopology(); }
    /// The CPUs a config may use where it runs: the target's, or topology().
    CpuTopology runTopology() const { return onTarget() ? m_target->topology() : topology(); }
    /// Start runs on a connected target (setTarget()).
    bool onTarget() const
    {
        if constexpr (kRemotable)
            return m_remote != nullptr && m_target;
        else
            return false;
    }
    /// The run in progress, here or on the target.
    bool experimentRunning() const
    {
        return onRunner([](auto& e) { return e.running(); });
    }
    /// The newest snapshot of the run, here or on the target (null before any).
    std::shared_ptr<const Snapshot> latestSnapshot() const
    {
        return onRunner([](auto& e) { return e.snapshot(); });
    }
    /// A view option the agent's experiment takes for a run on a target ("series_window_ns", docs/remote.md): kept
    /// for every target, and sent with the next Start there.
    void setRemoteView(const char* key, int64_t value)
    {
        m_remoteView[key] = value;
        if constexpr (kRemotable)
            if (m_remote)
                m_remote->setViewOption(key, value);
    }
    /// Everything that keeps @p c from running, as sentences.
    virtual QStringList configProblems(const Config& c, const CpuTopology& topo) const
    {
        return toQt(c.validate(topo));
    }
    /// @p c as this page runs it (fields that belong to this session rather than to a preset's author).
    virtual Config adopt(Config c) const { return c; }
    /// The fields of @p c the controls cannot show, as sentences.
    virtual QStringList unrepresentable(const Config& c) const { return mapper().unrepresentable(c); }
    /// Shows @p c in the controls without their edited() signal (after unrepresentable() found nothing).
    virtual void showConfig(const Config& c) { mapper().setConfig(c); }
    /// Just before the experiment starts with @p c.
    virtual void prepareStart(const Config& c) { (void)c; }
    /// The experiment runs @p c: clear what the last run drew.
    virtual void runStarting(const Config& c) { (void)c; }
    /// The run ended by itself.
    virtual void runFinished() { stop(); }
    /// The status line of a run that ended by itself.
    virtual QString finishedMessage() const { return tr("Stopped"); }
    /// The status line after a stop; @p finished: the run had ended by itself, without an error.
    virtual QString stoppedMessage(bool finished) const { return finished ? finishedMessage() : tr("Stopped"); }
    /// The panel's status line while @p c runs, and the status bar's when it starts.
    virtual QString runningStatus(const Config& c) const { return tr("Running: %1").arg(runLabel(c)); }
    virtual QString startedMessage(const Config& c) const { return tr("Started: %1").arg(runLabel(c)); }
    /// Why applyConfig() refuses while running (unless the page reconfigures while running).
    virtual QString runningRefusal() const { return tr("the configuration cannot change during a run: stop first"); }
    /// A valid @p c is in the controls (edited or applied): show what Start will do.
    virtual void configChanged(const Config& c) { (void)c; }
    /// A valid @p c came from the user's edit of the controls (configChanged() unless a page tells them apart).
    virtual void configEdited(const Config& c) { configChanged(c); }
    /// Reconfigure while running: whether a live change restarts the statistics, so that they describe only the
    /// config in force (with PageCapabilities::resetStatistics).
    virtual bool resetOnChange() const { return true; }
    /// Every new snapshot, drawn or not (while the display is paused): for a history that must have no hole.
    virtual void snapshotArrived(const Snapshot& snapshot) { (void)snapshot; }
    virtual void draw(const Snapshot& snapshot) = 0;

    void showProblems(const QStringList& problems) override { m_controls->showProblems(problems); }
    void showRunning(bool running, const QString& status) override
    {
        // A run's config is fixed, so the panel is read-only while it runs; unless the run takes changes.
        if constexpr (!kLive)
            m_controls->setRunning(running);
        else
            (void)running;
        m_controls->setStatus(status);
    }
    /// A user edit of the controls (connected to the panel's edited(); a page connects its own extra fields).
    void controlsEdited()
    {
        const Config c = config();
        if (const QStringList problems = configProblems(c, runTopology()); !problems.isEmpty()) {
            showProblems(problems);
            return;
        }
        if constexpr (kLive) {
            if (m_experiment->running()) {
                applyRunning(c);
                return;
            }
            m_base = c; // what Start will run
        }
        m_controls->clearProblems();
        configEdited(c);
    }
    /// After the experiment stopped (Stop, its end, or the engine itself after a refused change whose undo failed
    /// too): the panel is idle again, the final snapshot is drawn and its error shown, and the window hears of it.
    void runEnded()
    {
        endPolling();
        refreshNow(); // the final snapshot, everything drained
        const QString error = runError();
        if (!error.isEmpty())
            showError(error);
        const QString machine = measuredMachine();
        announceStopped(stoppedMessage(ranToEnd() && error.isEmpty()) +
                        (machine.isEmpty() ? QString() : tr(" on %1").arg(machine)));
    }
    /// Shows the latest snapshot's error, if it has one, last: next to the controls and in the status bar.
    void showLatestError()
    {
        if (const std::shared_ptr<const Snapshot> s = latestSnapshot(); s && !s->error.empty())
            showError(QString::fromStdString(s->error));
    }
    /// Takes @p snapshot as the one drawn (a page that draws one of its own, e.g. a replay).
    void setDrawn(std::shared_ptr<const Snapshot> snapshot)
    {
        m_lastGeneration = snapshot ? snapshot->generation : 0;
        m_lastDrawn = std::move(snapshot);
    }

    std::unique_ptr<Experiment> m_experiment; ///< this computer's
    Config m_base;                            ///< the last valid config: the fields without a control come from it
    QPointer<Controls> m_controls;
    std::vector<int> m_localCpus; ///< this computer's online CPUs: the controls' choices without a target
    std::shared_ptr<const Snapshot> m_lastDrawn;

private:
    /// The panel's mapper: its mapper() (the panel itself when it maps its own widgets).
    auto& mapper() const { return m_controls->mapper(); }
    /// What runs, for a page that cannot run on a target (NoRemote stands in for RemoteExperiment).
    struct NoRemote {};
    using Remote = std::conditional_t<kRemotable, RemoteExperiment<Config>, NoRemote>;
    /// Starts @p c here or on the target.
    Error startExperiment(const Config& c, const CpuTopology& topo)
    {
        return onRunner([&](auto& e) { return e.start(c, topo); });
    }
    QString runLabel(const Config& c) const
    {
        // On a target, the target resolves the CPUs (its snapshot shows them); here, the config as run.
        return QString::fromStdString(onTarget() ? c.label() : m_experiment->config().label());
    }
    /// Reconfigure while running: the running experiment takes @p c, or keeps what it ran and says why.
    bool applyRunning(const Config& c)
    {
        if (Error e = m_experiment->reconfigure(c)) {
            // The engine kept the run as it was: show that config again, and the reason next to it. When even the
            // previous setting could not be put back, the engine ended the run: show it stopped.
            showConfig(m_base);
            if (!m_experiment->running())
                runEnded();
            showError(QString::fromStdString(e.message));
            return false;
        }
        m_base = c;
        m_controls->clearProblems();
        if constexpr (kResets)
            if (resetOnChange())
                m_experiment->resetStatistics();
        showRunning(true, runningStatus(c));
        emit busyCpusChanged();
        return true;
    }
    bool endedByItself() const
    {
        return onRunner([](auto& e) { return e.finished(); });
    }
    /// @p f of what runs: the experiment on the target while one is connected (setTarget()), else this computer's.
    template <class F> auto onRunner(F f) const -> decltype(f(*m_experiment))
    {
        if constexpr (kRemotable)
            if (m_remote)
                return f(*m_remote);
        return f(*m_experiment);
    }
    /// Whether the run that stopped had ended by itself, as the last snapshot drawn (or the experiment) says.
    bool ranToEnd() const { return m_lastDrawn && m_lastDrawn->finished; }
    QString runError() const { return m_lastDrawn ? QString::fromStdString(m_lastDrawn->error) : QString(); }

    uint64_t m_lastGeneration = 0;
    QPointer<TargetConnection> m_target;
    std::unique_ptr<Remote> m_remote; ///< set while a target is connected: Start runs there
    nlohmann::json m_remoteView = nlohmann::json::object();
};

/// The page of an experiment of the engine's registry: its factory and its reader are the registry's
/// (ExperimentTraits<Config>), @p Controls the panel.
template <RegisteredExperiment Config, class Controls, PageCapabilities kCapabilities = {}>
using RegisteredExperimentPage = PolledExperimentPage<Config, typename ExperimentTraits<Config>::Experiment, Controls,
                                                      ExperimentTraits<Config>::fromJson, kCapabilities>;

} // namespace rtscope
