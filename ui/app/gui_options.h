#pragma once
// The desktop app's command line (options start with "--", so app/main.cpp hands them to the GUI): start at
// launch, set the latency config, scripted screenshots and the OTHER-vs-FIFO demo for talks.
#include "engine/experiments/latency/latency_config.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>

namespace rtscope {

struct GuiOptions {
    bool start = false;
    QString page;        ///< the page to show first, by name ("latency", "starvation", …); --start starts it
    QString configJson;  ///< a file holding a latency config (the JSON of presets and --json output)
    QString open;        ///< a recording to replay, or cyclictest results to hold as reference (File > Open)
    QStringList compare; ///< --compare FILE…: results shown side by side in the compare window (File > Compare)
    QString policy;
    QString period;
    QString waiter;
    std::optional<int> priority;
    std::optional<int> hogs;
    std::optional<int> cpu;
    std::optional<int> hogCpu;
    bool trace = false;  ///< --trace: "Explain spikes (kernel tracing)" ticked (docs/experiments/anatomy.md)
    QString target;      ///< --target ssh://… or tcp://…: measure the machine that agent runs on (docs/remote.md)
    QString targetCmd;   ///< --target-cmd: measure the machine this command's agent runs on (docs/remote.md)
    QString targetToken; ///< --target-token: a tcp:// agent's token file

    QString screenshot;
    double screenshotAfter = 3.0;
    bool quitAfterScreenshot = false;
    double quitAfter = 0; ///< close the window after this many seconds (0 = never)

    QString demo;              ///< "other-vs-fifo": the built-in preset fifo-vs-other with --hogs and --demo-seconds
    double demoSeconds = 4;    ///< per phase of the demo
    QString preset;            ///< a built-in preset's name or a preset file, played at launch
    bool presentation = false; ///< start in presentation mode (F11)
    bool explain = false;      ///< open the "What am I seeing?" pane (F1)

    QString settingsFile; ///< an INI file instead of the user's settings (reproducible screenshots, tests)
    QString theme;        ///< "", "light", "dark"
    double fontSize = 0;  ///< points; 0 = the default for projection
    QSize windowSize;     ///< invalid = the saved or default size
    bool help = false;

    /// Whether any latency setting was given on the command line.
    bool hasLatencyConfig() const;
};

/// Parses @p arguments (argv[0] first, Qt's own options already removed by QApplication). Returns the
/// problems as sentences naming the option; @p helpText receives the option list.
QStringList parseGuiOptions(const QStringList& arguments, GuiOptions& options, QString* helpText = nullptr);

/// @p base with --config-json, then the flags, applied. Name and unit errors are reported; ranges are
/// validate()'s job.
LatencyConfig latencyConfigFromOptions(const GuiOptions& options, const LatencyConfig& base, QStringList& problems);

} // namespace rtscope
