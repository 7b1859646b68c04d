#pragma once
// The priority-inversion lab (SCIENCE.md §5, Mars Pathfinder): three SCHED_FIFO threads on one CPU share a lock
// (mutex, pi or ceiling). Big figures for the high thread's wait and the inversion, a timeline of who ran when
// (three lanes from the threads' own timestamps), and a table. The comparison is the point: a finished run
// (a plain mutex) is held as a frozen reference — its lanes above the live ones, its row above the live row.
#include "engine/experiments/inversion_config.h"
#include "engine/rt/system_probe.h"
#include "ui/experiment_page.h"

#include <QPointer>

#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;
class QTimer;

namespace rtscope {

class FactTile;
class InversionControls;
class InversionExperiment;
class InversionTableModel;
class InversionTimeline;
struct InversionSnapshot;

class InversionPage : public ExperimentPage {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 40;
    static constexpr int kDefaultPeriodsShown = 2;
    static constexpr int kMaxPeriodsShown = 10;

    explicit InversionPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~InversionPage() override;

    QString name() const override { return QStringLiteral("inversion"); }
    QString shortTitle() const override { return tr("Inversion"); }
    QWidget* controls() override;
    bool start() override;
    void stop() override;
    bool isRunning() const override;
    void setDisplayPaused(bool paused) override;
    bool displayPaused() const override { return m_paused; }
    void resetStatistics() override {}
    bool supportsReference() const override { return true; }
    bool holdAsReference() override;
    void clearReference() override;
    bool hasReference() const override { return m_reference != nullptr; }
    QString explanation() const override;
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    QWidget* snapshotWidget() override { return m_view; }
    std::vector<int> busyCpus() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    InversionConfig config() const;
    /// Shows @p config in the controls; returns the problems (validate()'s sentences, or values the controls
    /// cannot show), and with problems nothing changes. Not while running.
    QStringList applyConfig(const InversionConfig& config);
    QStringList problems() const;

    /// How many complete periods the timelines show (1 … kMaxPeriodsShown).
    void setPeriodsShown(int periods);
    int periodsShown() const;

    /// Pulls a snapshot and redraws if it is new (the refresh timer's slot; tests call it directly).
    void refreshNow();
    /// Draws @p snapshot as the live run (tests feed known snapshots through it).
    void showLive(std::shared_ptr<const InversionSnapshot> snapshot);
    /// Freezes @p snapshot as the reference (what holdAsReference does with the current run).
    void setReference(std::shared_ptr<const InversionSnapshot> snapshot);
    uint64_t framesDrawn() const { return m_frames; }

    InversionExperiment& experiment() { return *m_experiment; }
    InversionControls* inversionControls() const;
    InversionTableModel* tableModel() const { return m_model; }
    InversionTimeline* liveTimeline() const { return m_liveTimeline; }
    InversionTimeline* referenceTimeline() const { return m_refTimeline; }
    QString waitText() const;
    QString inversionText() const;
    QString missedText() const;
    QString watchdogText() const;

private:
    void controlsEdited();
    void finishRun();
    void stopRun(bool cancelFollowUp);
    void drawTiles();
    void drawAlerts();
    void redrawTimelines();
    void showError(const QString& message);
    QString runTitle(const InversionSnapshot& snapshot, bool reference) const;

    SystemProbe m_probe;
    std::unique_ptr<InversionExperiment> m_experiment;
    InversionConfig m_base;
    QPointer<InversionControls> m_controls;
    QWidget* m_view;
    QLabel* m_watchdogBanner;
    QLabel* m_warning;
    FactTile* m_lockTile;
    FactTile* m_waitTile;
    FactTile* m_inversionTile;
    FactTile* m_missedTile;
    QSpinBox* m_periods;
    QPushButton* m_clearReference;
    InversionTimeline* m_refTimeline;
    InversionTimeline* m_liveTimeline;
    InversionTableModel* m_model;
    QTableView* m_table;
    QTimer* m_timer;

    std::vector<int> m_busy;
    std::shared_ptr<const InversionSnapshot> m_live;      ///< shown as the live run (null: nothing yet)
    std::shared_ptr<const InversionSnapshot> m_reference; ///< frozen
    std::shared_ptr<const InversionSnapshot> m_lastPulled;
    uint64_t m_lastGeneration = 0;
    uint64_t m_frames = 0;
    bool m_paused = false;
    std::optional<LockKind> m_followUp; ///< the lock of the run to start when this one ends by itself
};

} // namespace rtscope
