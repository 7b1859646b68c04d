#include "ui/deadline/deadline_page.h"

#include "engine/util/units.h"
#include "ui/common/colors.h"
#include "ui/common/fact_tile.h"
#include "ui/common/problem_list.h"
#include "ui/common/text_format.h"
#include "ui/deadline/deadline_table_model.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/deadline_chart.h"
#include "ui/widgets/table_style.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

namespace rtscope {

namespace {
// A timeline with thousands of jobs: one mark per task and this fraction of the axis is all a screen can show;
// the exact counts are in the tiles and the table.
constexpr double kDeadlineMarksPerAxis = 1500;

QString pct(double share)
{
    return QString("%1 %").arg(share * 100, 0, 'f', 1);
}

double ms(int64_t ns)
{
    return double(ns) / 1e6;
}

double secondsFrom(int64_t t, int64_t start)
{
    return double(t - start) / double(kNsPerSec);
}

QString deadlineActionText(const DeadlineAdmissionStep& st)
{
    switch (st.action) {
    case DeadlineAdmissionStep::Action::Add:
        return QObject::tr("add %1").arg(st.task + 1);
    case DeadlineAdmissionStep::Action::Remove:
        return QObject::tr("remove %1").arg(st.task + 1);
    case DeadlineAdmissionStep::Action::Retry:
        return QObject::tr("retry %1").arg(st.task + 1);
    }
    return "?";
}

QString ranOnText(const DeadlineTaskStats& t)
{
    QStringList parts;
    for (size_t cpu = 0; cpu < t.jobsPerCpu.size(); ++cpu)
        if (t.jobsPerCpu[cpu] > 0)
            parts << QObject::tr("CPU %1 ×%2").arg(cpu).arg(t.jobsPerCpu[cpu]);
    return parts.isEmpty() ? QStringLiteral("—") : parts.join(", ");
}

QString latestEndText(const DeadlineTaskStats& t)
{
    if (!t.jobs || t.maxLateNs == INT64_MIN)
        return QStringLiteral("—");
    return t.maxLateNs > 0 ? QObject::tr("%1 late").arg(durationQt(t.maxLateNs))
                           : QObject::tr("%1 early").arg(durationQt(-t.maxLateNs));
}

// SCHED_FLAG_DL_OVERRUN's count, or why there is none (a FIFO task, a kernel without the flag).
QString overrunsText(const DeadlineTaskStats& t)
{
    if (t.overrunsCounted)
        return QString::number(t.overruns);
    return t.overrunsNote.empty() ? QStringLiteral("—") : screenText(t.overrunsNote);
}

int64_t avgRan(const DeadlineTaskStats& t)
{
    return t.jobs ? t.totalRanNs / int64_t(t.jobs) : 0;
}

const QStringList kTaskHeaders = {QObject::tr("Task"),          QObject::tr("Declared"),    QObject::tr("Jobs"),
                                  QObject::tr("Misses"),        QObject::tr("CPU/job avg"), QObject::tr("CPU/job max"),
                                  QObject::tr("Off CPU total"), QObject::tr("Off CPU max"), QObject::tr("Latest end"),
                                  QObject::tr("Overruns"),      QObject::tr("Ran on")};

DeadlineTableModel::Row taskRow(const DeadlineSnapshot& s, size_t i, const QString& prefix, bool reference)
{
    const DeadlineTaskStats& t = s.tasks[i];
    const DeadlineParams& d = s.slotDeclared[i];
    DeadlineTableModel::Row r;
    r.cells << prefix + QString::fromStdString(s.slotNames[i])
            << (d.periodNs > 0 ? screenText(deadlineText(d)) : QObject::tr("SCHED_FIFO")) << QString::number(t.jobs)
            << QString::number(t.misses) << durationQt(avgRan(t)) << durationQt(t.maxRanNs) << durationQt(t.totalGapNs)
            << durationQt(t.maxGapNs) << latestEndText(t) << overrunsText(t) << ranOnText(t);
    r.mark = reference  ? DeadlineTableModel::Mark::Reference
             : t.misses ? DeadlineTableModel::Mark::Bad
                        : DeadlineTableModel::Mark::None;
    return r;
}

// Jobs of @p slot as marks at (seconds, @p y), missed or met, at most one per task per kDeadlineMarksPerAxis-th of
// the axis (a miss in a bucket wins over a met job).
void edfMarks(const DeadlineSnapshot& s, int slot, double y, double span, QList<QPointF>& met, QList<QPointF>& missed)
{
    const double bucket = span / kDeadlineMarksPerAxis;
    long lastMet = -1, lastMissed = -1;
    for (const DeadlineJob& j : s.jobs) {
        if (j.slot != slot)
            continue;
        const double t = secondsFrom(j.startNs, s.startNs);
        const long b = long(t / bucket);
        if (j.missed && b != lastMissed) {
            missed.append({t, y});
            lastMissed = b;
        } else if (!j.missed && b != lastMet) {
            met.append({t, y});
            lastMet = b;
        }
    }
}
} // namespace

DeadlinePage::DeadlinePage(const SystemProbe& probe, QWidget* parent)
    : PolledExperimentPage(probe, kRefreshMs, unpinnedTopology(), parent)
    , m_alerts(new QLabel(this))
    , m_answer(new QLabel(this))
    , m_chart(new DeadlineChart(this))
    , m_model(new DeadlineTableModel(this))
    , m_table(new QTableView(this))
{
    setObjectName("deadlinePage");
    styleLossWarning(m_alerts);
    m_alerts->setObjectName("deadlineAlerts");
    m_answer->setObjectName("kernelAnswer");
    m_answer->setWordWrap(true);
    m_answer->setTextFormat(Qt::RichText);
    m_answer->hide();

    auto* tiles = new QHBoxLayout;
    tiles->setSpacing(8);
    for (int i = 0; i < kTiles; ++i) {
        auto* t = new FactTile(QString(), this);
        t->setObjectName(QString("deadlineTile%1").arg(i));
        tiles->addWidget(t, 1);
        m_tiles.push_back(t);
    }

    setUpFiguresTable(m_table, m_model, "deadlineTable");
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* splitter = keptVerticalSplitter(m_chart, m_table, 4, 1);

    stackRows({m_alerts, tiles, m_answer, {splitter, 1}});
    restyle();
    drawIdle(m_base);
}

DeadlinePage::~DeadlinePage()
{
    stop();
}

void DeadlinePage::restyle()
{
    styleFiguresTable(m_table, 1.1, 8);
    m_answer->setFont(plot::chartFont(font(), 1.15));
}

QStringList DeadlinePage::configProblems(const DeadlineConfig& c, const CpuTopology& topo) const
{
    // A task list that is not durations never reaches the config: say so before validate()'s sentences.
    return m_controls->tasksProblems() + PolledExperimentPage::configProblems(c, topo);
}

void DeadlinePage::runStarting(const DeadlineConfig& config)
{
    drawIdle(config);
}

void DeadlinePage::configChanged(const DeadlineConfig& config)
{
    if (!isRunning())
        drawIdle(config);
}

void DeadlinePage::drawIdle(const DeadlineConfig& c)
{
    const QString titles[3][kTiles] = {
        {tr("Kernel limit"), tr("Admitted"), tr("Refused"), tr("Other deadline tasks")},
        {tr("Runaway: CPU per stretch"), tr("Runaway: off the CPU"), tr("Good task: misses"),
         tr("OTHER counter: CPU share")},
        {tr("FIFO short: misses"), tr("FIFO long: misses"), tr("DEADLINE short: misses"), tr("DEADLINE long: misses")}};
    for (int i = 0; i < kTiles; ++i) {
        m_tiles[size_t(i)]->setAccent({});
        m_tiles[size_t(i)]->setValue(tr("—"), {});
        m_tiles[size_t(i)]->setTitle(titles[int(c.lesson)][i]);
    }
    DeadlineChartData d;
    d.emptyText = tr("Press Start: %1").arg(QString::fromStdString(c.label()).toHtmlEscaped());
    m_chart->setData(d);
    m_model->setRows({}, {});
    m_answer->hide();
    setLossWarning(m_alerts, {});
}

void DeadlinePage::draw(const DeadlineSnapshot& s)
{
    if (s.tasks.empty() && s.admission.empty() && s.error.empty())
        return; // the run's first snapshot, before anything happened
    drawAlerts(s);
    switch (s.config.lesson) {
    case DeadlineLesson::Admission:
        drawAdmission(s);
        break;
    case DeadlineLesson::Isolation:
        drawIsolation(s);
        break;
    case DeadlineLesson::Edf:
        drawEdf(s);
        break;
    }
}

void DeadlinePage::drawAlerts(const DeadlineSnapshot& s)
{
    QStringList lines;
    if (!s.error.empty())
        lines << tr("⚠ Error: %1").arg(screenText(s.error));
    for (const WatchdogTrip& t : s.watchdogTrips)
        lines << tr("⚠ WATCHDOG: thread %1 was demoted to SCHED_OTHER %2")
                     .arg(t.tid)
                     .arg(t.atStop ? tr("when the run stopped")
                                   : tr("%1 past its deadline").arg(durationQt(t.overrunNs())));
    if (s.droppedJobs)
        lines << tr("⚠ Data lost: %1 jobs dropped (the rings were full): the counts miss them.").arg(s.droppedJobs);
    if (s.jobsNotKept)
        lines << tr("The timeline shows the first %1 jobs; %2 later ones are counted in the table but not drawn.")
                     .arg(s.jobs.size())
                     .arg(s.jobsNotKept);
    if (s.config.lesson == DeadlineLesson::Edf && !s.deadlinePhaseRan && !s.deadlinePhaseNote.empty())
        lines << tr("The DEADLINE phase did not run: %1").arg(screenText(s.deadlinePhaseNote));
    setLossWarning(m_alerts, lines.join('\n'));
}

QString DeadlinePage::alertText() const
{
    return m_alerts->isVisible() || !m_alerts->text().isEmpty() ? m_alerts->text() : QString();
}

QString DeadlinePage::answerText() const
{
    return m_answer->isHidden() ? QString() : m_answer->text();
}

void DeadlinePage::drawAdmission(const DeadlineSnapshot& s)
{
    const DeadlineBudget& b = s.budget;
    const std::optional<double> limit = b.limit();
    QString limitDetail = b.perCpuLimit ? tr("%1 CPUs × %2").arg(b.cpus).arg(pct(*b.perCpuLimit))
                                        : tr("per-CPU share unknown (unreadable, or admission control off)");
    if (b.fairServerKernel)
        limitDetail +=
            b.fairServers ? tr(" − fair servers %1").arg(pct(*b.fairServers)) : tr(" − fair servers (not readable)");
    // Where the fair servers' share cannot be read, the limit is not known exactly, but perCpuLimit × CPUs bounds
    // it from above: drawn as that bound and named so, because the refusal is the lesson and needs its line.
    const std::optional<double> ceiling =
        b.perCpuLimit && b.cpus > 0 ? std::optional<double>(*b.perCpuLimit * b.cpus) : std::nullopt;
    m_tiles[0]->setValue(limit ? pct(*limit) : ceiling ? tr("≤ %1").arg(pct(*ceiling)) : tr("unknown"), limitDetail);

    DeadlineChartData d;
    d.kind = DeadlineChartData::Kind::Bars;
    d.title = tr("Declared bandwidth, step by step, against the kernel's limit");
    d.xTitle = tr("step (task number)");
    d.yTitle = tr("% of one CPU");
    d.limit = limit ? limit : ceiling;
    d.limitName = limit     ? tr("kernel's limit %1").arg(pct(*limit))
                  : ceiling ? tr("kernel's limit: at most %1, less the fair servers").arg(pct(*ceiling))
                            : QString();
    std::vector<DeadlineTableModel::Row> rows;
    int admitted = 0;
    const DeadlineAdmissionRow* refused = nullptr;
    int n = 0;
    for (const DeadlineAdmissionRow& r : s.admission) {
        const DeadlineAdmissionStep& st = r.step;
        const bool remove = st.action == DeadlineAdmissionStep::Action::Remove;
        const double share = st.bandwidth();
        DeadlineBar bar;
        bar.category = deadlineActionText(st);
        if (remove) {
            bar.before = b.othersAtStart + r.ownTotal;
        } else if (st.admitted) {
            ++admitted;
            bar.before = b.othersAtStart + r.ownTotal - share;
            bar.admitted = share;
        } else {
            bar.before = b.othersAtStart + r.ownTotal;
            bar.refused = share;
            bar.category += tr(" ✗");
            if (!refused)
                refused = &r;
        }
        d.bars.push_back(bar);
        QString answer = remove        ? tr("left")
                         : st.admitted ? tr("ADMITTED")
                                       : tr("REFUSED: %1").arg(screenText(st.answer));
        if (st.action == DeadlineAdmissionStep::Action::Retry)
            answer += st.attempts == 1 ? tr(" (at once)") : tr(" (after %1 attempts)").arg(st.attempts);
        DeadlineTableModel::Row row;
        row.cells << QString::number(++n) << deadlineActionText(st)
                  << screenText(formatDuration(st.runtimeNs) + "/" + formatDuration(st.periodNs)) << pct(share)
                  << pct(r.ownTotal)
                  << (!r.predicted   ? (remove ? QString() : tr("?"))
                      : *r.predicted ? tr("yes")
                                     : tr("no"))
                  << answer;
        row.mark = remove        ? DeadlineTableModel::Mark::None
                   : st.admitted ? DeadlineTableModel::Mark::Good
                                 : DeadlineTableModel::Mark::Bad;
        rows.push_back(std::move(row));
    }
    m_model->setRows({tr("Step"), tr("Action"), tr("Runtime/period"), tr("Share"), tr("Lesson's total"), tr("Fits?"),
                      tr("Kernel's answer")},
                     std::move(rows));
    m_chart->setData(d);

    double ownAdmitted = 0;
    for (const DeadlineAdmissionRow& r : s.admission)
        if (r.step.admitted && r.step.action != DeadlineAdmissionStep::Action::Remove)
            ownAdmitted = std::max(ownAdmitted, r.ownTotal);
    m_tiles[1]->setValue(admitted == 1 ? tr("1 task") : tr("%1 tasks").arg(admitted),
                         tr("up to %1 declared by the lesson").arg(pct(ownAdmitted)));
    m_tiles[1]->setAccent(colors::css(colors::kGreen800));
    if (refused) {
        m_tiles[2]->setValue(tr("task %1").arg(refused->step.task + 1),
                             tr("%1 asked, %2 already declared")
                                 .arg(pct(refused->step.bandwidth()))
                                 .arg(pct(b.othersAtStart + refused->ownTotal)));
        m_tiles[2]->setAccent(colors::css(colors::kRed700));
        m_answer->setText(
            tr("<b>The kernel's answer to task %1</b> (%2): %3")
                .arg(refused->step.task + 1)
                .arg(screenText(formatDuration(refused->step.runtimeNs) + "/" + formatDuration(refused->step.periodNs))
                         .toHtmlEscaped())
                .arg(screenText(refused->step.answer).toHtmlEscaped()));
        m_answer->show();
    } else {
        m_tiles[2]->setValue(tr("none"), s.admission.empty() ? QString() : tr("every task fitted"));
        m_tiles[2]->setAccent({});
        m_answer->hide();
    }
    m_tiles[3]->setValue(pct(b.othersAtStart), tr("declared by others when the lesson began"));
}

void DeadlinePage::drawIsolation(const DeadlineSnapshot& s)
{
    const DeadlineTaskStats& run = s.tasks[kDeadlineRunaway];
    const DeadlineTaskStats& good = s.tasks[kDeadlineGood];
    m_tiles[0]->setValue(run.jobs ? durationQt(avgRan(run)) : tr("—"),
                         (s.config.runawayPolicy == DeadlineRunawayPolicy::Deadline
                              ? tr("avg of %1 stretches · max %2 · declared %3")
                                    .arg(run.jobs)
                                    .arg(durationQt(run.maxRanNs))
                                    .arg(durationQt(s.config.runaway.runtimeNs))
                              : tr("avg of %1 stretches · max %2 · SCHED_FIFO %3, nothing declared")
                                    .arg(run.jobs)
                                    .arg(durationQt(run.maxRanNs))
                                    .arg(s.config.runawayPriority)));
    m_tiles[1]->setValue(durationQt(run.totalGapNs),
                         tr("off the CPU in total · longest %1").arg(durationQt(run.maxGapNs)));
    m_tiles[2]->setValue(tr("%1 of %2").arg(good.misses).arg(good.jobs),
                         tr("jobs of %1 missed their deadline · latest end %2")
                             .arg(durationQt(s.config.goodWorkNs))
                             .arg(latestEndText(good)));
    m_tiles[2]->setAccent(good.misses ? colors::css(colors::kRed700)
                          : good.jobs ? colors::css(colors::kGreen800)
                                      : QString());
    const DeadlineCounterStats& c = s.counter;
    const std::optional<double> share = c.cpuShare();
    QString counterDetail = tr("of CPU %1 · %2 of %3 periods with progress · %4 ops")
                                .arg(s.counterCpu)
                                .arg(c.windows - c.stalledWindows)
                                .arg(c.windows)
                                .arg(c.totalOps);
    if (m_reference) {
        const std::optional<double> refShare = m_reference->counter.cpuShare();
        counterDetail += tr(" · reference (%1): %2")
                             .arg(QString::fromStdString(m_reference->slotNames[kDeadlineRunaway]))
                             .arg(refShare ? pct(*refShare) : tr("unknown"));
    }
    m_tiles[3]->setValue(share ? pct(*share) : tr("—"), counterDetail);
    m_tiles[3]->setAccent(!c.windows         ? QString()
                          : c.stalledWindows ? colors::css(colors::kRed700)
                                             : colors::css(colors::kGreen800));
    QStringList verdict;
    if (!s.counterVerdict.empty())
        verdict << screenText(s.counterVerdict).toHtmlEscaped();
    if (!s.throttling.empty())
        verdict << tr("Kernel safety net: %1").arg(screenText(s.throttling).toHtmlEscaped());
    m_answer->setText(verdict.join("<br>"));
    m_answer->setVisible(!verdict.isEmpty());

    DeadlineChartData d;
    d.kind = DeadlineChartData::Kind::Time;
    d.title = s.config.runawayPolicy == DeadlineRunawayPolicy::Deadline
                  ? tr("CPU time per period: the runaway is held to its runtime, the good task keeps its deadlines")
                  : tr("A SCHED_FIFO runaway: it keeps the CPU until the kernel's safety net takes it away");
    d.xTitle = tr("seconds since start");
    d.yTitle = tr("ms");
    const int64_t planned = DeadlineRun::kLeadInNs + s.config.durationNs;
    d.xMax = std::max(double(planned) / double(kNsPerSec), secondsFrom(s.publishedNs, s.startNs));
    DeadlineSeries ran{tr("runaway: CPU per stretch"), DeadlineRole::Runaway, DeadlineSeries::Style::Line, {}};
    DeadlineSeries gap{tr("runaway: off the CPU"), DeadlineRole::Throttled, DeadlineSeries::Style::Line, {}};
    DeadlineSeries goodRan{tr("good task: CPU per job"), DeadlineRole::Good, DeadlineSeries::Style::Dots, {}};
    DeadlineSeries goodMiss{tr("good task: missed"), DeadlineRole::Missed, DeadlineSeries::Style::Crosses, {}};
    double yMax = s.config.runawayPolicy == DeadlineRunawayPolicy::Deadline ? ms(s.config.runaway.runtimeNs) : 1.0;
    for (const DeadlineJob& j : s.jobs) {
        const double t = secondsFrom(j.startNs, s.startNs);
        if (j.slot == kDeadlineRunaway) {
            ran.points.append({t, ms(j.ranNs)});
            gap.points.append({t, ms(j.gapNs)});
            yMax = std::max({yMax, ms(j.ranNs), ms(j.gapNs)});
        } else if (j.slot == kDeadlineGood) {
            (j.missed ? goodMiss : goodRan).points.append({t, ms(j.ranNs)});
            yMax = std::max(yMax, ms(j.ranNs));
        }
    }
    // Only a deadline runaway declares a runtime: the FIFO one has nothing that holds it.
    const bool dl = s.config.runawayPolicy == DeadlineRunawayPolicy::Deadline;
    DeadlineSeries declared{tr("declared runtime"),
                            DeadlineRole::Limit,
                            DeadlineSeries::Style::Dashed,
                            {{0, ms(s.config.runaway.runtimeNs)}, {d.xMax, ms(s.config.runaway.runtimeNs)}}};
    if (m_reference) {
        DeadlineSeries ref{tr("reference: %1").arg(QString::fromStdString(m_reference->slotNames[kDeadlineRunaway])),
                           DeadlineRole::Reference,
                           DeadlineSeries::Style::Dashed,
                           {}};
        for (const DeadlineJob& j : m_reference->jobs)
            if (j.slot == kDeadlineRunaway) {
                ref.points.append({secondsFrom(j.startNs, m_reference->startNs), ms(j.ranNs)});
                yMax = std::max(yMax, ms(j.ranNs));
            }
        d.xMax = std::max(d.xMax, ref.points.isEmpty() ? 0.0 : ref.points.back().x());
        d.series.push_back(std::move(ref));
    }
    d.yMax = yMax * 1.15;
    d.series.push_back(std::move(gap));
    if (dl)
        d.series.push_back(std::move(declared));
    d.series.push_back(std::move(ran));
    d.series.push_back(std::move(goodRan));
    if (!goodMiss.points.isEmpty())
        d.series.push_back(std::move(goodMiss));
    m_chart->setData(d);

    std::vector<DeadlineTableModel::Row> rows;
    for (size_t i : {size_t(kDeadlineRunaway), size_t(kDeadlineGood)})
        rows.push_back(taskRow(s, i, QString(), false));
    DeadlineTableModel::Row counter;
    // The counter's periods are its jobs, a period without progress its miss; its CPU time is a share, not per job.
    const QString dash = QStringLiteral("—");
    counter.cells << tr("SCHED_OTHER counter") << tr("SCHED_OTHER") << QString::number(c.windows)
                  << tr("%1 stalled").arg(c.stalledWindows) << (share ? tr("%1 of its CPU").arg(pct(*share)) : dash)
                  << dash << dash << dash << dash << dash << tr("CPU %1 (pinned)").arg(s.counterCpu);
    counter.mark = c.stalledWindows ? DeadlineTableModel::Mark::Bad : DeadlineTableModel::Mark::None;
    rows.push_back(counter);
    if (m_reference)
        for (size_t i : {size_t(kDeadlineRunaway), size_t(kDeadlineGood)})
            rows.push_back(taskRow(*m_reference, i, tr("reference: "), true));
    m_model->setRows(kTaskHeaders, std::move(rows));
}

void DeadlinePage::drawEdf(const DeadlineSnapshot& s)
{
    const int edfSlots[kTiles] = {kDeadlineFifoShort, kDeadlineFifoLong, kDeadlineDlShort, kDeadlineDlLong};
    for (int i = 0; i < kTiles; ++i) {
        const size_t slot = size_t(edfSlots[i]);
        const bool dl = i >= 2;
        if (dl && !s.deadlinePhaseRan && !s.deadlinePhaseNote.empty()) {
            m_tiles[size_t(i)]->setValue(tr("did not run"), screenText(s.deadlinePhaseNote));
            m_tiles[size_t(i)]->setAccent({});
            continue;
        }
        const DeadlineTaskStats& t = s.tasks[slot];
        m_tiles[size_t(i)]->setValue(tr("%1 of %2").arg(t.misses).arg(t.jobs),
                                     tr("jobs late · latest end %1").arg(latestEndText(t)));
        m_tiles[size_t(i)]->setAccent(!t.jobs    ? QString()
                                      : t.misses ? colors::css(colors::kRed700)
                                                 : colors::css(colors::kGreen800));
    }
    m_answer->hide();

    DeadlineChartData d;
    d.kind = DeadlineChartData::Kind::Time;
    d.title = tr("Every job on the timeline: FIFO phase (inverted priorities), then DEADLINE phase (EDF)");
    d.xTitle = tr("seconds since start");
    const int64_t planned = DeadlineRun::kLeadInNs + 2 * s.config.durationNs + DeadlineConfig::kPhaseGapNs;
    d.xMax = std::max(double(planned) / double(kNsPerSec), secondsFrom(s.publishedNs, s.startNs));
    DeadlineSeries met{tr("met its deadline"), DeadlineRole::Met, DeadlineSeries::Style::Dots, {}};
    DeadlineSeries missed{tr("missed its deadline"), DeadlineRole::Missed, DeadlineSeries::Style::Crosses, {}};
    // Top to bottom in reading order: FIFO short, FIFO long, DEADLINE short, DEADLINE long.
    for (int i = 0; i < kTiles; ++i) {
        const double y = kTiles - 1 - i;
        d.rows.prepend(QString::fromStdString(s.slotNames[size_t(edfSlots[i])]));
        edfMarks(s, edfSlots[i], y, d.xMax - d.xMin, met.points, missed.points);
    }
    d.series.push_back(std::move(met));
    d.series.push_back(std::move(missed));
    m_chart->setData(d);

    std::vector<DeadlineTableModel::Row> rows;
    for (int slot : edfSlots)
        rows.push_back(taskRow(s, size_t(slot), QString(), false));
    m_model->setRows(kTaskHeaders, std::move(rows));
}

bool DeadlinePage::holdAsReference()
{
    // The latest figures, also of a run still going (a preset holds its first phase before it stops it).
    std::shared_ptr<const DeadlineSnapshot> s = latestSnapshot();
    if (!s || s->config.lesson != DeadlineLesson::Isolation || s->jobs.empty()) {
        emit statusMessage(tr("Nothing to hold: the reference is an isolation run with jobs (its runaway is drawn "
                              "under the next run's)"));
        return false;
    }
    m_reference = s;
    if (m_lastDrawn)
        draw(*m_lastDrawn);
    referenceHeld(tr("Held the isolation run as the reference; change the runaway and press Start"));
    return true;
}

void DeadlinePage::releaseReference()
{
    m_reference.reset();
    if (m_lastDrawn)
        draw(*m_lastDrawn);
}

QString DeadlinePage::explanation() const
{
    Explanation e;
    const DeadlineConfig c = config();
    switch (c.lesson) {
    case DeadlineLesson::Admission:
        e.title = tr("Admission: the kernel refuses a reservation it cannot keep");
        e.looking = tr("Deadline tasks are added one by one, each declaring a <b>runtime</b> per <b>period</b>. Each "
                       "bar is the bandwidth declared after a step: grey what was there, <b>green</b> an admitted "
                       "task, <b>red</b> the one the kernel refused. The dashed line is the kernel's limit.");
        e.expect = tr("Tasks are admitted while the total stays under the line; the first that would cross it is "
                      "<b>refused</b> (EBUSY), and the kernel's answer is shown above the chart. When an admitted "
                      "task leaves, the refused one fits and is admitted.");
        e.why = tr("SCHED_DEADLINE promises every admitted task its runtime in every period. The kernel can only "
                   "keep that promise if the declared bandwidths add up to less than the CPUs it may give: "
                   "<code>sched_rt_runtime_us</code>/<code>sched_rt_period_us</code> per CPU, minus the fair "
                   "servers on 6.12 and later. A refusal is not an error of rtscope: it is the lesson.");
        break;
    case DeadlineLesson::Isolation:
        e.title = tr("Isolation: a deadline runaway cannot starve the machine");
        e.looking = tr("A deadline thread declares %1 and then spins forever. Its CPU time per period (orange) "
                       "and the time it is throttled (purple); a well-behaved deadline task's jobs (blue, a red "
                       "triangle for a miss); and a SCHED_OTHER counter on CPU %2, in the tiles.")
                        .arg(screenText(deadlineText(c.runaway)).toHtmlEscaped())
                        .arg(c.resolvedCounterCpu(topology()));
        e.expect = tr("The runaway gets its runtime, at most a scheduler tick more, and is then <b>throttled</b> "
                      "until its next period; the good task meets every deadline; the counter makes progress in "
                      "every period. Press H on a finished run to hold it as the reference, then run again (the "
                      "SCHED_FIFO runaway of the starvation lab is the picture to compare with).");
        e.why = tr("The kernel gives a deadline task its runtime and no more (the constant-bandwidth server): "
                   "what the runaway does not get, the others do. A SCHED_FIFO spinner has no such budget. The "
                   "runaway also checks its own end, and a watchdog (priority %1, another CPU) demotes it %2 past "
                   "it.")
                    .arg(DeadlineConfig::kWatchdogPriority)
                    .arg(durationQt(DeadlineConfig::kWatchdogMarginNs));
        break;
    case DeadlineLesson::Edf:
        e.title = tr("EDF: deadlines met that fixed priorities miss");
        e.looking = tr("Two periodic tasks, %1 of work every %2 and %3 every %4, first under SCHED_FIFO on one CPU "
                       "with the long-period task above the short one, then under SCHED_DEADLINE. One row per task "
                       "and phase, a mark per job: green met, <b>red</b> missed (one mark per short stretch of the "
                       "axis; the counts are in the tiles).")
                        .arg(durationQt(c.shortWorkNs), durationQt(c.shortPeriodNs), durationQt(c.longWorkNs),
                             durationQt(c.longPeriodNs));
        e.expect = tr("Under FIFO the short task misses: the long one keeps the CPU for its whole job. Under "
                      "DEADLINE every job of both meets its deadline, although the work is the same.");
        e.why = tr("Earliest deadline first runs the job whose deadline comes first, which meets every deadline "
                   "while the total utilisation is under 100 %. Fixed priorities in the wrong order (not rate "
                   "monotonic) cannot. The deadline tasks cannot be pinned (the root-domain rule): where they ran "
                   "is in the table's last column.");
        break;
    }
    e.thisMachine << kernelSentence(measuredProbe()) << vmSentence(measuredProbe()) << rtSentence(measuredProbe());
    return explanationHtml(e);
}

} // namespace rtscope

#include "moc_deadline_page.cpp"
