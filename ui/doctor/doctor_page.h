#pragma once
// The Doctor page (docs/doctor.md, "The Doctor page"): `rtscope doctor` in the window. Start measures the chosen CPU
// with the anatomy on, lists what made its wake-ups late (ranked, with the evidence in numbers and the fix, from →
// to) and, when asked, tries each run-time fix alternated with the machine as it was. "Try this fix" runs one
// finding's trial live: the histogram shows the phases with the fix against those without, as they come in. A fix
// that helped stays applied, held by this window's doctor session (its journal and guardian): the main window's
// banner says so on every page, with "Keep until reboot" and "Revert all", and closing the window reverts it (the
// guardian does if the app dies). Nothing here changes the machine but the engine's DoctorSession.
#include "engine/doctor/doctor_run.h"
#include "ui/plot/plot_data.h"
#include "ui/polled_page.h"

#include <memory>
#include <optional>
#include <string>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace rtscope {

class DoctorControls;
class FactTile;
class FindingsModel;
class HistogramChart;

class DoctorPage : public PolledPage {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 250;

    /// @p guardian: how the doctor session starts its guardian (the app: its own binary's `doctor guardian`).
    DoctorPage(const SystemProbe& probe, doctor::GuardianLaunch guardian, QWidget* parent = nullptr);
    ~DoctorPage() override;

    QString name() const override { return QStringLiteral("doctor"); }
    QString shortTitle() const override { return tr("Doctor"); }
    /// Measures and diagnoses (and tries the fixes, when the panel says so) with the panel's plan.
    bool start() override;
    /// Stops the run within 100 ms; whatever a trial changed is put back. Fixes already held stay held.
    void stop() override;
    bool isRunning() const override;
    QString explanation() const override;
    std::vector<int> busyCpus() const override;
    QStringList problems() const override;
    void refreshNow() override;

    /// Runs the trial of the finding @p id alone (a run with DoctorPlan::only and hold): live, and held if it helps.
    bool tryFinding(const std::string& id);
    /// The changes held now, as a person reads them (empty when the machine is as it was).
    QStringList heldChanges() const;
    /// Puts every held change back (the banner's "Revert all", the window's close); true when none is left.
    bool revertMachineChanges() override;
    /// Leaves the held changes until reboot (`rtscope doctor --undo` restores them).
    bool keepMachineChanges() override;
    QStringList machineChanges() const override;

    /// The plan the panel (and the page's paths) make.
    doctor::DoctorPlan plan() const;
    /// Where the session's journal goes; tests point it at a directory of their own.
    void setJournalPaths(const doctor::JournalPaths& paths) { m_journal = paths; }
    /// The phase lengths of every run from now on (tests shorten them; the panel's depth otherwise).
    void setPhasePlan(const doctor::PhasePlan& phases) { m_phases = phases; }

    /// What is shown: the last run's report (null before the first run ends its baseline).
    std::shared_ptr<const doctor::DoctorReport> report() const { return m_report; }
    FindingsModel* findingsModel() const { return m_model; }
    QTableView* findingsTable() const { return m_table; }
    HistogramChart* histogramChart() const { return m_histogram; }
    QPushButton* tryButton() const { return m_try; }
    QLabel* progressLabel() const { return m_stage; }
    QLabel* detailLabel() const { return m_detail; }
    /// Writes the last report as the self-contained HTML page of `--report`.
    bool saveReport(const QString& path, QString* error = nullptr) const;

protected:
    void showProblems(const QStringList& problems) override;
    void showRunning(bool running, const QString& status) override;
    bool savesConfig() const override { return false; }
    void saveViewSettings(QSettings& settings) const override;
    QStringList restoreViewSettings(QSettings& settings) override;

private:
    bool startRun(doctor::DoctorPlan plan, const QString& what);
    void runEnded();
    void showReport(const doctor::DoctorReport& report);
    void showProgress(const doctor::DoctorProgress& progress);
    void showSelected();
    void setHeld(std::unique_ptr<doctor::HeldFixes> held);
    std::string selectedId() const;
    /// @p run as the page shows it: during and after a "Try", the findings shown before with that finding's trial.
    std::shared_ptr<const doctor::DoctorReport> shownReport(std::shared_ptr<const doctor::DoctorReport> run) const;
    QString stageText(doctor::DoctorStage stage, const doctor::DoctorReport* report) const;

    doctor::GuardianLaunch m_guardian;
    doctor::JournalPaths m_journal;
    std::optional<doctor::PhasePlan> m_phases;
    DoctorControls* m_controls;
    std::unique_ptr<doctor::DoctorRun> m_run;
    std::string m_trying; ///< the finding a "Try" run is for; empty for a whole run
    std::shared_ptr<const doctor::DoctorReport> m_report;
    std::shared_ptr<const doctor::DoctorReport> m_tryBase; ///< what was shown when "Try" began
    std::unique_ptr<doctor::HeldFixes> m_held;
    doctor::DoctorPlan m_runPlan;    ///< the running (or last) run's plan
    HistogramCurve m_referenceCurve; ///< what the chart's reference points at

    QLabel* m_stage;
    QProgressBar* m_progress;
    FactTile* m_baseline;
    FactTile* m_tail;
    FactTile* m_findings;
    FactTile* m_trials;
    FindingsModel* m_model;
    QTableView* m_table;
    QLabel* m_detail;
    HistogramChart* m_histogram;
    QPushButton* m_try;
    QPushButton* m_save;
};

} // namespace rtscope
