#pragma once
// The machine's real-time threads (the tuning workbench, docs/workbench.md): every thread whose policy is not
// SCHED_OTHER plus the kernel's interrupt threads (irq/…, ksoftirqd, rcu…, migration), read from /proc off the GUI
// thread and refreshed every few seconds, sortable and filterable. It says where your measuring thread's policy and
// priority fall among them and, for any row, gives the chrt and taskset lines that reproduce or change it. rtscope
// itself changes no other process.
//
// With a remote target (docs/remote.md) the list is the target's: each refresh asks its `rtscope agent` (a
// ThreadsRequest frame) and a timer picks up the answer, so nothing waits on the GUI thread; the chrt and taskset
// lines are then for a shell on the target. A lost link keeps the last list received and says so.
#include "engine/remote/agent_protocol.h"
#include "engine/rt/system_probe.h"
#include "ui/polled_page.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTime>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTimer;

namespace rtscope {

class AgentClient;
class ThreadListReader;
class ThreadsControls;
class ThreadsFilterModel;
class ThreadsModel;
struct SystemThread;

/// Not an experiment, but the same life: the refresh timer (every few seconds), the display pause, the status
/// signals and the saved settings are the polled pages'.
class ThreadsPage : public PolledPage {
    Q_OBJECT
public:
    explicit ThreadsPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~ThreadsPage() override;

    QString name() const override { return QStringLiteral("threads"); }
    QString shortTitle() const override { return tr("RT threads"); }
    /// Starts refreshing every few seconds (and reads at once).
    bool start() override;
    /// Stops refreshing and joins a read in progress.
    void stop() override;
    bool isRunning() const override;
    QString explanation() const override;
    /// Takes the policy and priority of a latency config (latencyConfigFromJson + validate) as "your thread".
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    /// Lists @p target's threads (through its agent) from now on; null: this computer's again. Always true.
    bool setTarget(TargetConnection* target) override;
    /// The target's name while one is set, else empty (this computer).
    QString measuredMachine() const override;
    /// How long the agent has to answer a request before the page says it did not: its heartbeat timeout.
    static constexpr int kTargetAnswerMs = kAgentHeartbeatTimeoutMs;
    /// How often the page looks for the agent's answer.
    static constexpr int kTargetPollMs = 50;

    /// Reads /proc again now (the refresh timer's slot).
    void refreshNow() override { readNow(); }
    /// Reads /proc again now (off the GUI thread), or asks the target's agent; false when a read or a request is
    /// already in progress, or the link to the target is down.
    bool readNow();
    /// A list is shown (read here, or received from the target).
    bool hasList() const { return m_haveList; }
    /// Thread lists received from targets (the answers shown).
    int targetLists() const { return m_targetLists; }
    /// The footer's sentence: whose threads, read how and when, refreshed or not.
    QString footerText() const;
    /// The panel has no problem list: a config it cannot take is refused in applyConfigJson()'s answer.
    QStringList problems() const override { return {}; }
    /// The placement sentence of the engine (describePlacement) for the chosen policy and priority.
    QString placementText() const;
    /// The chrt and taskset lines of the thread shown in the table's row @p viewRow (sorted, filtered).
    QString chrtLine(int viewRow) const;
    QString tasksetLine(int viewRow) const;
    /// Selects the row of thread @p tid (if listed and not filtered out); false otherwise.
    bool selectThread(pid_t tid);
    /// Puts the selected row's chrt (or taskset) line on the clipboard; false without a selection.
    bool copyChrt();
    bool copyTaskset();

    void setFilterText(const QString& text);
    ThreadsModel* threadsModel() const { return m_model; }
    ThreadsFilterModel* filterModel() const { return m_filter; }
    QTableView* table() const { return m_table; }
    ThreadsControls* threadsControls() const;
    ThreadListReader* reader() const { return m_reader; }

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

    void showProblems(const QStringList& problems) override { (void)problems; }
    /// The footer says whether the list is refreshed.
    void showRunning(bool running, const QString& status) override;
    /// Shows the list read while the display was paused.
    void displayResumed() override;
    /// The settings have always been keys of their own (policy, priority, …), not a config.
    bool savesConfig() const override { return false; }
    void saveViewSettings(QSettings& settings) const override;
    QStringList restoreViewSettings(QSettings& settings) override;

private:
    void listRead();
    /// Forgets the list shown: the machine it came from changed.
    void resetList();
    void requestFromTarget();
    void pollTarget();
    /// The probe of the machine listed: the target's, or this computer's.
    const SystemProbe& shownProbe() const;
    void referenceEdited();
    void selectionChanged();
    void updateFooter();
    const SystemThread* selectedThread() const;
    bool copy(const QString& text, const QString& what);

    QPointer<ThreadsControls> m_controls;
    ThreadListReader* m_reader;
    ThreadsModel* m_model;
    ThreadsFilterModel* m_filter;
    QLabel* m_placement;
    QLineEdit* m_filterEdit;
    QComboBox* m_show;
    QLabel* m_count;
    QTableView* m_table;
    QLabel* m_selected;
    QLineEdit* m_chrt;
    QLineEdit* m_taskset;
    QPushButton* m_copyChrt;
    QPushButton* m_copyTaskset;
    QLabel* m_footer;
    bool m_pendingWhilePaused = false;
    QPushButton* m_readNow;
    QLabel* m_machine; ///< "Threads on board-7 (…)", shown with a target
    QPointer<TargetConnection> m_target;
    QTimer* m_targetPoll;                      ///< runs while a request waits for its answer
    std::weak_ptr<AgentClient> m_targetClient; ///< the link the last request went to (a reconnect makes a new one)
    uint64_t m_targetGeneration = 0;           ///< of its last answer taken
    QElapsedTimer m_requestedAt;
    AgentThreadList m_targetList; ///< the last list received
    QString m_targetProblem;      ///< why the last request brought no list; empty when it did
    int m_targetLists = 0;
    bool m_haveList = false;
    double m_listReadMs = 0;
    QTime m_listTime; ///< when the list shown was read (here) or received (from the target)
};

} // namespace rtscope
