#include "ui/doctor/doctor_page.h"

#include "engine/doctor/doctor_report.h"
#include "engine/formats/output_file.h"
#include "engine/util/printable.h"
#include "ui/common/colors.h"
#include "ui/common/fact_tile.h"
#include "ui/common/histogram_data.h"
#include "ui/common/text_format.h"
#include "ui/common/text_label.h"
#include "ui/doctor/doctor_controls.h"
#include "ui/doctor/findings_model.h"
#include "ui/explanation_pane.h"
#include "ui/plot/chart_style.h"
#include "ui/plot/histogram_chart.h"
#include "ui/widgets/table_style.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace rtscope {

using doctor::DoctorPlan;
using doctor::DoctorProgress;
using doctor::DoctorReport;
using doctor::DoctorStage;
using doctor::Finding;
using doctor::Verdict;

namespace {

QString machineHtml(const std::string& machineText)
{
    return screenText(printable(machineText)).toHtmlEscaped();
}

QString us(double v)
{
    return QString::fromStdString(doctor::usText(v)) + QStringLiteral(" µs");
}

// "p99 84.1 µs" with the sample count: what every tile and caption says of a set of wake-ups.
QString figuresLine(const doctor::LatencyFigures& f)
{
    return QObject::tr("p50 %1 · p99 %2 · p99.9 %3 · max %4 (%5 wake-ups)")
        .arg(us(f.p50Us), us(f.p99Us), us(f.p99_9Us), us(f.maxUs))
        .arg(f.samples);
}

} // namespace

DoctorPage::DoctorPage(const SystemProbe& probe, doctor::GuardianLaunch guardian, QWidget* parent)
    : PolledPage(probe, kRefreshMs, parent)
    , m_guardian(std::move(guardian))
    , m_controls(new DoctorControls(unpinnedTopology().allowed))
    , m_stage(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_baseline(new FactTile(tr("Baseline p99"), this))
    , m_tail(new FactTile(tr("Worst wake-ups"), this))
    , m_findings(new FactTile(tr("Findings"), this))
    , m_trials(new FactTile(tr("Trials"), this))
    , m_model(new FindingsModel(this))
    , m_table(new QTableView(this))
    , m_detail(new QLabel(this))
    , m_histogram(new HistogramChart(this))
    , m_try(new QPushButton(tr("&Try this fix"), this))
    , m_save(new QPushButton(tr("Save &report…"), this))
{
    setObjectName("doctorPage");
    setPanel(m_controls);

    initTextLabel(m_stage, "doctorStage");
    QFont big = m_stage->font();
    big.setPointSizeF(big.pointSizeF() * 1.25);
    big.setBold(true);
    m_stage->setFont(big);
    m_progress->setObjectName("doctorProgress");
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(10);
    m_baseline->setObjectName("baselineTile");
    m_tail->setObjectName("tailTile");
    m_findings->setObjectName("findingsTile");
    m_trials->setObjectName("trialsTile");
    auto* tiles = new QHBoxLayout;
    for (FactTile* t : {m_baseline, m_tail, m_findings, m_trials})
        tiles->addWidget(t, 1);

    m_table->setObjectName("findingsTable");
    m_table->setModel(m_model);
    // Not the shared fitter (styleFiguresTable): it shares the width out evenly among long columns, and here the
    // culprit is what a reader looks for. It takes the room; the fix gets a fixed share, elided, its whole text in
    // the detail below; the short columns fit their contents.
    setUpFiguresTable(m_table);
    m_table->setFont(plot::chartFont(font(), 1.1));
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setFocusPolicy(Qt::StrongFocus);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    QHeaderView* header = m_table->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(FindingsModel::Culprit, QHeaderView::Stretch);
    header->setSectionResizeMode(FindingsModel::Fix, QHeaderView::Interactive);
    header->resizeSection(FindingsModel::Fix, QFontMetrics(m_table->font()).averageCharWidth() * 34);
    keepHeader("findingsHeader", m_table->horizontalHeader());

    initTextLabel(m_detail, "findingDetail", Qt::RichText);
    m_detail->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_try->setObjectName("tryFix");
    m_save->setObjectName("saveReport");
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_try);
    buttons->addStretch(1);
    buttons->addWidget(m_save);
    auto* detailBox = new QWidget(this);
    auto* detailLayout = new QVBoxLayout(detailBox);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_detail, 1);
    detailLayout->addLayout(buttons);

    m_histogram->setObjectName("doctorHistogram");
    m_histogram->setLogLatencyAxis(true);
    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->setObjectName("doctorLower");
    lower->addWidget(detailBox);
    lower->addWidget(m_histogram);
    lower->setStretchFactor(0, 2);
    lower->setStretchFactor(1, 3);
    keepSplitter("lowerSplitter", lower);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName("doctorSplit");
    split->addWidget(m_table);
    split->addWidget(lower);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    keepSplitter("splitter", split);

    stackRows({m_stage, m_progress, tiles, {split, 1}});

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &DoctorPage::showSelected);
    connect(m_try, &QPushButton::clicked, this, [this] {
        const std::string id = selectedId();
        if (!id.empty())
            tryFinding(id);
    });
    connect(m_controls, &ExperimentControls::edited, this, [this] { m_controls->clearProblems(); });

    m_stage->setText(
        tr("Press Start: the doctor measures CPU %1 with the anatomy on and names what makes its "
           "wake-ups late.")
            .arg(m_controls->plan().cpu < 0 ? tr("(the last usable)") : QString::number(m_controls->plan().cpu)));
    m_baseline->setValue(QStringLiteral("—"), tr("not measured yet"));
    m_tail->setValue(QStringLiteral("—"));
    m_findings->setValue(QStringLiteral("—"));
    m_trials->setValue(QStringLiteral("—"));
    showSelected();
}

DoctorPage::~DoctorPage()
{
    if (m_run)
        m_run->stop();
    m_held.reset(); // puts the held changes back (the window's close has done it already)
}

DoctorPlan DoctorPage::plan() const
{
    DoctorPlan p = m_controls->plan();
    if (m_phases)
        p.phases = *m_phases;
    p.journal = m_journal;
    p.guardian = m_guardian;
    p.command = "rtscope (desktop app, Doctor page)";
    return p;
}

bool DoctorPage::start()
{
    if (isRunning())
        return true;
    return startRun(plan(), QString());
}

bool DoctorPage::tryFinding(const std::string& id)
{
    if (isRunning() || id.empty())
        return false;
    if (m_held && std::find(m_held->findings().begin(), m_held->findings().end(), id) != m_held->findings().end()) {
        showError(tr("this fix is applied already (the banner above the page): revert it before trying it again"));
        return false;
    }
    DoctorPlan p = plan();
    p.tryFixes = true;
    p.only = {id};
    p.hold = true;
    m_tryBase = m_report; // the findings shown stay; the trial of this one comes into them as it runs
    if (!startRun(p, QString::fromStdString(id))) {
        m_tryBase.reset();
        return false;
    }
    return true;
}

bool DoctorPage::startRun(DoctorPlan p, const QString& what)
{
    if (m_held && p.tryFixes) {
        // A held fix would be part of the new baseline and of every trial: the doctor measures the machine as it is.
        showError(tr("a fix the doctor applied is still held (the banner above the page): keep it or revert it "
                     "before the next run"));
        return false;
    }
    if (const std::vector<std::string> problems = p.validate(unpinnedTopology()); !problems.empty()) {
        QStringList list;
        for (const std::string& s : problems)
            list << QString::fromStdString(s);
        showProblems(list);
        return false;
    }
    auto run = std::make_unique<doctor::DoctorRun>();
    if (const Error e = run->start(p, unpinnedTopology())) {
        showError(QString::fromStdString(e.message));
        return false;
    }
    m_run = std::move(run);
    m_trying = what.toStdString();
    m_runPlan = p;
    m_controls->clearProblems();
    const QString status = what.isEmpty() ? tr("Diagnosing CPU %1…").arg(p.cpu < 0 ? QString() : QString::number(p.cpu))
                                          : tr("Trying one fix…");
    beginPolling(status, what.isEmpty() ? tr("The doctor is measuring") : tr("The doctor is trying %1").arg(what));
    refreshNow();
    return true;
}

void DoctorPage::stop()
{
    if (!m_run)
        return;
    m_run->stop(); // within 100 ms; the trial's change is put back before it returns
    runEnded();
}

bool DoctorPage::isRunning() const
{
    // Until runEnded() has taken the report and what it holds: the loop may have ended a moment before.
    return m_run != nullptr;
}

std::vector<int> DoctorPage::busyCpus() const
{
    if (!isRunning())
        return {};
    const int cpu = m_runPlan.cpu >= 0 ? m_runPlan.cpu : unpinnedTopology().lastUsable();
    return {cpu};
}

QStringList DoctorPage::problems() const
{
    return m_controls->problems();
}

void DoctorPage::showProblems(const QStringList& problems)
{
    m_controls->showProblems(problems);
}

void DoctorPage::showRunning(bool running, const QString& status)
{
    m_controls->setRunning(running);
    m_controls->setStatus(status);
    m_try->setEnabled(!running && !selectedId().empty());
}

void DoctorPage::refreshNow()
{
    if (!m_run)
        return;
    const DoctorProgress progress = m_run->progress();
    if (const auto report = shownReport(m_run->report()); report && report->baselineDone)
        showReport(*report);
    showProgress(progress);
    countFrame();
    if (!m_run->running() && m_timer->isActive())
        runEnded();
}

void DoctorPage::runEnded()
{
    if (!m_run)
        return;
    m_run->wait();
    std::shared_ptr<const DoctorReport> report = m_run->report();
    std::unique_ptr<doctor::HeldFixes> held = m_run->takeHeld();
    const DoctorProgress last = m_run->progress();
    m_run.reset(); // isRunning() is false from here: the views show the finished run
    report = shownReport(report);
    if (report && report->baselineDone)
        showReport(*report);
    endPolling();
    setHeld(std::move(held));
    QString message;
    if (report && !report->error.empty()) {
        showError(QString::fromStdString(printable(report->error)));
        message = tr("The doctor failed");
    } else if (last.stage == DoctorStage::Stopped) {
        message = tr("The doctor was stopped; everything it changed is back as it was");
    } else {
        message = tr("The doctor is done");
    }
    m_stage->setText(stageText(last.stage, report.get()));
    m_progress->setValue(last.stage == DoctorStage::Done ? 1000 : m_progress->value());
    m_trying.clear();
    m_tryBase.reset();
    showSelected();
    announceStopped(message);
}

QString DoctorPage::stageText(DoctorStage stage, const DoctorReport* report) const
{
    const QString restored = report && !report->restore.empty()
                                 ? tr(" Not everything could be put back: %1 (rtscope doctor --undo).")
                                       .arg(machineHtml(report->restore.front()))
                                 : QString();
    switch (stage) {
    case DoctorStage::Done: {
        if (!report)
            return tr("Done.");
        int helped = 0;
        for (const Finding& f : report->findings)
            helped += f.trial.verdict == Verdict::Helped;
        if (report->findings.empty())
            return tr("Done: nothing on CPU %1 explains its late wake-ups.").arg(report->cpu) + restored;
        if (helped == 0)
            return tr("Done: %1 on CPU %2; select one to see its evidence, or try its fix.")
                       .arg(report->findings.size() == 1 ? tr("one finding")
                                                         : tr("%1 findings").arg(report->findings.size()))
                       .arg(report->cpu) +
                   restored;
        return (helped == 1 ? tr("Done: one fix made the tail shorter")
                            : tr("Done: %1 fixes made the tail shorter").arg(helped)) +
               tr("; the machine is back as it was unless the banner above says otherwise.") + restored;
    }
    case DoctorStage::Stopped:
        return tr("Stopped: everything the doctor changed is back as it was.") + restored;
    case DoctorStage::Failed:
        return tr("The doctor failed: %1").arg(report ? machineHtml(report->error) : QString());
    default:
        return {};
    }
}

void DoctorPage::showProgress(const DoctorProgress& p)
{
    m_progress->setValue(int(std::clamp(p.fraction, 0.0, 1.0) * 1000));
    const QString elapsed = tr("%1 s").arg(double(p.elapsedNs) / 1e9, 0, 'f', 0);
    if (isRunning())
        m_stage->setText(QStringLiteral("%1 <span style='font-weight:normal'>(%2)</span>")
                             .arg(machineHtml(p.message.empty() ? doctor::stageName(p.stage) : p.message), elapsed));
    // The live picture: the baseline as it grows; in a trial, the phases with the fix against those without.
    const bool trial = p.stage == DoctorStage::Trials || p.stage == DoctorStage::Combined;
    if (p.stage == DoctorStage::Baseline || (trial && p.live.count() + p.liveWithout.count() > 0)) {
        if (trial) {
            m_referenceCurve = histogramCurve(p.liveWithout, tr("without the fix (A phases)"));
            m_histogram->setReference(&m_referenceCurve);
            m_histogram->setLive(histogramCurve(p.live, tr("with the fix (B phases)")), percentileMarkers(p.live));
            m_histogram->setTitle(tr("Trial of %1: with the fix against without, as the phases come in")
                                      .arg(screenText(printable(p.finding))));
        } else {
            m_histogram->setReference(nullptr);
            m_histogram->setLive(histogramCurve(p.live, tr("baseline")), percentileMarkers(p.live));
            m_histogram->setTitle(
                tr("Baseline of CPU %1, as it is measured").arg(busyCpus().empty() ? -1 : busyCpus()[0]));
        }
    }
}

void DoctorPage::showReport(const DoctorReport& report)
{
    const std::string keep = selectedId();
    m_report = std::make_shared<DoctorReport>(report);
    m_model->setFindings(report.findings);
    const doctor::LatencyFigures& b = report.baseline;
    m_baseline->setValue(us(b.p99Us), tr("p50 %1 · %2 wake-ups on CPU %3 (%4)")
                                          .arg(us(b.p50Us))
                                          .arg(b.samples)
                                          .arg(report.cpu)
                                          .arg(QString::fromStdString(report.measuring)));
    m_tail->setValue(us(b.maxUs), tr("max; p99.9 %1").arg(us(b.p99_9Us)));
    const Finding* top = report.findings.empty() ? nullptr : &report.findings.front();
    m_findings->setValue(QString::number(report.findings.size()),
                         top ? tr("first: %1").arg(screenText(printable(top->title))) : tr("nothing found"));
    int tried = 0, helped = 0;
    for (const Finding& f : report.findings) {
        tried += f.trial.verdict != Verdict::NotTried;
        helped += f.trial.verdict == Verdict::Helped;
    }
    m_trials->setValue(
        tried ? tr("%1 of %2 helped").arg(helped).arg(tried) : QStringLiteral("—"),
        tried ? tr("alternated phases, judged on their p99s")
              : QString::fromStdString(report.trialsNotRun.empty() ? "no trial yet" : printable(report.trialsNotRun)));
    m_trials->setAccent(helped ? colors::css(colors::kGreen800) : QString());
    int row = m_model->rowOf(keep);
    if (row < 0 && !m_trying.empty())
        row = m_model->rowOf(m_trying);
    if (row < 0 && m_model->rowCount() > 0 && keep.empty())
        row = 0;
    if (row >= 0 && m_model->rowOf(selectedId()) != row)
        m_table->selectRow(row);
    showSelected();
}

std::shared_ptr<const DoctorReport> DoctorPage::shownReport(std::shared_ptr<const DoctorReport> run) const
{
    if (!run || m_trying.empty() || !m_tryBase)
        return run;
    // A "Try": its trial goes into the findings shown before (the ids are stable: a thread's TID, an IRQ's number).
    auto merged = std::make_shared<DoctorReport>(*m_tryBase);
    for (const Finding& f : run->findings) {
        if (f.id != m_trying)
            continue;
        auto it = std::find_if(merged->findings.begin(), merged->findings.end(),
                               [&](const Finding& g) { return g.id == f.id; });
        if (it != merged->findings.end())
            it->trial = f.trial;
        else
            merged->findings.push_back(f);
    }
    merged->restore.insert(merged->restore.end(), run->restore.begin(), run->restore.end());
    merged->error = run->error;
    merged->stopped = run->stopped;
    return merged;
}

std::string DoctorPage::selectedId() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return {};
    const Finding* f = m_model->finding(rows.front().row());
    return f ? f->id : std::string();
}

void DoctorPage::showSelected()
{
    const std::string id = selectedId();
    const Finding* f = m_model->finding(m_model->rowOf(id));
    m_save->setEnabled(m_report != nullptr && !isRunning());
    if (!f) {
        m_try->setEnabled(false);
        m_detail->setText(m_report ? tr("Select a finding to see its evidence and its fix.")
                                   : tr("The findings appear here once the baseline is measured."));
        if (!isRunning() && m_report) {
            m_histogram->setReference(nullptr);
            m_histogram->setLive(histogramCurve(m_report->baselineHistogram, tr("baseline")),
                                 percentileMarkers(m_report->baselineHistogram));
            m_histogram->setTitle(tr("Baseline of CPU %1").arg(m_report->cpu));
        }
        return;
    }
    const bool held =
        m_held && std::find(m_held->findings().begin(), m_held->findings().end(), f->id) != m_held->findings().end();
    m_try->setEnabled(!isRunning() && f->fix.runtime && !held && !m_held);
    m_try->setToolTip(!f->fix.runtime ? tr("This fix takes effect at the next boot: the doctor does not try it")
                      : m_held        ? tr("Keep or revert the fix the banner names first")
                                      : tr("Measure again with this fix alone, alternated with the machine as it was; "
                                                  "if it helps, it stays applied until you keep or revert it"));
    QString html = QStringLiteral("<p><b>%1</b></p><p>%2</p>").arg(machineHtml(f->title), machineHtml(f->evidence));
    html += tr("<p><b>Fix</b> (%1): %2: %3 → %4</p>")
                .arg(f->fix.runtime ? tr("at run time, undone by the doctor") : tr("at the next boot"))
                .arg(machineHtml(f->fix.target), machineHtml(f->fix.from), machineHtml(f->fix.to));
    if (f->trial.verdict != Verdict::NotTried) {
        html += tr("<p><b>Trial: %1.</b> %2</p><p>Without the fix: %3<br>With it: %4</p>")
                    .arg(FindingsModel::verdictText(*f).toHtmlEscaped(), machineHtml(f->trial.why),
                         figuresLine(f->trial.before).toHtmlEscaped(), figuresLine(f->trial.after).toHtmlEscaped());
        if (held)
            html += tr("<p><b>Applied now</b>: the banner above the page keeps it or reverts it.</p>");
    } else if (!f->trial.why.empty()) {
        html += tr("<p>Not tried: %1</p>").arg(machineHtml(f->trial.why));
    }
    m_detail->setText(html);
    if (isRunning())
        return; // the live view is the run's
    if (f->trial.verdict != Verdict::NotTried) {
        m_referenceCurve = histogramCurve(f->trial.beforeHistogram, tr("without the fix"));
        m_histogram->setReference(&m_referenceCurve);
        m_histogram->setLive(histogramCurve(f->trial.afterHistogram, tr("with the fix")),
                             percentileMarkers(f->trial.afterHistogram));
        m_histogram->setTitle(tr("Trial: the phases with the fix against those without"));
    } else if (m_report) {
        m_histogram->setReference(nullptr);
        m_histogram->setLive(histogramCurve(m_report->baselineHistogram, tr("baseline")),
                             percentileMarkers(m_report->baselineHistogram));
        m_histogram->setTitle(tr("Baseline of CPU %1 (no trial of this finding yet)").arg(m_report->cpu));
    }
}

void DoctorPage::setHeld(std::unique_ptr<doctor::HeldFixes> held)
{
    if (held && !held->active())
        held.reset();
    if (!held && !m_held)
        return;
    if (held && m_held) {
        // Only one held set at a time (a run refuses to start while one is held); the new one replaces nothing.
        (void)held->revertAll();
        return;
    }
    m_held = std::move(held);
    showSelected();
    emit machineChangesChanged();
}

QStringList DoctorPage::heldChanges() const
{
    QStringList out;
    if (!m_held || !m_held->active())
        return out;
    for (const std::string& c : m_held->changes())
        out << screenText(printable(c));
    return out;
}

QStringList DoctorPage::machineChanges() const
{
    return heldChanges();
}

bool DoctorPage::revertMachineChanges()
{
    if (!m_held)
        return true;
    const Error e = m_held->revertAll();
    if (e) {
        // The journal stays: `rtscope doctor --undo` (or the guardian, when this process ends) puts the rest back.
        showError(tr("not everything could be put back: %1; run 'rtscope doctor --undo'")
                      .arg(QString::fromStdString(printable(e.message))));
    }
    m_held.reset();
    showSelected();
    emit machineChangesChanged();
    emit statusMessage(e ? tr("The doctor's changes: not all could be put back")
                         : tr("The doctor's changes are put back"));
    return !e;
}

bool DoctorPage::keepMachineChanges()
{
    if (!m_held)
        return true;
    if (const Error e = m_held->keepUntilReboot()) {
        showError(QString::fromStdString(printable(e.message)));
        return false;
    }
    m_held.reset();
    showSelected();
    emit machineChangesChanged();
    emit statusMessage(tr("The doctor's changes stay until reboot; 'rtscope doctor --undo' puts them back"));
    return true;
}

bool DoctorPage::saveReport(const QString& path, QString* error) const
{
    if (!m_report) {
        if (error)
            *error = tr("there is no report yet: run the doctor first");
        return false;
    }
    if (const Error e = writeFileAtomically(path.toStdString(), doctor::reportHtml(*m_report))) {
        if (error)
            *error = QString::fromStdString(e.message);
        return false;
    }
    return true;
}

void DoctorPage::saveViewSettings(QSettings& settings) const
{
    const DoctorPlan p = m_controls->plan();
    settings.setValue("cpu", p.cpu);
    settings.setValue("policy", int(p.policy));
    settings.setValue("priority", p.priority);
    settings.setValue("periodUs", int(p.periodNs / 1000));
    settings.setValue("load", int(p.load));
    settings.setValue("depth", int(p.depth));
    settings.setValue("tryFixes", p.tryFixes);
}

QStringList DoctorPage::restoreViewSettings(QSettings& settings)
{
    m_controls->clearProblems(); // what an earlier restore refused is not this one's
    if (!settings.contains("priority"))
        return {};
    DoctorPlan p = m_controls->plan();
    p.cpu = settings.value("cpu", p.cpu).toInt();
    p.policy = Policy(settings.value("policy", int(p.policy)).toInt());
    p.priority = settings.value("priority", p.priority).toInt();
    p.periodNs = int64_t(settings.value("periodUs", int(p.periodNs / 1000)).toInt()) * 1000;
    p.load = doctor::DoctorLoadKind(settings.value("load", int(p.load)).toInt());
    p.depth = doctor::DoctorDepth(settings.value("depth", int(p.depth)).toInt());
    p.tryFixes = settings.value("tryFixes", p.tryFixes).toBool();
    // The one judge: what the plan's validate() refuses is not shown, and the reason is.
    const std::vector<std::string> problems = p.validate(unpinnedTopology());
    QStringList out;
    for (const std::string& s : problems)
        out << QString::fromStdString(s);
    if (out.isEmpty())
        m_controls->setPlan(p);
    return out;
}

QString DoctorPage::explanation() const
{
    Explanation e;
    e.title = tr("The doctor: what makes this CPU's wake-ups late, and what would help");
    e.looking = tr("The doctor measures one CPU with the latency anatomy on (a tracefs session) and ranks what made "
                   "the worst wake-ups late: a thread or an interrupt on that CPU, a timer from elsewhere, the idle "
                   "states, the load balancer. Each row names the culprit, the share of the measured lateness it "
                   "explains, and the fix: the setting, its value now and the value that would help.");
    e.expect = tr("With <i>Try the run-time fixes</i> on, each fix is applied for a few seconds, then taken off, "
                  "several times (A B A B …); the histogram shows the phases <b>with</b> the fix against those "
                  "<b>without</b>, and a rank test of their p99s says whether it <b>helped</b>. Everything is put "
                  "back after each trial. <i>Try this fix</i> tries one finding and, if it helps, leaves it applied: "
                  "the banner above every page says so, with <i>Keep until reboot</i> and <i>Revert all</i>.");
    e.why = tr("A late wake-up is the sum of what ran before the measuring thread: the anatomy sees each piece in "
               "the kernel's own events, so the doctor can name it instead of guessing. A fix is only a guess until "
               "it is measured on this machine under this load, and a VM's p99 moves from second to second: "
               "alternating the phases cancels that drift. Every change is journalled first, and a guardian "
               "process puts it back even if the app is killed.");
    e.thisMachine << kernelSentence(measuredProbe()) << vmSentence(measuredProbe()) << rtSentence(measuredProbe());
    return explanationHtml(e);
}

} // namespace rtscope

#include "moc_doctor_page.cpp"
