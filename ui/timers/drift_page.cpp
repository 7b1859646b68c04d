#include "ui/timers/drift_page.h"

#include "ui/common/colors.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"

#include "engine/experiments/timers/timer_config_util.h"
#include "engine/util/units.h"
#include "ui/common/fact_tile.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/drift_chart.h"
#include "ui/timers/drift_table_model.h"
#include "ui/timers/slack_tile.h"
#include "ui/widgets/table_style.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace rtscope {

namespace {} // namespace

DriftPage::DriftPage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, unpinnedTopology(), parent)
    , m_lossWarning(new QLabel(this))
    , m_slack(new FactTile(tr("Timer slack in force"), this))
    , m_policy(new FactTile(tr("Scheduling policy"), this))
    , m_period(new FactTile(tr("Period"), this))
    , m_progress(new FactTile(tr("Progress"), this))
    , m_logAxis(new QCheckBox(tr("&Log |drift| axis"), this))
    , m_resetZoom(new QPushButton(tr("Reset &zoom"), this))
    , m_chart(new DriftChart(this))
    , m_model(new DriftTableModel(this))
    , m_table(new QTableView(this))
{
    setObjectName("driftPage");

    styleLossWarning(m_lossWarning);
    auto* facts = tileRow({{m_slack, "slackTile", 3},
                           {m_policy, "policyTile", 2},
                           {m_period, "periodTile", 2},
                           {m_progress, "progressTile", 2}});

    m_logAxis->setToolTip(tr("Log scale of |drift|: the naive loop's milliseconds and the timers' microseconds in "
                             "one picture"));
    m_resetZoom->setToolTip(tr("Show every tick again (drag across the chart to zoom in)"));
    auto* options = new QHBoxLayout;
    options->addWidget(m_logAxis);
    options->addSpacing(12);
    options->addWidget(m_resetZoom);
    auto* zoomHint =
        new QLabel(tr("Drag across the chart to zoom into a stretch of ticks; right-click zooms out."), this);
    zoomHint->setEnabled(false);
    options->addWidget(zoomHint);
    options->addStretch(1);

    setUpFiguresTable(m_table, m_model, "driftTable");
    // The method names take the spare width, so the figures sit next to them rather than across the screen.
    m_table->horizontalHeader()->setSectionResizeMode(DriftTableModel::Method, QHeaderView::Stretch);

    auto* splitter = keptVerticalSplitter(m_chart, m_table, 3, 0);

    stackRows({m_lossWarning, facts, options, {splitter, 1}});

    connect(m_logAxis, &QCheckBox::toggled, this, &DriftPage::setLogDriftAxis);
    connect(m_resetZoom, &QPushButton::clicked, m_chart, &DriftChart::resetZoom);
    restyle();
    drawFacts(m_base, nullptr);
}

DriftPage::~DriftPage()
{
    stop();
}

void DriftPage::restyle()
{
    const int rowHeight = styleTableFont(m_table, font(), 1.15, 8);
    // Header and five methods without a scroll bar: the figures must all be on screen.
    m_table->setMinimumHeight(rowHeight * 6 + 2 * m_table->frameWidth() + 4);
}

void DriftPage::runStarting(const DriftConfig&)
{
    m_model->clear();
    m_chart->clear();
    m_chart->resetZoom();
}

void DriftPage::configChanged(const DriftConfig& c)
{
    if (!m_lastDrawn)
        drawFacts(c, nullptr);
}

void DriftPage::setLogDriftAxis(bool log)
{
    if (m_logAxis->isChecked() != log)
        m_logAxis->setChecked(log); // comes back here through toggled
    m_chart->setLogScale(log);
}

bool DriftPage::logDriftAxis() const
{
    return m_logAxis->isChecked();
}

void DriftPage::draw(const DriftSnapshot& s)
{
    std::vector<DriftCurve> curves;
    uint64_t drops = 0;
    for (const DriftMethodStats& m : s.methods) {
        curves.push_back(
            {QString::fromLatin1(driftMethodLabel(m.method)), m.method == WaiterKind::Relative, m.ticks()});
        drops += m.drops;
    }
    // The snapshot owns the tick logs the spans point into: the chart keeps it for later zooms and resizes.
    m_chart->setCurves(std::move(curves), m_lastDrawn, s.config.tickCount());
    m_model->setSnapshot(s);
    drawFacts(s.config, &s);

    const QString warning =
        drops ? tr("⚠ Data lost: %1 ticks dropped (ring buffer full). The curves have gaps.").arg(drops) : QString();
    setLossWarning(m_lossWarning, warning);
}

void DriftPage::drawFacts(const DriftConfig& c, const DriftSnapshot* s)
{
    const bool dark = plot::isDarkPalette(palette());
    const int64_t kernelSlack = measuredProbe().timerSlackNs;
    if (s && !s->slackNote.empty())
        m_slack->setValue(durationQt(s->effectiveSlackNs),
                          tr("%1 — read back in the methods' threads").arg(screenText(s->slackNote)));
    else
        showRequestedSlack(m_slack, c.policy, c.timerSlackNs, kernelSlack,
                           tr("this kernel's default (prctl PR_GET_TIMERSLACK)"));
    accentSlack(m_slack, s ? s->effectiveSlackNs : requestedSlackNs(c.policy, c.timerSlackNs, kernelSlack), dark);
    m_policy->setValue(QString::fromStdString(policyLabel(c.policy, c.priority)),
                       s && s->config.cpu >= 0 ? tr("every method on CPU %1").arg(s->config.cpu)
                                               : tr("every method on one CPU"));
    const int64_t ticks = c.tickCount();
    m_period->setValue(durationQt(c.periodNs), tr("nominal %1 Hz · work %2 per tick")
                                                   .arg(1e9 / double(std::max<int64_t>(c.periodNs, 1)), 0, 'f', 1)
                                                   .arg(durationQt(c.workNs)));
    if (!s) {
        m_progress->setValue(tr("%1 ticks").arg(ticks), tr("press Start"));
        return;
    }
    int64_t done = 0;
    for (const DriftMethodStats& m : s->methods)
        done = std::max(done, m.lastTick);
    const QString state = s->running ? tr("running") : s->finished ? tr("finished") : tr("stopped");
    m_progress->setValue(tr("%1 / %2").arg(std::min(done, ticks)).arg(ticks), tr("ticks · %1").arg(state));
}

QString DriftPage::explanation() const
{
    Explanation e;
    e.title = tr("Periodic timers: relative sleeps drift, absolute deadlines do not");
    e.looking = tr("Each timing method ticks every period <b>P</b> in its own thread, all on one CPU from the same "
                   "<b>t0</b>. The chart plots <b>drift = wake-up − (t0 + k·P)</b> against the tick k; the table "
                   "gives the drift, its slope per tick, the rate and the missed ticks.");
    e.expect = tr("The <b>naive loop</b> climbs in a straight line; the absolute timers stay in a flat band and "
                  "count the ticks they miss. More work per tick steepens the naive slope.");
    e.why = tr("<code>work(); nanosleep(P)</code> sleeps P <i>from now</i>: every late wake-up and the work are "
               "added and never paid back. An absolute timer aims tick k at t0 + k·P.");
    e.thisMachine
        << kernelSentence(measuredProbe()) << slackSentence(measuredProbe())
        << tr("So a naive tick can wake up to %1 late on top of its work.")
               .arg(durationQt(measuredProbe().timerSlackNs))
        << tr("Clock source <b>%1</b>.").arg(QString::fromStdString(measuredProbe().clocksource).toHtmlEscaped())
        << vmSentence(measuredProbe());
    return explanationHtml(e);
}

void DriftPage::saveViewSettings(QSettings& settings) const
{
    settings.setValue("logAxis", logDriftAxis());
}

QStringList DriftPage::restoreViewSettings(QSettings& settings)
{
    setLogDriftAxis(settings.value("logAxis", false).toBool());
    return {};
}

} // namespace rtscope

#include "moc_drift_page.cpp"
