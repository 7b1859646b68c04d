#pragma once
// The live latency scope (docs/science.md, Latency under load): jitter histogram, timeline and statistics of a periodic
// thread competing with CPU hogs, with every control applied to the running experiment.
#include "engine/experiments/latency/latency_config.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/system_probe.h"
#include "ui/common/latency_source.h"
#include "ui/common/latency_view_data.h"
#include "ui/latency/recording_timeline.h"
#include "ui/polled_page.h"
#include "ui/widgets/latency_controls.h"

#include <memory>
#include <optional>

class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableView;

namespace rtscope {

class AnatomyPanel;
class HistogramChart;
class ReplayBanner;
class LatencyStatsModel;
class TimelineChart;

/// Every control edit reaches the running experiment; Reset restarts its statistics.
using LatencyPageBase =
    PolledExperimentPage<LatencyConfig, LatencySource, LatencyControls, latencyConfigFromJson,
                         PageCapabilities{.reconfigureWhileRunning = true, .resetStatistics = true}>;

class LatencyPage : public LatencyPageBase {
    Q_OBJECT
public:
    /// Snapshots are pulled at this interval, one frame per refresh of a 60 Hz screen, and drawn only when their
    /// generation changed. It was 25 ms (40 Hz) until a frame cost under 2 ms of GUI CPU (docs/BENCHMARKS.md).
    static constexpr int kRefreshMs = 16;
    /// In presentation mode: the same, one frame per refresh of a 60 Hz projector.
    static constexpr int kPresentationRefreshMs = 16;
    /// The anatomy panel's tables and view follow at 4 Hz: they are read, not watched.
    static constexpr int kAnatomyRefreshMs = 250;

    LatencyPage(std::unique_ptr<LatencySource> source, const SystemProbe& probe, QWidget* parent = nullptr);
    ~LatencyPage() override;

    QString shortTitle() const override { return tr("Latency"); }
    /// Leaves a replay first: Start means back to live.
    bool start() override;
    bool supportsReference() const override { return true; }
    bool holdAsReference() override;
    QString explanation() const override;
    void setPresenting(bool on) override;

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
    bool resetOnChange() const override;

    /// Pulls a snapshot and redraws if it is new; nothing while a replay is shown.
    void refreshNow() override;
    /// The drop/gap warning shown above the charts; empty when there is nothing to warn about.
    QString dataLossWarning() const;

    /// Where the last drawn frame's GUI-thread time went, in ns of the monotonic clock (read by
    /// bench/bench_ui_feed.cpp, docs/BENCHMARKS.md). Painting is not in it: Qt paints later, from the event loop.
    struct FrameTimes {
        int64_t pullNs = 0;      ///< the snapshot pulled and compared (refreshNow() before draw())
        int64_t histogramNs = 0; ///< the curve and markers from the histogram, HistogramChart::setLive
        int64_t timelineNs = 0;  ///< the timeline's points and markers, TimelineChart::setData
        int64_t tableNs = 0;     ///< the run's summary (percentiles), LatencyStatsModel::setLive
        int64_t drawNs = 0;      ///< the whole of draw(): the three above, the loss warning and the anatomy panel
    };
    const FrameTimes& lastFrameTimes() const { return m_frameTimes; }

    LatencySource& source() { return experiment(); }
    /// Measures through @p source from now on (a remote target's, ui/remote/: @p elsewhere), configs checked against
    /// @p cpus (its CPUs), which the controls then offer; returns the source it replaces. A run is stopped first; what
    /// the views show and a held reference stay.
    std::unique_ptr<LatencySource> replaceSource(std::unique_ptr<LatencySource> source, const CpuTopology& cpus,
                                                 bool elsewhere);
    LatencyControls* latencyControls() const { return m_controls; }
    /// The machine of the run started on a remote target (its source's measuredOn()), empty for this computer; the
    /// main window's banner names the target before any run.
    QString measuredMachine() const override;
    LatencyStatsModel* statsModel() const { return m_model; }
    HistogramChart* histogramChart() const { return m_histogram; }
    TimelineChart* timelineChart() const { return m_timeline; }
    /// "Why late?": the latency anatomy of a traced run (shown while the config traces or the run shown was traced).
    AnatomyPanel* anatomyPanel() const { return m_anatomy; }

signals:
    void replayChanged(bool replaying);

protected:
    void restyle() override;

    CpuTopology topology() const override { return m_cpus; }
    QString startedMessage(const LatencyConfig& config) const override;

    /// A worker that ended on its own (a failed wait): every thread joined, and its error is the last word.
    void runFinished() override
    {
        stop();
        showLatestError();
    }
    void runStarting(const LatencyConfig& config) override;
    void draw(const LatencySnapshot& snapshot) override;
    void configChanged(const LatencyConfig& config) override;
    void releaseReference() override;
    void saveViewSettings(QSettings& settings) const override;
    QStringList restoreViewSettings(QSettings& settings) override;

private:
    /// A replay of several CPUs: a curve and a row for each, the all-CPU histogram as the run's curve.
    void drawPerCpu(const LatencySnapshot& snapshot);
    std::vector<VerticalMarker> withReferenceMax(std::vector<VerticalMarker> markers) const;
    /// CPU @p cpu's whole-run timeline if the replay has it, else thread @p thread's from @p snapshot.
    std::vector<TimelinePoint> replayTimeline(const LatencySnapshot& snapshot, size_t thread) const;
    QString replayViewNote() const;
    /// The anatomy panel from @p snapshot: at most every kAnatomyRefreshMs while it runs, always otherwise.
    void drawAnatomy(const LatencySnapshot& snapshot);
    /// Shows or hides the anatomy panel, sharing the height between it and the charts.
    void setAnatomyVisible(bool visible);
    void timelineClicked(double tSec, double latencyUs);
    void histogramClicked(double latencyUs);

    CpuTopology m_cpus;
    bool m_measuresElsewhere = false; ///< the source measures another machine (replaceSource)
    HistogramChart* m_histogram;
    TimelineChart* m_timeline;
    LatencyStatsModel* m_model;
    QTableView* m_table;
    AnatomyPanel* m_anatomy;
    QSplitter* m_mainSplitter = nullptr;
    QSplitter* m_chartSplitter = nullptr;
    int64_t m_anatomyDrawnNs = 0; ///< CLOCK_MONOTONIC of the panel's last update
    QLabel* m_lossWarning;
    QCheckBox* m_logAxis;
    QSpinBox* m_window;
    QCheckBox* m_resetOnChange;
    QLabel* m_referenceLabel;
    QPushButton* m_clearReference;
    ReplayBanner* m_replayBanner;
    std::shared_ptr<const LatencySnapshot> m_replay;
    RecordingTimeline m_replayTimeline;
    int m_liveTimelineSeconds = 10; ///< the timeline window to restore when a replay ends
    FrameTimes m_frameTimes;

    std::optional<LatencyRunSummary> m_reference;
    HistogramCurve m_referenceCurve;
    VerticalMarker m_referenceMax;
};

} // namespace rtscope
