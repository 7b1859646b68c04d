#include "ui/locks/inversion/inversion_page.h"

#include "ui/common/colors.h"
#include "ui/common/fact_tile.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"
#include "ui/locks/inversion/inversion_table_model.h"
#include "ui/locks/inversion/inversion_view_data.h"
#include "ui/locks/lock_lab_util.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/inversion_timeline.h"
#include "ui/widgets/table_style.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {
// The snapshot carries this much timeline beyond the periods shown, so the last complete ones are always in it.
constexpr int kSpareWindowPeriods = 2;

QString lat(double ns)
{
    return formatLatency(ns);
}
} // namespace

InversionPage::InversionPage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, unpinnedTopology(), parent)
    , m_view(new QWidget(this))
    , m_watchdogBanner(new QLabel(m_view))
    , m_warning(new QLabel(m_view))
    , m_lockTile(new FactTile(tr("Lock"), m_view))
    , m_waitTile(new FactTile(tr("High waits for the lock (p50)"), m_view))
    , m_inversionTile(new FactTile(tr("Medium ran while high waited"), m_view))
    , m_missedTile(new FactTile(tr("Missed periods"), m_view))
    , m_periods(new QSpinBox(m_view))
    , m_clearReference(new QPushButton(tr("&Clear reference"), m_view))
    , m_refTimeline(new InversionTimeline(m_view))
    , m_liveTimeline(new InversionTimeline(m_view))
    , m_model(new InversionTableModel(this))
    , m_table(new QTableView(m_view))
{
    setObjectName("inversionPage");
    m_view->setObjectName("inversionView");

    m_watchdogBanner->setObjectName("watchdogBanner");
    m_watchdogBanner->setWordWrap(true);
    m_watchdogBanner->setFont(plot::chartFont(font(), 1.2));
    m_watchdogBanner->setStyleSheet(
        QString("QLabel { color: white; background: %1; padding: 10px; font-weight: bold; border-radius: 4px; }")
            .arg(colors::css(colors::kAlarmRed)));
    m_watchdogBanner->hide();
    styleLossWarning(m_warning);

    auto* facts = tileRow({{m_lockTile, "lockTile", 3},
                           {m_waitTile, "waitTile", 3},
                           {m_inversionTile, "inversionTile", 3},
                           {m_missedTile, "missedTile", 3}});

    m_periods->setObjectName("periodsShown");
    m_periods->setRange(1, kMaxPeriodsShown);
    m_periods->setValue(kDefaultPeriodsShown);
    m_periods->setSuffix(tr(" complete periods"));
    m_periods->setKeyboardTracking(false);
    m_periods->setToolTip(tr("The timelines show the last complete periods of each run, aligned at their start"));
    m_clearReference->setObjectName("clearReference");
    m_clearReference->setEnabled(false);
    m_clearReference->setToolTip(tr("Forget the frozen run"));
    auto* options = new QHBoxLayout;
    options->addWidget(new QLabel(tr("Timelines show the last"), m_view));
    options->addWidget(m_periods);
    options->addSpacing(12);
    options->addWidget(m_clearReference);
    auto* hint = new QLabel(tr("H holds a finished run as the reference; the next run is drawn under it."), m_view);
    hint->setEnabled(false);
    options->addWidget(hint);
    options->addStretch(1);

    m_refTimeline->setObjectName("referenceTimeline");
    m_refTimeline->setLegendVisible(false);
    m_refTimeline->hide();
    m_liveTimeline->setObjectName("liveTimeline");

    m_table->setModel(m_model);
    m_table->setObjectName("inversionTable");
    int headerLine = 0;
    const int rowHeight = styleFiguresTable(m_table, 1.1, 8, &headerLine);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The header (two lines) and the two rows, reference and live, without a scroll bar.
    m_table->setFixedHeight(headerLine * 2 + 12 + rowHeight * 2 + 2 * m_table->frameWidth() + 2);

    auto* viewLayout = new QVBoxLayout(m_view);
    viewLayout->setContentsMargins(0, 0, 0, 0);
    viewLayout->addWidget(m_watchdogBanner);
    viewLayout->addWidget(m_warning);
    viewLayout->addLayout(facts);
    viewLayout->addLayout(options);
    viewLayout->addWidget(m_refTimeline, 1);
    viewLayout->addWidget(m_liveTimeline, 1);
    viewLayout->addWidget(m_table);
    stackRows({m_view});

    connect(m_periods, &QSpinBox::valueChanged, this, &InversionPage::setPeriodsShown);
    connect(m_clearReference, &QPushButton::clicked, this, &InversionPage::clearReference);
    showLive(nullptr);
}

InversionPage::~InversionPage()
{
    stop();
}

void InversionPage::prepareStart(const InversionConfig& c)
{
    const int64_t window = (periodsShown() + kSpareWindowPeriods) * c.periodNs;
    m_experiment->setTimelineWindow(window);
    setRemoteView("timeline_window_ns", window); // a run on a target keeps as much
}

void InversionPage::runStarting(const InversionConfig& c)
{
    const std::optional<LockKind> next = m_controls->compareWith();
    m_followUp = next && *next != c.lock ? next : std::nullopt;
    showLive(nullptr);
}

void InversionPage::stop()
{
    m_followUp.reset();
    PolledExperimentPage::stop();
}

void InversionPage::runFinished()
{
    const std::optional<LockKind> next = m_followUp;
    PolledExperimentPage::stop();
    m_followUp.reset();
    if (!next || !m_live || !m_live->error.empty())
        return;
    // The comparison with one Start: this run becomes the reference, the same setup runs with the other lock.
    setReference(m_live);
    InversionConfig c = config();
    c.lock = *next;
    if (applyConfig(c).isEmpty() && start())
        m_followUp.reset(); // one follow-up, never a chain
}

void InversionPage::configChanged(const InversionConfig&)
{
    if (!m_live)
        showLive(nullptr);
}

void InversionPage::draw(const InversionSnapshot&)
{
    showLive(m_lastDrawn);
}

void InversionPage::setPeriodsShown(int periods)
{
    periods = std::clamp(periods, 1, kMaxPeriodsShown);
    if (m_periods->value() != periods)
        m_periods->setValue(periods); // comes back here through valueChanged
    if (m_experiment->running())
        m_experiment->setTimelineWindow((periods + kSpareWindowPeriods) * m_base.periodNs);
    redrawTimelines();
}

int InversionPage::periodsShown() const
{
    return m_periods->value();
}

void InversionPage::showLive(std::shared_ptr<const InversionSnapshot> snapshot)
{
    m_live = std::move(snapshot);
    m_model->setLive(m_live ? std::optional<InversionRunSummary>(summarizeInversion(*m_live)) : std::nullopt);
    drawTiles();
    drawAlerts();
    redrawTimelines();
}

void InversionPage::setReference(std::shared_ptr<const InversionSnapshot> snapshot)
{
    m_reference = std::move(snapshot);
    m_model->setReference(m_reference ? std::optional<InversionRunSummary>(summarizeInversion(*m_reference))
                                      : std::nullopt);
    m_refTimeline->setVisible(m_reference != nullptr);
    m_clearReference->setEnabled(m_reference != nullptr);
    drawTiles();
    redrawTimelines();
    emit referenceChanged(m_reference != nullptr);
}

bool InversionPage::holdAsReference()
{
    const bool running = experimentRunning();
    std::shared_ptr<const InversionSnapshot> snap = running ? latestSnapshot() : m_live;
    if (!snap || snap->highPeriods == 0) {
        emit statusMessage(tr("Nothing to hold yet: run until the high thread has completed a period"));
        return false;
    }
    setReference(snap);
    if (!running)
        showLive(nullptr); // the next run is drawn under the frozen one
    emit statusMessage(tr("Held %1 as the reference; change the lock and press Start")
                           .arg(QString::fromLatin1(lockKindName(snap->config.lock))));
    return true;
}

void InversionPage::clearReference()
{
    if (!m_reference)
        return;
    setReference(nullptr);
}

QString InversionPage::runTitle(const InversionSnapshot& s, bool reference) const
{
    const QString lock = QString::fromLatin1(lockKindName(s.config.lock));
    const QString what = reference ? tr("Reference: %1").arg(lock) : tr("Live: %1").arg(lock);
    const int64_t last = lastCompletePeriod(s);
    const QString periods = last < 0 ? tr("period 1 in progress")
                                     : tr("periods %1–%2 of %3")
                                           .arg(std::max<int64_t>(0, last - periodsShown() + 1) + 1)
                                           .arg(last + 1)
                                           .arg((s.config.durationNs + s.config.periodNs - 1) / s.config.periodNs);
    return QString("%1 · %2 · burst %3, hold %4, period %5")
        .arg(what, periods, durationText(s.config.mediumBurstNs), durationText(s.config.holdNs),
             durationText(s.config.periodNs));
}

void InversionPage::redrawTimelines()
{
    if (m_reference) {
        InversionTimelineData d = inversionTimelineData(*m_reference, periodsShown(), runTitle(*m_reference, true));
        d.titleColor = plot::chartColors(palette()).reference; // as the reference row of the table
        m_refTimeline->setData(std::move(d));
    }
    if (m_live) {
        m_liveTimeline->setData(inversionTimelineData(*m_live, periodsShown(), runTitle(*m_live, false)));
        return;
    }
    // Nothing ran yet: the lanes of what Start will run.
    InversionSnapshot planned;
    planned.config = config();
    InversionTimelineData d = inversionTimelineData(
        planned, periodsShown(),
        m_reference ? tr("Live: %1 · press Start to run it under the "
                         "reference")
                          .arg(QString::fromLatin1(lockKindName(planned.config.lock)))
                    : tr("Live: %1 · not started").arg(QString::fromLatin1(lockKindName(planned.config.lock))));
    m_liveTimeline->setData(std::move(d));
}

void InversionPage::drawTiles()
{
    const InversionConfig c = m_live ? m_live->config : config();
    m_lockTile->setValue(QString::fromLatin1(lockKindName(c.lock)),
                         inversionLockText(c.lock).section(" — ", 1) + "\n" + inversionPriorityText(c));
    const std::optional<InversionRunSummary> ref =
        m_reference ? std::optional<InversionRunSummary>(summarizeInversion(*m_reference)) : std::nullopt;
    const QString refName = ref ? QString::fromLatin1(lockKindName(ref->lock)) : QString();
    const bool dark = plot::isDarkPalette(palette());
    const QString bad = colors::css(dark ? colors::kRed400 : colors::kWarningRed);
    const QString good = colors::css(dark ? colors::kGreen300 : colors::kGreen800);

    if (!m_live || m_live->highPeriods == 0) {
        m_waitTile->setValue(QStringLiteral("–"),
                             ref ? tr("reference %1: p50 %2").arg(refName, lat(double(ref->waitP50Ns)))
                                 : tr("no period completed yet"));
        m_inversionTile->setValue(QStringLiteral("–"),
                                  ref ? tr("reference %1: %2 per period").arg(refName, lat(ref->mediumPerPeriodNs()))
                                      : tr("per period of the high thread"));
        m_missedTile->setValue(QStringLiteral("–"),
                               ref ? tr("reference %1: %2 of %3").arg(refName).arg(ref->missed).arg(ref->periods)
                                   : tr("lock only after the next release"));
        for (FactTile* t : {m_waitTile, m_inversionTile, m_missedTile})
            t->setAccent({});
        return;
    }
    const InversionRunSummary r = summarizeInversion(*m_live);
    const QString refWait = ref ? tr("\nreference %1: p50 %2").arg(refName, lat(double(ref->waitP50Ns))) : QString();
    m_waitTile->setValue(lat(double(r.waitP50Ns)),
                         tr("p99 %1 · max %2%3").arg(lat(double(r.waitP99Ns)), lat(double(r.waitMaxNs)), refWait));
    // Inverted: the high thread waited for much more than the rest of the critical section.
    const bool inverted = r.mediumPerPeriodNs() > 0.1 * double(m_live->config.mediumBurstNs);
    m_waitTile->setAccent(inverted ? bad : good);
    const QString refInv =
        ref ? tr("\nreference %1: %2 per period").arg(refName, lat(ref->mediumPerPeriodNs())) : QString();
    m_inversionTile->setValue(
        tr("%1 / period").arg(lat(r.mediumPerPeriodNs())),
        tr("%1 in %2 periods%3").arg(lat(double(r.mediumRanWhileHighWaitedNs))).arg(r.periods).arg(refInv));
    m_inversionTile->setAccent(inverted ? bad : good);
    const QString refMissed =
        ref ? tr("\nreference %1: %2 of %3").arg(refName).arg(ref->missed).arg(ref->periods) : QString();
    m_missedTile->setValue(tr("%1 of %2").arg(r.missed).arg(r.periods),
                           tr("%1 skipped releases%2").arg(r.skipped).arg(refMissed));
    m_missedTile->setAccent(r.missed ? bad : QString());
}

void InversionPage::drawAlerts()
{
    const QString trips = watchdogText();
    m_watchdogBanner->setText(trips);
    m_watchdogBanner->setVisible(!trips.isEmpty());
    QStringList loss;
    if (m_live) {
        if (m_live->ringDrops)
            loss << tr("%1 segments or periods dropped (ring full): the timeline and the figures miss them")
                        .arg(m_live->ringDrops);
        if (m_live->timelineTruncated)
            loss << tr("the timeline reached its %1 segments per thread; later segments are not drawn")
                        .arg(InversionExperiment::kMaxSegmentsPerLane);
        if (!m_live->error.empty())
            loss << QString::fromStdString(m_live->error);
    }
    const QString text = loss.isEmpty() ? QString() : tr("⚠ %1.").arg(loss.join("; "));
    setLossWarning(m_warning, text);
}

QString InversionPage::watchdogText() const
{
    if (!m_live)
        return {};
    QStringList lines;
    const std::array<int, 3>& tids = m_live->tids;
    for (const WatchdogTrip& t : m_live->watchdogTrips) {
        QString who = tr("thread %1").arg(t.tid);
        for (int i = 0; i < 3; ++i)
            if (tids[size_t(i)] == t.tid)
                who = tr("the %1 thread").arg(QString::fromLatin1(inversionLaneName(InversionLane(i))));
        const QString how =
            t.atStop ? tr("when the run stopped") : tr("%1 past its deadline").arg(durationText(t.overrunNs()));
        lines << tr("⚠ WATCHDOG: %1 was demoted to SCHED_OTHER %2%3")
                     .arg(who, how, t.demoted ? QString() : tr(" (it had already gone)"));
    }
    return lines.join('\n');
}

QString InversionPage::explanation() const
{
    const InversionConfig c = config();
    const CpuTopology topo = unpinnedTopology();
    const int cpu = c.resolvedCpu(topo);
    const int reserved = InversionConfig::reservedCpu(topo);
    const double share = 100.0 * double(c.holdNs + c.mediumBurstNs + InversionConfig::kHighHoldNs) /
                         double(std::max<int64_t>(1, c.periodNs));

    QString kernel = tr("<p><b>On this machine</b> (Linux %1, preemption %2): the three threads run on CPU %3, the "
                        "watchdog (FIFO 99), the collector and this window on CPU %4. ")
                         .arg(QString::fromStdString(measuredProbe().kernelRelease).toHtmlEscaped(),
                              QString::fromStdString(measuredProbe().preemptModel).toHtmlEscaped())
                         .arg(cpu)
                         .arg(reserved);
    if (measuredProbe().rtRuntimeUs >= 0 && measuredProbe().rtPeriodUs > 0) {
        const double limit = 100.0 * double(measuredProbe().rtRuntimeUs) / double(measuredProbe().rtPeriodUs);
        kernel += tr("RT throttling: <code>sched_rt_runtime_us</code> = %1 of <code>sched_rt_period_us</code> = %2, "
                     "so real-time threads may use %3 % of a CPU. These settings keep the three busy for about "
                     "%4 % of CPU %5, %6. ")
                      .arg(measuredProbe().rtRuntimeUs)
                      .arg(measuredProbe().rtPeriodUs)
                      .arg(limit, 0, 'f', 0)
                      .arg(share, 0, 'f', 0)
                      .arg(cpu)
                      .arg(share < limit ? tr("below that limit")
                                         : tr("above that limit: expect the kernel to idle them for the rest of "
                                              "each throttling period, visible as gaps in all three lanes"));
    } else if (measuredProbe().rtRuntimeUs < 0) {
        kernel += tr("RT throttling is disabled on this kernel (<code>sched_rt_runtime_us</code> = -1): only the "
                     "bounded burst and the watchdog protect the CPU. ");
    }
    if (measuredProbe().fairServer)
        kernel += tr("This kernel has the fair server (6.12 and later): SCHED_OTHER tasks starved on CPU %1 get a "
                     "short turn now and then, a gap in which none of the three runs. ")
                      .arg(cpu);
    if (measuredProbe().virtualMachine)
        kernel += tr("This is a virtual machine: the hypervisor can also stop the CPU for a while, which shows as a "
                     "gap in every lane rather than as a longer wait of one thread. ");
    if (!measuredProbe().rtAvailable)
        kernel += tr("<b>This process may not use SCHED_FIFO</b>: %1 Without it there is no inversion to show.")
                      .arg(QString::fromStdString(measuredProbe().rtUnavailableReason).toHtmlEscaped());
    kernel += "</p>";

    return tr("<h3>Priority inversion: the Mars Pathfinder bug</h3>"
              "<p>Three SCHED_FIFO threads share one CPU. Every period the <b>low</b> thread (priority %1) takes the "
              "lock and works inside it for %2; the <b>high</b> thread (%3) wakes a third into that and needs the "
              "lock; the <b>medium</b> thread (%4) wakes two thirds in and spins for %5, without the lock.</p>"
              "<p>With a plain <b>mutex</b> high blocks, and medium — above low — preempts the holder and spins its "
              "whole burst. Low cannot finish and release, so the most important thread waits for a thread it "
              "shares nothing with: <b>priority inversion</b>, as long as the burst, unbounded in general. In the "
              "timeline: high's wait (amber) with medium running inside it (red).</p>"
              "<p>With <b>pi</b> (<code>PTHREAD_PRIO_INHERIT</code>) the kernel lends low high's priority while high "
              "waits: medium cannot preempt it, low finishes the rest of its section and high gets the lock about "
              "two thirds of the section after its release; medium runs afterwards. With <b>ceiling</b> "
              "(<code>PTHREAD_PRIO_PROTECT</code>, ceiling = high's priority) low runs at the ceiling as soon as it "
              "holds the lock: high is not even scheduled until it is free, so it never <i>finds</i> it held, yet "
              "waits as long as with pi, counted from its release.</p>"
              "<p>Mars Pathfinder, 1997: the bus-management task waited on a mutex held by the meteorological task "
              "while medium-priority communication work ran; the watchdog reset the lander until priority "
              "inheritance was switched on from Earth.</p>"
              "<p><b>Compare:</b> run the mutex, press <b>Hold as reference</b> (H), choose pi and press Start: the "
              "frozen run stays above the live one, its row above the live row. <i>After the run</i> in the "
              "controls does the same with one Start.</p>"
              "<p><b>Reading the lanes:</b> each thread reads its clock continuously while it runs; a jump of more "
              "than 20 µs means it did not run in between, which ends a segment. A gap in all three lanes is time in "
              "which none of them ran (the kernel, an interrupt, another real-time thread): shown honestly, not "
              "blamed on the lock. The figures: high's wait from its release (p50, p99, max), periods in which it "
              "found the lock held, periods it <b>missed</b> (the lock came after its next release), and the time "
              "medium ran while high waited — about a burst per period with a mutex, zero with pi or a ceiling.</p>"
              "%6"
              "<p><b>Safety:</b> the medium burst is bounded by its own clock and by a watchdog at FIFO 99 on the "
              "other CPU, which demotes a thread that overruns its announced deadline (a red banner says so); Stop "
              "demotes and joins all three within 100 ms.</p>")
        .arg(c.lowPriority)
        .arg(durationText(c.holdNs))
        .arg(c.highPriority)
        .arg(c.mediumPriority)
        .arg(durationText(c.mediumBurstNs))
        .arg(kernel);
}

void InversionPage::saveViewSettings(QSettings& settings) const
{
    settings.setValue("periodsShown", periodsShown());
    const std::optional<LockKind> next = m_controls->compareWith();
    settings.setValue("compareWith", next ? QString::fromLatin1(lockKindName(*next)) : QString());
}

QStringList InversionPage::restoreViewSettings(QSettings& settings)
{
    setPeriodsShown(settings.value("periodsShown", kDefaultPeriodsShown).toInt());
    const QString next = settings.value("compareWith").toString();
    const std::optional<LockKind> lock = next.isEmpty() ? std::nullopt : parseLockKind(next.toStdString());
    m_controls->setCompareWith(lock);
    if (!next.isEmpty() && !lock)
        return {tr("compareWith must be mutex, pi or ceiling (got '%1')").arg(next)};
    return {};
}

} // namespace rtscope

#include "moc_inversion_page.cpp"
