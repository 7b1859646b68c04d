#include "ui/gui_main.h"

#include "engine/presets/preset.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/waiter.h"
#include "ui/app/app_style.h"
#include "ui/app/file_menu.h"
#include "ui/app/gui_options.h"
#include "ui/app/page_snapshot.h"
#include "ui/app/presentation_mode.h"
#include "ui/app/preset_runner.h"
#include "ui/app/signal_watcher.h"
#include "ui/common/rtkit_client.h"
#include "ui/common/unpinned_topology.h"
#include "ui/compare/compare_window.h"
#include "ui/experiment_pages.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/remote/target_connection.h"

#include <QApplication>
#include <QEventLoop>
#include <QPixmap>
#include <QSettings>
#include <QTimer>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <pthread.h>

namespace rtscope {

namespace {

constexpr double kDefaultFontPoints = 12;

// Stop requests (kStopSignals: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) are read from a signalfd, which
// only works if no thread takes them the default way; SIGALRM and the POSIX timer's signal belong to the waiting
// thread (engine/rt/waiter.cpp). Every thread created later — Qt's and the engine's — inherits this mask.
void blockGuiSignals()
{
    sigset_t set = stopSignalSet();
    for (int s : {SIGALRM, waiterTimerSignal()})
        sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool haveDisplay()
{
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM");
}

void printProblems(const QStringList& problems)
{
    for (const QString& p : problems)
        std::fprintf(stderr, "rtscope: %s\n", qPrintable(p));
}

bool saveScreenshot(QWidget& window, const QString& file)
{
    // Its folder was checked at start-up (parseGuiOptions()) and is not created here.
    const QPixmap shot = window.grab();
    if (const Error e = writePng(shot, file)) {
        std::fprintf(stderr, "rtscope: cannot write the screenshot: %s\n", e.message.c_str());
        return false;
    }
    std::fprintf(stderr, "rtscope: screenshot %dx%d written to %s\n", shot.width(), shot.height(), qPrintable(file));
    return true;
}

} // namespace

int runGui(int argc, char** argv)
{
    blockGuiSignals();
    if (!haveDisplay()) {
        std::fprintf(stderr, "rtscope: no display (DISPLAY is not set). The desktop app needs one; for headless use "
                             "run a subcommand (rtscope --help), or set QT_QPA_PLATFORM=offscreen.\n");
        return 1;
    }
    QGuiApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("rtscope");
    QApplication::setApplicationName("rtscope");
    QApplication::setApplicationVersion(RTSCOPE_VERSION);
    QApplication::setDesktopFileName("io.github.rtscope.Rtscope");
    initUiResources();
    QApplication::setWindowIcon(uiIcon("rtscope"));

    GuiOptions options;
    QString help;
    if (const QStringList problems = parseGuiOptions(app.arguments(), options, &help); !problems.isEmpty()) {
        printProblems(problems);
        std::fprintf(stderr, "rtscope: see 'rtscope --help-gui' for the desktop app's options\n");
        return 2;
    }
    if (options.help) {
        std::printf("%s", qPrintable(help));
        return 0;
    }
    applyTheme(app, options.theme);
    applyFontSize(app, options.fontSize > 0 ? options.fontSize : kDefaultFontPoints);

    std::unique_ptr<QSettings> settings = options.settingsFile.isEmpty()
                                              ? std::make_unique<QSettings>()
                                              : std::make_unique<QSettings>(options.settingsFile, QSettings::IniFormat);
    SystemProbe probe = probeSystem();
    installRtkitGrant(probe); // where the kernel refuses real-time priority, rtkit may give it (docs/rt-privileges.md)
    MainWindow window(createExperimentPages(probe), probe, settings.get());
    if (options.windowSize.isValid())
        window.resize(options.windowSize);

    auto* latency = window.findPage<LatencyPage>();
    int startPage = latency ? window.pageIndex(latency->name()) : 0;
    if (!options.page.isEmpty()) {
        startPage = window.pageIndex(options.page);
        if (startPage < 0) {
            printProblems(
                {QString("page must be one of %1 (got '%2')").arg(window.pageNames().join(", "), options.page)});
            return 2;
        }
    }
    // --target / --target-cmd: the pages that run on a target measure it from here on, and their configs are checked
    // against the target's CPUs (docs/remote.md, Desktop app). The connection is made with the event loop running (its
    // "Connecting to …" dialog repaints and has Cancel); what follows needs its answer, so it is awaited here.
    if (const QString target = options.target.isEmpty() ? options.targetCmd : options.target; !target.isEmpty()) {
        const char* const flag = options.target.isEmpty() ? "target-cmd" : "target";
        QString error;
        bool connected = false;
        QEventLoop waiting;
        QObject::connect(&window, &MainWindow::targetConnectFinished, &waiting, [&](bool ok, const QString& why) {
            connected = ok;
            error = why;
            waiting.quit();
        });
        window.setTargetTokenFile(options.targetToken);
        if (!window.connectTarget(target, &error)) {
            printProblems({QString("%1: %2").arg(flag, error)});
            return 1;
        }
        waiting.exec();
        if (!connected) {
            printProblems({QString("%1: %2").arg(flag, error)});
            return 1;
        }
        // The page asked for, if it runs on a target too; else the Latency page.
        ExperimentPage* asked = options.page.isEmpty() ? nullptr : window.page(startPage);
        if (latency && (!asked || asked->measuredMachine().isEmpty()))
            startPage = window.pageIndex(latency->name());
    }
    if (options.hasLatencyConfig() && latency) {
        QStringList problems;
        const LatencyConfig c = latencyConfigFromOptions(options, latency->config(), problems);
        if (problems.isEmpty())
            problems = latency->applyConfig(c);
        if (!problems.isEmpty()) {
            printProblems(problems);
            return 2;
        }
    }

    if (!options.open.isEmpty()) {
        FileMenu* files = window.fileMenu();
        QString error = "open: there is no File menu";
        if (!files || !files->open(options.open, &error)) {
            printProblems({QString("open: %1").arg(error)});
            return 2;
        }
        if (options.start && latency && latency->isReplay() && window.page(startPage) == latency) {
            printProblems({"open: a recording is replayed, not measured; leave out --start (Start goes back to live)"});
            return 2;
        }
    }

    // --compare: the files are read off the GUI thread once the event loop runs; when none of them can be read there
    // is nothing to show, and the app ends with 2 as for any bad input.
    CompareWindow* compared = nullptr;
    if (!options.compare.isEmpty()) {
        FileMenu* files = window.fileMenu();
        QString error = "there is no File menu";
        if (!files || !(compared = files->compare(options.compare, &error))) {
            printProblems({QString("compare: %1").arg(error)});
            return 2;
        }
        QObject::connect(compared, &CompareWindow::loaded, &window, [](int readable, const QStringList& why) {
            printProblems(why);
            if (readable == 0) {
                printProblems({"compare: none of the files is a cyclictest or rtscope result"});
                QApplication::exit(2); // not close(): its quit-on-last-window would end the loop with 0
            }
        });
    }

    // --demo other-vs-fifo is the built-in preset fifo-vs-other, with the demo's phase length and hog count.
    std::optional<Preset> preset;
    if (!options.preset.isEmpty() || !options.demo.isEmpty()) {
        const CpuTopology cpus = unpinnedTopology();
        const PresetParseResult loaded =
            loadPreset(options.demo.isEmpty() ? options.preset.toStdString() : std::string("fifo-vs-other"), &cpus);
        if (!loaded.preset) {
            QStringList problems;
            for (const std::string& e : loaded.errors)
                problems << QString::fromStdString(e);
            printProblems(problems);
            return 2;
        }
        preset = std::move(loaded.preset);
        if (!options.demo.isEmpty()) {
            // The texts must name the hog count that really runs.
            const int hogs = options.hogs.value_or(16);
            preset->phaseSeconds = options.demoSeconds;
            for (nlohmann::json& phase : preset->phases)
                phase["hogs"] = hogs;
            preset->title = "FIFO vs OTHER under " + std::to_string(hogs) + " hogs";
            preset->labels = {"SCHED_OTHER, " + std::to_string(hogs) + " hogs",
                              "SCHED_FIFO 80, " + std::to_string(hogs) + " hogs"};
        }
    }

    SignalWatcher stopSignals(QList<int>(std::begin(kStopSignals), std::end(kStopSignals)));
    QObject::connect(&stopSignals, &SignalWatcher::received, &window, [&window](int sig) {
        std::fprintf(stderr, "rtscope: %s, stopping\n", strsignal(sig));
        window.close();
    });

    // A plain launch (no page, file, lesson, start or latency setting asked for) opens on the start page, or, for
    // a user who unticked "Show at start", on the page shown last (restoreSettings() chose it).
    const bool plainLaunch = options.page.isEmpty() && options.open.isEmpty() && options.compare.isEmpty() && !preset &&
                             !options.start && !options.hasLatencyConfig();
    if (plainLaunch && !window.showStartAtLaunch())
        startPage = window.currentIndex();
    // A first start fills the screen; a saved or given size is kept.
    if (!options.windowSize.isValid() && !settings->contains("window/geometry"))
        window.showMaximized();
    else
        window.show();

    auto takeScreenshot = [&window, &options, compared] {
        // With --compare the picture is of the compare window, which stands in front.
        QWidget& shown = compared ? static_cast<QWidget&>(*compared) : window;
        const bool ok = saveScreenshot(shown, options.screenshot);
        if (options.quitAfterScreenshot) {
            window.close();
            if (!ok)
                QApplication::exit(1);
        }
    };

    if (options.explain && !window.explainAction()->isChecked())
        window.explainAction()->trigger();
    if (options.presentation)
        window.presentationMode()->setActive(true);
    if (preset) {
        PresetRunner* runner = window.presetRunner();
        QObject::connect(runner, &PresetRunner::progress, &window,
                         [](const QString& what) { std::fprintf(stderr, "rtscope: %s\n", qPrintable(what)); });
        QObject::connect(runner, &PresetRunner::finished, &window, [&](bool ok) {
            if (!ok)
                printProblems(
                    {QString("preset %1: a step failed; the page says why").arg(QString::fromStdString(preset->id))});
            if (!options.screenshot.isEmpty())
                QTimer::singleShot(int(options.screenshotAfter * 1000), &window, takeScreenshot);
        });
        if (const QStringList problems = runner->start(*preset); !problems.isEmpty()) {
            printProblems(problems);
            return 2;
        }
    } else {
        window.setCurrentPage(startPage);
        if (plainLaunch && window.showStartAtLaunch())
            window.showStartPage();
        if (options.start) {
            QTimer::singleShot(0, &window, [&window, startPage] {
                ExperimentPage* page = window.page(startPage);
                window.setCurrentPage(startPage);
                if (!page->start())
                    std::fprintf(stderr, "rtscope: cannot start the %s experiment (the page says why)\n",
                                 qPrintable(page->name()));
                else
                    std::fprintf(stderr, "rtscope: %s experiment started\n", qPrintable(page->name()));
            });
        }
        if (!options.screenshot.isEmpty())
            QTimer::singleShot(int(options.screenshotAfter * 1000), &window, takeScreenshot);
    }
    if (options.quitAfter > 0)
        QTimer::singleShot(int(options.quitAfter * 1000), &window, &QWidget::close);

    const int rc = app.exec();
    window.stopAll();
    return rc;
}

} // namespace rtscope
