// The desktop app fed fast: the main window with the latency experiment at 20 kHz and 50 kHz (50 µs and 20 µs
// periods) plus CPU hogs, in the normal window and in presentation mode (under Xvfb through scripts/bench, or
// offscreen). For each of these runs it prints the frames per second the views achieved, the GUI thread's CPU share,
// the samples lost (must be 0, also across a deliberate one-second stall of the GUI thread), and where a frame's time
// goes: the snapshot pulled, each chart's data update, the statistics table, and the painting of each view (p50 and
// p99 per frame, in ms). The figures and what changed them are in docs/BENCHMARKS.md.
// Peers, for ratios: the floor the platform costs (an empty window of the same size repainted at the same refresh
// interval, no run), and the same experiment headless (no window) for the same time, whose latency tail shows whether
// drawing disturbs the measurement.
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"
#include "ui/app/app_style.h"
#include "ui/app/presentation_mode.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/latency_source.h"
#include "ui/experiment_pages.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/timeline_chart.h"

#include <QApplication>
#include <QEventLoop>
#include <QPaintEvent>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace rtscope;

namespace {

struct Options {
    double seconds = 20;
    double warmup = 3;
    double floorSeconds = 5;
    int hogs = 4;
    std::vector<int64_t> periodsNs{50'000, 20'000};
    std::vector<bool> presentation{false, true};
    std::string policy; // default: fifo when permitted, else other
    int stallMs = 1000;
    bool peer = true;
};

int64_t residentBytes()
{
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return int64_t(resident) * sysconf(_SC_PAGESIZE);
}

double mib(int64_t bytes)
{
    return double(bytes) / (1024.0 * 1024.0);
}

double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

/// Durations of one kind, one per frame (or per paint), in ns.
struct Durations {
    std::vector<int64_t> ns;
    void add(int64_t v) { ns.push_back(v); }
    double percentileMs(double p) const
    {
        if (ns.empty())
            return 0;
        std::vector<int64_t> v = ns;
        const size_t k = std::min(v.size() - 1, size_t(p / 100.0 * double(v.size())));
        std::nth_element(v.begin(), v.begin() + long(k), v.end());
        return double(v[k]) / 1e6;
    }
    double sumMs() const
    {
        int64_t s = 0;
        for (int64_t v : ns)
            s += v;
        return double(s) / 1e6;
    }
};

/// Where the GUI thread's time goes: the page's own timing of each frame (LatencyPage::lastFrameTimes) and every
/// paint event, timed around its delivery and sorted by the widget it went to. Qt paints from the event loop after
/// the page updated its charts, so painting is only visible here.
struct Profile {
    Durations pull, histogram, timeline, table, draw;
    Durations paintHistogram, paintTimeline, paintTable, paintOther, repaint;
    void clear() { *this = Profile{}; }
};

class BenchApp : public QApplication {
public:
    using QApplication::QApplication;

    bool notify(QObject* receiver, QEvent* event) override
    {
        if (!recording)
            return QApplication::notify(receiver, event);
        const QEvent::Type type = event->type();
        // The receiver may be gone after the event (a deferred delete): its name is read before.
        const bool trace =
            traceEvents > 0 && (type == QEvent::Paint || type == QEvent::UpdateRequest || type == QEvent::MetaCall ||
                                type == QEvent::LayoutRequest || type == QEvent::Timer);
        QString name =
            trace ? QString("%1 %2").arg(receiver->metaObject()->className(), receiver->objectName()) : QString();
        if (trace && type == QEvent::Paint) {
            const QRect r = static_cast<QPaintEvent*>(event)->region().boundingRect();
            name += QString(" [%1x%2+%3+%4, %5 rects]")
                        .arg(r.width())
                        .arg(r.height())
                        .arg(r.x())
                        .arg(r.y())
                        .arg(static_cast<QPaintEvent*>(event)->region().rectCount());
        }
        const int64_t begin = nowNs();
        const bool done = QApplication::notify(receiver, event);
        const int64_t took = nowNs() - begin;
        if (trace) {
            --traceEvents; // BENCH_UI_TRACE=N: the first N events of these kinds, for a look at one frame's order
            std::printf("trace %lld us: event %d to %s, %.3f ms\n", (long long)(begin / 1000 % 10'000'000), int(type),
                        qPrintable(name), double(took) / 1e6);
        }
        if (type == QEvent::Paint) {
            if (receiver == histogramView)
                profile.paintHistogram.add(took);
            else if (receiver == timelineView)
                profile.paintTimeline.add(took);
            else if (receiver == tableView)
                profile.paintTable.add(took);
            else
                profile.paintOther.add(took);
        } else if (type == QEvent::UpdateRequest && receiver == window) {
            profile.repaint.add(took); // the window's backing store: every paint above, then the flush to the screen
        }
        if (page && page->framesDrawn() != seenFrames) {
            seenFrames = page->framesDrawn();
            const LatencyPage::FrameTimes& f = page->lastFrameTimes();
            profile.pull.add(f.pullNs);
            profile.histogram.add(f.histogramNs);
            profile.timeline.add(f.timelineNs);
            profile.table.add(f.tableNs);
            profile.draw.add(f.drawNs);
        }
        return done;
    }

    bool recording = false;
    int traceEvents = std::getenv("BENCH_UI_TRACE") ? std::atoi(std::getenv("BENCH_UI_TRACE")) : 0;
    Profile profile;
    LatencyPage* page = nullptr;
    QObject* window = nullptr;
    QObject* histogramView = nullptr;
    QObject* timelineView = nullptr;
    QObject* tableView = nullptr;
    uint64_t seenFrames = 0;
};

/// Runs the event loop for @p ms.
void runFor(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

struct Floor {
    int refreshMs = 0;
    double cpuPercent = 0;
    double fps = 0;
    double repaintP50Ms = 0;
    double repaintP99Ms = 0;
};

/// The platform's floor: an empty top-level window of the main window's size, repainted every @p refreshMs with no
/// run, for @p seconds.
Floor measureFloor(BenchApp& app, QSize size, int refreshMs, double seconds)
{
    QWidget empty;
    empty.setAutoFillBackground(true);
    empty.resize(size);
    empty.show();
    runFor(300);
    QTimer timer;
    timer.setTimerType(Qt::PreciseTimer);
    timer.setInterval(refreshMs);
    QObject::connect(&timer, &QTimer::timeout, &empty, [&empty] { empty.update(); });
    app.profile.clear();
    const int traceEvents = std::exchange(app.traceEvents, 0);
    QObject* window = app.window;
    app.window = &empty;
    app.recording = true;
    const int64_t t0 = nowNs(), cpu0 = threadCpuNs();
    timer.start();
    runFor(int(seconds * 1000));
    const int64_t t1 = nowNs(), cpu1 = threadCpuNs();
    app.recording = false;
    app.window = window;
    app.traceEvents = traceEvents;
    Floor f;
    f.refreshMs = refreshMs;
    f.cpuPercent = 100.0 * double(cpu1 - cpu0) / double(t1 - t0);
    f.fps = double(app.profile.repaint.ns.size()) * 1e9 / double(t1 - t0);
    f.repaintP50Ms = app.profile.repaint.percentileMs(50);
    f.repaintP99Ms = app.profile.repaint.percentileMs(99);
    return f;
}

struct Tail {
    uint64_t samples = 0;
    uint64_t lost = 0;
    int64_t p50 = 0;
    int64_t p99 = 0;
    int64_t p999 = 0;
    int64_t max = 0;
};

Tail tailOf(const LatencyThreadStats& t)
{
    Tail out;
    out.samples = t.samples;
    out.lost = t.drops + t.seqGaps;
    out.p50 = t.histogram.percentile(50);
    out.p99 = t.histogram.percentile(99);
    out.p999 = t.histogram.percentile(99.9);
    out.max = t.histogram.max();
    return out;
}

// The headless peer: the engine alone, the GUI thread asleep, for the same time and with the same warm-up discarded.
Tail runHeadless(const LatencyConfig& c, const Options& o)
{
    LatencyExperiment exp;
    if (Error e = exp.start(c, CpuTopology::current())) {
        std::fprintf(stderr, "bench_ui_feed: headless peer: %s\n", e.message.c_str());
        return {};
    }
    usleep(unsigned(o.warmup * 1e6));
    const LatencyThreadStats before = exp.snapshot()->threads.front();
    exp.resetStatistics();
    usleep(unsigned((o.seconds - o.warmup) * 1e6));
    exp.stop();
    Tail t = tailOf(exp.snapshot()->threads.front());
    t.lost += before.drops + before.seqGaps; // the whole run counts for losses
    return t;
}

struct Result {
    std::string label;
    int refreshMs = 0;
    double fps = 0;
    double worstFps = 0;
    double cpuPercent = 0;
    uint64_t lostWarmup = 0;
    LatencyThreadStats stats;
    Profile profile;
    double cpuMsPerFrame = 0; ///< the GUI thread's CPU time per frame drawn
    double rssWarmMib = 0;
    double rssEndMib = 0;
};

Result runWindow(BenchApp& app, MainWindow& window, LatencyPage* page, bool presentation, const Options& o)
{
    window.presentationMode()->setActive(presentation);
    runFor(500); // the new layout settles
    Result r;
    if (!page->start()) {
        std::fprintf(stderr, "bench_ui_feed: cannot start: %s\n", qPrintable(page->problems().join("; ")));
        std::exit(1);
    }
    r.refreshMs = page->refreshIntervalMs();
    runFor(int(o.warmup * 1000));
    // Like the peer, the figures count from the end of the warm-up; losses count for the whole run.
    if (auto snap = page->source().snapshot())
        r.lostWarmup = snap->threads.front().drops + snap->threads.front().seqGaps;
    page->resetStatistics();
    r.rssWarmMib = mib(residentBytes());

    app.profile.clear();
    app.seenFrames = page->framesDrawn();
    app.recording = true;
    const int64_t t0 = nowNs(), cpu0 = threadCpuNs();
    const uint64_t frames0 = page->framesDrawn();
    int64_t stalledNs = 0;
    double worst = 1e9;
    const int windows = std::max(1, int(o.seconds - o.warmup));
    for (int i = 0; i < windows; ++i) {
        if (o.stallMs > 0 && i == windows / 2) {
            // A stalled UI (a long resize, a modal drag) must not lose samples: the collector drains, not the UI.
            // The stall is left out of the frame rate and the CPU share.
            const int64_t s = nowNs();
            usleep(unsigned(o.stallMs) * 1000);
            stalledNs += nowNs() - s;
        }
        const int64_t w0 = nowNs();
        const uint64_t f0 = page->framesDrawn();
        runFor(1000);
        worst = std::min(worst, double(page->framesDrawn() - f0) * 1e9 / double(nowNs() - w0));
    }
    const int64_t t1 = nowNs(), cpu1 = threadCpuNs();
    const uint64_t frames = page->framesDrawn() - frames0;
    app.recording = false;
    page->stop();
    r.stats = page->source().snapshot()->threads.front();
    r.rssEndMib = mib(residentBytes());
    const double span = double(t1 - t0 - stalledNs);
    r.fps = double(frames) * 1e9 / span;
    r.worstFps = worst;
    r.cpuPercent = 100.0 * double(cpu1 - cpu0) / span;
    r.profile = app.profile;
    r.cpuMsPerFrame = frames > 0 ? double(cpu1 - cpu0) / 1e6 / double(frames) : 0;
    window.presentationMode()->setActive(false);
    return r;
}

void printRow(const char* what, const Durations& d)
{
    std::printf("  %-40s %7.3f %7.3f  (%zu)\n", what, d.percentileMs(50), d.percentileMs(99), d.ns.size());
}

void printResult(const Result& r, const Floor& floor, const Tail* headless)
{
    const Profile& p = r.profile;
    std::printf("-- %s\n", r.label.c_str());
    std::printf("frames per second:   %.1f (worst 1 s window %.1f; refresh timer %d ms)\n", r.fps, r.worstFps,
                r.refreshMs);
    std::printf("GUI thread CPU:      %.1f %% of one CPU; floor (an empty window repainted every %d ms) %.1f %%: "
                "%.1fx the floor\n",
                r.cpuPercent, floor.refreshMs, floor.cpuPercent, ratio(r.cpuPercent, floor.cpuPercent));
    const LatencyThreadStats& t = r.stats;
    std::printf("samples:             %llu measured, %llu dropped, %llu sequence gaps (%llu lost in the warm-up), "
                "%llu skipped periods\n",
                (unsigned long long)t.samples, (unsigned long long)t.drops, (unsigned long long)t.seqGaps,
                (unsigned long long)r.lostWarmup, (unsigned long long)t.skipped);
    std::printf("latency:             p50 %s, p99 %s, p99.9 %s, max %s\n",
                formatDuration(t.histogram.percentile(50)).c_str(), formatDuration(t.histogram.percentile(99)).c_str(),
                formatDuration(t.histogram.percentile(99.9)).c_str(), formatDuration(t.histogram.max()).c_str());
    if (headless) {
        const Tail ui = tailOf(t);
        std::printf("headless peer:       %llu samples, %llu lost; p50 %s, p99 %s, p99.9 %s, max %s; with window / "
                    "headless: p99 %.2fx, p99.9 %.2fx, max %.2fx\n",
                    (unsigned long long)headless->samples, (unsigned long long)headless->lost,
                    formatDuration(headless->p50).c_str(), formatDuration(headless->p99).c_str(),
                    formatDuration(headless->p999).c_str(), formatDuration(headless->max).c_str(),
                    ratio(double(ui.p99), double(headless->p99)), ratio(double(ui.p999), double(headless->p999)),
                    ratio(double(ui.max), double(headless->max)));
    }
    std::printf("resident memory:     after warm-up %.1f MiB, end %.1f MiB\n", r.rssWarmMib, r.rssEndMib);
    std::printf("  %-40s %7s %7s  (count)\n", "per frame, ms", "p50", "p99");
    printRow("pull the snapshot", p.pull);
    printRow("histogram: curve, markers, setLive", p.histogram);
    printRow("timeline: points, markers, setData", p.timeline);
    printRow("table: summary, setLive", p.table);
    printRow("draw() in all", p.draw);
    printRow("paint histogram view", p.paintHistogram);
    printRow("paint timeline view", p.paintTimeline);
    printRow("paint table", p.paintTable);
    printRow("paint other widgets (each)", p.paintOther);
    printRow("window repaint (all paints + flush)", p.repaint);
    std::printf("  %-40s %7.3f (mean)\n", "GUI thread CPU time per frame", r.cpuMsPerFrame);
    std::printf("  window repaint / floor repaint p50:        %.2fx (floor %.3f ms)\n",
                ratio(p.repaint.percentileMs(50), floor.repaintP50Ms), floor.repaintP50Ms);
}

void usage()
{
    std::fprintf(stderr, "usage: bench_ui_feed [--seconds N] [--warmup N] [--hogs N] [--period DUR] "
                         "[--mode normal|presentation|both] [--policy fifo|other] [--stall-ms N] [--floor-seconds N] "
                         "[--no-peer]\n");
}

bool parse(int argc, char** argv, Options& o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char* {
            return i + 1 < argc ? argv[++i] : nullptr;
        };
        const char* v = nullptr;
        if (a == "--seconds" && (v = next()))
            o.seconds = std::atof(v);
        else if (a == "--warmup" && (v = next()))
            o.warmup = std::atof(v);
        else if (a == "--floor-seconds" && (v = next()))
            o.floorSeconds = std::atof(v);
        else if (a == "--hogs" && (v = next()))
            o.hogs = std::atoi(v);
        else if (a == "--period" && (v = next())) {
            auto ns = parseDuration(v);
            if (!ns)
                return false;
            o.periodsNs = {*ns};
        } else if (a == "--mode" && (v = next())) {
            const std::string m = v;
            if (m == "normal")
                o.presentation = {false};
            else if (m == "presentation")
                o.presentation = {true};
            else if (m == "both")
                o.presentation = {false, true};
            else
                return false;
        } else if (a == "--policy" && (v = next()))
            o.policy = v;
        else if (a == "--stall-ms" && (v = next()))
            o.stallMs = std::atoi(v);
        else if (a == "--no-peer")
            o.peer = false;
        else
            return false;
    }
    return o.seconds > 0 && o.warmup >= 0 && o.warmup + 1 <= o.seconds && o.floorSeconds > 0;
}

} // namespace

int main(int argc, char** argv)
{
    installWakeSignalHandler();
    Options o;
    // Qt's own options (-platform) go to QApplication; ours are checked after it removed its own.
    if (!std::getenv("DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    BenchApp app(argc, argv);
    if (!parse(argc, argv, o)) {
        usage();
        return 2;
    }
    applyFontSize(app, 12);
    const SystemProbe probe = probeSystem();
    MainWindow window(createExperimentPages(probe), probe, nullptr);
    window.resize(1600, 1000);
    window.show();
    auto* page = window.findPage<LatencyPage>();
    app.page = page;
    app.window = &window;
    // The widget each chart paints on (its paint events are the chart's paint cost).
    app.histogramView = page->histogramChart()->plotSurface();
    app.histogramView->setObjectName("histogramViewport");
    app.timelineView = page->timelineChart()->plotSurface();
    app.timelineView->setObjectName("timelineViewport");
    app.tableView = page->findChild<QTableView*>("statsTable")->viewport();
    app.tableView->setObjectName("statsTableViewport");

    LatencyConfig c = page->config();
    const bool fifo = o.policy.empty() ? probe.rtAvailable : o.policy == "fifo";
    c.policy = fifo ? Policy::Fifo : Policy::Other;
    c.priority = fifo ? 80 : 0;
    c.hogs = o.hogs;

    std::printf("bench_ui_feed: window 1600x1000 on %s, %.0f s per run (%.0f s warm-up), a %d ms GUI stall mid-run\n",
                qPrintable(QGuiApplication::platformName()), o.seconds, o.warmup, o.stallMs);
    const int64_t rssStart = residentBytes();
    // The floors first, with the main window hidden behind nothing: the same size, the same refresh intervals.
    std::vector<Floor> floors;
    for (int ms : {LatencyPage::kRefreshMs, LatencyPage::kPresentationRefreshMs}) {
        floors.push_back(measureFloor(app, window.size(), ms, o.floorSeconds));
        std::printf("floor: empty window repainted every %d ms: %.1f fps, GUI thread %.1f %% of one CPU, repaint "
                    "p50 %.3f ms, p99 %.3f ms\n",
                    ms, floors.back().fps, floors.back().cpuPercent, floors.back().repaintP50Ms,
                    floors.back().repaintP99Ms);
    }
    std::fflush(stdout);

    bool ok = true;
    std::vector<Result> results;
    for (int64_t period : o.periodsNs) {
        c.periodNs = period;
        if (const QStringList problems = page->applyConfig(c); !problems.isEmpty()) {
            std::fprintf(stderr, "bench_ui_feed: %s\n", qPrintable(problems.join("; ")));
            return 2;
        }
        Tail headless;
        if (o.peer) {
            headless = runHeadless(c, o);
            ok = ok && headless.lost == 0;
        }
        for (bool presentation : o.presentation) {
            Result r = runWindow(app, window, page, presentation, o);
            r.label = std::string(presentation ? "presentation mode, " : "normal window, ") +
                      std::to_string(int(1e6 / double(period))) + " kHz: " + c.label();
            const Floor& floor = presentation ? floors[1] : floors[0];
            printResult(r, floor, o.peer ? &headless : nullptr);
            std::fflush(stdout);
            ok = ok && r.stats.drops == 0 && r.stats.seqGaps == 0 && r.lostWarmup == 0;
            results.push_back(std::move(r));
        }
    }
    std::printf("-- summary (fps, GUI thread %% of a CPU, samples lost)\n");
    for (const Result& r : results)
        std::printf("  %-60.60s %5.1f fps  %5.1f %%  %llu lost\n", r.label.c_str(), r.fps, r.cpuPercent,
                    (unsigned long long)(r.stats.drops + r.stats.seqGaps + r.lostWarmup));
    std::printf("resident memory: start %.1f MiB, end %.1f MiB\n", mib(rssStart), mib(residentBytes()));
    std::printf("%s\n", ok ? "PASS: no sample lost" : "FAIL: samples were lost");
    return ok ? 0 : 1;
}
