#pragma once
// The noise lab (docs/experiments/noise.md): how much of a CPU a busy-polling thread never gets, and who took it.
// Live: per measured CPU a bar of where its time went (available, IRQ, softirq, thread, NMI, unexplained, or
// untraced), the histogram of every loop's length, the culprit table, and a heat strip of the share lost per 100 ms;
// above them the status lines say what could not be measured and why (no trace, steal time, the SMI counter, the
// osnoise tracer), what was dropped, and how many loops and gaps the figures rest on. A demo load makes one kind of
// noise appear on the measured CPU for a class (engine/experiments/noise/noise_demo_load.h).
#include "engine/experiments/noise/noise_demo_load.h"
#include "engine/experiments/noise/noise_experiment.h"
#include "ui/noise/noise_controls.h"
#include "ui/polled_page.h"

class QComboBox;
class QLabel;
class QTableView;

namespace rtscope {

class HeatStrip;
class HistogramChart;
class NoiseCpuBars;
class NoiseCulpritModel;
struct NoiseBarsData;

class NoisePage : public RegisteredExperimentPage<NoiseConfig, NoiseControls> {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 100;
    /// The heat strip shows the last this many seconds.
    static constexpr double kHeatSpanSec = 20;

    explicit NoisePage(const SystemProbe& probe, QWidget* parent = nullptr);
    ~NoisePage() override;

    QString name() const override { return QStringLiteral("noise"); }
    QString shortTitle() const override { return tr("Noise"); }
    QString explanation() const override;
    /// Stops the demo load and the run, both joined within the 100 ms budget (asked together, then joined).
    void stop() override;

    /// Draws @p snapshot as if the engine had published it (tests and the screenshot script's hand-built runs).
    void showSnapshot(const NoiseSnapshot& snapshot) { draw(snapshot); }

    /// The demo load chosen on the page; while a run is on, a change starts the new load at once.
    void setDemoKind(NoiseDemoKind kind);
    NoiseDemoKind demoKind() const;
    const NoiseDemoLoad& demoLoad() const { return m_demo; }

    NoiseControls* noiseControls() const { return m_controls; }
    NoiseCpuBars* bars() const { return m_bars; }
    HistogramChart* histogram() const { return m_histogram; }
    HeatStrip* heatStrip() const { return m_heat; }
    NoiseCulpritModel* culpritModel() const { return m_model; }
    QTableView* culpritTable() const { return m_table; }
    /// The status lines as plain text, one per line (what is missing and why, drops, sample counts).
    QString statusText() const;
    /// The demo load's line (what it does, what it did, where the disk's interrupts landed), as plain text.
    QString demoText() const;

    /// The bars' data for @p snapshot (one row per CPU).
    static NoiseBarsData barsData(const NoiseSnapshot& snapshot);
    /// The status lines for @p snapshot, as HTML lines (plain words; a warning in the warning colour).
    static QStringList statusLines(const NoiseSnapshot& snapshot);

protected:
    void restyle() override;
    void runStarting(const NoiseConfig& config) override;
    QString finishedMessage() const override { return tr("Noise run finished"); }
    QString runningStatus(const NoiseConfig& config) const override;
    QString startedMessage(const NoiseConfig& config) const override;
    void configChanged(const NoiseConfig& config) override;
    void draw(const NoiseSnapshot& snapshot) override;
    void saveViewSettings(QSettings& settings) const override;
    QStringList restoreViewSettings(QSettings& settings) override;

private:
    void startDemo();
    void showDemoStatus();
    void drawHistogram(const NoiseSnapshot& snapshot);
    void drawHeat(const NoiseSnapshot& snapshot);

    QLabel* m_status;
    QLabel* m_lossWarning;
    QComboBox* m_demoKind;
    QLabel* m_demoStatus;
    NoiseCpuBars* m_bars;
    HistogramChart* m_histogram;
    HeatStrip* m_heat;
    NoiseCulpritModel* m_model;
    QTableView* m_table;
    NoiseDemoLoad m_demo;
    QString m_demoError; ///< why the chosen demo load could not start
};

} // namespace rtscope
