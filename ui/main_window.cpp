#include "ui/main_window.h"

#include "ui/app/app_style.h"
#include "ui/app/changes_banner.h"
#include "ui/app/file_menu.h"
#include "ui/app/presentation_mode.h"
#include "ui/app/preset_runner.h"
#include "ui/app/presets_menu.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/text_label.h"
#include "ui/common/unpinned_topology.h"
#include "ui/experiment_page.h"
#include "ui/explanation_pane.h"
#include "ui/latency/latency_page.h"
#include "ui/remote/remote_latency_source.h"
#include "ui/remote/target_banner.h"
#include "ui/remote/target_connection.h"
#include "ui/start/start_page.h"
#include "ui/system_panel.h"

#include "engine/presets/preset.h"
#include "engine/rt/cpu_topology.h"
#include "engine/trace/trace_session.h"

#include <QAbstractButton>
#include <QAction>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QStackedWidget>
#include <QStatusBar>
#include <QSysInfo>
#include <QTabBar>
#include <QTextBrowser>
#include <QTime>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>
#include <utility>

namespace rtscope {

namespace {
constexpr int kWindowStateVersion = 1; ///< QMainWindow::saveState()'s version (restoreSettings())
const char* const kLocalWindowTitle = QT_TRANSLATE_NOOP("rtscope::MainWindow", "rtscope — scheduling latency, live");
} // namespace

MainWindow::MainWindow(std::vector<ExperimentPage*> pages, const SystemProbe& probe, QSettings* settings,
                       QWidget* parent)
    : QMainWindow(parent)
    , m_pages(std::move(pages))
    , m_probe(probe)
    , m_settings(settings)
    , m_tabs(new QTabBar(this))
    , m_stack(new QStackedWidget(this))
    , m_controlStack(new QStackedWidget(this))
    , m_rtBanner(new QLabel(this))
{
    initUiResources();
    setObjectName("mainWindow");
    setWindowTitle(tr(kLocalWindowTitle));
    setWindowIcon(uiIcon("rtscope"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks);

    // Central area: the RT banner (only when RT is unavailable), the page selector, the pages.
    initTextLabel(m_rtBanner, "rtBanner");
    m_rtBanner->setStyleSheet("QLabel { background: #fff3cd; color: #5c3c00; border: 2px solid #e0a800; "
                              "border-radius: 4px; padding: 8px; font-weight: bold; }");
    m_rtBanner->setText(SystemPanel::rtBannerText(probe));
    m_rtBanner->setVisible(!probe.rtAvailable);
    m_tabs->setObjectName("pageTabs");
    m_tabs->setExpanding(false);
    m_tabs->setDocumentMode(true);
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);
    layout->addWidget(m_rtBanner);
    m_targetBanner = new TargetBanner(central);
    layout->addWidget(m_targetBanner);
    connect(m_targetBanner, &TargetBanner::reconnectRequested, this, [this] {
        QString error;
        m_reportConnectFailure = true;
        if (!reconnectTarget(&error))
            QMessageBox::warning(this, tr("Reconnect"), error);
    });
    connect(m_targetBanner, &TargetBanner::saveRequested, this, [this] {
        if (auto* save = findChild<QAction*>("saveRecording"))
            save->trigger();
    });
    connect(m_targetBanner, &TargetBanner::disconnectRequested, this, &MainWindow::disconnectTarget);
    m_changesBanner = new ChangesBanner(central);
    layout->addWidget(m_changesBanner);
    connect(m_changesBanner, &ChangesBanner::revertRequested, this, &MainWindow::revertMachineChanges);
    connect(m_changesBanner, &ChangesBanner::keepRequested, this, [this] {
        for (ExperimentPage* p : m_pages)
            if (!p->machineChanges().isEmpty() && !p->keepMachineChanges())
                setCurrentPage(pageIndex(p->name())); // the page says why next to its controls
        updateChangesBanner();
    });
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);

    auto* controlsDock = new QDockWidget(tr("Controls"), this);
    controlsDock->setObjectName("controlsDock");
    controlsDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    auto* scroll = new QScrollArea(controlsDock);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_controlStack);
    controlsDock->setWidget(scroll);
    addDockWidget(Qt::LeftDockWidgetArea, controlsDock);

    auto* systemDock = new QDockWidget(tr("System"), this);
    systemDock->setObjectName("systemDock");
    systemDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                            QDockWidget::DockWidgetClosable);
    systemDock->setWidget(new SystemPanel(probe, systemDock));
    addDockWidget(Qt::LeftDockWidgetArea, systemDock);

    for (int i = 0; i < int(m_pages.size()); ++i) {
        ExperimentPage* p = m_pages[size_t(i)];
        m_stack->addWidget(p);
        QWidget* controls = p->controls();
        m_controlStack->addWidget(controls ? controls : new QWidget);
        // The tab shows its key: 1–9, then 0 for the tenth page; a page past the tenth has no key.
        m_tabs->addTab(i < 10 ? QString("%1  %2").arg((i + 1) % 10).arg(p->shortTitle()) : p->shortTitle());
        connect(p, &ExperimentPage::runningChanged, this, [this] {
            updateActions();
            updateGuiPlacement();
        });
        connect(p, &ExperimentPage::busyCpusChanged, this, &MainWindow::updateGuiPlacement);
        connect(p, &ExperimentPage::referenceChanged, this, &MainWindow::updateActions);
        connect(p, &ExperimentPage::machineChangesChanged, this, &MainWindow::updateChangesBanner);
        connect(p, &ExperimentPage::statusMessage, this,
                [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    }
    connect(m_tabs, &QTabBar::currentChanged, this, &MainWindow::setCurrentPage);
    // The current tab, clicked on the start page, changes nothing in the bar but still goes to that page.
    connect(m_tabs, &QTabBar::tabBarClicked, this, [this](int index) {
        if (isStartPageShown())
            setCurrentPage(index);
    });
    // The dock never squeezes the controls: it is at least as wide as the widest page's panel.
    int controlsWidth = 0;
    for (int i = 0; i < m_controlStack->count(); ++i)
        controlsWidth = std::max(controlsWidth, m_controlStack->widget(i)->sizeHint().width());
    scroll->setMinimumWidth(controlsWidth + scroll->verticalScrollBar()->sizeHint().width() + 4);

    auto* toolbar = addToolBar(tr("Experiment"));
    toolbar->setObjectName("experimentToolbar");
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    const int icon = fontMetrics().height() * 3 / 2;
    toolbar->setIconSize(QSize(icon, icon));
    m_startStop = toolbar->addAction(uiIcon("start"), tr("Start"), this, &MainWindow::toggleRun);
    m_startStop->setObjectName("startStop");
    m_startStop->setShortcut(Qt::Key_F5);
    m_pause = toolbar->addAction(uiIcon("pause"), tr("Pause display"));
    m_pause->setObjectName("pauseDisplay");
    m_pause->setCheckable(true);
    m_pause->setShortcut(Qt::Key_P);
    m_pause->setToolTip(tr("Freeze the views; the measurement goes on (P)"));
    connect(m_pause, &QAction::toggled, this, [this](bool on) {
        if (ExperimentPage* p = currentPage())
            p->setDisplayPaused(on);
    });
    m_reset = toolbar->addAction(uiIcon("reset"), tr("Reset statistics"), this, [this] {
        if (ExperimentPage* p = currentPage())
            p->resetStatistics();
    });
    m_reset->setObjectName("resetStatistics");
    m_reset->setShortcut(Qt::Key_R);
    m_hold = toolbar->addAction(uiIcon("hold"), tr("Hold as reference"), this, [this] {
        if (ExperimentPage* p = currentPage())
            p->holdAsReference();
    });
    m_hold->setObjectName("holdReference");
    m_hold->setShortcut(Qt::Key_H);
    m_hold->setToolTip(tr("Freeze the current histogram and overlay what follows on it (H)"));
    toolbar->addSeparator();
    m_explain = toolbar->addAction(uiIcon("explain"), tr("What am I seeing?"), this, &MainWindow::showExplanation);
    m_explain->setObjectName("explain");
    m_explain->setShortcut(Qt::Key_F1);
    m_explain->setCheckable(true);
    m_explain->setToolTip(tr("Show or hide the explanation of the current page (F1)"));
    // Text beside the icons where the screen is wide enough for it, else icons only (each names itself in its
    // tooltip). A toolbar wider than its window gets an extension button, and Qt 6.4 showing or hiding that button
    // in the middle of laying out the window crashed (QLayoutPrivate::doResize): a saved layout restored on the
    // offscreen platform's 800×800 screen at 12 pt did it on every start after the first. The window's minimum width
    // (below) holds the toolbar, so only a screen narrower than that can make it overflow.
    if (const QScreen* s = screen(); s && toolbar->sizeHint().width() > s->availableGeometry().width())
        toolbar->setToolButtonStyle(Qt::ToolButtonIconOnly);

    // The page tabs get a row of their own across the whole window, above the docks: beside the controls dock
    // nine tabs needed scroll arrows at 1366 pixels (docs/gui.md).
    auto* pagesBar = new QToolBar(tr("Pages"), this);
    pagesBar->setObjectName("pagesToolbar");
    pagesBar->setMovable(false);
    pagesBar->setFloatable(false);
    pagesBar->toggleViewAction()->setEnabled(false); // the only way between pages: never hidden by a right click
    pagesBar->addWidget(m_tabs);
    addToolBarBreak(Qt::TopToolBarArea);
    addToolBar(Qt::TopToolBarArea, pagesBar);

    // Keys 1–9 pick a page, 0 the tenth (the keyboard's order). Spin boxes keep digits for themselves (they accept
    // the shortcut override).
    for (int i = 0; i < 10; ++i) {
        auto* shortcut = new QShortcut(QKeySequence(i < 9 ? Qt::Key_1 + i : Qt::Key_0), this);
        connect(shortcut, &QShortcut::activated, this, [this, i] {
            if (i < pageCount())
                m_tabs->setCurrentIndex(i);
        });
    }
    auto* quit = new QShortcut(QKeySequence::Quit, this);
    connect(quit, &QShortcut::activated, this, &QWidget::close);

    const QFontMetrics fm = fontMetrics();
    setMinimumSize(fm.averageCharWidth() * 110, fm.height() * 34);
    // A first start fills the screen (gui_main.cpp also asks the window manager to maximise it): the pages are
    // charts and tables, and every column wants the room. A saved geometry (restoreSettings) wins.
    const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
    resize(avail.size());

    m_fileMenu = new FileMenu(this, probe, m_tabs, systemDock); // menu order: File, Presets, View, Help
    // "What am I seeing?" as a tab beside the System panel, under the controls: the plots keep their width (hidden
    // until F1; the saved window state remembers it).
    m_explanation = new ExplanationPane(this);
    addDockWidget(Qt::LeftDockWidgetArea, m_explanation);
    tabifyDockWidget(systemDock, m_explanation);
    m_explanation->hide();
    connect(m_explanation->toggleViewAction(), &QAction::toggled, m_explain, &QAction::setChecked);
    if (auto* file = findChild<QMenu*>("fileMenu")) {
        QAction* first = file->actions().value(0);
        QAction* connectTo = new QAction(tr("Connect to &target…"), this);
        connectTo->setObjectName("connectTarget");
        connectTo->setToolTip(tr("Measure another machine: a command that runs 'rtscope agent --stdio' there "
                                 "(docs/remote.md)"));
        connect(connectTo, &QAction::triggered, this, [this] {
            bool ok = false;
            const QString target = QInputDialog::getText(
                this, tr("Connect to target"),
                tr("The target: ssh://[USER@]HOST[:PORT] (ssh runs 'rtscope agent --stdio' there),\n"
                   "tcp://HOST:PORT (an agent started with --listen, e.g. through ssh -L),\n"
                   "or a command that runs the agent, its stdin and stdout the link, e.g.\n"
                   "ssh root@board rtscope agent --stdio\nqemu-aarch64-static build/arm64/app/rtscope agent --stdio"),
                QLineEdit::Normal, m_target ? m_target->targetText() : QString(), &ok);
            if (!ok)
                return;
            QString error;
            m_reportConnectFailure = true;
            if (!connectTarget(target, &error))
                QMessageBox::warning(this, tr("Connect to target"), error);
        });
        QAction* disconnectFrom = new QAction(tr("&Disconnect from target"), this);
        disconnectFrom->setObjectName("disconnectTarget");
        disconnectFrom->setEnabled(false);
        connect(disconnectFrom, &QAction::triggered, this, &MainWindow::disconnectTarget);
        file->insertActions(first, {connectTo, disconnectFrom});
        file->insertSeparator(first);
    }
    m_presetRunner = new PresetRunner(this);
    menuBar()->addMenu(new PresetsMenu(m_presetRunner, this));
    m_presentation = new PresentationMode(this); // the View and Help menus; F11, C, Space, S
    if (auto* view = findChild<QMenu*>("viewMenu")) {
        QAction* start = new QAction(tr("Start &page"), this);
        start->setObjectName("showStartPage");
        start->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Home));
        start->setToolTip(tr("The lessons as cards, and what this machine can run (Alt+Home)"));
        connect(start, &QAction::triggered, this, &MainWindow::showStartPage);
        view->insertAction(view->actions().value(0), start);
    }

    statusBar()->showMessage(tr("Ready. F5 starts and stops, H holds a reference, F1 explains the views."));
    setCurrentPage(0);
    restoreSettings();
}

MainWindow::~MainWindow()
{
    stopAll();
    disconnectTarget(); // the remote source refers to the connection: both go before the pages
}

TargetConnection* MainWindow::ensureTarget()
{
    if (!m_target) {
        m_target = new TargetConnection(this);
        connect(m_target, &TargetConnection::lost, this, &MainWindow::updateTargetBanner);
        connect(m_target, &TargetConnection::opened, this, &MainWindow::targetOpened);
        connect(m_target, &TargetConnection::failed, this, &MainWindow::targetFailed);
    }
    return m_target;
}

void MainWindow::setTargetTokenFile(const QString& path)
{
    ensureTarget()->setTokenFile(path);
}

bool MainWindow::connectTarget(const QString& target, QString* error)
{
    const bool report = std::exchange(m_reportConnectFailure, false);
    const auto refuse = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    auto* latency = findPage<LatencyPage>();
    if (!latency)
        return refuse(tr("there is no Latency page to measure the target with"));
    QString problem;
    const std::optional<TargetSpec> spec = parseTargetText(target, tr("target"), problem);
    if (!spec)
        return refuse(problem);
    ensureTarget();
    closeConnectingDialog(); // an attempt in progress is replaced by this one (begin() cancels it)
    if (const QString why = m_target->begin(*spec); !why.isEmpty())
        return refuse(why);
    m_reportConnectFailure = report;
    // Window-modal and shown with show(), not exec(): the window repaints and its timers run while the agent
    // starts; Cancel kills the agent's command and changes nothing else.
    m_connecting = new QProgressDialog(tr("Connecting to %1…").arg(spec->text), tr("Cancel"), 0, 0, this);
    m_connecting->setObjectName("connectingTarget");
    m_connecting->setWindowTitle(tr("Connect to target"));
    m_connecting->setWindowModality(Qt::WindowModal);
    m_connecting->setAutoClose(false);
    m_connecting->setAutoReset(false);
    m_connecting->setMinimumDuration(0);
    connect(m_connecting, &QProgressDialog::canceled, this, &MainWindow::cancelConnectTarget);
    m_connecting->show();
    statusBar()->showMessage(tr("Connecting to %1…").arg(spec->text));
    return true;
}

bool MainWindow::targetConnecting() const
{
    return m_target && m_target->connecting();
}

void MainWindow::cancelConnectTarget()
{
    if (!targetConnecting())
        return;
    const QString text = m_target->targetText();
    m_target->cancel();
    closeConnectingDialog();
    m_reportConnectFailure = false;
    statusBar()->showMessage(tr("Connecting to %1 was cancelled; nothing changed").arg(text), 8000);
    emit targetConnectFinished(false, tr("cancelled"));
}

void MainWindow::closeConnectingDialog()
{
    if (!m_connecting)
        return;
    m_connecting->disconnect(this); // hiding it must not count as Cancel
    m_connecting->hide();
    m_connecting->deleteLater();
    m_connecting = nullptr;
}

void MainWindow::targetOpened()
{
    closeConnectingDialog();
    m_reportConnectFailure = false;
    auto* latency = findPage<LatencyPage>();
    const QString target = m_target->command();
    if (!m_localLatencySource) {
        m_localLatencySource =
            latency->replaceSource(std::make_unique<RemoteLatencySource>(*m_target), m_target->topology(), true);
    } else if (target != m_remoteTarget) {
        // Another target may be another machine: its CPUs anew (what the views show stays until Start).
        latency->replaceSource(std::make_unique<RemoteLatencySource>(*m_target), m_target->topology(), true);
    } else {
        // Reconnect: the same source, so the run received before the link dropped stays saveable until Start.
        latency->stop();
    }
    m_remoteTarget = target;
    // Every other page that can run there measures the target from its next Start (ExperimentPage::setTarget).
    for (ExperimentPage* p : m_pages)
        if (p != latency)
            p->setTarget(m_target);
    showTarget(true);
    emit targetConnectFinished(true, {});
}

void MainWindow::targetFailed(const QString& error)
{
    closeConnectingDialog();
    statusBar()->showMessage(tr("Not connected: %1").arg(error), 8000);
    if (std::exchange(m_reportConnectFailure, false)) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Connect to target"), error, QMessageBox::Ok, this);
        box->setObjectName("targetConnectFailed");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    emit targetConnectFinished(false, error);
}

bool MainWindow::reconnectTarget(QString* error)
{
    if (!m_target || m_target->command().isEmpty()) {
        if (error)
            *error = tr("no target to reconnect to: use File › Connect to target…");
        return false;
    }
    return connectTarget(m_target->command(), error);
}

void MainWindow::disconnectTarget()
{
    cancelConnectTarget();
    if (!m_localLatencySource)
        return;
    auto* latency = findPage<LatencyPage>();
    latency->replaceSource(std::move(m_localLatencySource), unpinnedTopology(), false);
    for (ExperimentPage* p : m_pages) // their remote runs refer to the link: they go before it closes
        if (p != latency)
            p->setTarget(nullptr);
    m_remoteTarget.clear();
    m_target->close();
    showTarget(false);
}

void MainWindow::showTarget(bool remote)
{
    const QString machine = remote ? m_target->machine() : QString();
    if (auto* dock = findChild<QDockWidget*>("systemDock")) {
        QWidget* old = dock->widget();
        dock->setWidget(new SystemPanel(remote ? m_target->probe() : m_probe, dock));
        dock->setWindowTitle(remote ? tr("System: %1").arg(machine) : tr("System"));
        delete old;
    }
    // To a page that measures the target: the current one if it does, else the Latency page.
    auto* latency = findPage<LatencyPage>();
    ExperimentPage* current = currentPage();
    if (remote && latency && (!current || (current != latency && current->measuredMachine().isEmpty())))
        setCurrentPage(pageIndex(latency->name()));
    if (auto* a = findChild<QAction*>("disconnectTarget"))
        a->setEnabled(remote);
    updateTargetBanner();
    QStringList local;
    for (ExperimentPage* p : m_pages)
        if (remote && p != latency && p->measuredMachine().isEmpty())
            local << p->shortTitle();
    QString message = tr("Measuring this machine.");
    if (remote && local.isEmpty())
        message = tr("Connected to %1: every page measures there.").arg(machine);
    else if (remote)
        message = (local.size() == 1 ? tr("Connected to %1: the pages measure there, except %2, which measures this "
                                          "computer, as its banner says.")
                                     : tr("Connected to %1: the pages measure there, except %2, which measure this "
                                          "computer, as their banner says."))
                      .arg(machine, local.join(tr(", ")));
    statusBar()->showMessage(message, 8000);
}

void MainWindow::updateTargetBanner()
{
    if (!m_localLatencySource) {
        setWindowTitle(tr(kLocalWindowTitle));
        m_targetBanner->hide();
        return;
    }
    const QString machine = m_target->machine();
    const QString lost = m_target->lostText();
    ExperimentPage* p = currentPage();
    auto* latency = findPage<LatencyPage>();
    if (p && p != latency && p->measuredMachine().isEmpty()) {
        // A page that does not run on a target (ExperimentPage::setTarget) measures this computer, and says so.
        const QString here =
            m_probe.hostname.empty() ? QSysInfo::machineHostName() : QString::fromStdString(m_probe.hostname);
        setWindowTitle(
            tr("rtscope — %1 on this computer (%2); the other pages on %3").arg(p->shortTitle(), here, machine));
        m_targetBanner->showLocalPage(p->shortTitle(), here, machine, lost);
        return;
    }
    setWindowTitle(tr("rtscope — measuring on %1").arg(machine));
    if (lost.isEmpty())
        m_targetBanner->showMeasuring(machine, m_target->command());
    else
        m_targetBanner->showLost(machine, lost, p == latency);
}

ExperimentPage* MainWindow::page(int index) const
{
    return index >= 0 && index < pageCount() ? m_pages[size_t(index)] : nullptr;
}

int MainWindow::pageIndex(const QString& name) const
{
    for (int i = 0; i < pageCount(); ++i)
        if (m_pages[size_t(i)]->name() == name)
            return i;
    return -1;
}

QStringList MainWindow::pageNames() const
{
    QStringList names;
    for (const ExperimentPage* p : m_pages)
        names << p->name();
    return names;
}

ExperimentPage* MainWindow::currentPage() const
{
    return page(m_stack->currentIndex());
}

int MainWindow::currentIndex() const
{
    return m_stack->currentIndex();
}

void MainWindow::setCurrentPage(int index)
{
    if (!page(index))
        return;
    if (!page(index)->isEnabledTo(this)) { // a disabled page: its tooltip says why
        statusBar()->showMessage(m_tabs->tabToolTip(index), 8000);
        if (m_tabs->currentIndex() != currentIndex())
            m_tabs->setCurrentIndex(currentIndex());
        return;
    }
    leaveStartPage();
    if (m_tabs->currentIndex() != index)
        m_tabs->setCurrentIndex(index); // comes back here through currentChanged
    m_stack->setCurrentIndex(index);
    m_controlStack->setCurrentIndex(index);
    if (m_explanation)
        m_explanation->showPage(page(index));
    updateActions();
    updateTargetBanner();
}

void MainWindow::toggleRun()
{
    ExperimentPage* p = currentPage();
    if (!p)
        return;
    m_presetRunner->cancel(); // a start or stop by hand ends a preset's script
    if (p->isRunning())
        p->stop();
    else
        p->start();
    updateActions();
}

void MainWindow::updateActions()
{
    ExperimentPage* p = currentPage();
    const bool running = p && p->isRunning();
    m_startStop->setText(running ? tr("Stop") : tr("Start"));
    m_startStop->setIcon(uiIcon(running ? "stop" : "start"));
    m_startStop->setToolTip(running ? tr("Stop and join every worker thread (F5)") : tr("Start the experiment (F5)"));
    m_pause->setEnabled(p != nullptr);
    {
        const QSignalBlocker block(m_pause);
        m_pause->setChecked(p && p->displayPaused());
    }
    const bool resets = p && p->supportsReset();
    m_reset->setEnabled(running && resets);
    m_reset->setToolTip(resets ? tr("Clear histogram and table; the timeline keeps its history (R)")
                               : tr("Nothing to reset on this page: every figure belongs to one run or one reading, "
                                    "and Start begins afresh"));
    m_hold->setEnabled(p && p->supportsReference());
}

void MainWindow::updateGuiPlacement()
{
    std::vector<int> busy;
    for (ExperimentPage* p : m_pages)
        if (p->isRunning())
            for (int cpu : p->busyCpus())
                if (std::find(busy.begin(), busy.end(), cpu) == busy.end())
                    busy.push_back(cpu);
    if (busy.empty()) {
        GuiThreadAffinity::restore();
        return;
    }
    GuiThreadAffinity::keepOff(busy);
}

void MainWindow::stopAll()
{
    if (m_presetRunner)
        m_presetRunner->cancel();
    for (ExperimentPage* p : m_pages)
        p->stop();
    GuiThreadAffinity::restore();
}

void MainWindow::showExplanation()
{
    m_explanation->showPage(currentPage());
    m_explanation->setVisible(m_explain->isChecked());
    if (!m_explain->isChecked())
        return;
    m_explanation->raise(); // the front tab, over the System panel
    // The controls keep the height they need (up to half the window); the explanation takes the rest.
    auto* controls = findChild<QDockWidget*>("controlsDock");
    if (controls && controls->isVisible() && !controls->isFloating() && !m_explanation->isFloating()) {
        const int want = m_controlStack->currentWidget()->sizeHint().height() + fontMetrics().height() * 3;
        const int column = controls->height() + m_explanation->height();
        const int top = std::min(want, column / 2);
        resizeDocks({controls, m_explanation}, {top, column - top}, Qt::Vertical);
    }
}

bool MainWindow::showStartAtLaunch() const
{
    return !m_settings || m_settings->value("start/show", true).toBool();
}

bool MainWindow::isStartPageShown() const
{
    return m_startPage && !m_startPage->isHidden();
}

void MainWindow::showStartPage()
{
    if (isStartPageShown())
        return;
    if (!m_startPage) {
        // The lessons the Presets menu lists (those that validate here), for the pages this window has.
        std::vector<Preset> lessons;
        for (Preset& p : builtinPresets())
            if (pageIndex(QString::fromStdString(p.experiment)) >= 0)
                lessons.push_back(std::move(p));
        m_startPage = new StartPage(lessons, m_probe, TraceSession::probe(), centralWidget());
        m_startPage->hide();
        static_cast<QVBoxLayout*>(centralWidget()->layout())->addWidget(m_startPage, 1);
        m_startPage->showAtStartBox()->setChecked(showStartAtLaunch());
        QList<QAction*> open;
        for (const char* name : {"openRecording", "openCyclictest"})
            if (auto* a = findChild<QAction*>(name))
                open << a;
        m_startPage->setOpenActions(open);
        m_startPage->setConnectAction(findChild<QAction*>("connectTarget"));
        connect(m_startPage, &StartPage::leaveRequested, this, [this] { setCurrentPage(currentIndex()); });
        m_startPage->setDoctorAvailable(pageIndex("doctor") >= 0);
        connect(m_startPage, &StartPage::doctorRequested, this, [this] { setCurrentPage(pageIndex("doctor")); });
        m_startPage->setNoiseAvailable(pageIndex("noise") >= 0);
        connect(m_startPage, &StartPage::noiseRequested, this, [this] { setCurrentPage(pageIndex("noise")); });
        connect(m_startPage, &StartPage::showAtStartToggled, this, [this](bool show) {
            if (m_settings) {
                m_settings->setValue("start/show", show);
                m_settings->sync();
            }
        });
        // A lesson starts as from the Presets menu (a refusal is shown there and the start page stays).
        connect(m_startPage, &StartPage::lessonChosen, this, [this](const QString& id) {
            if (auto* presets = findChild<PresetsMenu*>())
                presets->run(id);
        });
    }
    for (QWidget* w :
         {static_cast<QWidget*>(findChild<QDockWidget*>("controlsDock")),
          static_cast<QWidget*>(findChild<QDockWidget*>("systemDock")), static_cast<QWidget*>(m_explanation),
          static_cast<QWidget*>(findChild<QToolBar*>("experimentToolbar"))})
        if (w && !w->isHidden()) {
            w->hide();
            m_hiddenForStart << w;
        }
    m_stack->hide();
    m_startPage->show();
    if (m_startPage->cardCount() > 0)
        m_startPage->card(0)->setFocus();
    statusBar()->showMessage(tr("Pick a lesson; Esc or a page tab goes to the scope."));
}

void MainWindow::leaveStartPage()
{
    if (!isStartPageShown())
        return;
    m_startPage->hide();
    m_stack->show();
    for (QWidget* w : std::as_const(m_hiddenForStart))
        w->show();
    m_hiddenForStart.clear();
    statusBar()->clearMessage();
}

bool MainWindow::revertMachineChanges()
{
    bool all = true;
    for (ExperimentPage* p : m_pages)
        all = p->revertMachineChanges() && all;
    updateChangesBanner();
    return all;
}

void MainWindow::updateChangesBanner()
{
    QStringList changes;
    for (ExperimentPage* p : m_pages)
        changes << p->machineChanges();
    m_changesBanner->setChanges(changes);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    stopAll();
    // A change a page still holds is put back before the window goes (SIGINT and SIGTERM close it too).
    revertMachineChanges();
    m_presentation->setActive(false); // the saved state is the window's own, not presentation mode's
    saveSettings();
    event->accept();
}

void MainWindow::saveSettings()
{
    if (!m_settings)
        return;
    // The docks the start page hid are the user's layout all the same: saved as they were before it showed.
    for (QWidget* w : std::as_const(m_hiddenForStart))
        w->setVisible(true);
    m_settings->setValue("window/geometry", saveGeometry());
    m_settings->setValue("window/state", saveState(kWindowStateVersion));
    for (QWidget* w : std::as_const(m_hiddenForStart))
        w->setVisible(false);
    m_settings->setValue("window/page", currentIndex());
    for (ExperimentPage* p : m_pages) {
        m_settings->beginGroup(p->name());
        p->saveSettings(*m_settings);
        m_settings->endGroup();
    }
    m_settings->sync();
}

void MainWindow::restoreSettings()
{
    if (!m_settings)
        return;
    if (m_settings->contains("window/geometry"))
        restoreGeometry(m_settings->value("window/geometry").toByteArray());
    // Version 1: the page tabs have a toolbar row of their own. A state saved before (version 0) would put them
    // beside the experiment toolbar, so it is refused and the default layout used once.
    if (m_settings->contains("window/state"))
        restoreState(m_settings->value("window/state").toByteArray(), kWindowStateVersion);
    for (ExperimentPage* p : m_pages) {
        m_settings->beginGroup(p->name());
        p->restoreSettings(*m_settings);
        m_settings->endGroup();
    }
    setCurrentPage(std::clamp(m_settings->value("window/page", 0).toInt(), 0, std::max(0, pageCount() - 1)));
}

} // namespace rtscope

#include "moc_main_window.cpp"
