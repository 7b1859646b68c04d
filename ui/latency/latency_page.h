#pragma once
// The live latency scope (docs/science.md, Latency under load): jitter histogram, timeline and statistics of a periodic
// thread competing with CPU hogs, with every control applied to the running experiment.
#include "engine/experiments/latency_config.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "ui/common/experiment_name.h"
#include "ui/common/latency_view_data.h"
#include "ui/experiment_page.h"
#include "ui/latency/recording_timeline.h"

#include <QPointer>

#include <memory>
#include <optional>

class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableView;
class QTimer;

namespace rtscope {

class HistogramChart;
class LatencyControls;
class ReplayBanner;
class LatencySource;
class LatencyStatsModel;
class TimelineChart;
struct LatencySnapshot;

class LatencyPage : public ExperimentPage {
    Q_OBJECT
public:
    /// Snapshots are pulled at this interval (40 Hz) and drawn only when their generation changed.
    static constexpr int kRefreshMs = 25;

    LatencyPage(std::unique_ptr<LatencySource> source, const SystemProbe& probe, QWidget* parent = nullptr);
    ~LatencyPage() override;

    QString name() const override { return experimentName<LatencyConfig>(); }
    QString shortTitle() const override { return tr("Latency"); }
    QWidget* controls() override;
    bool start() override;
    void stop() override;
    bool isRunning() const override;
    void setDisplayPaused(bool paused) override;
    bool displayPaused() const override { return m_paused; }
    void resetStatistics() override;
    bool supportsReference() const override { return true; }
    bool holdAsReference() override;
    void clearReference() override;
    bool hasReference() const override { return m_reference.has_value(); }
    QString explanation() const override;
    QStringList applyConfigJson(const nlohmann::json& config) override;
    nlohmann::json configJson() const override;
    std::vector<int> busyCpus() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    /// The config the controls describe.
    LatencyConfig config() const;
    /// Shows @p config in the controls and, when running, applies it. Returns the problems (validate()'s
    /// sentences, or values outside the window's ranges); with problems nothing changes.
    QStringList applyConfig(const LatencyConfig& config);
    /// Problems shown next to the controls right now.
    QStringList problems() const;

    /// Shows @p run, replayed from a recording, in the views instead of the live run (which is stopped), under
    /// @p banner. Every measured CPU gets a row in the table, a histogram curve and a timeline curve; the timeline
    /// spans @p wholeRun (the whole recording) when it was read, else what the snapshot carries, and a line under
    /// @p banner says which. Start, or the banner's "Back to live", returns to the live views.
    void showReplay(std::shared_ptr<const LatencySnapshot> run, const QString& banner, RecordingTimeline wholeRun = {});
    void leaveReplay();
    bool isReplay() const { return m_replay != nullptr; }
    QString replayBanner() const;
    /// The run the views show: the replayed one, else the live source's latest snapshot (null before any).
    std::shared_ptr<const LatencySnapshot> shownRun() const;
    /// Holds a result from elsewhere (an imported cyclictest file) as the reference, like holdAsReference().
    void holdReference(const LatencyRunSummary& summary, const HistogramCurve& curve, const VerticalMarker& max,
                       const QString& label);

    void setLogLatencyAxis(bool log);
    bool logLatencyAxis() const;
    void setTimelineSeconds(int seconds);
    int timelineSeconds() const;
    /// Reset statistics after every live change, so the histogram shows only the config named in the table.
    void setResetOnChange(bool on);
    bool resetOnChange() const;

    /// Pulls a snapshot and redraws if it is new (the refresh timer's slot; tests call it directly).
    void refreshNow();
    uint64_t framesDrawn() const { return m_frames; }
    /// The drop/gap warning shown above the charts; empty when there is nothing to warn about.
    QString dataLossWarning() const;

    LatencySource& source() { return *m_source; }
    LatencyControls* latencyControls() const;
    LatencyStatsModel* statsModel() const { return m_model; }
    HistogramChart* histogramChart() const { return m_histogram; }
    TimelineChart* timelineChart() const { return m_timeline; }

signals:
    void replayChanged(bool replaying);

protected:
    void changeEvent(QEvent* event) override;

private:
    void styleTable();
    void controlsEdited();
    bool applyRunning(const LatencyConfig& config);
    void runEnded(); ///< the views and controls after the run stopped (by Stop, or by the engine itself)
    void draw(const LatencySnapshot& snapshot);
    /// A replay of several CPUs: a curve and a row for each, the all-CPU histogram as the run's curve.
    void drawPerCpu(const LatencySnapshot& snapshot);
    std::vector<VerticalMarker> withReferenceMax(std::vector<VerticalMarker> markers) const;
    /// CPU @p cpu's whole-run timeline if the replay has it, else thread @p thread's from @p snapshot.
    std::vector<TimelinePoint> replayTimeline(const LatencySnapshot& snapshot, size_t thread) const;
    QString replayViewNote() const;
    void showError(const QString& message);
    void updateRunStatus();

    std::unique_ptr<LatencySource> m_source;
    SystemProbe m_probe;
    CpuTopology m_cpus;
    LatencyConfig m_base; ///< fields without a control (nice, hog policy, …) and the last applied config
    QPointer<LatencyControls> m_controls;
    HistogramChart* m_histogram;
    TimelineChart* m_timeline;
    LatencyStatsModel* m_model;
    QTableView* m_table;
    QSplitter* m_chartSplitter;
    QSplitter* m_mainSplitter;
    QLabel* m_lossWarning;
    QCheckBox* m_logAxis;
    QSpinBox* m_window;
    QCheckBox* m_resetOnChange;
    QLabel* m_referenceLabel;
    QPushButton* m_clearReference;
    QTimer* m_timer;
    ReplayBanner* m_replayBanner;
    std::shared_ptr<const LatencySnapshot> m_replay;
    RecordingTimeline m_replayTimeline;
    int m_liveTimelineSeconds = 10; ///< the timeline window to restore when a replay ends

    std::shared_ptr<const LatencySnapshot> m_lastDrawn;
    uint64_t m_lastGeneration = 0;
    uint64_t m_frames = 0;
    bool m_paused = false;
    std::optional<LatencyRunSummary> m_reference;
    HistogramCurve m_referenceCurve;
    VerticalMarker m_referenceMax;
};

} // namespace rtscope
