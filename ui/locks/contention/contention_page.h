#pragma once
// The lock-contention lab (SCIENCE.md §5, first half): T workers take one lock over and over, each lock kind in
// turn with the same settings. Throughput per kind as sorted bars, context switches per acquisition, the wait
// histograms overlaid, and a table with every figure (wait percentiles, CPU per acquisition, fairness, spun
// and won vs slept).
#include "engine/experiments/contention_config.h"
#include "engine/rt/system_probe.h"
#include "ui/experiment_page.h"

#include <QPointer>

#include <memory>
#include <vector>

class QLabel;
class QSplitter;
class QTableView;
class QTimer;

namespace rtscope {

class ContentionChart;
class ContentionControls;
class ContentionExperiment;
class ContentionTableModel;
class FactTile;
struct ContentionSnapshot;

class ContentionPage : public ExperimentPage {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 40;

    explicit ContentionPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~ContentionPage() override;

    QString name() const override { return QStringLiteral("contention"); }
    QString shortTitle() const override { return tr("Locks"); }
    QWidget* controls() override;
    bool start() override;
    void stop() override;
    bool isRunning() const override;
    void setDisplayPaused(bool paused) override;
    bool displayPaused() const override { return m_paused; }
    void resetStatistics() override {}
    QString explanation() const override;
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    QWidget* snapshotWidget() override { return m_view; }
    std::vector<int> busyCpus() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    /// The config the controls describe.
    ContentionConfig config() const;
    /// Shows @p config in the controls; returns the problems (validate()'s sentences, or values the controls
    /// cannot show), and with problems nothing changes. Not while running.
    QStringList applyConfig(const ContentionConfig& config);
    QStringList problems() const;

    /// Pulls a snapshot and redraws if it is new (the refresh timer's slot; tests call it directly).
    void refreshNow();
    /// Draws @p snapshot in every view (the refresh's work; tests feed known snapshots through it).
    void showSnapshot(const ContentionSnapshot& snapshot);
    uint64_t framesDrawn() const { return m_frames; }

    ContentionExperiment& experiment() { return *m_experiment; }
    ContentionControls* contentionControls() const;
    ContentionTableModel* tableModel() const { return m_model; }
    ContentionChart* chart() const { return m_chart; }
    QString progressText() const;
    QString fastestText() const;
    QString setupText() const;
    QString noteText() const;

private:
    void controlsEdited();
    /// Before a run: every kind of @p config as pending.
    void showConfig(const ContentionConfig& config);
    void drawSetup(const ContentionConfig& config, const std::vector<int>& workerCpus);
    void showError(const QString& message);

    SystemProbe m_probe;
    std::unique_ptr<ContentionExperiment> m_experiment;
    ContentionConfig m_base; ///< the last valid config (keeps the kinds' order of a preset)
    QPointer<ContentionControls> m_controls;
    QWidget* m_view;
    QLabel* m_warning;
    FactTile* m_progress;
    FactTile* m_fastest;
    FactTile* m_setup;
    ContentionChart* m_chart;
    ContentionTableModel* m_model;
    QTableView* m_table;
    QLabel* m_note;
    QSplitter* m_splitter;
    QTimer* m_timer;

    std::vector<int> m_busy;
    std::shared_ptr<const ContentionSnapshot> m_lastDrawn;
    uint64_t m_lastGeneration = 0;
    uint64_t m_frames = 0;
    bool m_paused = false;
};

} // namespace rtscope
