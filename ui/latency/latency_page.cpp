#include "ui/latency/latency_page.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/rt/system_threads.h"
#include "engine/util/clock.h"
#include "ui/common/colors.h"
#include "ui/common/config_json.h"
#include "ui/common/latency_source.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"
#include "ui/explanation_pane.h"
#include "ui/latency/latency_stats_model.h"
#include "ui/latency/recording_banner.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/timeline_chart.h"
#include "ui/widgets/anatomy_view.h"
#include "ui/widgets/latency_controls.h"
#include "ui/widgets/table_style.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unistd.h>

namespace rtscope {

namespace {
// Every measuring thread's figures as one (a replay of several CPUs): merged histogram, summed counts.
LatencyThreadStats allThreads(const LatencySnapshot& s)
{
    LatencyThreadStats all;
    all.histogram = s.threads.front().histogram;
    for (size_t i = 0; i < s.threads.size(); ++i) {
        const LatencyThreadStats& t = s.threads[i];
        if (i > 0)
            all.histogram.merge(t.histogram);
        all.samples += t.samples;
        all.skipped += t.skipped;
        all.drops += t.drops;
        all.seqGaps += t.seqGaps;
    }
    return all;
}
} // namespace

// The controls list every online CPU, not only those this process may use: a CPU outside the allowed set is then
// refused with validate()'s sentence saying why, instead of being missing from the list without a word.
LatencyPage::LatencyPage(std::unique_ptr<LatencySource> source, const SystemProbe& probe, QWidget* parent)
    : LatencyPageBase(probe, kRefreshMs, CpuTopology::current(), std::move(source), parent)
    , m_cpus(CpuTopology::current())
    , m_histogram(new HistogramChart(this))
    , m_timeline(new TimelineChart(this))
    , m_model(new LatencyStatsModel(this))
    , m_table(new QTableView(this))
    , m_anatomy(new AnatomyPanel(this))
    , m_lossWarning(new QLabel(this))
    , m_logAxis(new QCheckBox(tr("&Log latency axis"), this))
    , m_window(new QSpinBox(this))
    , m_resetOnChange(new QCheckBox(tr("Reset statistics on every &change"), this))
    , m_referenceLabel(new QLabel(this))
    , m_clearReference(new QPushButton(tr("Clear reference"), this))
    , m_replayBanner(new ReplayBanner(this))
{
    setObjectName("latencyPage");
    styleLossWarning(m_lossWarning);

    m_logAxis->setChecked(true);
    m_logAxis->setToolTip(tr("Log scale for latency on the histogram and the timeline: microsecond jitter and "
                             "millisecond stalls in one picture"));
    m_window->setRange(1, 120);
    m_window->setValue(10);
    m_window->setSuffix(tr(" s"));
    m_window->setPrefix(tr("Timeline: last "));
    m_window->setKeyboardTracking(false);
    m_resetOnChange->setChecked(true);
    m_resetOnChange->setToolTip(tr("After a live change the histogram and the table start over, so they describe "
                                   "only the configuration named in the table; the timeline keeps everything."));
    m_referenceLabel->setObjectName("referenceLabel");
    m_clearReference->setObjectName("clearReference");
    m_clearReference->hide();

    auto* options = new QHBoxLayout;
    options->addWidget(m_logAxis);
    options->addSpacing(12);
    options->addWidget(m_window);
    options->addSpacing(12);
    options->addWidget(m_resetOnChange);
    options->addStretch(1);
    options->addWidget(m_referenceLabel);
    options->addWidget(m_clearReference);

    m_table->setModel(m_model);
    useFiguresHeader(m_table);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &LatencyPage::restyle);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &LatencyPage::restyle);
    m_table->setObjectName("statsTable");
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(LatencyStatsModel::Config, QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    restyle();

    auto* chartSplitter = m_chartSplitter = new QSplitter(Qt::Horizontal, this);
    chartSplitter->addWidget(m_histogram);
    chartSplitter->addWidget(m_timeline);
    chartSplitter->setStretchFactor(0, 5);
    chartSplitter->setStretchFactor(1, 4);
    chartSplitter->setChildrenCollapsible(false);
    auto* mainSplitter = m_mainSplitter = new QSplitter(Qt::Vertical, this);
    // Under the charts: the table, and the anatomy panel when tracing. One box, whose height is the table's alone
    // while the panel is hidden (the splitter leaves no gap under a table of fixed height).
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->setSpacing(6);
    lowerLayout->addWidget(m_table);
    lowerLayout->addWidget(m_anatomy, 1);
    mainSplitter->addWidget(chartSplitter);
    mainSplitter->addWidget(lower);
    mainSplitter->setStretchFactor(0, 1);
    mainSplitter->setStretchFactor(1, 1);
    m_anatomy->hide();
    setAnatomyVisible(m_controls->widgets().trace->isChecked());
    mainSplitter->setChildrenCollapsible(false);
    keepSplitter("chartSplitter", chartSplitter);
    keepSplitter("mainSplitter", mainSplitter);
    keepSplitter("anatomyTablesSplitter", m_anatomy->tablesSplitter());
    keepSplitter("anatomySplitter", m_anatomy->viewSplitter());

    stackRows({m_lossWarning, m_replayBanner, options, {mainSplitter, 1}});
    m_replayBanner->hide();
    connect(m_replayBanner, &ReplayBanner::backToLive, this, &LatencyPage::leaveReplay);

    connect(m_logAxis, &QCheckBox::toggled, this, &LatencyPage::setLogLatencyAxis);
    connect(m_window, &QSpinBox::valueChanged, this, &LatencyPage::setTimelineSeconds);
    connect(m_clearReference, &QPushButton::clicked, this, &LatencyPage::clearReference);
    connect(m_timeline, &TimelineChart::clicked, this, &LatencyPage::timelineClicked);
    connect(m_histogram, &HistogramChart::clicked, this, &LatencyPage::histogramClicked);
    connect(m_anatomy, &AnatomyPanel::statusMessage, this, &LatencyPage::statusMessage);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_experiment->setSeriesWindow(int64_t(m_window->value()) * kNsPerSec);
}

std::unique_ptr<LatencySource> LatencyPage::replaceSource(std::unique_ptr<LatencySource> source,
                                                          const CpuTopology& cpus, bool elsewhere)
{
    stop();
    std::swap(m_experiment, source);
    m_cpus = cpus;
    m_measuresElsewhere = elsewhere;
    // The CPU choices are the measured machine's (after m_cpus: a choice that fell back is checked against them).
    m_controls->setCpus(cpus.online);
    m_controls->setTraceTarget(elsewhere);
    return source;
}

LatencyPage::~LatencyPage()
{
    stop();
}

void LatencyPage::restyle()
{
    // Projected, the numbers matter most: a larger font, and exactly the header and two rows of height.
    const int rowHeight = styleTableFont(m_table, font(), 1.15, 10);
    QFont rowNames = m_table->font();
    rowNames.setBold(true);
    m_table->verticalHeader()->setFont(rowNames);
    m_table->verticalHeader()->setMinimumWidth(QFontMetrics(rowNames).horizontalAdvance(tr("Reference")) + 16);
    m_table->horizontalHeader()->setMinimumHeight(rowHeight);
    // The header and two rows (room for the reference), or every row of a replay of several CPUs; one row while the
    // anatomy panel needs the height (holding a reference then adds its row).
    const int rows = std::max(m_anatomy->isVisibleTo(this) ? 1 : 2, m_model->rowCount());
    // The header is two lines (the unit under each latency column's name).
    const int headerHeight = std::max(rowHeight, m_table->horizontalHeader()->sizeHint().height());
    m_table->setFixedHeight(rowHeight * rows + headerHeight + 2 * m_table->frameWidth() + 2);
}

bool LatencyPage::start()
{
    leaveReplay(); // Start means back to live
    return LatencyPageBase::start();
}

QString LatencyPage::measuredMachine() const
{
    return m_measuresElsewhere ? QString::fromStdString(m_experiment->measuredOn()) : QString();
}

QString LatencyPage::startedMessage(const LatencyConfig& c) const
{
    // Other measurements are looked for on this machine: a remote target's CPUs are not ours.
    const std::vector<std::string> others =
        m_measuresElsewhere ? std::vector<std::string>() : otherMeasurementWarnings(c.resolvedCpus(m_cpus), getpid());
    return others.empty() ? tr("Started: %1").arg(QString::fromStdString(c.label()))
                          : tr("Started, but %1").arg(QString::fromStdString(others.front()));
}

bool LatencyPage::holdAsReference()
{
    if (!m_lastDrawn || m_lastDrawn->threads.empty() || m_lastDrawn->threads.front().samples == 0) {
        emit statusMessage(tr("Nothing to hold yet: start the experiment first"));
        return false;
    }
    const LatencySnapshot& s = *m_lastDrawn;
    const LatencyThreadStats t = allThreads(s); // a replay of several CPUs: all of them, as its blue curve
    // A run measured on another machine (a remote target) keeps that machine's name: a local run is drawn over it.
    const std::string elsewhere = m_experiment->measuredOn();
    const QString label = shortConfigLabel(s.config) +
                          (elsewhere.empty() ? QString() : tr(" on %1").arg(QString::fromStdString(elsewhere)));
    holdReference(summarizeRun(t, s.config.label()), histogramCurve(t.histogram, tr("reference: %1").arg(label)),
                  referenceMaxMarker(t.histogram), label);
    return true;
}

void LatencyPage::holdReference(const LatencyRunSummary& summary, const HistogramCurve& curve,
                                const VerticalMarker& max, const QString& label)
{
    m_reference = summary;
    m_referenceCurve = curve;
    m_referenceMax = max;
    m_histogram->setReference(&m_referenceCurve);
    m_model->setReference(m_reference);
    if (m_lastDrawn)
        draw(*m_lastDrawn);
    m_referenceLabel->setText(tr("Reference: %1").arg(label));
    m_referenceLabel->setToolTip(summary.label);
    m_clearReference->show();
    referenceHeld(tr("Held as reference: %1").arg(summary.label));
}

void LatencyPage::showReplay(std::shared_ptr<const LatencySnapshot> run, const QString& banner,
                             RecordingTimeline wholeRun)
{
    if (!run)
        return;
    stop();
    if (!m_replay)
        m_liveTimelineSeconds = timelineSeconds();
    m_replay = std::move(run);
    m_replayTimeline = std::move(wholeRun);
    // The whole run on the timeline: the recording read once more if it could be, else the snapshot's window.
    const double seconds =
        m_replayTimeline.ok ? m_replayTimeline.spanSec : double(m_replay->publishedNs - m_replay->startNs) / 1e9;
    m_window->hide(); // "last N s" means nothing for a recording
    m_timeline->setWindowSeconds(std::max(1.0, std::ceil(seconds)));
    m_timeline->setTimeAxisTitle(tr("time (s, 0 = end of the recording)"));
    m_replayBanner->setText(banner + "<br>" + replayViewNote());
    m_replayBanner->show();
    setDrawn(m_replay);
    draw(*m_replay);
    m_controls->setStatus(tr("Replay: %1").arg(QString::fromStdString(m_replay->config.label())));
    emit replayChanged(true);
}

QString LatencyPage::replayViewNote() const
{
    QStringList cpus;
    for (const LatencyThreadStats& t : m_replay->threads)
        cpus << QString::number(t.cpu);
    const QString which = cpus.size() > 1
                              ? tr("All %1 measured CPUs (%2): a row, a histogram curve and a timeline curve each; "
                                   "the blue curve and its markers are all of them together.")
                                    .arg(cpus.size())
                                    .arg(cpus.join(", "))
                              : tr("CPU %1.").arg(cpus.value(0));
    const double carried = double(m_replay->publishedNs - m_replay->startNs) / 1e9;
    const QString timeline =
        m_replayTimeline.ok
            ? tr("Timeline: the whole recording, %1 s.").arg(m_replayTimeline.spanSec, 0, 'f', 1)
            : tr("Timeline: the last %1 s of the recording only.").arg(std::min(carried, 120.0), 0, 'f', 1);
    return which + " " + timeline;
}

void LatencyPage::leaveReplay()
{
    if (!m_replay)
        return;
    m_replay.reset();
    m_replayTimeline = {};
    m_replayBanner->hide();
    m_window->show();
    m_timeline->setTimeAxisTitle(tr("time (s, 0 = now)"));
    setTimelineSeconds(m_liveTimelineSeconds);
    m_histogram->setOverlays({});
    setDrawn(source().snapshot());
    if (m_lastDrawn) {
        draw(*m_lastDrawn);
    } else {
        m_histogram->setLive({}, {});
        m_timeline->clear();
        m_model->setLive(std::nullopt);
    }
    if (!m_lastDrawn)
        configChanged(config());
    m_controls->setStatus(QString()); // a replay is shown only while stopped: showReplay() stops, start() leaves it
    emit replayChanged(false);
}

QString LatencyPage::replayBanner() const
{
    return m_replay ? m_replayBanner->text() : QString();
}

std::shared_ptr<const LatencySnapshot> LatencyPage::shownRun() const
{
    return m_replay ? m_replay : m_experiment->snapshot();
}

void LatencyPage::releaseReference()
{
    m_reference.reset();
    m_referenceCurve = {};
    m_histogram->setReference(nullptr);
    m_model->setReference(std::nullopt);
    m_referenceLabel->clear();
    m_referenceLabel->setToolTip({});
    m_clearReference->hide();
    if (m_lastDrawn)
        draw(*m_lastDrawn);
}

void LatencyPage::setLogLatencyAxis(bool log)
{
    if (m_logAxis->isChecked() != log)
        m_logAxis->setChecked(log); // comes back here through toggled
    m_histogram->setLogLatencyAxis(log);
    m_timeline->setLogLatencyAxis(log);
    if (m_lastDrawn)
        draw(*m_lastDrawn);
}

bool LatencyPage::logLatencyAxis() const
{
    return m_logAxis->isChecked();
}

void LatencyPage::setTimelineSeconds(int seconds)
{
    if (m_window->value() != seconds)
        m_window->setValue(seconds);
    m_experiment->setSeriesWindow(int64_t(m_window->value()) * kNsPerSec);
    m_timeline->setWindowSeconds(m_window->value());
}

int LatencyPage::timelineSeconds() const
{
    return m_window->value();
}

void LatencyPage::setResetOnChange(bool on)
{
    m_resetOnChange->setChecked(on);
}

bool LatencyPage::resetOnChange() const
{
    return m_resetOnChange->isChecked();
}

void LatencyPage::setPresenting(bool on)
{
    m_timer->setInterval(on ? kPresentationRefreshMs : kRefreshMs);
}

void LatencyPage::refreshNow()
{
    if (m_replay) // the views show a recording until the user goes back to live
        return;
    const int64_t begin = nowNs();
    const uint64_t frames = framesDrawn();
    LatencyPageBase::refreshNow();
    if (framesDrawn() != frames)
        m_frameTimes.pullNs = nowNs() - begin - m_frameTimes.drawNs;
}

std::vector<VerticalMarker> LatencyPage::withReferenceMax(std::vector<VerticalMarker> markers) const
{
    if (m_reference)
        markers.push_back(m_referenceMax);
    return markers;
}

std::vector<TimelinePoint> LatencyPage::replayTimeline(const LatencySnapshot& s, size_t thread) const
{
    if (m_replay && m_replayTimeline.ok && thread < s.threads.size())
        for (const RecordingTimeline::Cpu& c : m_replayTimeline.cpus)
            if (c.cpu == s.threads[thread].cpu)
                return c.points;
    return timelinePoints(s, thread);
}

void LatencyPage::draw(const LatencySnapshot& s)
{
    if (s.threads.empty())
        return;
    const int64_t begin = nowNs();
    FrameTimes& f = m_frameTimes;
    if (s.threads.size() > 1) {
        drawPerCpu(s);
        f.histogramNs = f.timelineNs = f.tableNs = 0; // all in drawNs
    } else {
        const LatencyThreadStats& t = s.threads.front();
        const QString curve = m_replay ? tr("replay: %1") : tr("live: %1");
        m_histogram->setLive(histogramCurve(t.histogram, curve.arg(shortConfigLabel(s.config))),
                             withReferenceMax(percentileMarkers(t.histogram)));
        const int64_t histogramDone = nowNs();
        m_timeline->setData(replayTimeline(s, 0), timelineMarkers(s, m_timeline->windowSeconds()));
        const int64_t timelineDone = nowNs();
        m_model->setLive(summarizeRun(t, s.config.label()));
        const int64_t tableDone = nowNs();
        f.histogramNs = histogramDone - begin;
        f.timelineNs = timelineDone - histogramDone;
        f.tableNs = tableDone - timelineDone;
    }

    setLossWarning(m_lossWarning, dataLossWarning());
    drawAnatomy(s);
    f.drawNs = nowNs() - begin;
}

void LatencyPage::drawAnatomy(const LatencySnapshot& s)
{
    const bool shown = s.tracing || s.config.trace || m_controls->widgets().trace->isChecked();
    setAnatomyVisible(shown);
    if (!shown)
        return;
    const int64_t now = nowNs();
    if (s.running && m_anatomyDrawnNs != 0 && now - m_anatomyDrawnNs < int64_t(kAnatomyRefreshMs) * kNsPerMs)
        return;
    m_anatomyDrawnNs = now;
    m_anatomy->setRun(s);
}

void LatencyPage::setAnatomyVisible(bool visible)
{
    if (m_anatomy->isVisibleTo(this) == visible)
        return;
    m_anatomy->setVisible(visible);
    restyle();
    // The panel needs the height: the charts keep a third, or their minimum. Before the page is laid out there is
    // nothing to share; the splitter's stretch does it then.
    const QList<int> sizes = m_mainSplitter->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (!visible || total <= 0)
        return;
    const int charts = std::max(m_chartSplitter->minimumSizeHint().height(), total * 34 / 100);
    m_mainSplitter->setSizes({charts, std::max(0, total - charts)});
}

void LatencyPage::runStarting(const LatencyConfig& c)
{
    m_anatomyDrawnNs = 0;
    setAnatomyVisible(c.trace);
    m_anatomy->clearRun(c.trace ? tr("Tracing starts with the run…") : QString());
}

void LatencyPage::configChanged(const LatencyConfig& c)
{
    // Stopped: the panel shows while the next run will trace, or while the run on show was traced.
    const bool traced = m_lastDrawn && m_lastDrawn->tracing;
    setAnatomyVisible(c.trace || traced || (m_replay && m_replay->tracing));
    if (c.trace && !traced && !m_replay)
        m_anatomy->clearRun(tr("Start the run: the anatomy of its worst wake-ups shows here."));
}

void LatencyPage::timelineClicked(double tSec, double latencyUs)
{
    (void)latencyUs;
    const std::shared_ptr<const LatencySnapshot> s = m_lastDrawn;
    if (!s || !s->tracing) {
        if (s && !m_anatomy->isVisible())
            emit statusMessage(tr("Turn on \"Explain spikes (kernel tracing)\" to see why a wake-up was late"));
        return;
    }
    // A few pixel columns either side: a spike on the timeline is a column's maximum.
    const int64_t t = s->publishedNs + int64_t(std::llround(tSec * 1e9));
    const int64_t tolerance = std::max<int64_t>(int64_t(m_timeline->secondsPerColumn() * 4e9), 10 * kNsPerMs);
    if (!m_anatomy->showNearestTime(t, tolerance))
        emit statusMessage(tr("No traced wake-up there: the trace keeps the %1 worst wake-ups%2, listed under "
                              "\"Why late?\"")
                               .arg(s->tracing->top)
                               .arg(s->tracing->thresholdNs > 0
                                        ? tr(" and those over %1").arg(formatLatency(double(s->tracing->thresholdNs)))
                                        : QString()));
}

void LatencyPage::histogramClicked(double latencyUs)
{
    const std::shared_ptr<const LatencySnapshot> s = m_lastDrawn;
    if (!s || !s->tracing)
        return;
    if (!m_anatomy->showNearestLatency(latencyUs))
        emit statusMessage(tr("No traced wake-up near %1: the trace keeps the %2 worst; click the histogram's right "
                              "end, or pick one under \"Why late?\"")
                               .arg(formatLatency(latencyUs * 1e3))
                               .arg(s->tracing->top));
}

void LatencyPage::drawPerCpu(const LatencySnapshot& s)
{
    // Like the CPUs page: one colour per CPU (its first two are the run's and the reference's, so CPUs start at
    // the third), a table row named after the CPU.
    std::vector<HistogramOverlay> overlays;
    std::vector<TimelineCurve> curves;
    std::vector<LatencyStatsModel::LiveRow> rows;
    const std::string label = s.config.label();
    for (size_t i = 0; i < s.threads.size(); ++i) {
        const LatencyThreadStats& t = s.threads[i];
        const QString name = tr("CPU %1").arg(t.cpu);
        const QColor color = colors::curveColor(int(i) + 2, plot::isDarkPalette(palette()));
        overlays.push_back({histogramCurve(t.histogram, name), color});
        curves.push_back({name, color, replayTimeline(s, i)});
        rows.push_back({name, summarizeRun(t, label), color});
    }
    const QString curve = (m_replay ? tr("replay: all %1 CPUs, %2") : tr("live: all %1 CPUs, %2"))
                              .arg(s.threads.size())
                              .arg(shortConfigLabel(s.config));
    const Histogram all = allThreads(s).histogram;
    m_histogram->setLive(histogramCurve(all, curve), withReferenceMax(percentileMarkers(all)));
    m_histogram->setOverlays(overlays);
    m_timeline->setCurves(curves, timelineMarkers(s, m_timeline->windowSeconds()));
    m_model->setLiveRows(rows);
}

QString LatencyPage::dataLossWarning() const
{
    if (!m_lastDrawn || m_lastDrawn->threads.empty())
        return {};
    uint64_t drops = 0, gaps = 0;
    for (const LatencyThreadStats& t : m_lastDrawn->threads) {
        drops += t.drops;
        gaps += t.seqGaps;
    }
    if (drops == 0 && gaps == 0)
        return {};
    return tr("⚠ Data lost: %1 samples dropped (ring buffer full), %2 missing from the sequence. The figures "
              "below are incomplete.")
        .arg(drops)
        .arg(gaps);
}

QString LatencyPage::explanation() const
{
    Explanation e;
    e.title = tr("Real-time means on time, not faster");
    e.looking = tr("A thread wakes every <b>period</b> on one CPU, next to busy SCHED_OTHER <b>hogs</b>, and records "
                   "how late it woke: <b>latency = wake-up − deadline</b>. Histogram: wake-ups per latency; "
                   "timeline: the last seconds; table: the figures in µs and the sample count.");
    e.looking += tr(" With <b>Explain spikes (kernel tracing)</b> on, <b>Why late?</b> lists the worst wake-ups and "
                    "splits the one you pick by the kernel's own events: <b>timer IRQ delay</b> (deadline → the timer "
                    "interrupt), <b>interrupts</b> (handlers that ran first), <b>scheduling delay</b> (another task "
                    "held the CPU: named, coloured by policy) and <b>return to user</b> (switch-in → the thread reads "
                    "its clock). Grey hatching is <b>unknown</b>: no event tells.");
    e.expect = tr("Under <b>SCHED_OTHER</b> the tail (p99.9, max) grows with the hogs, up to milliseconds; under "
                  "<b>SCHED_FIFO</b> it stays at microseconds. Press <b>H</b> to hold one run as reference, then "
                  "switch the policy to see both. <b>Dropped</b> must stay 0.");
    e.why = tr("SCHED_OTHER shares the CPU fairly, so a waking thread may wait for a hog's turn; SCHED_FIFO "
               "preempts them at once. The hogs get as much work done: real-time changes <i>when</i>, not how "
               "fast.");
    e.why += tr(" Each part has its remedy: a task in the scheduling delay — a real-time policy for the measuring "
                "thread, or the task moved to another CPU; interrupts — the IRQ's affinity moved off the CPU "
                "(/proc/irq/N/smp_affinity); a timer IRQ delay after idle — shallower idle states (cpu_dma_latency); "
                "all of them — an isolated CPU (isolcpus, nohz_full).");
    e.thisMachine << kernelSentence(m_probe)
                  << schedulerSentence(
                         m_probe,
                         tr("EEVDF lets a thread that slept run again soon: with a few hogs SCHED_OTHER can look "
                            "as good as SCHED_FIFO, so turn the hogs up."),
                         tr("CFS makes a waking SCHED_OTHER thread wait behind the hogs' slices: every hog "
                            "shows in the tail."))
                  << slackSentence(m_probe) << vmSentence(m_probe) << rtSentence(m_probe);
    return explanationHtml(e);
}

void LatencyPage::saveViewSettings(QSettings& settings) const
{
    settings.setValue("logAxis", logLatencyAxis());
    settings.setValue("timelineSeconds", timelineSeconds());
    settings.setValue("resetOnChange", resetOnChange());
}

QStringList LatencyPage::restoreViewSettings(QSettings& settings)
{
    setLogLatencyAxis(settings.value("logAxis", true).toBool());
    setTimelineSeconds(settings.value("timelineSeconds", 10).toInt());
    setResetOnChange(settings.value("resetOnChange", true).toBool());
    return {};
}

} // namespace rtscope

#include "moc_latency_page.cpp"
