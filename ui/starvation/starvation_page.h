#pragma once
// The starvation lab (SCIENCE.md §2): a SCHED_FIFO/RR spinner that never blocks leaves the SCHED_OTHER counters
// on its CPU with zero progress, except in the kernel's short safety-net windows. Big live rates per counter,
// the progress lines with the bursts shaded and the windows marked, a table of progress per burst, and the
// kernel's throttling settings next to what was measured.
#include "engine/experiments/starvation_config.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/throttle_settings.h"
#include "ui/experiment_page.h"

#include <QPointer>

#include <memory>
#include <vector>

class QFrame;
class QHBoxLayout;
class QLabel;
class QSplitter;
class QTableView;
class QTimer;

namespace rtscope {

class BurstTableModel;
class StarvationChart;
class StarvationControls;
class StarvationExperiment;
struct StarvationSnapshot;

class StarvationPage : public ExperimentPage {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 25;
    /// A longer run scrolls: the chart shows the last this many seconds.
    static constexpr double kChartSeconds = 30;

    explicit StarvationPage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~StarvationPage() override;

    QString name() const override { return QStringLiteral("starvation"); }
    QString shortTitle() const override { return tr("Starvation"); }
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
    std::vector<int> busyCpus() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    /// The config the controls describe.
    StarvationConfig config() const;
    /// Shows @p config in the controls; returns the problems (validate()'s sentences, or values the controls
    /// cannot show), with problems nothing changes. Not while running.
    QStringList applyConfig(const StarvationConfig& config);
    QStringList problems() const;

    /// Pulls a snapshot and redraws if it is new (the refresh timer's slot; tests call it directly).
    void refreshNow();
    uint64_t framesDrawn() const { return m_frames; }

    StarvationExperiment& experiment() { return *m_experiment; }
    StarvationControls* starvationControls() const;
    BurstTableModel* burstModel() const { return m_model; }
    StarvationChart* chart() const { return m_chart; }
    /// The big numbers, one per counter thread, as shown.
    QStringList liveCounterTexts() const;
    QString kernelLine() const;
    QString watchdogText() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void controlsEdited();
    void draw(const StarvationSnapshot& snapshot);
    void drawCounters(const StarvationSnapshot& snapshot);
    void drawChart(const StarvationSnapshot& snapshot);
    void drawKernelLine(const StarvationSnapshot& snapshot);
    void drawAlerts(const StarvationSnapshot& snapshot);
    void showError(const QString& message);
    void restyle();

    struct Tile {
        QFrame* frame = nullptr;
        QLabel* title = nullptr;
        QLabel* value = nullptr;
        QLabel* detail = nullptr;
    };
    Tile makeTile();

    SystemProbe m_probe;
    std::unique_ptr<StarvationExperiment> m_experiment;
    StarvationConfig m_base; ///< fields without a control (reserved CPUs, sampler priority)
    ThrottleSettings m_kernel;
    QPointer<StarvationControls> m_controls;
    QLabel* m_watchdogBanner;
    QLabel* m_lossWarning;
    Tile m_spinnerTile;
    std::vector<Tile> m_tiles;
    QHBoxLayout* m_tileLayout;
    QLabel* m_kernelLine;
    StarvationChart* m_chart;
    BurstTableModel* m_model;
    QTableView* m_table;
    QSplitter* m_splitter;
    QTimer* m_timer;

    std::shared_ptr<const StarvationSnapshot> m_lastDrawn;
    uint64_t m_lastGeneration = 0;
    uint64_t m_frames = 0;
    bool m_paused = false;
};

} // namespace rtscope
