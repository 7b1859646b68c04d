#include "ui/timers/sleep_floor_page.h"

#include "ui/common/colors.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"

#include "engine/util/units.h"
#include "ui/common/fact_tile.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/sleep_floor_chart.h"
#include "ui/timers/slack_tile.h"
#include "ui/timers/sleep_floor_table_model.h"
#include "ui/widgets/table_style.h"

#include <QEvent>
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
bool sleeps(SleepMethod m)
{
    return m == SleepMethod::Nanosleep || m == SleepMethod::Relative || m == SleepMethod::Absolute;
}
} // namespace

SleepFloorPage::SleepFloorPage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, unpinnedTopology(), parent)
    , m_lossWarning(new QLabel(this))
    , m_resolution(new FactTile(tr("clock_getres(CLOCK_MONOTONIC)"), this))
    , m_floor(new FactTile(tr("Measured sleep floor"), this))
    , m_slack(new FactTile(tr("Timer slack in force"), this))
    , m_policy(new FactTile(tr("Scheduling policy"), this))
    , m_progress(new FactTile(tr("Progress"), this))
    , m_chart(new SleepFloorChart(this))
    , m_model(new SleepFloorTableModel(this))
    , m_table(new QTableView(this))
{
    setObjectName("sleepFloorPage");

    styleLossWarning(m_lossWarning);
    auto* facts = tileRow({{m_resolution, "resolutionTile", 3},
                           {m_floor, "floorTile", 4},
                           {m_slack, "slackTile", 3},
                           {m_policy, "policyTile", 2},
                           {m_progress, "progressTile", 2}});

    setUpFiguresTable(m_table, m_model, "sleepFloorTable");
    // The method names take the spare width, so the figures sit next to them rather than across the screen.
    m_table->horizontalHeader()->setSectionResizeMode(SleepFloorTableModel::Method, QHeaderView::Stretch);
    restyle();

    auto* splitter = keptVerticalSplitter(m_chart, m_table, 3, 2);

    stackRows({m_lossWarning, facts, {splitter, 1}});

    m_chart->setData({}, m_base.requestsNs, measuredProbe().clockResolutionNs);
    drawFacts(m_base, nullptr);
}

SleepFloorPage::~SleepFloorPage()
{
    stop();
}

void SleepFloorPage::restyle()
{
    const int rowHeight = styleTableFont(m_table, font(), 1.1, 6);
    m_table->setMinimumHeight((rowHeight - 6) * 6);
}

QStringList SleepFloorPage::configProblems(const SleepFloorConfig& c, const CpuTopology& topo) const
{
    return m_controls->mapper().textProblems() + toQt(c.validate(topo));
}

void SleepFloorPage::runStarting(const SleepFloorConfig&)
{
    m_model->clear();
}

void SleepFloorPage::configChanged(const SleepFloorConfig& c)
{
    if (!m_lastDrawn) {
        m_chart->setData({}, c.requestsNs, measuredProbe().clockResolutionNs);
        drawFacts(c, nullptr);
    }
}

void SleepFloorPage::draw(const SleepFloorSnapshot& s)
{
    std::vector<SleepFloorCurve> curves;
    const size_t methods = s.config.methods.size();
    for (size_t m = 0; m < methods; ++m) {
        SleepFloorCurve curve;
        curve.name = QString::fromLatin1(sleepMethodLabel(s.config.methods[m]));
        curve.spins = !sleeps(s.config.methods[m]);
        for (size_t r = 0; r < s.config.requestsNs.size(); ++r) {
            const SleepFloorCell& cell = s.cell(r, m);
            if (cell.samples > 0)
                curve.points.push_back({cell.requestNs, cell.p50Ns, cell.p99Ns});
        }
        curves.push_back(std::move(curve));
    }
    m_chart->setData(curves, s.config.requestsNs, s.clockResolutionNs);
    m_model->setSnapshot(s);
    drawFacts(s.config, &s);
    const QString warning =
        s.drops ? tr("⚠ Data lost: %1 samples dropped (ring buffer full). The figures are incomplete.").arg(s.drops)
                : QString();
    setLossWarning(m_lossWarning, warning);
}

void SleepFloorPage::drawFacts(const SleepFloorConfig& c, const SleepFloorSnapshot* s)
{
    const bool dark = plot::isDarkPalette(palette());
    const int64_t res = s && s->clockResolutionNs ? s->clockResolutionNs : measuredProbe().clockResolutionNs;
    m_resolution->setValue(durationQt(res), tr("how finely the clock can be <i>read</i>"));
    m_resolution->setAccent(colors::css(dark ? colors::kGreen300 : colors::kGreen800));

    // The floor: the smallest request's median, for the methods that really sleep; busy-waiting is the
    // exception that proves it, so it goes in the detail line.
    int64_t floor = -1;
    QStringList parts;
    QString spin;
    if (s && !s->config.methods.empty() && !s->config.requestsNs.empty()) {
        for (size_t m = 0; m < s->config.methods.size() && m < s->floorNs.size(); ++m) {
            if (s->cell(0, m).samples == 0)
                continue;
            const SleepMethod method = s->config.methods[m];
            if (sleeps(method)) {
                floor = floor < 0 ? s->floorNs[m] : std::min(floor, s->floorNs[m]);
                parts << QString("%1 %2").arg(QString::fromLatin1(sleepMethodName(method)), durationQt(s->floorNs[m]));
            } else if (spin.isEmpty()) {
                spin = tr("busy-wait: %1, burning the CPU").arg(durationQt(s->floorNs[m]));
            }
        }
    }
    if (floor >= 0) {
        const QString request = durationQt(s->config.requestsNs.front());
        m_floor->setValue(
            tr("%1").arg(durationQt(floor)),
            tr("median of a %1 sleep: %2%3%4")
                .arg(request, parts.join(" · "), spin.isEmpty() ? QString() : " · " + spin,
                     m_reference.isEmpty() ? QString() : tr("<br><b>reference:</b> %1").arg(m_reference)));
        m_floor->setAccent(floor >= 10 * std::max<int64_t>(res, 1)
                               ? colors::css(dark ? colors::kRedA100 : colors::kWarningRed)
                               : QString());
    } else {
        m_floor->setValue(tr("—"), m_reference.isEmpty() ? tr("how precisely a thread can be <i>woken</i>: press Start")
                                                         : tr("<b>reference:</b> %1").arg(m_reference));
        m_floor->setAccent({});
    }

    const bool readBack = s && s->timerSlackNs >= 0;
    const int64_t kernelSlack = measuredProbe().timerSlackNs;
    if (readBack)
        m_slack->setValue(durationQt(s->effectiveSlackNs), screenText(s->slackNote));
    else
        showRequestedSlack(m_slack, c.policy, c.timerSlackNs, kernelSlack, tr("this kernel's default"));
    accentSlack(m_slack, readBack ? s->effectiveSlackNs : requestedSlackNs(c.policy, c.timerSlackNs, kernelSlack),
                dark);

    m_policy->setValue(QString::fromStdString(policyLabel(c.policy, c.priority)),
                       c.backgroundLoad ? tr("other CPUs kept busy") : tr("other CPUs left alone"));
    if (!s) {
        m_progress->setValue(tr("%1 waits").arg(c.totalSamples()), tr("press Start"));
        return;
    }
    const double pct = s->samplesTotal ? 100.0 * double(s->samplesDone) / double(s->samplesTotal) : 0;
    const QString state = s->running
                              ? (s->currentRequest >= 0 && size_t(s->currentRequest) < c.requestsNs.size()
                                     ? tr("measuring %1").arg(durationQt(c.requestsNs[size_t(s->currentRequest)]))
                                     : tr("running"))
                              : (s->finished ? tr("finished") : tr("stopped"));
    m_progress->setValue(QString("%1 %").arg(pct, 0, 'f', 0),
                         tr("%1 of %2 waits · %3").arg(s->samplesDone).arg(s->samplesTotal).arg(state));
}

bool SleepFloorPage::holdAsReference()
{
    if (!m_lastDrawn || m_lastDrawn->samplesDone == 0 || m_floor->value() == tr("—")) {
        emit statusMessage(tr("Nothing to hold yet: run a sweep first"));
        return false;
    }
    m_reference =
        tr("%1 with %2 slack (%3)")
            .arg(m_floor->value(), m_slack->value(),
                 QString::fromStdString(policyLabel(m_lastDrawn->config.policy, m_lastDrawn->config.priority)));
    drawFacts(config(), m_lastDrawn.get());
    emit referenceChanged(true);
    emit statusMessage(tr("Held as reference: floor %1").arg(m_reference));
    return true;
}

void SleepFloorPage::clearReference()
{
    if (m_reference.isEmpty())
        return;
    m_reference.clear();
    drawFacts(config(), m_lastDrawn.get());
    emit referenceChanged(false);
}

QString SleepFloorPage::explanation() const
{
    Explanation e;
    e.title = tr("The sleep floor: the clock reads to %1, a sleep costs far more")
                  .arg(durationQt(measuredProbe().clockResolutionNs));
    e.looking = tr("One thread sleeps for each requested length with each method and measures what it got: "
                   "requested against actual, log-log. The dashed diagonal is a perfect sleep, the dotted line "
                   "<b>clock_getres</b>; lines are medians, triangles p99.");
    e.expect = tr("0 ns, 1 ns or 1 µs cost about the same: a <b>floor</b>. Slack 1 ns or SCHED_FIFO lowers it; "
                  "<b>busy-waiting</b> is exact but burns the CPU (see <i>CPU share</i>).");
    e.why = tr("clock_getres says how finely the clock can be <i>read</i>, not how precisely a thread can be "
               "<i>woken</i>: a sleep pays the timer slack, the system call, the interrupt, the wake-up and, on an "
               "idle CPU, leaving the idle state.");
    e.thisMachine << kernelSentence(measuredProbe())
                  << tr("clock_getres = <b>%1</b>, clock source <b>%2</b>.")
                         .arg(durationQt(measuredProbe().clockResolutionNs),
                              QString::fromStdString(measuredProbe().clocksource).toHtmlEscaped())
                  << slackSentence(measuredProbe())
                  << tr("So a SCHED_OTHER sleep may end up to %1 late, on top of the cost of waking up.")
                         .arg(durationQt(measuredProbe().timerSlackNs))
                  << vmSentence(measuredProbe());
    return explanationHtml(e);
}

} // namespace rtscope

#include "moc_sleep_floor_page.cpp"
