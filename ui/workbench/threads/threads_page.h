#pragma once
// The machine's real-time threads (the tuning workbench, docs/workbench.md): every thread whose policy is not
// SCHED_OTHER plus the kernel's interrupt threads (irq/…, ksoftirqd, rcu…, migration), read from /proc off the GUI
// thread and refreshed every few seconds, sortable and filterable. It says where your measuring thread's policy and
// priority fall among them and, for any row, gives the chrt and taskset lines that reproduce or change it. rtscope
// itself changes no other process.
#include "engine/rt/system_probe.h"
#include "ui/polled_page.h"

#include <QPointer>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace rtscope {

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

    /// Reads /proc again now (the refresh timer's slot).
    void refreshNow() override { readNow(); }
    /// Reads /proc again now (off the GUI thread); false when a read is already in progress.
    bool readNow();
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
};

} // namespace rtscope
