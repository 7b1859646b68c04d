#include "ui/workbench/threads/threads_page.h"

#include "engine/experiments/latency/latency_config.h"
#include "engine/remote/agent_client.h"
#include "engine/rt/system_threads.h"
#include "ui/common/colors.h"
#include "ui/common/config_json.h"
#include "ui/common/text_format.h"
#include "ui/common/text_label.h"
#include "ui/common/unpinned_topology.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/remote/target_connection.h"
#include "ui/workbench/threads/thread_list_reader.h"
#include "ui/workbench/threads/threads_controls.h"
#include "ui/workbench/threads/threads_model.h"
#include "ui/workbench/workbench_common.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTime>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <unistd.h>

namespace rtscope {

ThreadsPage::ThreadsPage(const SystemProbe& probe, QWidget* parent)
    : PolledPage(probe, ThreadsControls::kDefaultRefreshSeconds * 1000, parent)
    , m_reader(new ThreadListReader(this))
    , m_model(new ThreadsModel(this))
    , m_filter(new ThreadsFilterModel(this))
    , m_placement(new QLabel(this))
    , m_filterEdit(new QLineEdit(this))
    , m_show(new QComboBox(this))
    , m_count(new QLabel(this))
    , m_table(new QTableView(this))
    , m_selected(new QLabel(this))
    , m_chrt(new QLineEdit(this))
    , m_taskset(new QLineEdit(this))
    , m_copyChrt(new QPushButton(tr("Copy"), this))
    , m_copyTaskset(new QPushButton(tr("Copy"), this))
    , m_footer(new QLabel(this))
    , m_readNow(new QPushButton(tr("Read &now"), this))
    , m_machine(new QLabel(this))
    , m_targetPoll(new QTimer(this))
{
    setObjectName("threadsPage");
    m_controls = new ThreadsControls;
    setPanel(m_controls);
    m_model->setOwnPid(getpid());
    m_model->setReference(m_controls->policy(), m_controls->priority());
    m_filter->setSourceModel(m_model);

    initTextLabel(m_placement, "placement");

    m_filterEdit->setObjectName("threadFilter");
    m_filterEdit->setPlaceholderText(tr("name or policy, e.g. irq/ or irq/|fifo (regular expression)"));
    m_filterEdit->setClearButtonEnabled(true);
    m_show->setObjectName("threadShow");
    m_show->addItem(tr("RT and interrupt threads"), int(ThreadsFilterModel::Show::All));
    m_show->addItem(tr("real-time (FIFO/RR) only"), int(ThreadsFilterModel::Show::Realtime));
    m_show->addItem(tr("interrupt-related only"), int(ThreadsFilterModel::Show::Interrupt));
    m_readNow->setToolTip(tr("Read /proc again now"));
    m_machine->setObjectName("threadsMachine");
    m_machine->setVisible(false);
    m_targetPoll->setInterval(kTargetPollMs);
    auto* filterRow = new QHBoxLayout;
    auto* filterLabel = new QLabel(tr("&Filter:"), this);
    filterLabel->setBuddy(m_filterEdit);
    filterRow->addWidget(filterLabel);
    filterRow->addWidget(m_filterEdit, 3);
    filterRow->addWidget(m_show, 1);
    filterRow->addWidget(m_count);
    filterRow->addWidget(m_readNow);

    m_table->setObjectName("threadsTable");
    m_table->setModel(m_filter);
    workbench::styleStatsTable(m_table);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setFocusPolicy(Qt::StrongFocus);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ThreadsModel::Priority, Qt::DescendingOrder);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    keepHeader("header", m_table->horizontalHeader());
    auto* copyChrtAction = new QAction(tr("Copy the chrt command"), m_table);
    auto* copyTasksetAction = new QAction(tr("Copy the taskset command"), m_table);
    m_table->addAction(copyChrtAction);
    m_table->addAction(copyTasksetAction);

    m_selected->setObjectName("selectedThread");
    for (QLineEdit* e : {m_chrt, m_taskset}) {
        e->setReadOnly(true);
        QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        mono.setPointSizeF(plot::chartFont(font(), 1.1).pointSizeF());
        e->setFont(mono);
    }
    m_chrt->setObjectName("chrtLine");
    m_taskset->setObjectName("tasksetLine");
    m_copyChrt->setObjectName("copyChrt");
    m_copyTaskset->setObjectName("copyTaskset");
    auto* commands = new QGridLayout;
    commands->addWidget(m_selected, 0, 0, 1, 3);
    commands->addWidget(new QLabel(tr("Policy and priority:"), this), 1, 0);
    commands->addWidget(m_chrt, 1, 1);
    commands->addWidget(m_copyChrt, 1, 2);
    commands->addWidget(new QLabel(tr("CPU affinity:"), this), 2, 0);
    commands->addWidget(m_taskset, 2, 1);
    commands->addWidget(m_copyTaskset, 2, 2);
    commands->setColumnStretch(1, 1);
    m_footer->setObjectName("threadsFooter");
    m_footer->setEnabled(false);
    m_footer->setWordWrap(true);

    stackRows({m_machine, m_placement, filterRow, {m_table, 1}, commands, m_footer});

    connect(m_reader, &ThreadListReader::finished, this, &ThreadsPage::listRead);
    connect(m_controls, &ThreadsControls::edited, this, &ThreadsPage::referenceEdited);
    connect(m_controls, &ThreadsControls::refreshIntervalChanged, this, [this](int seconds) {
        m_timer->setInterval(seconds * 1000);
        updateFooter();
    });
    connect(m_filterEdit, &QLineEdit::textChanged, this, &ThreadsPage::setFilterText);
    connect(m_show, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setShow(ThreadsFilterModel::Show(m_show->currentData().toInt()));
        updateFooter();
    });
    connect(m_readNow, &QPushButton::clicked, this, &ThreadsPage::readNow);
    connect(m_targetPoll, &QTimer::timeout, this, &ThreadsPage::pollTarget);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &ThreadsPage::selectionChanged);
    connect(m_copyChrt, &QPushButton::clicked, this, &ThreadsPage::copyChrt);
    connect(m_copyTaskset, &QPushButton::clicked, this, &ThreadsPage::copyTaskset);
    connect(copyChrtAction, &QAction::triggered, this, &ThreadsPage::copyChrt);
    connect(copyTasksetAction, &QAction::triggered, this, &ThreadsPage::copyTaskset);
    m_timer->setInterval(m_controls->refreshSeconds() * 1000);

    changeEvent(nullptr);
    referenceEdited();
    selectionChanged();
    updateFooter();
}

ThreadsPage::~ThreadsPage()
{
    stop();
}

ThreadsControls* ThreadsPage::threadsControls() const
{
    return m_controls;
}

bool ThreadsPage::start()
{
    if (isRunning())
        return true;
    beginPolling(QString(), tr("Reading the thread list every %1 s").arg(m_controls->refreshSeconds()));
    readNow();
    return true;
}

void ThreadsPage::stop()
{
    if (!isRunning() && !m_reader->busy())
        return;
    const bool wasRunning = isRunning();
    endPolling();
    m_reader->cancel();
    if (wasRunning)
        announceStopped(tr("Thread list no longer refreshed"));
}

bool ThreadsPage::isRunning() const
{
    return m_timer->isActive();
}

void ThreadsPage::showRunning(bool running, const QString& status)
{
    (void)running;
    (void)status;
    updateFooter();
}

void ThreadsPage::displayResumed()
{
    if (m_pendingWhilePaused)
        listRead();
}

bool ThreadsPage::readNow()
{
    if (!m_target)
        return m_reader->read();
    if (m_targetPoll->isActive() || !m_target->isOpen()) {
        updateFooter(); // a lost link: the footer says so over the last list
        return false;
    }
    requestFromTarget();
    return m_targetPoll->isActive();
}

void ThreadsPage::requestFromTarget()
{
    const std::shared_ptr<AgentClient> client = m_target->client();
    if (!client)
        return;
    // A new link (a reconnect) numbers its answers anew; only an answer to a request of this page's is taken.
    if (m_targetClient.owner_before(client) || client.owner_before(m_targetClient)) {
        m_targetClient = client;
        (void)client->threadList(UINT64_MAX, m_targetGeneration);
    }
    if (Error e = client->requestThreads()) {
        m_targetProblem = tr("the request for the thread list failed: %1").arg(QString::fromStdString(e.message));
        updateFooter();
        return;
    }
    m_requestedAt.start();
    m_targetPoll->start();
}

void ThreadsPage::pollTarget()
{
    const std::shared_ptr<AgentClient> client = m_targetClient.lock();
    if (!m_target || !client) {
        m_targetPoll->stop();
        return;
    }
    uint64_t generation = 0;
    std::optional<AgentThreadsReply> reply = client->threadList(m_targetGeneration, generation);
    if (!reply) {
        if (!m_target->isOpen() || m_requestedAt.elapsed() > kTargetAnswerMs) {
            m_targetPoll->stop();
            if (m_target->isOpen())
                m_targetProblem = tr("the agent did not answer within %1 s").arg(kTargetAnswerMs / 1000);
            updateFooter();
        }
        return;
    }
    m_targetPoll->stop();
    m_targetGeneration = generation;
    if (!reply->problem.empty()) {
        m_targetProblem = QString::fromStdString(reply->problem); // the last good list stays
        updateFooter();
        return;
    }
    m_targetProblem.clear();
    m_targetList = std::move(reply->list);
    ++m_targetLists;
    listRead();
}

bool ThreadsPage::setTarget(TargetConnection* target)
{
    if (m_target)
        disconnect(m_target, nullptr, this, nullptr);
    m_target = target;
    m_reader->cancel();
    m_model->setOwnPid(target ? -1 : getpid()); // no row of the target is this process's
    m_readNow->setToolTip(target ? tr("Ask the target's agent for its thread list now") : tr("Read /proc again now"));
    if (target) {
        connect(target, &TargetConnection::lost, this, &ThreadsPage::updateFooter);
        // A reconnect may reach another machine: its list replaces the old one.
        connect(target, &TargetConnection::opened, this, [this] {
            resetList();
            readNow();
        });
    }
    resetList();
    if (isRunning() || isVisible())
        readNow();
    return true;
}

QString ThreadsPage::measuredMachine() const
{
    return m_target ? m_target->machine() : QString();
}

const SystemProbe& ThreadsPage::shownProbe() const
{
    return m_target ? m_target->probe() : m_probe;
}

void ThreadsPage::resetList()
{
    m_targetPoll->stop();
    m_targetClient.reset();
    m_targetGeneration = 0;
    m_targetList = {};
    m_targetProblem.clear();
    m_haveList = false;
    m_pendingWhilePaused = false;
    m_machine->setVisible(m_target != nullptr);
    m_model->setThreads({});
    referenceEdited();
    selectionChanged();
    updateFooter();
}

void ThreadsPage::showEvent(QShowEvent* event)
{
    ExperimentPage::showEvent(event);
    // The first look at the page shows the list even when it is not started.
    if (!m_haveList && !m_reader->busy() && !m_targetPoll->isActive())
        readNow();
}

void ThreadsPage::changeEvent(QEvent* event)
{
    if (event)
        ExperimentPage::changeEvent(event);
    if (event && event->type() != QEvent::PaletteChange && event->type() != QEvent::FontChange)
        return;
    const bool dark = plot::isDarkPalette(palette());
    m_model->setDark(dark);
    QFont big = plot::chartFont(font(), 1.3);
    big.setBold(true);
    m_placement->setFont(big);
    m_placement->setStyleSheet(QString("QLabel { border: 2px solid %1; border-radius: 4px; padding: 8px; }")
                                   .arg(colors::css(dark ? colors::kBlue300 : colors::kBlue800)));
}

void ThreadsPage::listRead()
{
    if (displayPaused()) {
        m_pendingWhilePaused = true;
        return;
    }
    m_pendingWhilePaused = false;
    const SystemThread* selected = selectedThread();
    const pid_t keep = selected ? selected->tid : 0;
    m_haveList = true;
    m_listReadMs = m_target ? m_targetList.readMs : m_reader->lastReadMs();
    m_listTime = QTime::currentTime();
    m_model->setThreads(m_target ? m_targetList.threads : m_reader->threads());
    // Keep the user's row; without one, the first row's commands are shown as an example.
    if (!(keep && selectThread(keep)) && m_filter->rowCount() > 0)
        m_table->selectRow(0);
    referenceEdited();
    selectionChanged();
    updateFooter();
}

void ThreadsPage::referenceEdited()
{
    m_model->setReference(m_controls->policy(), m_controls->priority());
    m_placement->setText(placementText());
}

QString ThreadsPage::placementText() const
{
    if (!m_haveList)
        return tr("%1: reading the thread list…")
            .arg(QString::fromStdString(policyLabel(m_controls->policy(), m_controls->priority())));
    return QString::fromStdString(describePlacement(m_model->threads(), m_controls->policy(), m_controls->priority()));
}

void ThreadsPage::setFilterText(const QString& text)
{
    if (m_filterEdit->text() != text)
        m_filterEdit->setText(text); // comes back here through textChanged
    m_filter->setPattern(text);
    updateFooter();
}

const SystemThread* ThreadsPage::selectedThread() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return nullptr;
    const QModelIndex source = m_filter->mapToSource(rows.front());
    return source.isValid() ? &m_model->thread(source.row()) : nullptr;
}

bool ThreadsPage::selectThread(pid_t tid)
{
    const int row = m_model->rowOf(tid);
    if (row < 0)
        return false;
    const QModelIndex view = m_filter->mapFromSource(m_model->index(row, 0));
    if (!view.isValid())
        return false;
    m_table->selectRow(view.row());
    m_table->scrollTo(view);
    return true;
}

QString ThreadsPage::chrtLine(int viewRow) const
{
    const QModelIndex source = m_filter->mapToSource(m_filter->index(viewRow, 0));
    return source.isValid() ? QString::fromStdString(m_model->thread(source.row()).chrtCommand()) : QString();
}

QString ThreadsPage::tasksetLine(int viewRow) const
{
    const QModelIndex source = m_filter->mapToSource(m_filter->index(viewRow, 0));
    return source.isValid() ? QString::fromStdString(m_model->thread(source.row()).tasksetCommand()) : QString();
}

void ThreadsPage::selectionChanged()
{
    const SystemThread* t = selectedThread();
    m_copyChrt->setEnabled(t != nullptr);
    m_copyTaskset->setEnabled(t != nullptr);
    if (!t) {
        m_selected->setText(tr("Select a row for the commands that reproduce or change it."));
        m_chrt->clear();
        m_taskset->clear();
        return;
    }
    const QString where = m_target ? tr(" on %1").arg(m_target->machine().toHtmlEscaped()) : QString();
    m_selected->setText(tr("<b>%1</b> (TID %2, PID %3): run as root%4 to reproduce it, or edit the numbers to change "
                           "it")
                            .arg(QString::fromStdString(t->name).toHtmlEscaped())
                            .arg(t->tid)
                            .arg(t->pid)
                            .arg(where));
    m_chrt->setText(QString::fromStdString(t->chrtCommand()));
    m_taskset->setText(QString::fromStdString(t->tasksetCommand()));
    m_chrt->setCursorPosition(0);
    m_taskset->setCursorPosition(0);
}

bool ThreadsPage::copy(const QString& text, const QString& what)
{
    if (text.isEmpty()) {
        emit statusMessage(tr("Select a thread first"));
        return false;
    }
    QGuiApplication::clipboard()->setText(text);
    emit statusMessage(tr("Copied the %1 command: %2").arg(what, text));
    return true;
}

bool ThreadsPage::copyChrt()
{
    return copy(m_chrt->text(), QStringLiteral("chrt"));
}

bool ThreadsPage::copyTaskset()
{
    return copy(m_taskset->text(), QStringLiteral("taskset"));
}

void ThreadsPage::updateFooter()
{
    m_count->setText(tr("%1 of %2 shown").arg(m_filter->rowCount()).arg(m_model->rowCount()));
    m_footer->setText(footerText());
    if (!m_target)
        return;
    // The footer is greyed: a lost link is said in the heading as well.
    const QString lost = m_target->lostText();
    m_machine->setText(
        tr("<b>Threads on %1</b>, as its rtscope agent reads them").arg(m_target->machine().toHtmlEscaped()) +
        (lost.isEmpty() ? QString() : tr(" — <b>%1</b>: the last list received").arg(lost.toHtmlEscaped())));
}

QString ThreadsPage::footerText() const
{
    // lostText() looks at the link first; it changes nothing the page relies on.
    const QString lost = m_target ? m_target->lostText() : QString();
    const QString trouble = !lost.isEmpty() ? lost : m_targetProblem;
    if (!m_haveList)
        return trouble.isEmpty() ? tr("Not read yet.") : tr("No list: %1.").arg(trouble);
    const QString refresh = m_timer->isActive()
                                ? tr("read again every %1 s").arg(m_controls->refreshSeconds())
                                : tr("not refreshed (Start reads it every %1 s)").arg(m_controls->refreshSeconds());
    if (!m_target)
        return tr("%1 threads whose policy is not SCHED_OTHER, or interrupt-related kernel threads, read from /proc in "
                  "%2 ms on a helper thread at %3; %4. Bold rows belong to this rtscope process.")
            .arg(m_model->rowCount())
            .arg(m_listReadMs, 0, 'f', 1)
            .arg(m_listTime.toString("HH:mm:ss"), refresh);
    const QString machine = m_target->machine();
    QString text = tr("Threads on %1: %2 whose policy is not SCHED_OTHER, or interrupt-related kernel threads, read "
                      "by its rtscope agent from its /proc in %3 ms and received at %4; %5. The chrt and taskset lines "
                      "are for a shell on %1.")
                       .arg(machine)
                       .arg(m_model->rowCount())
                       .arg(m_listReadMs, 0, 'f', 1)
                       .arg(m_listTime.toString("HH:mm:ss"), refresh);
    if (m_targetList.total > m_targetList.threads.size())
        text += tr(" The agent sent the first %1 of its %2 threads.")
                    .arg(m_targetList.threads.size())
                    .arg(m_targetList.total);
    if (!trouble.isEmpty())
        text =
            tr("%1: the list is the last one received, at %2. ").arg(trouble, m_listTime.toString("HH:mm:ss")) + text;
    return text;
}

QStringList ThreadsPage::applyConfigJson(const nlohmann::json& config)
{
    // A latency config's measuring thread: its policy and priority become "your thread", after the one validation.
    return applyConfigJsonWith(
        config, latencyConfigFromJson,
        [this](const LatencyConfig& c) {
            const QStringList problems = toQt(c.validate(unpinnedTopology()));
            if (problems.isEmpty()) {
                m_controls->setReference(c.policy, c.priority);
                referenceEdited();
            }
            return problems;
        },
        [this](const QStringList& problems) { showProblems(problems); });
}

nlohmann::json ThreadsPage::configJson() const
{
    LatencyConfig c;
    c.policy = m_controls->policy();
    c.priority = m_controls->priority();
    return toJson(c);
}

QString ThreadsPage::explanation() const
{
    Explanation e;
    e.title = tr("Where does my thread's priority fall?");
    e.looking = tr("Every thread whose policy is not SCHED_OTHER, plus the kernel's interrupt-related threads "
                   "(<code>irq/…</code>, <code>ksoftirqd</code>, <code>rcu…</code>, <code>migration/…</code>), read "
                   "from /proc. The box on top places <b>your</b> policy and priority (left) among them; red rows can "
                   "preempt your thread, green rows it preempts, yellow rows share its priority. For the selected "
                   "row, <b>chrt</b> and <b>taskset</b> lines reproduce it.");
    e.expect = tr("<code>migration/N</code> at FIFO 99, above everything; threaded interrupt handlers at FIFO 50; "
                  "programs that got real time from rtkit at 20 or below. Start refreshes the list every few "
                  "seconds; filter with e.g. <code>irq/</code> or <code>^fifo$</code>.");
    e.why = tr("A higher real-time priority always preempts a lower one, and any FIFO or RR thread preempts every "
               "SCHED_OTHER thread; equal priorities wait for each other. rtscope only reads /proc: edit and run "
               "the chrt or taskset line yourself (as root) to change a thread.");
    const SystemProbe& probe = shownProbe();
    e.thisMachine << kernelSentence(probe);
    if (probe.preemptRt)
        e.thisMachine << tr("PREEMPT_RT: nearly every interrupt handler runs in an <code>irq/…</code> thread at FIFO "
                            "50, so a thread above 50 preempts interrupt handling itself.");
    else
        e.thisMachine << tr("Without PREEMPT_RT most interrupt handlers run in hard-irq context, above every "
                            "priority; only handlers that ask for a thread (all, with <code>threadirqs</code>) appear "
                            "as <code>irq/…</code> threads.");
    if (probe.rtRuntimeUs < 0)
        e.thisMachine << tr("RT throttling is off (<code>sched_rt_runtime_us</code> = −1): a runaway FIFO thread keeps "
                            "its CPU.");
    else
        e.thisMachine << tr("RT throttling: real-time threads get at most %1 of every %2 µs per CPU%3.")
                             .arg(probe.rtRuntimeUs)
                             .arg(probe.rtPeriodUs)
                             .arg(probe.fairServer ? tr("; the fair server keeps the rest for SCHED_OTHER")
                                                   : QString());
    e.thisMachine << rtSentence(probe);
    return explanationHtml(e);
}

void ThreadsPage::saveViewSettings(QSettings& settings) const
{
    settings.setValue("filter", m_filterEdit->text());
    settings.setValue("show", m_show->currentIndex());
    settings.setValue("policy", QString::fromLatin1(policyName(m_controls->policy())));
    settings.setValue("priority", m_controls->priority());
    settings.setValue("refreshSeconds", m_controls->refreshSeconds());
}

QStringList ThreadsPage::restoreViewSettings(QSettings& settings)
{
    setFilterText(settings.value("filter").toString());
    m_show->setCurrentIndex(std::clamp(settings.value("show", 0).toInt(), 0, m_show->count() - 1));
    const auto policy = parsePolicy(settings.value("policy", "fifo").toString().toStdString());
    const int priority = settings.value("priority", 80).toInt();
    if (policy && (!isRealtime(*policy) || (priority >= priorityMin(*policy) && priority <= priorityMax(*policy))))
        m_controls->setReference(*policy, priority);
    m_controls->setRefreshSeconds(std::clamp(settings.value("refreshSeconds", 3).toInt(), 1, 60));
    referenceEdited();
    return {};
}

} // namespace rtscope

#include "moc_threads_page.cpp"
