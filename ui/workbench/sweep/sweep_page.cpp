#include "ui/workbench/sweep/sweep_page.h"

#include "engine/util/clock.h"
#include "ui/common/colors.h"
#include "ui/common/fact_tile.h"
#include "ui/common/latency_view_data.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"
#include "ui/common/unpinned_topology.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/sweep_chart.h"
#include "ui/widgets/duration_spin_box.h"
#include "ui/workbench/run_summary_model.h"
#include "ui/workbench/sweep/sweep_controls.h"
#include "ui/workbench/workbench_common.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {

constexpr int kProgressSteps = 1000;
// A setting that ran this much shorter than asked was cut short by Stop.
constexpr int64_t kShortRunSlackNs = 50 * kNsPerMs;

QString dur(int64_t ns)
{
    return ns > 0 ? DurationSpinBox::formatNs(ns) : QStringLiteral("0 s");
}

double us(int64_t ns)
{
    return double(ns) / 1e3;
}

SweepChartPoint donePoint(const QString& label, const Histogram& h)
{
    return {
        label,      SweepChartPoint::State::Done, us(h.percentile(50)), us(h.percentile(99)), us(h.percentile(99.9)),
        us(h.max())};
}

} // namespace

SweepPage::SweepPage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, unpinnedTopology(), parent)
    , m_lossWarning(new QLabel(this))
    , m_setting(new FactTile(tr("Setting"), this))
    , m_left(new FactTile(tr("Time left"), this))
    , m_load(new FactTile(tr("Load"), this))
    , m_progress(new QProgressBar(this))
    , m_chart(new SweepChart(this))
    , m_histogram(new HistogramChart(this))
    , m_model(new RunSummaryModel(tr("Setting"), this))
    , m_table(new QTableView(this))
{
    setObjectName("sweepPage");
    styleLossWarning(m_lossWarning);
    m_progress->setObjectName("sweepProgress");
    m_progress->setRange(0, kProgressSteps);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(fontMetrics().height() / 2 + 4);
    auto* facts = tileRow({{m_setting, "settingTile", 2}, {m_left, "timeLeftTile", 2}, {m_load, "loadTile", 3}});

    m_histogram->setTitle(tr("Jitter histogram per setting"));
    m_histogram->setLiveVisible(false);
    m_model->setCheckable(true);
    m_table->setModel(m_model);
    m_table->setObjectName("sweepTable");
    workbench::styleStatsTable(m_table);
    m_table->setToolTip(tr("Untick a setting to leave its curve out of the histogram"));

    auto* chartSplitter = new QSplitter(Qt::Horizontal, this);
    chartSplitter->addWidget(m_chart);
    chartSplitter->addWidget(m_histogram);
    chartSplitter->setChildrenCollapsible(false);
    auto* mainSplitter = new QSplitter(Qt::Vertical, this);
    mainSplitter->addWidget(chartSplitter);
    mainSplitter->addWidget(m_table);
    mainSplitter->setStretchFactor(0, 1);
    mainSplitter->setStretchFactor(1, 0);
    mainSplitter->setChildrenCollapsible(false);
    keepSplitter("chartSplitter", chartSplitter);
    keepSplitter("mainSplitter", mainSplitter);

    stackRows({m_lossWarning, facts, m_progress, {mainSplitter, 1}});

    connect(m_model, &RunSummaryModel::checkedChanged, this, [this] {
        if (m_last)
            showSnapshot(*m_last, m_running);
    });
    m_running = m_base;
    showSnapshot(SweepSnapshot{}, m_base);
}

SweepPage::~SweepPage()
{
    stop();
}

QStringList SweepPage::configProblems(const SweepConfig& c, const CpuTopology& topo) const
{
    QStringList problems = m_controls->textProblems();
    if (problems.isEmpty())
        problems = toQt(c.validate(topo));
    return problems;
}

QString SweepPage::runningStatus(const SweepConfig& c) const
{
    return tr("Sweeping %1 settings, %2 each").arg(c.settings.size()).arg(dur(c.eachNs));
}

QString SweepPage::startedMessage(const SweepConfig& c) const
{
    return tr("Sweep started: %1, %2 each").arg(QString::fromStdString(sweepSettingsText(c.settings)), dur(c.eachNs));
}

void SweepPage::runStarting(const SweepConfig& c)
{
    m_running = c;
    m_userStopped = false;
    // Here the host published this sweep's first snapshot in start(); on a target the first one is still on its
    // way, and until it comes the sweep is shown starting.
    const std::shared_ptr<const SweepSnapshot> first = latestSnapshot();
    SweepSnapshot starting;
    starting.running = true;
    starting.total = c.settings.size();
    showSnapshot(first && !onTarget() ? *first : starting, c);
}

void SweepPage::stop()
{
    if (isRunning())
        endSweep(true);
}

void SweepPage::runFinished()
{
    endSweep(false);
}

void SweepPage::endSweep(bool userStopped)
{
    m_userStopped = userStopped;
    // stop() joins the controller, which stops the running setting and stops and reaps the load command.
    PolledExperimentPage::stop();
    // The result is shown even while the display is paused: it is the sweep's outcome, not one frame of it.
    if (displayPaused())
        if (const std::shared_ptr<const SweepSnapshot> s = latestSnapshot())
            showSnapshot(*s, m_running);
}

QString SweepPage::stoppedMessage(bool) const
{
    const std::shared_ptr<const SweepSnapshot> s = latestSnapshot();
    const size_t done = s ? s->results.size() : 0;
    if (s && !s->error.empty()) // on a target: the link was lost (the error is shown next to the controls)
        return tr("Sweep ended after %1 of %2 settings").arg(done).arg(m_running.settings.size());
    return m_userStopped ? tr("Sweep stopped after %1 of %2 settings").arg(done).arg(m_running.settings.size())
                         : tr("Sweep finished");
}

int64_t SweepPage::liveElapsedNs(const LatencySnapshot& live) const
{
    // A target's clock is not this computer's: there the time of its last publish is what is known.
    return onTarget() ? live.publishedNs - live.startNs : nowNs() - live.startNs;
}

void SweepPage::configEdited(const SweepConfig& c)
{
    m_base = c;
    if (!isRunning() && (!m_last || m_last->results.empty()))
        showSnapshot(SweepSnapshot{}, c); // the settings to come, named on the chart
}

void SweepPage::configChanged(const SweepConfig& c)
{
    if (!m_last || m_last->results.empty()) {
        m_running = c;
        showSnapshot(SweepSnapshot{}, c);
    }
}

void SweepPage::showSnapshot(const SweepSnapshot& s, const SweepConfig& c)
{
    m_last = s;
    std::vector<SummaryRow> rows;
    std::vector<SweepChartPoint> points;
    std::vector<const Histogram*> histograms;
    std::vector<QString> curveNames;
    QStringList lost;
    const size_t runningIndex = s.results.size();
    for (size_t i = 0; i < c.settings.size(); ++i) {
        const QString label = QString::fromStdString(c.settings[i].label());
        SummaryRow row{label, colors::curveColor(int(i), plot::isDarkPalette(palette())), std::nullopt, QString(),
                       false};
        SweepChartPoint point{label};
        const Histogram* histogram = nullptr;
        QString curveName = label;
        if (i < s.results.size()) {
            const SweepResult& r = s.results[i];
            if (r.stats.samples == 0) {
                // Not a latency of zero: nothing was measured. Say why.
                row.failed = true;
                row.note = r.error.empty() ? tr("failed: no wake-up was measured")
                                           : tr("failed: %1").arg(QString::fromStdString(r.error));
                point.state = SweepChartPoint::State::Failed;
            } else {
                row.summary = summarizeRun(r.stats, c.settings[i].label());
                point = donePoint(label, r.stats.histogram);
                histogram = &r.stats.histogram;
                row.note = r.durationNs + kShortRunSlackNs < c.eachNs
                               ? tr("stopped after %1 of %2").arg(dur(r.durationNs), dur(c.eachNs))
                               : tr("ran %1").arg(dur(r.durationNs));
                if (!r.error.empty()) {
                    row.failed = true;
                    row.note += tr("; error: %1").arg(QString::fromStdString(r.error));
                }
                if (r.stats.drops || r.stats.seqGaps)
                    lost << tr("%1: %2 dropped, %3 missing").arg(label).arg(r.stats.drops).arg(r.stats.seqGaps);
            }
        } else if (s.running && i == runningIndex) {
            point.state = SweepChartPoint::State::Running;
            row.note = tr("starting…");
            if (s.current == i && s.live && !s.live->threads.empty()) {
                const LatencyThreadStats& t = s.live->threads.front();
                row.summary = summarizeRun(t, c.settings[i].label());
                row.note = tr("running · %1 left").arg(dur(c.eachNs - liveElapsedNs(*s.live)));
                histogram = &t.histogram;
                curveName = tr("%1 (running)").arg(label);
            }
        } else {
            row.note = s.running          ? tr("pending")
                       : m_userStopped    ? tr("not run: stopped")
                       : !s.error.empty() ? tr("not run: the sweep ended")
                                          : tr("not run yet");
        }
        rows.push_back(row);
        points.push_back(point);
        histograms.push_back(histogram);
        curveNames.push_back(curveName);
    }
    const bool reshaped = int(rows.size()) != m_model->rowCount();
    m_model->setRows(rows);
    if (reshaped)
        workbench::fitTableHeight(m_table, m_model->rowCount());
    m_chart->setPoints(points);
    std::vector<HistogramOverlay> overlays;
    for (size_t i = 0; i < histograms.size(); ++i)
        if (histograms[i] && m_model->isChecked(int(i)))
            overlays.push_back({histogramCurve(*histograms[i], curveNames[i]), rows[i].color});
    m_histogram->setOverlays(overlays);
    drawFacts(&s, c);
    setLossWarning(m_lossWarning,
                   lost.isEmpty()
                       ? QString()
                       : tr("⚠ Data lost — %1. The figures of those settings are incomplete.").arg(lost.join("; ")));
}

void SweepPage::drawFacts(const SweepSnapshot* s, const SweepConfig& c)
{
    const size_t total = c.settings.size();
    const size_t done = s ? s->results.size() : 0;
    const bool running = s && s->running;
    int64_t settingLeft = c.eachNs;
    if (running && s->live && s->current == done)
        settingLeft = std::clamp<int64_t>(c.eachNs - liveElapsedNs(*s->live), 0, c.eachNs);
    if (running) {
        const QString label = done < total ? QString::fromStdString(c.settings[done].label()) : QString();
        m_setting->setValue(tr("%1 of %2").arg(std::min(done + 1, total)).arg(total),
                            tr("%1 · %2 each").arg(label, dur(c.eachNs)));
        const int64_t sweepLeft = settingLeft + int64_t(total - std::min(done + 1, total)) * c.eachNs;
        m_left->setValue(dur(settingLeft), tr("of this setting · %1 for the whole sweep").arg(dur(sweepLeft)));
    } else if (done > 0) {
        m_setting->setValue(tr("%1 of %2 done").arg(done).arg(total),
                            m_userStopped       ? tr("stopped by you")
                            : !s->error.empty() ? tr("ended: %1").arg(QString::fromStdString(s->error))
                                                : tr("sweep finished"));
        m_left->setValue(dur(0), tr("%1 each · %2 in all").arg(dur(c.eachNs)).arg(dur(c.eachNs * int64_t(total))));
    } else {
        m_setting->setValue(tr("%1 settings").arg(total), tr("%1 each · press Start").arg(dur(c.eachNs)));
        m_left->setValue(dur(c.eachNs * int64_t(total)), tr("for the whole sweep"));
    }
    const QString status = s && !s->loadStatus.empty() ? QString::fromStdString(s->loadStatus) : QString();
    if (!c.loadCmd.empty())
        m_load->setValue(tr("your command"),
                         QString::fromStdString(c.loadCmd) + (status.isEmpty() ? QString() : tr(" — %1").arg(status)));
    else if (c.base.hogs > 0)
        m_load->setValue(c.base.hogs == 1 ? tr("1 CPU hog") : tr("%1 CPU hogs").arg(c.base.hogs),
                         tr("SCHED_OTHER spinners on %1")
                             .arg(c.base.hogCpu >= 0 ? tr("CPU %1").arg(c.base.hogCpu) : tr("the measuring CPU")));
    else
        m_load->setValue(tr("none"), tr("only what else runs on the machine"));
    double fraction = total ? double(done) / double(total) : 0;
    if (running && total)
        fraction += double(c.eachNs - settingLeft) / double(c.eachNs) / double(total);
    m_progress->setValue(int(std::clamp(fraction, 0.0, 1.0) * kProgressSteps));
}

QString SweepPage::progressText() const
{
    return m_setting->text() + " · " + m_left->value() + " " + m_left->detail();
}

QString SweepPage::explanation() const
{
    Explanation e;
    e.title = tr("Which priority do I need?");
    e.looking = tr("The latency experiment once per <b>setting</b> (e.g. OTHER, FIFO 1, FIFO 50, FIFO 80), for the "
                   "same time each, one after the other, under the same <b>load</b>: built-in hogs or your own "
                   "command. The chart plots p50 (dashed), p99, p99.9 and max in µs against the setting; the "
                   "histogram overlays the settings; the table has the figures and how long each one ran.");
    e.expect = tr("SCHED_OTHER has the long tail under load; any FIFO priority cuts it. Above 50 the thread also "
                  "outranks threaded interrupt handlers (RT threads page), which matters when the load is "
                  "interrupts. A setting that cannot run is marked <b>failed</b> with the reason, never drawn as "
                  "zero; Stop keeps what was measured.");
    e.why = tr("SCHED_FIFO preempts every SCHED_OTHER thread at once, whatever its priority; priorities matter only "
               "among real-time threads. Your command runs in its own process group and is stopped (SIGTERM, then "
               "SIGKILL) and reaped whatever happens, so the next sweep starts clean.");
    e.thisMachine << kernelSentence(m_probe)
                  << schedulerSentence(
                         m_probe,
                         tr("EEVDF lets a waking SCHED_OTHER thread in soon: with light load OTHER's median is close "
                            "to FIFO's, and the difference is in the tail."),
                         tr("CFS makes a waking SCHED_OTHER thread wait for the load's slices: OTHER's tail shows "
                            "with little load."))
                  << rtSentence(m_probe) << vmSentence(m_probe);
    return explanationHtml(e);
}

} // namespace rtscope

#include "moc_sweep_page.cpp"
