#include "ui/workbench/cpus/cpus_page.h"

#include "engine/experiments/latency/latency_experiment.h"
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
#include "ui/remote/remote_latency_source.h"
#include "ui/remote/target_connection.h"
#include "ui/widgets/anatomy_view.h"
#include "ui/widgets/latency_controls.h"
#include "ui/widgets/period_editor.h"
#include "ui/workbench/cpus/cpu_list_edit.h"
#include "ui/workbench/run_summary_model.h"
#include "ui/workbench/workbench_common.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
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
    : CpusPageBase(probe, kRefreshMs, unpinnedTopology(), std::move(source), parent)
    , m_topo(unpinnedTopology())
    , m_lossWarning(new QLabel(this))
    , m_heatStrip(new HeatStrip(this))
    , m_histogram(new HistogramChart(this))
    , m_model(new RunSummaryModel(tr("CPU"), this))
    , m_table(new QTableView(this))
    , m_anatomy(new AnatomyPanel(this))
{
    setObjectName("cpusPage");
    const CpuTopology& topo = m_topo;
    m_cpuList = new CpuListEdit(topo.allowed, m_probe, m_controls);
    m_controls->insertRow(kMeasuringCpuRow, tr("&Measured CPUs"), m_cpuList);
    m_controls->setRowVisible(m_controls->widgets().cpu, false);
    m_controls->widgets().hogCpu->setItemText(0, tr("every measured CPU"));
    m_controls->widgets().hogCpu->setToolTip(tr("The CPU the hogs are pinned to; a noisy core stands out"));
    m_controls->setHint(tr("One measuring thread per CPU. Every change applies to the running experiment at once, "
                           "restarts the statistics and leaves a marker on the heat strip."));
    connect(m_cpuList, &CpuListEdit::edited, this, [this] { controlsEdited(); });

    styleLossWarning(m_lossWarning);
    m_histogram->setTitle(tr("Jitter histogram per CPU"));
    m_histogram->setLiveVisible(false);
    m_model->setCheckable(true);
    m_table->setModel(m_model);
    m_table->setObjectName("cpuTable");
    workbench::styleStatsTable(m_table);
    m_table->setToolTip(tr("Untick a CPU to leave its curve out of the histogram"));

    auto* splitter = new QSplitter(Qt::Vertical, this);
    // The histogram and, while the run is traced, "Why late?" share the middle: the page has no room for both.
    m_middle = new QTabWidget(this);
    m_middle->setObjectName("cpusMiddleTabs");
    m_middle->setDocumentMode(true);
    m_middle->addTab(m_histogram, tr("Histogram"));
    m_middle->addTab(m_anatomy, tr("Why late?"));
    m_middle->setTabVisible(1, false);
    m_middle->tabBar()->setVisible(false);
    splitter->addWidget(m_heatStrip);
    splitter->addWidget(m_middle);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 0);
    splitter->setChildrenCollapsible(false);
    keepSplitter("splitter", splitter);
    stackRows({m_lossWarning, {splitter, 1}});

    connect(m_model, &RunSummaryModel::checkedChanged, this, [this] {
        if (m_lastDrawn)
            draw(*m_lastDrawn);
    });
    m_experiment->setSeriesWindow(kSeriesWindowNs);

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
}

LatencyConfig CpusPage::config() const
{
    LatencyConfig c = CpusPageBase::config();
    c.cpu = -1;
    if (auto cpus = m_cpuList->cpus())
        c.cpus = *cpus;
    return c;
}

QStringList CpusPage::configProblems(const LatencyConfig& c, const CpuTopology& topo) const
{
    QStringList out;
    if (const QString p = m_cpuList->problem(); !p.isEmpty())
        out << p;
    return out + toQt(c.validate(topo));
}

bool CpusPage::setTarget(TargetConnection* target)
{
    if (target == m_target && (target != nullptr) == (m_localSource != nullptr))
        return true;
    stop();
    std::unique_ptr<LatencySource> next;
    if (target)
        next = std::make_unique<RemoteLatencySource>(*target);
    else
        next = std::move(m_localSource);
    std::unique_ptr<LatencySource> previous = std::exchange(m_experiment, std::move(next));
    if (target && !m_localSource)
        m_localSource = std::move(previous); // the local source waits; a previous target's goes
    m_experiment->setSeriesWindow(kSeriesWindowNs);
    m_target = target;
    m_topo = topology();
    // The choices are the measured machine's CPUs; a chosen one it lacks falls back (auto, "all"), and the page takes
    // the config then shown, once.
    const bool list = m_cpuList->setAllowed(m_topo.allowed, measuredProbe());
    const bool combos = m_controls->mapper().setCpus(m_topo.online);
    m_controls->setTraceTarget(!measuredMachine().isEmpty());
    if (list || combos)
        controlsEdited();
    return true;
}

const SystemProbe& CpusPage::measuredProbe() const
{
    return m_target && m_localSource ? m_target->probe() : m_probe;
}

QString CpusPage::measuredMachine() const
{
    return m_target && m_localSource ? m_target->machine() : QString();
}

CpuTopology CpusPage::topology() const
{
    return m_target && m_localSource ? m_target->topology() : CpusPageBase::topology();
}

std::vector<int> CpusPage::busyCpus() const
{
    if (!isRunning() || !measuredMachine().isEmpty()) // a target's CPUs are not this computer's
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

void CpusPage::runStarting(const LatencyConfig& c)
{
    m_topo = topology();
    m_heat.reset(HeatHistory::intervalFor(c.periodNs));
    m_heatStrip->resetScale();
    showAnatomyTab(c.trace);
    m_anatomy->clearRun(tr("Tracing starts with the run…"));
}

LatencyConfig CpusPage::adopt(LatencyConfig c) const
{
    if (c.cpus.empty())
        c.cpus = {c.resolvedCpu(topology())};
    c.cpu = -1;
    return c;
}

QStringList CpusPage::unrepresentable(const LatencyConfig& c) const
{
    LatencyConfig shown = c;
    shown.cpus.clear();
    return CpusPageBase::unrepresentable(shown);
}

void CpusPage::showConfig(const LatencyConfig& c)
{
    CpusPageBase::showConfig(c);
    m_cpuList->setCpus(c.cpus);
}

void CpusPage::snapshotArrived(const LatencySnapshot& s)
{
    m_heat.add(s, s.publishedNs - kSeriesWindowNs);
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
    if (const QString kernel = workbench::cpuNote(measuredProbe(), cpu); !kernel.isEmpty())
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
    showAnatomyTab(s.tracing || s.config.trace);
    if (s.tracing || s.config.trace)
        m_anatomy->setRun(s); // at the page's 5 Hz
}

void CpusPage::showAnatomyTab(bool traced)
{
    if (m_middle->isTabVisible(1) == traced)
        return;
    m_middle->setTabVisible(1, traced);
    m_middle->tabBar()->setVisible(traced);
    if (!traced)
        m_middle->setCurrentIndex(0);
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
    const SystemProbe& probe = measuredProbe(); // the target's while one is connected
    e.thisMachine << tr("CPUs %1 online; isolated (<code>isolcpus=</code>): %2; tickless (<code>nohz_full=</code>): "
                        "%3.")
                         .arg(list(probe.onlineCpus), list(probe.isolatedCpus), list(probe.nohzFullCpus));
    if (probe.isolatedCpus.empty() && probe.nohzFullCpus.empty())
        e.thisMachine << tr("No CPU is kept apart: every one takes the tick, interrupts and ordinary work.");
    e.thisMachine << kernelSentence(probe)
                  << schedulerSentence(
                         probe,
                         tr("EEVDF lets a waking SCHED_OTHER thread past a few hogs quickly: with few hogs the "
                            "difference is in the tail, narrow clusters at the hogs' time slices."),
                         tr("CFS makes a waking SCHED_OTHER thread wait behind the hogs' slices: even a few hogs "
                            "show."))
                  << vmSentence(probe) << rtSentence(probe);
    return explanationHtml(e);
}

} // namespace rtscope

#include "moc_cpus_page.cpp"
