#include "ui/workbench/cpus/cpus_page.h"

#include "engine/experiments/latency_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"
#include "ui/common/colors.h"
#include "ui/common/config_json.h"
#include "ui/common/latency_source.h"
#include "ui/common/latency_view_data.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"
#include "ui/common/unpinned_topology.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/heat_strip.h"
#include "ui/plot/histogram_chart.h"
#include "ui/widgets/latency_controls.h"
#include "ui/widgets/period_editor.h"
#include "ui/workbench/cpus/cpu_list_edit.h"
#include "ui/workbench/run_summary_model.h"
#include "ui/workbench/workbench_common.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace rtscope {

namespace {
constexpr int kMeasuringCpuRow = 4; ///< the latency controls' "Measuring CPU" row, replaced by the CPU list
constexpr int kMaxTableRows = 8;    ///< more CPUs scroll
} // namespace

CpusPage::CpusPage(std::unique_ptr<LatencySource> source, const SystemProbe& probe, QWidget* parent)
    : ExperimentPage(parent)
    , m_source(std::move(source))
    , m_probe(probe)
    , m_topo(unpinnedTopology())
    , m_lossWarning(new QLabel(this))
    , m_heatStrip(new HeatStrip(this))
    , m_histogram(new HistogramChart(this))
    , m_model(new RunSummaryModel(tr("CPU"), this))
    , m_table(new QTableView(this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_timer(new QTimer(this))
{
    setObjectName("cpusPage");
    const CpuTopology& topo = m_topo;
    const std::vector<int> online = m_probe.onlineCpus.empty() ? topo.online : m_probe.onlineCpus;
    m_controls = new LatencyControls(online);
    m_cpuList = new CpuListEdit(topo.allowed, m_probe, m_controls);
    m_controls->insertRow(kMeasuringCpuRow, tr("&Measured CPUs"), m_cpuList);
    m_controls->setRowVisible(m_controls->widgets().cpu, false);
    m_controls->widgets().hogCpu->setItemText(0, tr("every measured CPU"));
    m_controls->widgets().hogCpu->setToolTip(tr("The CPU the hogs are pinned to; a noisy core stands out"));
    m_controls->setHint(tr("One measuring thread per CPU. Every change applies to the running experiment at once, "
                           "restarts the statistics and leaves a marker on the heat strip."));
    connect(m_controls, &LatencyControls::edited, this, &CpusPage::controlsEdited);
    connect(m_cpuList, &CpuListEdit::edited, this, &CpusPage::controlsEdited);

    styleLossWarning(m_lossWarning);
    m_histogram->setTitle(tr("Jitter histogram per CPU"));
    m_histogram->setLiveVisible(false);
    m_model->setCheckable(true);
    m_table->setModel(m_model);
    m_table->setObjectName("cpuTable");
    workbench::styleStatsTable(m_table);
    m_table->setToolTip(tr("Untick a CPU to leave its curve out of the histogram"));

    m_splitter->addWidget(m_heatStrip);
    m_splitter->addWidget(m_histogram);
    m_splitter->addWidget(m_table);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setStretchFactor(2, 0);
    m_splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_lossWarning);
    layout->addWidget(m_splitter, 1);

    connect(m_model, &RunSummaryModel::checkedChanged, this, [this] {
        if (m_lastDrawn)
            draw(*m_lastDrawn);
    });
    m_timer->setInterval(kRefreshMs);
    connect(m_timer, &QTimer::timeout, this, &CpusPage::refreshNow);
    m_source->setSeriesWindow(kSeriesWindowNs);

    // The lesson in one click: every CPU measured, two hogs on the last one.
    LatencyConfig initial = m_controls->mapper().config(LatencyConfig{});
    initial.cpus = topo.allowed;
    initial.cpu = -1;
    initial.hogs = 2;
    initial.hogCpu = topo.lastUsable();
    m_base = initial;
    if (!applyConfig(initial).isEmpty()) {
        m_base = m_controls->mapper().config(LatencyConfig{});
        m_base.cpus = topo.allowed;
    }
    fitTable();
}

CpusPage::~CpusPage()
{
    stop();
    if (m_controls && !m_controls->parent())
        delete m_controls;
}

QWidget* CpusPage::controls()
{
    return m_controls;
}

LatencyControls* CpusPage::latencyControls() const
{
    return m_controls;
}

LatencyConfig CpusPage::config() const
{
    LatencyConfig c = m_controls->mapper().config(m_base);
    c.cpu = -1;
    if (auto cpus = m_cpuList->cpus())
        c.cpus = *cpus;
    return c;
}

QStringList CpusPage::problems() const
{
    return m_controls->problems();
}

QStringList CpusPage::problemsOf(const LatencyConfig& c) const
{
    QStringList out;
    if (const QString p = m_cpuList->problem(); !p.isEmpty())
        out << p;
    return out + toQt(c.validate(unpinnedTopology()));
}

bool CpusPage::isRunning() const
{
    return m_source->running();
}

std::vector<int> CpusPage::busyCpus() const
{
    if (!m_source->running())
        return {};
    const CpuTopology& topo = m_topo;
    const std::vector<int> hogCpus = m_base.hogs > 0 ? m_base.resolvedHogCpus(topo) : std::vector<int>{};
    std::vector<int> busy = m_base.resolvedCpus(topo);
    busy.insert(busy.end(), hogCpus.begin(), hogCpus.end());
    std::sort(busy.begin(), busy.end());
    busy.erase(std::unique(busy.begin(), busy.end()), busy.end());
    // Measuring every CPU leaves the window nowhere quiet: it keeps at least off the hogs' CPUs.
    if (busy.size() >= topo.allowed.size())
        return hogCpus;
    return busy;
}

bool CpusPage::start()
{
    if (m_source->running())
        return true;
    const LatencyConfig c = config();
    if (const QStringList problems = problemsOf(c); !problems.isEmpty()) {
        m_controls->showProblems(problems);
        return false;
    }
    if (Error e = m_source->start(c)) {
        // Never a silent fallback: a refused FIFO stays refused, and says why.
        showError(QString::fromStdString(e.message));
        return false;
    }
    m_topo = unpinnedTopology();
    m_base = c;
    m_controls->clearProblems();
    m_heat.reset(HeatHistory::intervalFor(c.periodNs));
    m_heatStrip->resetScale();
    m_lastDrawn.reset();
    m_timer->start();
    updateRunStatus();
    emit runningChanged(true);
    emit busyCpusChanged();
    emit statusMessage(tr("Started: %1").arg(QString::fromStdString(c.label())));
    return true;
}

void CpusPage::stop()
{
    if (!m_source->running())
        return;
    m_source->stop();
    runEnded();
}

void CpusPage::runEnded()
{
    m_timer->stop();
    refreshNow(); // the final snapshot, with everything drained
    updateRunStatus();
    emit runningChanged(false);
    emit busyCpusChanged();
    emit statusMessage(tr("Stopped"));
}

void CpusPage::controlsEdited()
{
    const LatencyConfig c = config();
    if (const QStringList problems = problemsOf(c); !problems.isEmpty()) {
        m_controls->showProblems(problems);
        return;
    }
    if (!m_source->running()) {
        m_base = c;
        m_controls->clearProblems();
        return;
    }
    applyRunning(c);
}

bool CpusPage::applyRunning(const LatencyConfig& c)
{
    if (Error e = m_source->reconfigure(c)) {
        // The engine kept the run as it was: show that config again, and the reason next to it. When even the
        // previous setting could not be put back, the engine ended the run: show it stopped.
        m_controls->mapper().setConfig(m_base);
        if (!m_source->running())
            runEnded();
        m_cpuList->setCpus(m_base.cpus);
        showError(QString::fromStdString(e.message));
        return false;
    }
    m_base = c;
    m_controls->clearProblems();
    // The histograms and the table describe the configuration in force; the heat strip keeps the history.
    m_source->resetStatistics();
    updateRunStatus();
    emit busyCpusChanged();
    return true;
}

QStringList CpusPage::applyConfig(const LatencyConfig& requested)
{
    const CpuTopology topo = unpinnedTopology();
    LatencyConfig c = requested;
    if (c.cpus.empty())
        c.cpus = {c.resolvedCpu(topo)};
    c.cpu = -1;
    QStringList problems = toQt(c.validate(topo));
    LatencyConfig shown = c; // what the shared controls must be able to show: everything but the CPU list
    shown.cpus.clear();
    problems << m_controls->mapper().unrepresentable(shown);
    if (!problems.isEmpty()) {
        m_controls->showProblems(problems);
        return problems;
    }
    m_controls->mapper().setConfig(c);
    m_cpuList->setCpus(c.cpus);
    if (!m_source->running()) {
        m_base = c;
        m_controls->clearProblems();
        return {};
    }
    return applyRunning(c) ? QStringList() : m_controls->problems();
}

QStringList CpusPage::applyConfigJson(const nlohmann::json& config)
{
    return applyConfigJsonWith(
        config, latencyConfigFromJson, [this](const LatencyConfig& c) { return applyConfig(c); },
        [this](const QStringList& problems) { m_controls->showProblems(problems); });
}

nlohmann::json CpusPage::configJson() const
{
    return toJson(config());
}

void CpusPage::showError(const QString& message)
{
    m_controls->showProblems(message.split('\n', Qt::SkipEmptyParts));
    emit statusMessage(message.section('\n', 0, 0));
}

void CpusPage::updateRunStatus()
{
    m_controls->setStatus(m_source->running() ? tr("Running: %1").arg(QString::fromStdString(m_base.label()))
                                              : QString());
}

void CpusPage::setDisplayPaused(bool paused)
{
    m_paused = paused;
    if (!paused)
        refreshNow();
}

void CpusPage::resetStatistics()
{
    if (m_source->running())
        m_source->resetStatistics();
}

void CpusPage::refreshNow()
{
    std::shared_ptr<const LatencySnapshot> snap = m_source->snapshot();
    if (!snap)
        return;
    // A run with a duration, or a worker whose wait failed, ends by itself: join every thread now.
    if (snap->finished && m_source->running()) {
        stop();
        snap = m_source->snapshot();
        if (!snap->error.empty())
            showError(QString::fromStdString(snap->error));
    }
    if (snap == m_lastDrawn && snap->generation == m_lastGeneration)
        return;
    // The history takes every snapshot, paused or not, so the strip has no hole when the display resumes.
    m_heat.add(*snap, snap->publishedNs - kSeriesWindowNs);
    if (m_paused)
        return;
    m_lastDrawn = snap;
    m_lastGeneration = snap->generation;
    draw(*snap);
    ++m_frames;
}

QString CpusPage::cpuRowNote(const LatencyConfig& c, int cpu) const
{
    QStringList notes;
    if (c.hogs > 0) {
        const std::vector<int> hogCpus = c.resolvedHogCpus(m_topo);
        if (std::find(hogCpus.begin(), hogCpus.end(), cpu) != hogCpus.end())
            notes << (c.hogs == 1 ? tr("1 hog") : tr("%1 hogs").arg(c.hogs)) +
                         (c.hogNice != 0 ? tr(" at nice %1").arg(c.hogNice) : QString());
    }
    if (const QString kernel = workbench::cpuNote(m_probe, cpu); !kernel.isEmpty())
        notes << kernel;
    return notes.join(QStringLiteral(" · "));
}

void CpusPage::draw(const LatencySnapshot& s)
{
    std::vector<const LatencyThreadStats*> threads;
    for (const LatencyThreadStats& t : s.threads)
        threads.push_back(&t);
    std::sort(threads.begin(), threads.end(), [](auto* a, auto* b) { return a->cpu < b->cpu; });

    std::vector<SummaryRow> rows;
    std::vector<QString> legend;
    const std::string label = s.config.label();
    for (size_t i = 0; i < threads.size(); ++i) {
        const LatencyThreadStats& t = *threads[i];
        const QString note = cpuRowNote(s.config, t.cpu);
        rows.push_back({tr("CPU %1").arg(t.cpu), colors::curveColor(int(i), plot::isDarkPalette(palette())),
                        summarizeRun(t, label), note, false});
        legend.push_back(note.isEmpty() ? rows.back().name : tr("%1 (%2)").arg(rows.back().name, note));
    }
    const bool reshaped = int(rows.size()) != m_model->rowCount();
    m_model->setRows(rows);
    if (reshaped)
        fitTable();

    std::vector<HistogramOverlay> overlays;
    for (size_t i = 0; i < threads.size(); ++i)
        if (m_model->isChecked(int(i)))
            overlays.push_back({histogramCurve(threads[i]->histogram, legend[i]), rows[i].color});
    m_histogram->setOverlays(overlays);
    drawHeat(s);
    setLossWarning(m_lossWarning, dataLossWarning());
}

void CpusPage::drawHeat(const LatencySnapshot& s)
{
    HeatStripData data;
    const int64_t interval = m_heat.intervalNs();
    data.intervalSec = double(interval) / 1e9;
    const int64_t end = m_heat.endNs();
    const double elapsed = double(end - m_heat.startNs()) / 1e9;
    // The axis grows with the run (whole intervals), so a young run fills the strip instead of a corner of it.
    data.spanSec =
        std::clamp(std::ceil(elapsed / data.intervalSec) * data.intervalSec, double(kMinSpanSec), double(kMaxSpanSec));
    const int columns = int(std::lround(data.spanSec * 1e9 / double(interval)));
    for (int cpu : m_heat.cpus())
        data.rows.push_back({tr("CPU %1").arg(cpu), cpuRowNote(s.config, cpu), m_heat.cells(cpu, columns)});
    const double shift = double(s.publishedNs - end) / 1e9;
    for (VerticalMarker m : timelineMarkers(s, data.spanSec)) {
        m.x += shift;
        data.markers.push_back(m);
    }
    m_heatStrip->setData(data);
}

void CpusPage::fitTable()
{
    workbench::fitTableHeight(m_table, m_model->rowCount(), kMaxTableRows);
}

QString CpusPage::dataLossWarning() const
{
    if (!m_lastDrawn)
        return {};
    QStringList parts;
    for (const LatencyThreadStats& t : m_lastDrawn->threads)
        if (t.drops || t.seqGaps)
            parts << tr("CPU %1: %2 dropped, %3 missing").arg(t.cpu).arg(t.drops).arg(t.seqGaps);
    if (parts.isEmpty())
        return {};
    return tr("⚠ Data lost (ring buffer full or sequence gaps) — %1. The figures of those CPUs are incomplete; "
              "the heat strip flags the intervals.")
        .arg(parts.join("; "));
}

QString CpusPage::explanation() const
{
    auto list = [](const std::vector<int>& cpus) {
        return cpus.empty() ? tr("none") : QString::fromStdString(formatCpuList(cpus));
    };
    Explanation e;
    e.title = tr("Which CPU is the noisy one?");
    e.looking = tr("One thread per chosen CPU wakes every <b>period</b> and records <b>latency = wake-up − "
                   "deadline</b>, as on the Latency page. <b>Heat strip</b>: a row per CPU, a cell per interval, "
                   "coloured by the largest latency in it (legend in µs, log scale); hatched = no wake-up measured, "
                   "blue flag = samples lost. The histograms overlay the CPUs; the table gives each CPU's figures "
                   "in µs and its sample count.");
    e.expect = tr("A CPU that shares its time with hogs, interrupts or other work shows as a warm row and a long "
                  "tail. Put many hogs (16) on one CPU under SCHED_OTHER: its median climbs to milliseconds; switch "
                  "to SCHED_FIFO 80 and it calms down. <b>Dropped</b> and <b>gaps</b> must stay 0.");
    e.why = tr("Every CPU has its own run queue: what runs next to a measuring thread — hogs, interrupt threads, "
               "the window itself when every CPU is measured — delays that CPU's wake-ups only. Isolated CPUs get "
               "no ordinary tasks and nohz_full CPUs skip the tick, so their rows should be the calmest.");
    e.thisMachine << tr("CPUs %1 online; isolated (<code>isolcpus=</code>): %2; tickless (<code>nohz_full=</code>): "
                        "%3.")
                         .arg(list(m_probe.onlineCpus), list(m_probe.isolatedCpus), list(m_probe.nohzFullCpus));
    if (m_probe.isolatedCpus.empty() && m_probe.nohzFullCpus.empty())
        e.thisMachine << tr("No CPU is kept apart: every one takes the tick, interrupts and ordinary work.");
    e.thisMachine << kernelSentence(m_probe);
    if (m_probe.scheduler == "EEVDF")
        e.thisMachine << tr("EEVDF lets a waking SCHED_OTHER thread past a few hogs quickly: with few hogs the "
                            "difference is in the tail, narrow clusters at the hogs' time slices.");
    else
        e.thisMachine << tr("CFS makes a waking SCHED_OTHER thread wait behind the hogs' slices: even a few hogs "
                            "show.");
    e.thisMachine << vmSentence(m_probe) << rtSentence(m_probe);
    return explanationHtml(e);
}

void CpusPage::saveSettings(QSettings& settings) const
{
    settings.setValue("config", QString::fromStdString(toJson(config()).dump()));
    settings.setValue("splitter", m_splitter->saveState());
}

void CpusPage::restoreSettings(QSettings& settings)
{
    if (settings.contains("splitter"))
        m_splitter->restoreState(settings.value("splitter").toByteArray());
    const QString text = settings.value("config").toString();
    if (text.isEmpty())
        return;
    const nlohmann::json j = nlohmann::json::parse(text.toStdString(), nullptr, false);
    const QStringList problems = applyConfigJson(j);
    if (!problems.isEmpty()) {
        // A saved config this machine cannot run (a CPU went offline): keep the defaults, and say so.
        m_controls->showProblems(QStringList(tr("The saved per-CPU settings were not applied:")) + problems);
    }
}

} // namespace rtscope
