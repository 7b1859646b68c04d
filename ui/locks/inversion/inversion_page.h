#pragma once
// The priority-inversion lab (docs/experiments/inversion.md, Mars Pathfinder): three SCHED_FIFO threads on one CPU
// share a lock (mutex, pi or ceiling). Big figures for the high thread's wait and the inversion, a timeline of who ran
// when (three lanes from the threads' own timestamps), and a table. The comparison is the point: a finished run
// (a plain mutex) is held as a frozen reference — its lanes above the live ones, its row above the live row.
#include "engine/experiments/locks/inversion_experiment.h"
#include "ui/common/fact_tile.h"
#include "ui/locks/inversion/inversion_controls.h"
#include "ui/polled_page.h"

#include <optional>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace rtscope {

class InversionTableModel;
class InversionTimeline;

class InversionPage : public RegisteredExperimentPage<InversionConfig, InversionControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 40;
    static constexpr int kDefaultPeriodsShown = 2;
    static constexpr int kMaxPeriodsShown = 10;

    explicit InversionPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~InversionPage() override;

    QString shortTitle() const override { return tr("Inversion"); }
    /// Stops the run, and the comparison run it would have started.
    void stop() override;
    bool supportsReference() const override { return true; }
    bool holdAsReference() override;
    void clearReference() override;
    bool hasReference() const override { return m_reference != nullptr; }
    QString explanation() const override;
    QWidget* snapshotWidget() override { return m_view; }

    /// How many complete periods the timelines show (1 … kMaxPeriodsShown).
    void setPeriodsShown(int periods);
    int periodsShown() const;

    /// Draws @p snapshot as the live run (tests feed known snapshots through it).
    void showLive(std::shared_ptr<const InversionSnapshot> snapshot);
    /// Freezes @p snapshot as the reference (what holdAsReference does with the current run).
    void setReference(std::shared_ptr<const InversionSnapshot> snapshot);

    InversionControls* inversionControls() const { return m_controls; }
    InversionTableModel* tableModel() const { return m_model; }
    InversionTimeline* liveTimeline() const { return m_liveTimeline; }
    InversionTimeline* referenceTimeline() const { return m_refTimeline; }
    QString waitText() const { return m_waitTile->text(); }
    QString inversionText() const { return m_inversionTile->text(); }
    QString missedText() const { return m_missedTile->text(); }
    QString watchdogText() const;

protected:
    void prepareStart(const InversionConfig& config) override;
    void runStarting(const InversionConfig& config) override;
    /// The comparison with one Start: the run becomes the reference and the same setup runs with the other lock.
    void runFinished() override;
    QString finishedMessage() const override { return tr("Inversion run finished"); }
    void configChanged(const InversionConfig& config) override;
    void draw(const InversionSnapshot& snapshot) override;
    void saveViewSettings(QSettings& settings) const override;
    QStringList restoreViewSettings(QSettings& settings) override;

private:
    void drawTiles();
    void drawAlerts();
    void redrawTimelines();
    QString runTitle(const InversionSnapshot& snapshot, bool reference) const;

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

    std::shared_ptr<const InversionSnapshot> m_live;      ///< shown as the live run (null: nothing yet)
    std::shared_ptr<const InversionSnapshot> m_reference; ///< frozen
    std::optional<LockKind> m_followUp;                   ///< the lock of the run to start when this one ends by itself
};

} // namespace rtscope
