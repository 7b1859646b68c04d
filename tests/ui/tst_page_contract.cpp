// ctest: parallel. Fake experiment; refresh logic is deterministic.
// The page template's contract (ui/polled_page.h, PolledExperimentPage), pinned with a fake experiment, a fake panel
// and its fake mapper instead of a lab, so that a page's author can read here what the template does for a page:
// Start runs the experiment with the controls' config (the fields without a control kept from the last valid
// config) against the unpinned topology, and says so in the panel, the status bar and to the window; a config the
// validation refuses is shown and nothing runs, and an engine refusal is shown line by line; the refresh timer draws
// each new snapshot generation once, never again, and not while the display is paused; Stop stops the experiment and
// draws its final snapshot; a run that ends by itself is stopped at the next refresh; the panel is read-only exactly
// while a run is on; and a page destroyed while running stops its experiment.
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "engine/util/error.h"
#include "tests/common/test_main.h"
#include "ui/common/unpinned_topology.h"
#include "ui/polled_page.h"

#include <QSignalBlocker>
#include <QSignalSpy>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace rtscope;

namespace {

/// A config with one field a control shows and one it does not.
struct PageFakeConfig {
    static constexpr int kMaxLevel = 50; ///< validate()'s limit; the control goes further
    int level = 5;                       ///< the spin box
    int hidden = 0;                      ///< no control: kept from the last valid config
    bool asRun = false;                  ///< set by the experiment on the config it runs (CPUs resolved, in a lab)

    std::vector<std::string> validate(const CpuTopology& topology) const
    {
        (void)topology;
        if (level < 1 || level > kMaxLevel)
            return {"level must be 1.." + std::to_string(kMaxLevel)};
        return {};
    }
    std::string label() const { return "level " + std::to_string(level) + (asRun ? " as run" : ""); }
};

nlohmann::json toJson(const PageFakeConfig& c)
{
    return {{"level", c.level}, {"hidden", c.hidden}};
}

PageFakeConfig pageFakeConfigFromJson(const nlohmann::json& j, std::vector<std::string>& errors)
{
    PageFakeConfig c;
    if (!j.is_object()) {
        errors.push_back("the config is not an object");
        return c;
    }
    c.level = j.value("level", c.level);
    c.hidden = j.value("hidden", c.hidden);
    return c;
}

struct PageFakeSnapshot {
    uint64_t generation = 0;
    bool running = false;
    bool finished = false;
    std::string error;
    PageFakeConfig config;
    int value = 0; ///< what the test published
};

/// What a page needs of an experiment, driven by the test: it records the starts and stops it is asked for, and
/// publishes the snapshots the test hands it, numbered as the host numbers them (one generation each, across runs).
/// Its stop() publishes a final snapshot (running false), as the host's does.
class PageFakeExperiment {
public:
    struct Log {
        std::vector<PageFakeConfig> starts;      ///< every start() asked for
        std::vector<std::vector<int>> startCpus; ///< the topology each start was given (allowed CPUs)
        int stops = 0;                           ///< stop() calls that stopped a run
        bool destroyed = false;
        bool destroyedRunning = false;
    };

    explicit PageFakeExperiment(std::shared_ptr<Log> log)
        : m_log(std::move(log))
    {}
    ~PageFakeExperiment()
    {
        m_log->destroyed = true;
        m_log->destroyedRunning = m_running;
    }

    Error start(const PageFakeConfig& config, const CpuTopology& topology)
    {
        m_log->starts.push_back(config);
        m_log->startCpus.push_back(topology.allowed);
        if (m_refusal)
            return *m_refusal;
        m_config = config;
        m_config.asRun = true;
        m_running = true;
        m_finished = false;
        return {};
    }
    void stop()
    {
        if (!m_running)
            return;
        ++m_log->stops;
        m_running = false;
        publish(m_lastValue, m_lastError, m_finished); // the run's figures and trouble, as it ended
    }
    bool running() const { return m_running; }
    bool finished() const { return m_finished; }
    std::vector<int> busyCpus() const { return m_running ? std::vector<int>{m_busyCpu} : std::vector<int>{}; }
    std::shared_ptr<const PageFakeSnapshot> snapshot() const { return m_latest; }
    const PageFakeConfig& config() const { return m_config; }

    // The test's side.
    void refuseWith(std::optional<Error> e) { m_refusal = std::move(e); }
    void setBusyCpu(int cpu) { m_busyCpu = cpu; }
    /// A new snapshot (the next generation).
    void publish(int value, std::string error = {}, bool finished = false)
    {
        auto s = std::make_shared<PageFakeSnapshot>();
        s->generation = ++m_generation;
        s->running = m_running;
        s->finished = finished;
        s->error = std::move(error);
        s->config = m_config;
        s->value = value;
        m_lastValue = value;
        m_lastError = s->error;
        m_latest = std::move(s);
    }
    /// The run reached its planned end: finished() says so, and the snapshot with it (still running).
    void finish(int value)
    {
        m_finished = true;
        publish(value, {}, true);
    }
    uint64_t generation() const { return m_generation; }

private:
    std::shared_ptr<Log> m_log;
    std::optional<Error> m_refusal;
    PageFakeConfig m_config;
    bool m_running = false;
    bool m_finished = false;
    int m_busyCpu = 0;
    int m_lastValue = 0;
    std::string m_lastError;
    uint64_t m_generation = 0;
    std::shared_ptr<const PageFakeSnapshot> m_latest;
};

/// The mapper between the panel's one spin box and the config.
class PageFakeMapper {
public:
    explicit PageFakeMapper(QSpinBox* level)
        : m_level(level)
    {}
    PageFakeConfig config(const PageFakeConfig& base) const
    {
        PageFakeConfig c = base;
        c.level = m_level->value();
        return c;
    }
    void setConfig(const PageFakeConfig& c)
    {
        const QSignalBlocker block(m_level);
        m_level->setValue(c.level);
    }
    QStringList unrepresentable(const PageFakeConfig& c) const
    {
        if (c.level < m_level->minimum() || c.level > m_level->maximum())
            return {QString("level %1 is beyond the control's %2..%3")
                        .arg(c.level)
                        .arg(m_level->minimum())
                        .arg(m_level->maximum())};
        return {};
    }

private:
    QSpinBox* m_level;
};

/// The panel: what PolledExperimentPage asks of its Controls, and a record of what it was told.
class PageFakeControls : public QWidget {
    Q_OBJECT
public:
    explicit PageFakeControls(const std::vector<int>& cpus, QWidget* parent = nullptr)
        : QWidget(parent)
        , m_form(new QWidget(this))
        , m_level(new QSpinBox(m_form))
        , m_mapper(m_level)
        , m_cpus(cpus)
    {
        m_level->setRange(1, 100); // beyond validate()'s 50: the panel can describe a config the engine refuses
        m_level->setValue(5);
        auto* layout = new QVBoxLayout(this);
        layout->addWidget(m_form);
        connect(m_level, &QSpinBox::valueChanged, this, &PageFakeControls::edited);
    }

    PageFakeMapper& mapper() { return m_mapper; }
    void showProblems(const QStringList& problems) { m_problems = problems; }
    void clearProblems() { m_problems.clear(); }
    QStringList problems() const { return m_problems; }
    void setStatus(const QString& status) { m_status = status; }
    void setRunning(bool running)
    {
        m_form->setEnabled(!running);
        m_runningCalls << running;
    }

    QString status() const { return m_status; }
    bool formEnabled() const { return m_form->isEnabled(); }
    QList<bool> runningCalls() const { return m_runningCalls; }
    QSpinBox* level() const { return m_level; }
    std::vector<int> cpus() const { return m_cpus; }

signals:
    void edited();

private:
    QWidget* m_form;
    QSpinBox* m_level;
    PageFakeMapper m_mapper;
    std::vector<int> m_cpus;
    QStringList m_problems;
    QString m_status;
    QList<bool> m_runningCalls;
};

using PageFakeBase = PolledExperimentPage<PageFakeConfig, PageFakeExperiment, PageFakeControls, pageFakeConfigFromJson>;
static_assert(!PageFakeBase::kRemotable && !PageFakeBase::kLive && !PageFakeBase::kResets);

/// The smallest page: it records what it draws. @p stopsInDestructor: the rule every lab follows (polled_page.cpp:
/// "the subclass stopped the run in its own destructor"); false shows what the template does by itself.
class PageFakePage : public PageFakeBase {
public:
    static constexpr int kRefreshMs = 10;

    PageFakePage(const SystemProbe& probe, std::unique_ptr<PageFakeExperiment> experiment, bool stopsInDestructor)
        : PageFakeBase(probe, kRefreshMs, CpuTopology::current(), std::move(experiment), nullptr)
        , m_stopsInDestructor(stopsInDestructor)
    {}
    ~PageFakePage() override
    {
        if (m_stopsInDestructor)
            stop();
    }

    QString name() const override { return "fake"; }
    QString shortTitle() const override { return "Fake"; }
    QString explanation() const override { return {}; }

    PageFakeControls* panel() const { return m_controls; }
    bool timerActive() const { return m_timer->isActive(); }

    std::vector<uint64_t> drawn;   ///< the generations draw() was given, in order
    std::vector<uint64_t> arrived; ///< the generations snapshotArrived() was given
    std::vector<PageFakeConfig> starting;
    std::vector<PageFakeConfig> edits; ///< configEdited()

protected:
    void draw(const PageFakeSnapshot& s) override { drawn.push_back(s.generation); }
    void snapshotArrived(const PageFakeSnapshot& s) override { arrived.push_back(s.generation); }
    void runStarting(const PageFakeConfig& c) override { starting.push_back(c); }
    void configEdited(const PageFakeConfig& c) override { edits.push_back(c); }
    QString finishedMessage() const override { return "Fake run finished"; }

private:
    bool m_stopsInDestructor;
};

/// A page over a fresh fake experiment; @p log sees what the experiment was asked.
struct PageFakeSetUp {
    std::shared_ptr<PageFakeExperiment::Log> log = std::make_shared<PageFakeExperiment::Log>();
    std::unique_ptr<PageFakePage> page;
    PageFakeExperiment* experiment = nullptr;

    explicit PageFakeSetUp(bool stopsInDestructor = true)
    {
        SystemProbe probe;
        probe.onlineCpus = CpuTopology::current().online;
        page = std::make_unique<PageFakePage>(probe, std::make_unique<PageFakeExperiment>(log), stopsInDestructor);
        experiment = &page->experiment();
        experiment->setBusyCpu(probe.onlineCpus.back());
    }
};

QStringList statusTexts(const QSignalSpy& spy)
{
    QStringList out;
    for (const QList<QVariant>& args : spy)
        out << args.at(0).toString();
    return out;
}

QList<bool> runningFlags(const QSignalSpy& spy)
{
    QList<bool> out;
    for (const QList<QVariant>& args : spy)
        out << args.at(0).toBool();
    return out;
}

} // namespace

class TestPageContract : public QObject {
    Q_OBJECT
private slots:
    // Start: the experiment runs the config the controls describe, with the field they do not show taken from the
    // last valid config, against the unpinned topology; the page then polls, tells the window (running, busy CPUs,
    // the status bar) and shows the run's label as the experiment runs it in the panel.
    void startRunsTheControlsConfig()
    {
        PageFakeSetUp f;
        PageFakePage& page = *f.page;
        PageFakeConfig applied;
        applied.level = 9;
        applied.hidden = 42;
        QCOMPARE(page.applyConfig(applied), QStringList());
        QCOMPARE(page.panel()->level()->value(), 9);
        page.panel()->level()->setValue(7); // the user's edit
        QCOMPARE(int(page.edits.size()), 1);
        QCOMPARE(page.edits.back().level, 7);
        QCOMPARE(page.edits.back().hidden, 42);
        QCOMPARE(page.panel()->cpus(), CpuTopology::current().online);

        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QSignalSpy busy(&page, &ExperimentPage::busyCpusChanged);
        QSignalSpy status(&page, &ExperimentPage::statusMessage);
        QVERIFY(!page.isRunning());
        QVERIFY(!page.timerActive());
        QVERIFY(page.start());
        QCOMPARE(int(f.log->starts.size()), 1);
        QCOMPARE(f.log->starts[0].level, 7);
        QCOMPARE(f.log->starts[0].hidden, 42);
        QCOMPARE(f.log->startCpus[0], unpinnedTopology().allowed);
        QCOMPARE(int(page.starting.size()), 1);
        QCOMPARE(page.starting[0].level, 7);
        QVERIFY(page.isRunning());
        QVERIFY(page.timerActive());
        QCOMPARE(page.refreshIntervalMs(), PageFakePage::kRefreshMs);
        QCOMPARE(runningFlags(running), QList<bool>{true});
        QCOMPARE(busy.count(), 1);
        QCOMPARE(page.busyCpus(), f.experiment->busyCpus());
        QVERIFY(!page.busyCpus().empty());
        QCOMPARE(statusTexts(status), QStringList{"Started: level 7 as run"});
        QCOMPARE(page.panel()->status(), QString("Running: level 7 as run"));
        QCOMPARE(page.problems(), QStringList());

        // Start again while running: nothing new is started.
        QVERIFY(page.start());
        QCOMPARE(int(f.log->starts.size()), 1);
        page.stop();
    }

    // A config validate() refuses: its sentence is next to the controls (at the edit already, and again at Start),
    // Start returns false and nothing runs, nothing is announced, the panel stays editable.
    void validationErrorRunsNothing()
    {
        PageFakeSetUp f;
        PageFakePage& page = *f.page;
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QSignalSpy status(&page, &ExperimentPage::statusMessage);
        page.panel()->level()->setValue(60);
        QCOMPARE(page.problems(), QStringList{"level must be 1..50"});
        QVERIFY(page.edits.empty()); // an invalid edit is not a config
        page.panel()->showProblems({});
        QVERIFY(!page.start());
        QCOMPARE(page.problems(), QStringList{"level must be 1..50"});
        QVERIFY(f.log->starts.empty());
        QVERIFY(page.starting.empty());
        QVERIFY(!page.isRunning());
        QVERIFY(!page.timerActive());
        QCOMPARE(running.count(), 0);
        QCOMPARE(status.count(), 0);
        QVERIFY(page.panel()->formEnabled());
        QVERIFY(page.panel()->runningCalls().isEmpty());

        // applyConfig() with the same refusal changes nothing in the controls.
        PageFakeConfig bad;
        bad.level = 70;
        QCOMPARE(page.applyConfig(bad), QStringList{"level must be 1..50"});
        QCOMPARE(page.panel()->level()->value(), 60);
        // And one the controls cannot show is refused with their sentence, not clamped.
        bad.level = 500;
        QVERIFY(page.applyConfig(bad).contains("level 500 is beyond the control's 1..100"));
        QCOMPARE(page.panel()->level()->value(), 60);
    }

    // The engine refuses the start (a permission, a busy CPU): every line of its sentence next to the controls, the
    // first in the status bar; the page does not run nor poll, and says nothing of a run.
    void engineRefusalIsShown()
    {
        PageFakeSetUp f;
        PageFakePage& page = *f.page;
        f.experiment->refuseWith(Error{ErrorKind::Permission, "SCHED_FIFO was refused\nsee docs/rt-privileges.md"});
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QSignalSpy status(&page, &ExperimentPage::statusMessage);
        QVERIFY(!page.start());
        QCOMPARE(int(f.log->starts.size()), 1); // asked once, no silent retry
        QCOMPARE(page.problems(), (QStringList{"SCHED_FIFO was refused", "see docs/rt-privileges.md"}));
        QCOMPARE(statusTexts(status), QStringList{"SCHED_FIFO was refused"});
        QCOMPARE(running.count(), 0);
        QVERIFY(!page.isRunning());
        QVERIFY(!page.timerActive());
        QVERIFY(page.starting.empty());
        QVERIFY(page.panel()->formEnabled());

        // Accepted the next time: the problems go.
        f.experiment->refuseWith(std::nullopt);
        QVERIFY(page.start());
        QCOMPARE(page.problems(), QStringList());
        page.stop();
    }

    // Polling: each new generation is drawn once, at the next refresh (the page's own timer), and never again; a
    // refresh with nothing new draws nothing. While the display is paused snapshots arrive but are not drawn; the
    // resume draws the newest once.
    void pollingDrawsEachGenerationOnce()
    {
        PageFakeSetUp f;
        PageFakePage& page = *f.page;
        page.refreshNow(); // before any snapshot: nothing to draw
        QVERIFY(page.drawn.empty());
        QVERIFY(page.start());
        page.refreshNow();
        QVERIFY(page.drawn.empty()); // the experiment has published nothing yet

        f.experiment->publish(1);
        const uint64_t g1 = f.experiment->generation();
        QTRY_COMPARE(page.drawn, std::vector<uint64_t>{g1}); // by the refresh timer
        for (int i = 0; i < 5; ++i)
            page.refreshNow();
        QTest::qWait(3 * PageFakePage::kRefreshMs); // the timer's refreshes too
        QCOMPARE(page.drawn, std::vector<uint64_t>{g1});
        QCOMPARE(page.framesDrawn(), uint64_t(1));

        f.experiment->publish(2);
        f.experiment->publish(3); // two between refreshes: the newest is drawn
        const uint64_t g3 = f.experiment->generation();
        page.refreshNow();
        page.refreshNow();
        QCOMPARE(page.drawn, (std::vector<uint64_t>{g1, g3}));

        page.setDisplayPaused(true);
        f.experiment->publish(4);
        const uint64_t g4 = f.experiment->generation();
        page.refreshNow();
        page.refreshNow();
        QCOMPARE(page.drawn, (std::vector<uint64_t>{g1, g3}));
        QCOMPARE(page.arrived.back(), g4);
        page.setDisplayPaused(false); // draws what came meanwhile, once
        page.refreshNow();
        QCOMPARE(page.drawn, (std::vector<uint64_t>{g1, g3, g4}));
        QCOMPARE(page.framesDrawn(), uint64_t(3));
        page.stop();
    }

    // Stop: the experiment stops (once), the final snapshot it published at its stop is drawn, the timer stops, the
    // panel is idle again and the window hears of it; a second Stop does nothing. The error of the final snapshot is
    // shown next to the controls.
    void stopDrawsTheFinalSnapshot()
    {
        PageFakeSetUp f;
        PageFakePage& page = *f.page;
        QVERIFY(page.start());
        f.experiment->publish(1);
        page.refreshNow();
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QSignalSpy busy(&page, &ExperimentPage::busyCpusChanged);
        QSignalSpy status(&page, &ExperimentPage::statusMessage);
        page.stop();
        QCOMPARE(f.log->stops, 1);
        QVERIFY(!page.isRunning());
        QVERIFY(!page.timerActive());
        QCOMPARE(page.drawn.back(), f.experiment->generation()); // the stop's own snapshot
        QVERIFY(!f.experiment->snapshot()->running);
        QCOMPARE(runningFlags(running), QList<bool>{false});
        QCOMPARE(busy.count(), 1);
        QVERIFY(page.busyCpus().empty());
        QCOMPARE(statusTexts(status), QStringList{"Stopped"});
        QCOMPARE(page.panel()->status(), QString());
        const size_t drawnAtStop = page.drawn.size();
        page.stop();
        QCOMPARE(f.log->stops, 1);
        QCOMPARE(running.count(), 1);
        page.refreshNow();
        QCOMPARE(page.drawn.size(), drawnAtStop);

        // A run whose last snapshot carries an error: the error is shown when it stops, then the stop is announced.
        QVERIFY(page.start());
        f.experiment->publish(2, "the worker on CPU 1 overran its deadline");
        status.clear();
        page.stop();
        QCOMPARE(page.problems(), QStringList{"the worker on CPU 1 overran its deadline"});
        QCOMPARE(statusTexts(status), (QStringList{"the worker on CPU 1 overran its deadline", "Stopped"}));
    }

    // A run that reaches its end by itself is stopped at the next refresh: the experiment's stop() is called (its
    // threads joined), the final snapshot drawn, and the stop announced with the page's finished message.
    void runEndingByItselfIsStopped()
    {
        PageFakeSetUp f;
        PageFakePage& page = *f.page;
        QVERIFY(page.start());
        f.experiment->publish(1);
        QTRY_COMPARE(page.drawn.size(), size_t(1));
        QSignalSpy running(&page, &ExperimentPage::runningChanged);
        QSignalSpy status(&page, &ExperimentPage::statusMessage);
        f.experiment->finish(2);
        QTRY_VERIFY(!page.isRunning()); // by the refresh timer
        QCOMPARE(f.log->stops, 1);
        QVERIFY(!page.timerActive());
        QCOMPARE(page.drawn.back(), f.experiment->generation());
        QCOMPARE(runningFlags(running), QList<bool>{false});
        QCOMPARE(statusTexts(status), QStringList{"Fake run finished"});
    }

    // The panel is read-only exactly while a run is on (its config is fixed), and applyConfig() is refused then
    // with the page's sentence, changing nothing.
    void controlsDisabledWhileRunning()
    {
        PageFakeSetUp f;
        PageFakePage& page = *f.page;
        QVERIFY(page.panel()->formEnabled());
        QVERIFY(page.start());
        QVERIFY(!page.panel()->formEnabled());
        PageFakeConfig other;
        other.level = 3;
        QCOMPARE(page.applyConfig(other), QStringList{"the configuration cannot change during a run: stop first"});
        QCOMPARE(page.panel()->level()->value(), 5);
        page.stop();
        QVERIFY(page.panel()->formEnabled());
        QCOMPARE(page.panel()->runningCalls(), (QList<bool>{true, false}));
        QCOMPARE(page.applyConfig(other), QStringList());
        QCOMPARE(page.panel()->level()->value(), 3);

        // A refused start never made it read-only.
        f.experiment->refuseWith(Error{ErrorKind::Unavailable, "CPU 1 is offline"});
        QVERIFY(!page.start());
        QVERIFY(page.panel()->formEnabled());
        QCOMPARE(page.panel()->runningCalls(), (QList<bool>{true, false}));
    }

    // A page destroyed while running: a page that follows the rule (stop() in its destructor) stops the experiment
    // once, before it is destroyed, and tells the window the run ended. The template itself only destroys the
    // experiment with the page (an ExperimentHost stops in its own destructor): it never stops it, since its stop()
    // redraws through draw(), which a base class destructor cannot call.
    void destroyingARunningPageStopsTheExperiment()
    {
        {
            PageFakeSetUp f;
            QVERIFY(f.page->start());
            f.experiment->publish(1);
            QSignalSpy running(f.page.get(), &ExperimentPage::runningChanged);
            f.page.reset();
            QCOMPARE(f.log->stops, 1);
            QVERIFY(f.log->destroyed);
            QVERIFY(!f.log->destroyedRunning);
            QCOMPARE(runningFlags(running), QList<bool>{false});
        }
        {
            PageFakeSetUp f(false);
            QVERIFY(f.page->start());
            f.page.reset();
            QVERIFY(f.log->destroyed); // with the page: an experiment that stops in its destructor is stopped
            QVERIFY(f.log->destroyedRunning);
            QCOMPARE(f.log->stops, 0); // by the template itself: never (the page's own destructor must)
        }
    }

    // The panel is the page's until the window takes it: deleted with the page when it has no parent, left to its
    // parent otherwise.
    void panelOwnership()
    {
        QPointer<QWidget> orphan;
        {
            PageFakeSetUp f;
            orphan = f.page->controls();
            QVERIFY(orphan);
        }
        QVERIFY(!orphan);
        QWidget dock;
        QPointer<QWidget> docked;
        {
            PageFakeSetUp f;
            docked = f.page->controls();
            docked->setParent(&dock);
        }
        QVERIFY(docked);
    }
};

RTSCOPE_TEST_MAIN(TestPageContract)
#include "tst_page_contract.moc"
