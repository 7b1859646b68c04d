#include "ui/locks/contention/contention_page.h"

#include "ui/common/fact_tile.h"
#include "ui/common/problem_list.h"
#include "ui/locks/contention/contention_table_model.h"
#include "ui/locks/contention/contention_view_data.h"
#include "ui/locks/lock_lab_util.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/contention_chart.h"
#include "ui/widgets/table_style.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {
QString cpuListText(const std::vector<int>& cpus)
{
    QStringList parts;
    for (int c : cpus)
        parts << QString::number(c);
    return parts.join(' ');
}

// What glibc's adaptive mutex spins here: the tunable if this process was given one, else glibc's default.
QString glibcSpinCount()
{
    const QString tunables = QString::fromLocal8Bit(qgetenv("GLIBC_TUNABLES"));
    for (const QString& item : tunables.split(':', Qt::SkipEmptyParts))
        if (item.startsWith("glibc.pthread.mutex_spin_count="))
            return QObject::tr("%1 (set in GLIBC_TUNABLES)").arg(item.section('=', 1).toHtmlEscaped());
    return QObject::tr("100, glibc's default (GLIBC_TUNABLES does not set "
                       "<code>glibc.pthread.mutex_spin_count</code>)");
}
} // namespace

ContentionPage::ContentionPage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, unpinnedTopology(), parent)
    , m_view(new QWidget(this))
    , m_warning(new QLabel(m_view))
    , m_progress(new FactTile(tr("Progress"), m_view))
    , m_fastest(new FactTile(tr("Highest throughput"), m_view))
    , m_setup(new FactTile(tr("Workers"), m_view))
    , m_chart(new ContentionChart(m_view))
    , m_model(new ContentionTableModel(this))
    , m_table(new QTableView(m_view))
    , m_note(new QLabel(m_view))
{
    setObjectName("contentionPage");
    m_view->setObjectName("contentionView");

    styleLossWarning(m_warning);
    auto* facts = tileRow({{m_progress, "progressTile", 2}, {m_fastest, "fastestTile", 2}, {m_setup, "setupTile", 3}});

    m_table->setModel(m_model);
    m_table->setObjectName("contentionTable");
    int headerLine = 0;
    const int rowHeight = styleFiguresTable(m_table, 1.0, 8, &headerLine);
    // The two-line header and five kinds without a scroll bar: every figure on screen at once.
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setMinimumHeight(headerLine * 2 + 12 + rowHeight * 5 + 2 * m_table->frameWidth() + 2);
    m_note->setObjectName("sleepReasons");
    m_note->setWordWrap(true);
    m_note->setFont(plot::chartFont(font(), 1.05));
    m_note->hide();
    auto* tableBox = new QWidget(m_view);
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table, 1);
    tableLayout->addWidget(m_note);

    auto* splitter = keptVerticalSplitter(m_chart, tableBox, 3, 0, m_view);

    auto* viewLayout = new QVBoxLayout(m_view);
    viewLayout->setContentsMargins(0, 0, 0, 0);
    viewLayout->addWidget(m_warning);
    viewLayout->addLayout(facts);
    viewLayout->addWidget(splitter, 1);
    stackRows({m_view});

    configChanged(m_base);
}

ContentionPage::~ContentionPage()
{
    stop();
}

void ContentionPage::runStarting(const ContentionConfig&)
{
    m_model->clear();
    m_chart->clear();
}

void ContentionPage::configChanged(const ContentionConfig& c)
{
    if (m_lastDrawn)
        return;
    ContentionSnapshot s;
    s.config = c;
    showSnapshot(s);
}

void ContentionPage::showSnapshot(const ContentionSnapshot& s)
{
    // A config alone (no run yet) shows every kind as pending, so the picture says what Start will do.
    ContentionSnapshot shown;
    const ContentionSnapshot* snap = &s;
    if (s.kinds.empty() && !s.config.kinds.empty()) {
        shown = s;
        for (LockKind k : s.config.kinds) {
            auto pending = std::make_shared<ContentionKindResult>();
            pending->kind = k;
            shown.kinds.push_back(std::move(pending));
        }
        snap = &shown;
    }
    const std::vector<ContentionKindSummary> kinds = summarizeContention(*snap);
    m_model->setKinds(kinds);
    m_chart->setData(contentionChartData(*snap, kinds));
    drawSetup(snap->config, snap->workerCpus);

    // Progress: which kind runs, how far it is.
    const int total = int(kinds.size());
    if (snap->running && snap->currentKind >= 0 && snap->currentKind < total) {
        const ContentionKindSummary& k = kinds[size_t(snap->currentKind)];
        m_progress->setValue(QString::fromLatin1(lockKindName(k.kind)),
                             tr("kind %1 of %2 · %3 s of %4")
                                 .arg(snap->currentKind + 1)
                                 .arg(total)
                                 .arg(k.elapsedSec, 0, 'f', 1)
                                 .arg(durationText(snap->config.durationNs)));
    } else if (snap->running) {
        m_progress->setValue(tr("starting"), tr("%1 kinds × %2").arg(total).arg(durationText(snap->config.durationNs)));
    } else if (snap->startNs) {
        int ran = 0;
        for (const ContentionKindSummary& k : kinds)
            ran += k.state == KindRunState::Done ? 1 : 0;
        m_progress->setValue(
            snap->finished && snap->error.empty() && ran == total ? tr("done") : tr("stopped"),
            tr("%1 of %2 kinds ran for the full %3").arg(ran).arg(total).arg(durationText(snap->config.durationNs)));
    } else {
        m_progress->setValue(
            tr("ready"), tr("%1 kinds × %2 each · press Start").arg(total).arg(durationText(snap->config.durationNs)));
    }

    const std::vector<size_t> ranking = throughputRanking(kinds);
    if (!ranking.empty() && kinds[ranking.front()].hasFigures()) {
        const ContentionKindSummary& best = kinds[ranking.front()];
        QString detail = formatRate(best.acquisitionsPerSec);
        if (best.vsMutex > 0 && best.kind != LockKind::Mutex)
            detail += tr(" · %1 the mutex").arg(formatRatio(best.vsMutex));
        if (best.state == KindRunState::Running)
            detail += tr(" · still running");
        m_fastest->setValue(QString::fromLatin1(lockKindName(best.kind)), detail);
        m_fastest->setAccent(lockKindColor(best.colorIndex, palette()).name());
    } else {
        m_fastest->setValue(QStringLiteral("–"), tr("no acquisitions yet"));
        m_fastest->setAccent({});
    }

    QStringList notes;
    for (const ContentionKindSummary& k : kinds)
        if (const QString why = sleepReasonsText(k); !why.isEmpty())
            notes << why;
    m_note->setText(notes.join('\n'));
    m_note->setVisible(!notes.isEmpty());

    QStringList warnings;
    uint64_t dropped = 0;
    for (const ContentionKindSummary& k : kinds) {
        dropped += k.samplesDropped;
        if (!k.error.isEmpty())
            warnings << tr("%1 failed: %2").arg(QString::fromLatin1(lockKindName(k.kind)), k.error);
    }
    if (dropped)
        warnings << tr("%1 wait samples dropped (ring full): the histograms and percentiles miss them; throughput "
                       "and counters do not")
                        .arg(dropped);
    if (!snap->error.empty() && warnings.isEmpty())
        warnings << QString::fromStdString(snap->error);
    const QString warning = warnings.isEmpty() ? QString() : "⚠ " + warnings.join(" · ");
    setLossWarning(m_warning, warning);
}

void ContentionPage::drawSetup(const ContentionConfig& c, const std::vector<int>& workerCpus)
{
    const QString where = c.placement == Placement::OneCpu
                              ? (c.cpu >= 0 ? tr("all on CPU %1").arg(c.cpu) : tr("all on one CPU"))
                              : tr("spread");
    QString cpus;
    if (!workerCpus.empty())
        cpus = tr(" · CPUs %1").arg(cpuListText(workerCpus));
    m_setup->setValue(tr("%1 threads, %2").arg(c.threads).arg(where),
                      tr("hold %1 · work %2 · %3%4")
                          .arg(durationText(c.holdNs), durationText(c.workNs),
                               QString::fromStdString(policyLabel(c.policy, c.priority, c.nice)), cpus));
}

QString ContentionPage::noteText() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

QString ContentionPage::explanation() const
{
    const CpuTopology topo = unpinnedTopology();
    const std::vector<int> usable = [&topo] {
        std::vector<int> out;
        for (int c : topo.allowed)
            if (topo.usable(c))
                out.push_back(c);
        return out;
    }();
    const ContentionConfig c = config();
    const int perCpu = usable.empty() ? c.threads : (c.threads + int(usable.size()) - 1) / int(usable.size());
    QString machine =
        tr("<p><b>On this machine</b> (Linux %1, %2 scheduler, preemption %3) this process may use <b>%n CPU(s)</b> "
           "(%4). ",
           "", int(usable.size()))
            .arg(QString::fromStdString(measuredProbe().kernelRelease).toHtmlEscaped(),
                 QString::fromStdString(measuredProbe().scheduler).toHtmlEscaped(),
                 QString::fromStdString(measuredProbe().preemptModel).toHtmlEscaped(),
                 QString::fromStdString(topo.usableText()).toHtmlEscaped());
    if (c.placement == Placement::Spread && perCpu > 1)
        machine += tr("With %1 workers spread over them, up to %2 share each CPU, so a lock holder is often "
                      "preempted by a waiter: the worst case for spinning, and it shows in the max wait.")
                       .arg(c.threads)
                       .arg(perCpu);
    else if (c.placement == Placement::OneCpu)
        machine += tr("All workers on one CPU: a waiter can only run while the holder does not, so spinning can "
                      "never pay off there; the adaptive lock sees the owner on its own CPU and sleeps at once.");
    else
        machine += tr("With one worker per CPU, a spinning waiter really runs alongside the holder.");
    if (measuredProbe().virtualMachine)
        machine +=
            tr(" This is a virtual machine%1: the hypervisor can also take a CPU away while its thread "
               "holds the lock (lock-holder preemption), and spinning waiters pay for that in full.")
                .arg(measuredProbe().hypervisor.empty()
                         ? QString()
                         : QString(" (%1)").arg(QString::fromStdString(measuredProbe().hypervisor).toHtmlEscaped()));
    if (measuredProbe().preemptRt)
        machine += tr(" This kernel is PREEMPT_RT: its own spinlocks are sleeping rt_mutexes with adaptive "
                      "spinning — the design rtscope's adaptive lock copies in user space.");
    machine += tr(" Here glibc's adaptive mutex tries up to %1 trylocks before it sleeps.</p>").arg(glibcSpinCount());

    return tr("<h3>Locks: what the way a lock waits costs</h3>"
              "<p>%1 worker threads take <b>one lock</b>, hold it for a critical section of busy work (<i>hold</i>), "
              "release it, do other work (<i>work</i>) and repeat. Every ticked lock kind runs in turn with the same "
              "settings, so the rows compare like with like.</p><ul>"
              "<li><b>spin</b>: a waiter burns its CPU until the lock is free. No context switch and the quickest "
              "hand-off while the holder runs on another CPU — and the worst tail when the holder is preempted, "
              "because the waiters spin through all of its time off the CPU.</li>"
              "<li><b>mutex</b> (futex): a contended waiter sleeps and is woken again. That frees the CPU but costs "
              "a context switch and microseconds on every contended hand-off, however short the section.</li>"
              "<li><b>adaptive-glibc</b> (<code>PTHREAD_MUTEX_ADAPTIVE_NP</code>): a few trylock spins first, "
              "then the futex.</li>"
              "<li><b>adaptive</b>, rtscope's own lock with the PREEMPT_RT patch's rules: spin only while the owner "
              "is running on another CPU, at most the spin limit (the RT patch used 10 000), otherwise sleep. "
              "<i>Stealing</i> lets a running waiter overtake a woken sleeper: faster, less fair.</li>"
              "<li><b>pi</b> (priority inheritance): every contended acquisition goes through the kernel and the "
              "lock is handed to the top waiter, so it tends to convoy. Its point is bounded priority inversion "
              "(the next page), not throughput.</li></ul>"
              "<p><b>Reading the views.</b> Bars: acquisitions per second of all threads, fastest on top, with the "
              "ratio to the plain mutex. Context switches per 1000 acquisitions: <i>voluntary</i> = the worker "
              "slept (a sleeping lock at work), <i>involuntary</i> = it was preempted. Curves: the wait of every "
              "acquisition, from the request to holding the lock, on log-log axes. The table adds CPU time per "
              "acquisition (spinning shows up here), fairness (Jain's index of the per-thread counts: 1 = even, "
              "1/threads = one thread took all) and how acquisitions went: uncontended, spun and won, or slept. "
              "Dropped samples must read 0.</p>%2"
              "<p>Throughput ratios move from run to run with whatever else the machine does; compare kinds within "
              "one run, and run twice before drawing a conclusion.</p>")
        .arg(c.threads)
        .arg(machine);
}

} // namespace rtscope

#include "moc_contention_page.cpp"
