#include "ui/noise/noise_page.h"

#include "engine/rt/cpu_topology.h"
#include "engine/util/units.h"
#include "ui/common/colors.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"
#include "ui/common/text_label.h"
#include "ui/explanation_pane.h"
#include "ui/noise/noise_culprit_model.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/heat_strip.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/noise_cpu_bars.h"
#include "ui/widgets/table_style.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {

/// The plain text of a label's rich text (what tests and the screenshot check read).
QString noisePlainText(const QString& html)
{
    QTextDocument doc;
    doc.setHtml(html);
    return doc.toPlainText();
}

/// A status line: its subject in bold, then what it says.
QString noiseLine(const QString& subject, const QString& text)
{
    return QString("<b>%1</b> %2").arg(subject, text);
}

QString noiseWarning(const QString& text)
{
    return QString("<span style=\"color:%1\"><b>%2</b></span>").arg(colors::css(colors::kWarningRed), text);
}

/// The demo load for a run of @p run on its first measured CPU: the RT thread above a real-time poller.
NoiseDemoConfig noiseDemoFor(NoiseDemoKind kind, const NoiseConfig& run)
{
    NoiseDemoConfig d;
    d.kind = kind;
    d.cpu = run.cpus.empty() ? -1 : run.cpus.front();
    if (isRealtime(run.policy))
        d.rtPriority = std::min(run.priority + 1, priorityMax(Policy::Fifo));
    return d;
}

} // namespace

NoisePage::NoisePage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, unpinnedTopology(), parent)
    , m_status(new QLabel(this))
    , m_lossWarning(new QLabel(this))
    , m_demoKind(new QComboBox(this))
    , m_demoStatus(new QLabel(this))
    , m_bars(new NoiseCpuBars(this))
    , m_histogram(new HistogramChart(this))
    , m_heat(new HeatStrip(this))
    , m_model(new NoiseCulpritModel(this))
    , m_table(new QTableView(this))
{
    setObjectName("noisePage");
    styleLossWarning(m_lossWarning);
    initTextLabel(m_status, "noiseStatus", Qt::RichText);

    m_demoKind->setObjectName("demoLoad");
    for (NoiseDemoKind k : kNoiseDemoKinds)
        m_demoKind->addItem(tr(noiseDemoKindLabel(k)), int(k));
    m_demoKind->setToolTip(tr("A small load on the measured CPU that makes one kind of noise visible: disk I/O for "
                              "interrupts, a periodic real-time thread, a storm of timers. Each is bounded and stops "
                              "with the run."));
    initTextLabel(m_demoStatus, "demoStatus");
    auto* demoRow = new QHBoxLayout;
    auto* demoLabel = new QLabel(tr("&Demo load:"), this);
    demoLabel->setBuddy(m_demoKind);
    demoRow->addWidget(demoLabel);
    demoRow->addWidget(m_demoKind);
    demoRow->addWidget(m_demoStatus, 1);

    m_histogram->setObjectName("noiseHistogram");
    m_histogram->setValueAxisName(tr("loop length"));
    m_histogram->setLogLatencyAxis(true);
    m_histogram->setTitle(QString()); // the axis and the legend say it all; the height goes to the count axis

    setUpFiguresTable(m_table, m_model, "noiseCulprits");
    m_table->horizontalHeader()->setSectionResizeMode(NoiseCulpritModel::Name, QHeaderView::Stretch);

    // The table takes the page's width (eight columns a room must read); under it the histogram (which needs height
    // for its log count axis) beside the heat strip (which needs width for its time axis and legend).
    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->addWidget(m_histogram);
    lower->addWidget(m_heat);
    lower->setStretchFactor(0, 2);
    lower->setStretchFactor(1, 3);
    lower->setChildrenCollapsible(false);
    lower->setSizes({800, 1200}); // by these shares, whatever the widgets' size hints
    keepSplitter("lowerSplitter", lower);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_bars);
    splitter->addWidget(m_table);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 3);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({m_bars->sizeHint().height(), 700, 1300});
    keepSplitter("splitter", splitter);
    keepHeader("culpritHeader", m_table->horizontalHeader());

    stackRows({m_lossWarning, m_status, demoRow, {splitter, 1}});

    connect(m_demoKind, &QComboBox::currentIndexChanged, this, [this] {
        if (isRunning())
            startDemo();
        showDemoStatus();
    });
    restyle();
    configChanged(m_base);
    showDemoStatus();
}

NoisePage::~NoisePage()
{
    stop();
    m_demo.stop(); // a load is never left running, whatever state the page is in
}

void NoisePage::stop()
{
    // Both asked at once and joined, so the page's stop stays within one join budget.
    m_demo.requestStop();
    PolledExperimentPage::stop();
    m_demo.stop();
    showDemoStatus();
}

void NoisePage::restyle()
{
    const int rowHeight = styleTableFont(m_table, font(), 1.1, 6);
    m_table->setMinimumHeight(rowHeight * 5 + 2 * m_table->frameWidth() + 4);
    QFont big = font();
    big.setPointSizeF(big.pointSizeF() * 1.1);
    m_status->setFont(big);
    m_demoStatus->setFont(big);
}

void NoisePage::setDemoKind(NoiseDemoKind kind)
{
    selectComboData(m_demoKind, int(kind)); // starts it through currentIndexChanged while running
}

NoiseDemoKind NoisePage::demoKind() const
{
    return NoiseDemoKind(comboData(m_demoKind, int(NoiseDemoKind::None)));
}

void NoisePage::startDemo()
{
    m_demo.stop();
    m_demoError.clear();
    if (demoKind() == NoiseDemoKind::None || !m_experiment->running())
        return;
    if (const Error e = m_demo.start(noiseDemoFor(demoKind(), m_experiment->config())))
        m_demoError = QString::fromStdString(e.message);
}

void NoisePage::showDemoStatus()
{
    const NoiseDemoKind kind = demoKind();
    QStringList parts;
    if (const QString machine = measuredMachine(); !machine.isEmpty()) {
        // The demo load is this computer's threads: it never loads a target, and the page says so.
        parts << tr("off: the demo load runs on this computer, and the page measures %1").arg(machine.toHtmlEscaped());
    } else if (!m_demoError.isEmpty()) {
        parts << noiseWarning(tr("Not started: %1").arg(m_demoError.toHtmlEscaped()));
    } else if (m_demo.running()) {
        parts << screenText(m_demo.config().describe()).toHtmlEscaped();
        if (const std::string s = m_demo.status(); !s.empty())
            parts << screenText(s).toHtmlEscaped();
        if (const std::string irq = m_demo.interruptReport(); !irq.empty())
            parts << screenText(irq).toHtmlEscaped();
    } else if (kind != NoiseDemoKind::None) {
        parts << tr("starts with the run, on the first measured CPU");
    } else {
        parts << tr("none: only what the machine does anyway");
    }
    m_demoStatus->setText(parts.join(QStringLiteral(" · ")));
}

QString NoisePage::demoText() const
{
    return noisePlainText(m_demoStatus->text());
}

QString NoisePage::runningStatus(const NoiseConfig& started) const
{
    // Here: the config as run (CPUs resolved); on a target, the one sent (the target resolves its CPUs).
    const NoiseConfig& c = measuredMachine().isEmpty() ? m_experiment->config() : started;
    return tr("Running: %1").arg(screenText(c.label()));
}

QString NoisePage::startedMessage(const NoiseConfig&) const
{
    return tr("Started: %1").arg(screenText(m_experiment->config().label()));
}

void NoisePage::runStarting(const NoiseConfig&)
{
    m_model->clear();
    m_histogram->clear();
    m_heat->resetScale();
    m_heat->setData({});
    m_bars->setData({});
    startDemo();
    showDemoStatus();
}

void NoisePage::configChanged(const NoiseConfig& c)
{
    if (m_lastDrawn)
        return;
    const std::vector<int> cpus = c.resolvedCpus(runTopology());
    m_status->setText(tr("Measures CPU %1 with a %2 polling thread; a gap of %3 or more is noise. Press Start.")
                          .arg(QString::fromStdString(formatCpuList(cpus)),
                               QString::fromStdString(policyLabel(c.policy, c.priority)), durationQt(c.thresholdNs)));
}

NoiseBarsData NoisePage::barsData(const NoiseSnapshot& s)
{
    NoiseBarsData data;
    for (const NoiseCpuStats& cpu : s.cpus) {
        NoiseBarRow row;
        row.label = tr("CPU %1").arg(cpu.cpu);
        if (cpu.runtimeNs <= 0) {
            row.headline = tr("no data yet");
            row.note = cpu.error.empty() ? tr("the poller has not published yet") : screenText(cpu.error);
            data.rows.push_back(std::move(row));
            continue;
        }
        row.availablePercent = cpu.availablePercent;
        row.headline = tr("%1 available").arg(NoiseCpuBars::percentText(cpu.availablePercent));
        const double lostPercent = 100.0 * double(cpu.noiseNs) / double(cpu.runtimeNs);
        row.detail =
            tr("lost %1 (%2 of %3) · %4 gaps · longest %5")
                .arg(NoiseCpuBars::percentText(lostPercent), durationQt(cpu.noiseNs), durationQt(cpu.runtimeNs))
                .arg(noiseCountText(cpu.gaps))
                .arg(durationQt(cpu.maxSingleNs));
        for (NoiseKind k : kNoiseKinds) {
            const int64_t ns = cpu.kindNs[size_t(k)];
            if (ns <= 0)
                continue;
            const double percent = 100.0 * double(ns) / double(cpu.runtimeNs);
            row.lost.push_back(
                {noisePartOf(k), percent, tr("%1 (%2)").arg(NoiseCpuBars::percentText(percent), durationQt(ns))});
        }
        if (!cpu.error.empty())
            row.note = screenText(cpu.error);
        data.rows.push_back(std::move(row));
    }
    return data;
}

QStringList NoisePage::statusLines(const NoiseSnapshot& s)
{
    QStringList lines;
    // What the figures rest on.
    QStringList counts;
    for (const NoiseCpuStats& cpu : s.cpus)
        counts << noiseLine(tr("CPU %1:").arg(cpu.cpu), tr("%1 loops over %2 (one every %3 on average), %4 gaps ≥ %5")
                                                            .arg(noiseCountText(cpu.loops))
                                                            .arg(durationQt(cpu.runtimeNs))
                                                            .arg(screenText(formatDuration(int64_t(cpu.meanLoopNs))))
                                                            .arg(noiseCountText(cpu.gaps))
                                                            .arg(durationQt(s.config.thresholdNs))
                                                            .toHtmlEscaped());
    if (!counts.isEmpty())
        lines << counts.join(QStringLiteral("; "));

    // Who took the time: traced or not, and why.
    if (s.traced) {
        QString t = noiseLine(tr("Traced:"), tr("every gap is charged to the IRQ, softirq, NMI or thread that ran in "
                                                "it; the rest is unexplained."));
        if (s.traceLostEvents)
            t += " " + noiseWarning(tr("The kernel dropped %1 trace events: their time may show as unexplained.")
                                        .arg(s.traceLostEvents));
        else if (!s.traceNote.empty())
            t += " " + screenText(s.traceNote).toHtmlEscaped();
        lines << t;
    } else {
        lines << noiseWarning(tr("Not traced:")) + " " +
                     (s.traceNote.empty() ? tr("no trace events were read, so no gap is attributed (untraced).")
                                          : screenText(s.traceNote).toHtmlEscaped());
    }

    // The hypervisor, the firmware, the kernel's own tracer.
    QStringList steal, smi;
    for (const NoiseCpuStats& cpu : s.cpus) {
        if (cpu.stealNs >= 0)
            steal << tr("CPU %1 %2").arg(cpu.cpu).arg(durationQt(cpu.stealNs));
        if (cpu.smiCount >= 0)
            smi << tr("CPU %1: %2").arg(cpu.cpu).arg(cpu.smiCount);
    }
    if (!steal.isEmpty())
        lines << noiseLine(tr("Steal time (the hypervisor took the CPU):"),
                           tr("%1 (resolution %2).").arg(steal.join(", "), durationQt(int64_t(s.stealTickNs))));
    else
        lines << noiseLine(tr("Steal time unreadable:"),
                           s.stealNote.empty() ? tr("no figure") : screenText(s.stealNote).toHtmlEscaped());
    if (!smi.isEmpty())
        lines << noiseLine(tr("SMIs (firmware interrupts, MSR 0x34):"),
                           tr("%1 — %2").arg(smi.join(", "), screenText(s.smiNote).toHtmlEscaped()));
    else
        lines << noiseLine(tr("SMI counter unreadable:"),
                           s.smiNote.empty() ? tr("no reason given") : screenText(s.smiNote).toHtmlEscaped());
    if (!s.osnoiseNote.empty())
        lines << noiseLine(tr("osnoise tracer:"), screenText(s.osnoiseNote).toHtmlEscaped());
    if (!s.loopClock.empty())
        lines << noiseLine(tr("The pollers' clock:"), screenText(s.loopClock).toHtmlEscaped());

    // What failed.
    for (const NoiseCpuStats& cpu : s.cpus)
        if (!cpu.error.empty())
            lines << noiseWarning(
                tr("CPU %1 stopped early: %2").arg(cpu.cpu).arg(screenText(cpu.error).toHtmlEscaped()));
    if (!s.error.empty())
        lines << noiseWarning(screenText(s.error).toHtmlEscaped());
    return lines;
}

QString NoisePage::statusText() const
{
    return noisePlainText(m_status->text());
}

void NoisePage::draw(const NoiseSnapshot& s)
{
    m_bars->setData(barsData(s));
    m_model->setCulprits(s.culprits);
    drawHistogram(s);
    drawHeat(s);
    m_status->setText(statusLines(s).join(QStringLiteral("<br>")));
    uint64_t drops = 0;
    for (const NoiseCpuStats& cpu : s.cpus)
        drops += cpu.drops;
    setLossWarning(m_lossWarning, drops ? tr("⚠ Data lost: %1 gaps were refused by the ring buffer. Their time is in "
                                             "the noise but not attributed to any kind.")
                                              .arg(drops)
                                        : QString());
    showDemoStatus();
}

void NoisePage::drawHistogram(const NoiseSnapshot& s)
{
    const bool dark = plot::isDarkPalette(palette());
    std::vector<HistogramOverlay> overlays;
    for (size_t i = 0; i < s.cpus.size(); ++i) {
        const NoiseCpuStats& cpu = s.cpus[i];
        HistogramCurve curve;
        curve.name = tr("CPU %1 (%2 loops)").arg(cpu.cpu).arg(noiseCountText(cpu.loops));
        const size_t n = cpu.histogram.size();
        for (size_t b = 0; b < n; ++b) {
            if (!cpu.histogram[b])
                continue;
            // Bucket b holds [b, b + 1) µs; the first starts at the shortest loop (a log axis has no 0), the last
            // ends at the longest.
            const double low = b == 0 ? std::max(double(cpu.minLoopNs) / 1e3, 0.001) : double(b);
            const double high = b + 1 == n ? std::max(double(cpu.maxLoopNs) / 1e3, low + 1) : double(b + 1);
            curve.buckets.push_back({low, high, cpu.histogram[b]});
        }
        overlays.push_back({std::move(curve), colors::curveColor(int(i), dark)});
    }
    m_histogram->setLiveVisible(false);
    m_histogram->setOverlays(overlays);
}

void NoisePage::drawHeat(const NoiseSnapshot& s)
{
    HeatStripData data;
    data.intervalSec = double(kNoiseHeatWindowNs) / 1e9;
    data.spanSec = kHeatSpanSec;
    data.legendTitle = tr("Colour = µs lost per 100 ms (log scale)");
    data.valueTip = tr("%1 µs lost to noise");
    data.noValueText = tr("not measured");
    data.keys = false; // every window has its share, none is ever lost
    const auto windows = size_t(kHeatSpanSec * 1e9 / double(kNoiseHeatWindowNs));
    for (const NoiseCpuStats& cpu : s.cpus) {
        HeatRow row;
        row.label = tr("CPU %1").arg(cpu.cpu);
        row.note = tr("%1 available").arg(NoiseCpuBars::percentText(cpu.availablePercent));
        const size_t first = cpu.heat.size() > windows ? cpu.heat.size() - windows : 0;
        for (size_t i = first; i < cpu.heat.size(); ++i) {
            // The share of the window lost, as µs of the window: 1 % of 100 ms is 1000 µs.
            const double lostUs = double(cpu.heat[i]) * double(kNoiseHeatWindowNs) / 1e3;
            row.cells.push_back({true, 1, lostUs, 0});
        }
        data.rows.push_back(std::move(row));
    }
    m_heat->setData(data);
}

QString NoisePage::explanation() const
{
    Explanation e;
    e.title = tr("Where does my CPU go? Noise: the time a busy thread never gets");
    e.looking =
        tr("A thread on each measured CPU does nothing but read the clock in a tight loop. When two reads are further "
           "apart than the <b>threshold</b>, something else had the CPU: that gap is <b>noise</b>. The bars show, per "
           "CPU, the share the loop got (<b>available</b>) and who took the rest: <b>IRQ</b> — a device or timer "
           "interrupt handler (disk, network, the scheduler tick) or an IPI (one CPU poking another); <b>softirq</b> — "
           "the work interrupts leave for "
           "later (network packets, block completions, timers, RCU); <b>thread</b> — another thread the scheduler ran "
           "instead (a kernel worker, a real-time task); <b>NMI</b> — non-maskable interrupts (the watchdog, "
           "profilers); <b>unexplained</b> — time no traced kernel work covers: the hardware, the firmware (SMIs) or "
           "the hypervisor; <b>untraced</b> — the run could not look (no tracefs or no root), so nothing is "
           "attributed. The table names each culprit, the histogram shows every loop's length (log count) and the "
           "strip at the bottom the share lost every 100 ms.");
    e.expect =
        tr("An idle CPU loses a few hundredths of a percent, mostly to the timer tick. Pick a <b>demo load</b>: disk "
           "I/O makes the IRQ and softirq parts grow (if the disk's interrupt is routed to another CPU, the line next "
           "to the menu says so and this CPU stays quiet); the periodic RT thread appears as a thread taking about "
           "1.5 % with single gaps near 300 µs; the timer storm adds many short interrupts.");
    e.why = tr(
        "<b>In a virtual machine</b> the host can stop a virtual CPU to run something else; the guest kernel never "
        "sees it, so the gap is unexplained — steal time, when the hypervisor reports it, is that time. On real "
        "hardware SMIs do the same from the firmware. <b>CPU isolation</b> (isolcpus, nohz_full) keeps ordinary "
        "threads and most of the tick off a CPU, so thread and timer noise shrink; <b>IRQ affinity</b> "
        "(/proc/irq/N/smp_affinity) sends device interrupts to other CPUs, so the IRQ and softirq parts move there.");
    e.thisMachine
        << kernelSentence(measuredProbe()) << vmSentence(measuredProbe())
        << (measuredProbe().isolatedCpus.empty()
                ? tr("No CPU is isolated here.")
                : tr("CPUs %1 are isolated.").arg(QString::fromStdString(formatCpuList(measuredProbe().isolatedCpus))));
    return explanationHtml(e);
}

void NoisePage::saveViewSettings(QSettings& settings) const
{
    settings.setValue("demoLoad", QString::fromLatin1(noiseDemoKindName(demoKind())));
}

QStringList NoisePage::restoreViewSettings(QSettings& settings)
{
    const QString name = settings.value("demoLoad", "none").toString();
    bool ok = false;
    const NoiseDemoKind kind = noiseDemoKindFromName(name.toStdString(), &ok);
    if (!ok)
        return {tr("demo load: '%1' is not one of none, disk-io, rt-thread, timer-storm").arg(name)};
    setDemoKind(kind);
    return {};
}

} // namespace rtscope

#include "moc_noise_page.cpp"
