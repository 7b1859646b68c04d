#include "ui/starvation/starvation_page.h"

#include "ui/common/colors.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"

#include "engine/util/clock.h"
#include "engine/util/units.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/starvation_chart.h"
#include "ui/starvation/burst_table_model.h"
#include "ui/widgets/table_style.h"

#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

namespace {
double secondsSince(int64_t t, int64_t start)
{
    return double(t - start) / double(kNsPerSec);
}

// The sampler's 10 ms readings jitter: a reading taken late makes one interval look slow and the next several
// times too fast. Averaging over kSmoothSec, from the exact operation counts each interval carries, keeps the
// line readable while a stretch of zeros (a starved burst) stays exactly zero.
constexpr double kSmoothSec = 0.05;

QList<QPointF> smoothedRate(const std::vector<SeriesPoint>& rate, int64_t startNs)
{
    QList<QPointF> out;
    const size_t n = rate.size();
    if (n < 2)
        return out;
    std::vector<double> t(n), ops(n + 1, 0);
    for (size_t i = 0; i < n; ++i)
        t[i] = secondsSince(rate[i].tNs, startNs);
    for (size_t i = 0; i + 1 < n; ++i)
        ops[i + 1] = ops[i] + double(rate[i].maxNs) * (t[i + 1] - t[i]);
    size_t j = 0;
    for (size_t i = 0; i + 1 < n; ++i) {
        j = std::max(j, i + 1);
        while (j + 1 < n && t[j] - t[i] < kSmoothSec)
            ++j;
        if (t[j] - t[i] < kSmoothSec * 0.5)
            break; // the newest readings: too short a span to average yet
        out.append(QPointF((t[i] + t[j]) / 2, (ops[j] - ops[i]) / (t[j] - t[i])));
    }
    return out;
}

QFont scaled(const QFont& base, double factor, bool bold)
{
    QFont f = plot::chartFont(base, factor);
    f.setBold(bold);
    return f;
}
} // namespace

StarvationPage::StarvationPage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, StarvationConfig::placementTopology(), parent)
    , m_watchdogBanner(new QLabel(this))
    , m_lossWarning(new QLabel(this))
    , m_tileLayout(new QHBoxLayout)
    , m_kernelLine(new QLabel(this))
    , m_chart(new StarvationChart(this))
    , m_model(new BurstTableModel(this))
    , m_table(new QTableView(this))
{
    setObjectName("starvationPage");
    // The main window pins the GUI thread off busy CPUs; the reserved set is about the process's home CPU,
    // not where the window happens to be parked right now.
    m_base.reservedCpus = StarvationConfig::defaultReservedCpus(GuiThreadAffinity::original());
    m_kernel = readThrottleSettings(std::max(0, m_base.resolvedCpu(topology())));
    // Long enough for a whole planned run of kChartSeconds, with room for the lead-in.
    m_experiment->setSeriesWindow(int64_t(kChartSeconds + 5) * kNsPerSec);
    setRemoteView("series_window_ns", int64_t(kChartSeconds + 5) * kNsPerSec);

    m_watchdogBanner->setObjectName("watchdogBanner");
    m_watchdogBanner->setWordWrap(true);
    m_watchdogBanner->hide();
    styleLossWarning(m_lossWarning);

    m_spinnerTile = makeTile();
    m_spinnerTile.frame->setObjectName("spinnerTile");
    m_spinnerTile.title->setText(tr("Spinner"));
    m_spinnerTile.value->setText(tr("idle"));
    m_tileLayout->setSpacing(8);
    m_tileLayout->addWidget(m_spinnerTile.frame, 0);
    for (int i = 0; i < kStarvationMaxThreads; ++i) {
        Tile t = makeTile();
        t.frame->setObjectName(QString("counterTile%1").arg(i));
        t.frame->hide();
        m_tileLayout->addWidget(t.frame, 1);
        m_tiles.push_back(t);
    }
    m_tileLayout->addStretch(0);

    m_kernelLine->setObjectName("kernelLine");
    m_kernelLine->setWordWrap(true);
    m_kernelLine->setTextFormat(Qt::RichText);

    setUpFiguresTable(m_table, m_model, "burstTable");
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* splitter = keptVerticalSplitter(m_chart, m_table, 5, 1);

    stackRows({m_watchdogBanner, m_lossWarning, m_tileLayout, m_kernelLine, {splitter, 1}});

    restyle();
    drawKernelLine(StarvationSnapshot{});
}

StarvationPage::~StarvationPage()
{
    // The experiment's destructor would stop it too; stopping here keeps the signals and the views consistent.
    stop();
}

StarvationPage::Tile StarvationPage::makeTile()
{
    Tile t;
    t.frame = new QFrame(this);
    t.frame->setFrameShape(QFrame::StyledPanel);
    auto* v = new QVBoxLayout(t.frame);
    v->setContentsMargins(12, 6, 12, 6);
    v->setSpacing(0);
    t.title = new QLabel(t.frame);
    t.value = new QLabel(t.frame);
    t.detail = new QLabel(t.frame);
    t.value->setObjectName("bigNumber");
    for (QLabel* l : {t.title, t.value, t.detail})
        v->addWidget(l);
    return t;
}

void StarvationPage::restyle()
{
    const QFont base = font();
    m_table->setMinimumHeight((styleTableFont(m_table, base, 1.15, 10) - 10) * 5);
    for (Tile* t : {&m_spinnerTile}) {
        t->title->setFont(scaled(base, 1.15, true));
        t->value->setFont(scaled(base, 2.6, true));
        t->detail->setFont(scaled(base, 1.05, false));
    }
    for (Tile& t : m_tiles) {
        t.title->setFont(scaled(base, 1.15, true));
        t.value->setFont(scaled(base, 2.6, true));
        t.detail->setFont(scaled(base, 1.05, false));
    }
    m_kernelLine->setFont(scaled(base, 1.05, false));
    m_watchdogBanner->setFont(scaled(base, 1.3, true));
    m_watchdogBanner->setStyleSheet(
        QString("QLabel { color: white; background: %1; padding: 10px; border-radius: 4px; }")
            .arg(colors::css(colors::kAlarmRed)));
}

StarvationConfig StarvationPage::adopt(StarvationConfig c) const
{
    c.reservedCpus = m_base.reservedCpus;
    return c;
}

void StarvationPage::runStarting(const StarvationConfig&)
{
    m_model->clear();
}

void StarvationPage::configChanged(const StarvationConfig& c)
{
    m_kernel = readThrottleSettings(std::max(0, c.resolvedCpu(topology())));
    if (!m_lastDrawn)
        drawKernelLine(StarvationSnapshot{});
}

void StarvationPage::draw(const StarvationSnapshot& s)
{
    drawAlerts(s);
    drawCounters(s);
    drawChart(s);
    drawKernelLine(s);
    m_model->setSnapshot(s);
    if (!s.bursts.empty())
        m_table->scrollTo(m_model->index(m_model->rowCount() - 1, 0));
}

void StarvationPage::drawAlerts(const StarvationSnapshot& s)
{
    const QString trips = watchdogText();
    m_watchdogBanner->setText(trips);
    m_watchdogBanner->setVisible(!trips.isEmpty());

    QStringList loss;
    if (s.droppedSamples)
        loss << tr("%1 progress samples dropped (the rate lines have gaps)").arg(s.droppedSamples);
    if (s.droppedSegments)
        loss << tr("%1 run segments dropped (windows may be incomplete)").arg(s.droppedSegments);
    if (s.droppedEvents)
        loss << tr("%1 spinner events dropped (a burst row is missing)").arg(s.droppedEvents);
    setLossWarning(m_lossWarning, loss.isEmpty() ? QString() : tr("⚠ Data lost: %1.").arg(loss.join("; ")));
}

QString StarvationPage::watchdogText() const
{
    if (!m_lastDrawn)
        return {};
    const StarvationSnapshot& s = *m_lastDrawn;
    QStringList lines;
    for (const WatchdogTrip& t : s.watchdogTrips) {
        const QString how =
            t.atStop ? tr("when the run stopped") : tr("%1 past its deadline").arg(durationQt(t.overrunNs()));
        lines << tr("⚠ WATCHDOG: the spinner (thread %1) was demoted to SCHED_OTHER %2%3")
                     .arg(t.tid)
                     .arg(how)
                     .arg(t.demoted ? QString() : tr(" (it had already gone)"));
    }
    if (!s.note.empty())
        lines << QString::fromStdString(s.note);
    return lines.join('\n');
}

void StarvationPage::drawCounters(const StarvationSnapshot& s)
{
    const BurstRecord* spinning = s.spinningBurst();
    const bool dark = plot::isDarkPalette(palette());
    QString bg, fg = "white";
    if (spinning) {
        const QString of = s.config.bursts > 0 ? tr(" of %1").arg(s.config.bursts) : QString();
        m_spinnerTile.value->setText(tr("BURST %1%2").arg(spinning->index).arg(of));
        m_spinnerTile.detail->setText(tr("%1 %2 spinning on CPU %3 for %4")
                                          .arg(QString::fromStdString(policyLabel(s.config.policy, s.config.priority)))
                                          .arg(QString())
                                          .arg(s.config.cpu)
                                          .arg(durationQt(s.publishedNs - spinning->startNs)));
        bg = colors::css(colors::kWarningRed);
    } else if (s.running && !s.finished) {
        m_spinnerTile.value->setText(tr("asleep"));
        m_spinnerTile.detail->setText(tr("gap: the counters run · CPU %1").arg(s.config.cpu));
        bg = colors::css(colors::kGreen800);
    } else {
        m_spinnerTile.value->setText(s.interrupted ? tr("stopped") : tr("done"));
        m_spinnerTile.detail->setText(tr("%1 burst(s) on CPU %2").arg(s.bursts.size()).arg(s.config.cpu));
        bg = colors::css(dark ? colors::kGrey800 : colors::kGrey700);
    }
    m_spinnerTile.frame->setStyleSheet(QString("QFrame#spinnerTile { background: %1; border-radius: 6px; } "
                                               "QFrame#spinnerTile QLabel { color: %2; background: transparent; }")
                                           .arg(bg, fg));

    for (size_t i = 0; i < m_tiles.size(); ++i) {
        Tile& t = m_tiles[i];
        if (i >= s.counters.size()) {
            t.frame->hide();
            continue;
        }
        const CounterStats& c = s.counters[i];
        t.frame->show();
        t.title->setText(tr("%1 · CPU %2").arg(QString::fromStdString(c.label)).arg(c.cpu));
        t.value->setText(tr("%1 ops/s").arg(formatCount(c.opsPerSec)));
        t.detail->setText(tr("total %1 ops · SCHED_OTHER nice %2").arg(formatCount(double(c.ops))).arg(c.nice));
        const bool starved = !c.control && spinning && c.opsPerSec < 1;
        QString color = starved ? colors::css(dark ? colors::kRedA100 : colors::kWarningRed)
                                : palette().color(QPalette::Text).name();
        t.value->setStyleSheet(QString("QLabel { color: %1; }").arg(color));
        t.frame->setStyleSheet(
            starved
                ? QString("QFrame#%1 { border: 3px solid %2; border-radius: 6px; }").arg(t.frame->objectName(), color)
                : QString());
    }
}

QStringList StarvationPage::liveCounterTexts() const
{
    QStringList out;
    for (const Tile& t : m_tiles)
        if (!t.frame->isHidden())
            out << t.value->text();
    return out;
}

void StarvationPage::drawChart(const StarvationSnapshot& s)
{
    StarvationChartData d;
    const double elapsed =
        secondsSince(s.endNs && !s.running ? std::max(s.endNs, s.publishedNs) : s.publishedNs, s.startNs);
    const int64_t planned = s.config.plannedDurationNs();
    if (planned > 0 && double(planned) / double(kNsPerSec) <= kChartSeconds) {
        d.xMin = 0;
        d.xMax = std::max(double(planned) / double(kNsPerSec), elapsed);
    } else {
        d.xMax = std::max(elapsed, kChartSeconds);
        d.xMin = d.xMax - kChartSeconds;
    }
    for (const CounterStats& c : s.counters) {
        RateLine line;
        line.name = c.control ? tr("control (CPU %1)").arg(c.cpu)
                              : tr("%1 (CPU %2)").arg(QString::fromStdString(c.label)).arg(c.cpu);
        line.control = c.control;
        line.points = smoothedRate(c.rate, s.startNs);
        d.lines.push_back(std::move(line));
    }
    for (const BurstRecord& b : s.bursts) {
        TimeBand band;
        band.t0 = secondsSince(b.startNs, s.startNs);
        band.t1 = secondsSince(b.endNs ? b.endNs : s.publishedNs, s.startNs);
        band.label = b.spinning() ? tr("burst %1 · %2")
                                        .arg(b.index)
                                        .arg(QString::fromStdString(policyLabel(s.config.policy, s.config.priority)))
                                  : tr("burst %1 · %2 %3")
                                        .arg(b.index)
                                        .arg(QString::fromStdString(policyLabel(s.config.policy, s.config.priority)))
                                        .arg(durationQt(b.spinnerNs()));
        d.bursts.push_back(band);
        for (const ThrottleWindow& w : b.windows)
            d.windows.push_back({secondsSince(w.startNs, s.startNs), secondsSince(w.endNs, s.startNs),
                                 tr("window %1").arg(durationQt(w.lengthNs()))});
    }
    m_chart->setData(d);
}

QString StarvationPage::kernelLine() const
{
    return m_kernelLine->text();
}

void StarvationPage::drawKernelLine(const StarvationSnapshot& s)
{
    const ThrottleSettings& k = s.config.cpu >= 0 && s.startNs ? s.kernel : m_kernel;
    QStringList measured;
    for (const BurstRecord& b : s.bursts)
        for (const ThrottleWindow& w : b.windows)
            measured << tr("%1 at +%2").arg(durationQt(w.lengthNs()), durationQt(w.offsetNs));
    QString windows;
    if (s.bursts.empty())
        windows = tr("none yet");
    else if (measured.isEmpty())
        windows = tr("none (every burst so far was fully starved)");
    else
        windows = QString("%1: %2").arg(measured.size()).arg(measured.join(", "));
    m_kernelLine->setText(
        tr("<b>Kernel safety net</b> (Linux %1) — RT throttling: <b>%2</b> · fair server: <b>%3</b><br>"
           "<b>Measured windows</b> in which a starved counter ran anyway: <b>%4</b>")
            .arg(QString::fromStdString(k.kernelRelease.empty() ? measuredProbe().kernelRelease : k.kernelRelease)
                     .toHtmlEscaped(),
                 QString::fromStdString(k.rtThrottlingText()).toHtmlEscaped(),
                 QString::fromStdString(k.fairServerKernel ? k.fairServerText() : "not in this kernel (< 6.12)")
                     .toHtmlEscaped(),
                 windows.toHtmlEscaped()));
}

QString StarvationPage::explanation() const
{
    const ThrottleSettings& k = m_kernel;
    Explanation e;
    e.title = tr("The trap: a SCHED_FIFO thread that never blocks starves its CPU");
    e.looking = tr("A real-time <b>spinner</b> busy-loops for a <b>burst</b> (red band), then sleeps for a "
                   "<b>gap</b>. The <b>counters</b> are ordinary threads on its CPU counting as fast as they can; a "
                   "control counter runs on another CPU.");
    e.expect = tr("During a burst the counters on the spinner's CPU make <b>exactly zero progress</b>, except in "
                  "short <b>windows</b> (amber); the control counter does not notice.");
    e.why = tr("A SCHED_FIFO thread runs until it blocks: it is not time-sliced against SCHED_OTHER. The windows "
               "are the kernel's last-resort safety net. <b>Nobody should rely on it</b>. The spinner checks "
               "its own deadline; a watchdog (priority %1, another CPU) demotes it %2 past it.")
                .arg(StarvationConfig::kWatchdogPriority)
                .arg(durationQt(StarvationConfig::kWatchdogMarginNs));
    e.thisMachine << kernelSentence(measuredProbe());
    if (k.rtRuntimeUs && k.rtPeriodUs && *k.rtRuntimeUs >= 0)
        e.thisMachine << tr("<b>RT throttling</b>: real-time threads may use %1 of every %2 on a CPU "
                            "(<code>sched_rt_runtime_us</code> %3), leaving %4 to the others: in a burst longer than "
                            "%1, expect about one window that long per %2.")
                             .arg(durationQt(*k.rtRuntimeUs * kNsPerUs), durationQt(*k.rtPeriodUs * kNsPerUs))
                             .arg(*k.rtRuntimeUs)
                             .arg(durationQt((*k.rtPeriodUs - *k.rtRuntimeUs) * kNsPerUs));
    else if (k.rtRuntimeUs && *k.rtRuntimeUs < 0)
        e.thisMachine << tr("<b>RT throttling is off</b> (<code>sched_rt_runtime_us</code> = -1).");
    else
        e.thisMachine << tr("The RT-throttling settings could not be read.");
    if (k.fairServerKernel)
        e.thisMachine << tr("The <b>fair server</b> (6.12 and later) also runs starved SCHED_OTHER threads once "
                            "they have waited long enough: %1.")
                             .arg(QString::fromStdString(k.fairServerText()).toHtmlEscaped());
    else
        e.thisMachine << tr("No fair server (it came with 6.12): RT throttling is the only safety net.");
    e.thisMachine << vmSentence(measuredProbe()) << rtSentence(measuredProbe());
    return explanationHtml(e);
}

} // namespace rtscope

#include "moc_starvation_page.cpp"
