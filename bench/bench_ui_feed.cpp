// The desktop app fed at 20 kHz: the main window with the latency experiment at a 50 µs period plus CPU hogs
// for N seconds (under Xvfb through scripts/bench, or offscreen). Prints the frames per second the views
// achieved, the GUI thread's CPU share, the samples dropped (must be 0, also across a deliberate one-second
// stall of the GUI thread) and the resident memory at start, after warm-up and at the end (flat after warm-up).
// Peer: the same experiment headless (no window) for the same time, run first; the ratio of their tails shows
// whether drawing 40 frames a second disturbs the measurement.
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/rt/cpu_topology.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"
#include "ui/app/app_style.h"
#include "ui/common/gui_thread_affinity.h"
#include "ui/common/latency_source.h"
#include "ui/experiment_pages.h"
#include "ui/latency/latency_page.h"
#include "ui/main_window.h"

#include <QApplication>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace rtscope;

namespace {

struct Options {
    double seconds = 60;
    double warmup = 5;
    int hogs = 4;
    int64_t periodNs = 50'000;
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

struct Tail {
    int64_t rssWarm = 0; ///< the headless peer's resident memory after warm-up and at the end
    int64_t rssEnd = 0;
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

// The peer: the engine alone, the GUI thread asleep, for the same time and with the same warm-up discarded.
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
    const int64_t rssWarm = residentBytes();
    usleep(unsigned((o.seconds - o.warmup) * 1e6));
    const int64_t rssEnd = residentBytes();
    exp.stop();
    Tail t = tailOf(exp.snapshot()->threads.front());
    t.rssWarm = rssWarm;
    t.rssEnd = rssEnd;
    t.lost += before.drops + before.seqGaps; // the whole run counts for losses
    return t;
}

double ratio(int64_t a, int64_t b)
{
    return b > 0 ? double(a) / double(b) : 0;
}

void usage()
{
    std::fprintf(stderr,
                 "usage: bench_ui_feed [--seconds N] [--warmup N] [--hogs N] [--period DUR] [--policy fifo|other] "
                 "[--stall-ms N] [--no-peer]\n");
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
        else if (a == "--hogs" && (v = next()))
            o.hogs = std::atoi(v);
        else if (a == "--period" && (v = next())) {
            auto ns = parseDuration(v);
            if (!ns)
                return false;
            o.periodNs = *ns;
        } else if (a == "--policy" && (v = next()))
            o.policy = v;
        else if (a == "--stall-ms" && (v = next()))
            o.stallMs = std::atoi(v);
        else if (a == "--no-peer")
            o.peer = false;
        else
            return false;
    }
    return o.seconds > 0 && o.warmup >= 0 && o.warmup < o.seconds;
}

} // namespace

int main(int argc, char** argv)
{
    installWakeSignalHandler();
    Options o;
    // Qt's own options (-platform) go to QApplication; ours are checked after it removed its own.
    if (!std::getenv("DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QApplication app(argc, argv);
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

    LatencyConfig c = page->config();
    const bool fifo = o.policy.empty() ? probe.rtAvailable : o.policy == "fifo";
    c.policy = fifo ? Policy::Fifo : Policy::Other;
    c.priority = fifo ? 80 : 0;
    c.periodNs = o.periodNs;
    c.hogs = o.hogs;
    if (const QStringList problems = page->applyConfig(c); !problems.isEmpty()) {
        std::fprintf(stderr, "bench_ui_feed: %s\n", qPrintable(problems.join("; ")));
        return 2;
    }

    Tail headless;
    if (o.peer) {
        std::printf("bench_ui_feed: peer run, headless: %s, %.0f s\n", c.label().c_str(), o.seconds);
        std::fflush(stdout);
        headless = runHeadless(c, o);
    }

    const int64_t rssStart = residentBytes();
    int64_t rssWarm = 0, t0 = 0, cpu0 = 0;
    uint64_t frames0 = 0, lastFrames = 0;
    int64_t lastTick = 0;
    double worstWindowFps = 1e9;
    bool stalled = false;
    std::vector<double> rssTrace;

    std::printf("bench_ui_feed: %s, %.0f s (%.0f s warm-up), window 1600x1000 on %s\n", c.label().c_str(), o.seconds,
                o.warmup, qPrintable(QGuiApplication::platformName()));
    if (!page->start()) {
        std::fprintf(stderr, "bench_ui_feed: cannot start: %s\n", qPrintable(page->problems().join("; ")));
        return 1;
    }
    const int64_t begin = nowNs();
    std::vector<int> guiCpus = GuiThreadAffinity::current();

    // Like the peer, the figures count from the end of the warm-up.
    uint64_t lostInWarmup = 0;
    QTimer::singleShot(int(o.warmup * 1000), page, [page, &lostInWarmup] {
        if (auto snap = page->source().snapshot())
            lostInWarmup = snap->threads.front().drops + snap->threads.front().seqGaps;
        page->resetStatistics();
    });
    QTimer tick;
    tick.setInterval(1000);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const int64_t now = nowNs();
        const double elapsed = double(now - begin) / 1e9;
        if (t0 == 0 && elapsed >= o.warmup) {
            t0 = now;
            cpu0 = threadCpuNs();
            frames0 = page->framesDrawn();
            rssWarm = residentBytes();
        } else if (t0 != 0 && !stalled) {
            const double fps = double(page->framesDrawn() - lastFrames) * 1e9 / double(now - lastTick);
            worstWindowFps = std::min(worstWindowFps, fps);
        }
        stalled = false; // the one window that holds the deliberate stall is left out of the worst case
        if (t0 != 0 && int(elapsed) % 10 == 0)
            rssTrace.push_back(mib(residentBytes()));
        lastFrames = page->framesDrawn();
        lastTick = now;
        if (elapsed >= o.seconds)
            app.quit();
    });
    tick.start();
    if (o.stallMs > 0) {
        // A stalled UI (a long resize, a modal drag) must not lose samples: the collector drains, not the UI.
        QTimer::singleShot(int((o.warmup + (o.seconds - o.warmup) / 2) * 1000), [&] {
            usleep(unsigned(o.stallMs) * 1000);
            stalled = true;
        });
    }
    app.exec();

    const int64_t t1 = nowNs();
    const int64_t cpu1 = threadCpuNs();
    const uint64_t frames1 = page->framesDrawn();
    page->stop();
    const auto snap = page->source().snapshot();
    const LatencyThreadStats& t = snap->threads.front();
    const int64_t rssEnd = residentBytes();
    const double span = double(t1 - t0) / 1e9;

    std::printf("GUI thread CPUs while running: %s\n", formatCpuList(guiCpus).c_str());
    std::printf("frames per second:   %.1f (worst 1 s window without the stall %.1f; refresh timer %d ms)\n",
                double(frames1 - frames0) / span, worstWindowFps, LatencyPage::kRefreshMs);
    std::printf("GUI thread CPU:      %.1f %% of one CPU\n", 100.0 * double(cpu1 - cpu0) / double(t1 - t0));
    std::printf("lost during warm-up: %llu\n", (unsigned long long)lostInWarmup);
    std::printf("samples:             %llu measured, %llu dropped, %llu sequence gaps, %llu skipped periods\n",
                (unsigned long long)t.samples, (unsigned long long)t.drops, (unsigned long long)t.seqGaps,
                (unsigned long long)t.skipped);
    std::printf("latency (window):    p50 %s, p99 %s, p99.9 %s, max %s\n",
                formatDuration(t.histogram.percentile(50)).c_str(), formatDuration(t.histogram.percentile(99)).c_str(),
                formatDuration(t.histogram.percentile(99.9)).c_str(), formatDuration(t.histogram.max()).c_str());
    std::printf("GUI stall:           %d ms once, mid-run\n", o.stallMs);
    std::printf("resident memory:     start %.1f MiB, after warm-up %.1f MiB, end %.1f MiB (%+.1f MiB after warm-up)\n",
                mib(rssStart), mib(rssWarm), mib(rssEnd), mib(rssEnd - rssWarm));
    std::printf("resident every 10 s: ");
    for (double r : rssTrace)
        std::printf("%.1f ", r);
    std::printf("MiB\n");
    if (o.peer) {
        const Tail ui = tailOf(t);
        std::printf("peer (headless):     %llu samples, %llu lost; p50 %s, p99 %s, p99.9 %s, max %s\n",
                    (unsigned long long)headless.samples, (unsigned long long)headless.lost,
                    formatDuration(headless.p50).c_str(), formatDuration(headless.p99).c_str(),
                    formatDuration(headless.p999).c_str(), formatDuration(headless.max).c_str());
        std::printf("peer resident memory: after warm-up %.1f MiB, end %.1f MiB (%+.1f MiB)\n", mib(headless.rssWarm),
                    mib(headless.rssEnd), mib(headless.rssEnd - headless.rssWarm));
        std::printf("with window / headless: p50 %.2fx, p99 %.2fx, p99.9 %.2fx, max %.2fx\n",
                    ratio(ui.p50, headless.p50), ratio(ui.p99, headless.p99), ratio(ui.p999, headless.p999),
                    ratio(ui.max, headless.max));
    }
    const bool ok = t.drops == 0 && t.seqGaps == 0 && lostInWarmup == 0 && headless.lost == 0;
    std::printf("%s\n", ok ? "PASS: no sample lost" : "FAIL: samples were lost");
    return ok ? 0 : 1;
}
