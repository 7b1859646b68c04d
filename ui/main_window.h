#pragma once
// The main window: a page selector over the experiment pages, the current page's controls in a left dock,
// the system panel, and a toolbar with Start/Stop, Pause display, Reset statistics and Hold as reference.
#include "engine/rt/system_probe.h"

#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <vector>

class QAction;
class QLabel;
class QProgressDialog;
class QSettings;
class QStackedWidget;
class QTabBar;

namespace rtscope {

class ExperimentPage;
class LatencySource;
class TargetBanner;
class ChangesBanner;
class TargetConnection;
class ExplanationPane;
class FileMenu;
class PresentationMode;
class PresetRunner;
class StartPage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// Takes ownership of @p pages. @p settings may be null (nothing persists); it must outlive the window.
    MainWindow(std::vector<ExperimentPage*> pages, const SystemProbe& probe, QSettings* settings,
               QWidget* parent = nullptr);
    ~MainWindow() override;

    int pageCount() const { return int(m_pages.size()); }
    ExperimentPage* page(int index) const;
    ExperimentPage* currentPage() const;
    int currentIndex() const;
    void setCurrentPage(int index);
    /// Index of the page whose name() is @p name, or -1.
    int pageIndex(const QString& name) const;
    QStringList pageNames() const;

    template <class T> T* findPage() const
    {
        for (ExperimentPage* p : m_pages)
            if (auto* t = qobject_cast<T*>(p))
                return t;
        return nullptr;
    }

    QAction* startStopAction() const { return m_startStop; }
    QAction* pauseAction() const { return m_pause; }
    QAction* resetAction() const { return m_reset; }
    QAction* holdAction() const { return m_hold; }
    QAction* explainAction() const { return m_explain; }
    ExplanationPane* explanationPane() const { return m_explanation; }
    /// The File menu's verbs (open, export, save), for `--open` and the tests.
    FileMenu* fileMenu() const { return m_fileMenu; }
    PresetRunner* presetRunner() const { return m_presetRunner; }
    PresentationMode* presentationMode() const { return m_presentation; }
    QLabel* rtBanner() const { return m_rtBanner; }

    /// The start page (ui/start/start_page.h, docs/gui.md): the lessons as cards over the pages; the docks and the
    /// toolbar are hidden while it shows. A lesson, a page tab, Escape or any page switch leaves it.
    void showStartPage();
    bool isStartPageShown() const;
    /// Null until showStartPage() first made it.
    StartPage* startPage() const { return m_startPage; }
    /// The "Show at start" setting (true when unset or without settings): the app opens on the start page, else on
    /// the page it showed last.
    bool showStartAtLaunch() const;

    /// A remote target (docs/remote.md, Desktop app): @p target is ssh://[USER@]HOST[:PORT], tcp://HOST:PORT or a
    /// command that runs `rtscope agent --stdio` there (parseTargetText). Returns at once: false with @p error's
    /// sentence when it cannot begin, else true while a "Connecting to …" dialog with Cancel shows, and
    /// targetConnectFinished() follows. On the agent's hello the Latency page measures there, the System panel shows
    /// the target's probe, the title and a banner name the machine, and the other pages say in that banner that they
    /// measure this computer. A failed or cancelled attempt leaves the window as it was.
    bool connectTarget(const QString& target, QString* error = nullptr);
    /// The same target again after a lost link; the run the Latency page shows (and can save) stays until the next
    /// Start.
    bool reconnectTarget(QString* error = nullptr);
    /// Gives up a connection attempt in progress (its Cancel button): the agent's command is killed.
    void cancelConnectTarget();
    /// Closes the link (the agent stops and leaves) and measures this machine again.
    void disconnectTarget();
    /// Null until a target was first asked for (connectTarget(), setTargetTokenFile()).
    TargetConnection* target() const { return m_target; }
    /// The token file a tcp:// target's token is read from (`--target-token`), for this and later connections.
    void setTargetTokenFile(const QString& path);
    bool targetConnected() const { return m_localLatencySource != nullptr; }
    /// A connection attempt is in progress.
    bool targetConnecting() const;
    TargetBanner* targetBanner() const { return m_targetBanner; }
    ChangesBanner* changesBanner() const { return m_changesBanner; }

    /// Puts back every change a page holds on the machine (the changes banner's Revert all; the window's close).
    bool revertMachineChanges();

    /// Stops every page (joining all worker threads) and gives the GUI thread its CPUs back.
    void stopAll();
    void saveSettings();
    void restoreSettings();

signals:
    /// A connectTarget() attempt ended: @p connected, or @p error says why ("cancelled" for Cancel).
    void targetConnectFinished(bool connected, const QString& error);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    TargetConnection* ensureTarget();
    void toggleRun();
    void updateActions();
    void updateGuiPlacement();
    void showExplanation();
    void leaveStartPage();
    /// The window as it is for a remote target (@p remote) or for this machine: title, banner, System panel, pages.
    void showTarget(bool remote);
    /// The banner and title for the current page: the target's machine on the Latency page, "this page measures
    /// this computer" on the others, the lost link on both.
    void updateTargetBanner();
    /// The changes banner lists what every page holds changed on the machine.
    void updateChangesBanner();
    void targetOpened();
    void targetFailed(const QString& error);
    void closeConnectingDialog();

    std::vector<ExperimentPage*> m_pages;
    SystemProbe m_probe;
    QSettings* m_settings;
    QTabBar* m_tabs;
    QStackedWidget* m_stack;
    QStackedWidget* m_controlStack;
    QLabel* m_rtBanner;
    QAction* m_startStop;
    QAction* m_pause;
    QAction* m_reset;
    QAction* m_hold;
    QAction* m_explain;
    ExplanationPane* m_explanation = nullptr;
    FileMenu* m_fileMenu = nullptr;
    PresetRunner* m_presetRunner = nullptr;
    PresentationMode* m_presentation = nullptr;
    StartPage* m_startPage = nullptr;
    QList<QWidget*> m_hiddenForStart; ///< docks and toolbar hidden by showStartPage(), shown again on leaving
    TargetConnection* m_target = nullptr;
    TargetBanner* m_targetBanner = nullptr;
    ChangesBanner* m_changesBanner = nullptr;
    /// The Latency page's own source while it measures a remote target (null: it measures this machine).
    std::unique_ptr<LatencySource> m_localLatencySource;
    QString m_remoteTarget;                  ///< the target the remote source was made for
    QProgressDialog* m_connecting = nullptr; ///< "Connecting to …" while an attempt runs
    bool m_reportConnectFailure = false;     ///< the attempt came from a menu or button: a failure is a dialog
};

} // namespace rtscope
