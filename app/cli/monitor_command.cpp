// `rtscope monitor`: the latency measurement left running for hours to months, its figures served as OpenMetrics on
// /metrics for Prometheus (docs/monitor.md).
#include "app/cli/command_util.h"
#include "app/cli/latency_options.h"
#include "app/cli/metrics_server.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/noise/noise_experiment.h"
#include "engine/export/openmetrics.h"
#include "engine/rt/caller_affinity.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <sys/socket.h>

namespace rtscope::cli {

void printLatencySummary(const LatencySnapshot& snapshot); // latency_command.cpp

namespace {

struct MonitorOptions {
    LatencyThreadFlags thread; ///< --policy, -p, -i, --hogs, -a, --cpus: as latency's (app/cli/latency_options.h)
    std::string noiseCpus;
    std::string listen = "127.0.0.1:9464";
    bool listenAny = false;
    bool quiet = false;
};

struct MonitorListen {
    std::string host; ///< numeric, without brackets
    int port = 0;
    bool loopback = false;
};

// A numeric address and a port: "127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464". No host names: what the endpoint
// is exposed on must be plain from the command line, and no name lookup should decide it.
std::optional<MonitorListen> parseMonitorListen(const std::string& text)
{
    MonitorListen l;
    std::string portText;
    if (!text.empty() && text.front() == '[') {
        const size_t close = text.find("]:");
        if (close == std::string::npos)
            return std::nullopt;
        l.host = text.substr(1, close - 1);
        portText = text.substr(close + 2);
    } else {
        const size_t colon = text.rfind(':');
        if (colon == std::string::npos)
            return std::nullopt;
        l.host = text.substr(0, colon);
        portText = text.substr(colon + 1);
    }
    if (portText.empty() || portText.size() > 5 || portText.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    l.port = std::stoi(portText);
    if (l.port < 1 || l.port > 65535)
        return std::nullopt;
    in_addr v4{};
    in6_addr v6{};
    if (inet_pton(AF_INET, l.host.c_str(), &v4) == 1)
        l.loopback = (ntohl(v4.s_addr) >> 24) == 127;
    else if (inet_pton(AF_INET6, l.host.c_str(), &v6) == 1)
        l.loopback = IN6_IS_ADDR_LOOPBACK(&v6);
    else
        return std::nullopt;
    return l;
}

// The flags into a latency config: the ranges are LatencyConfig::validate()'s, as for `rtscope latency`.
LatencyConfig toMonitorConfig(const MonitorOptions& o, std::vector<std::string>& problems)
{
    LatencyConfig c;
    readLatencyOptions(o.thread, {}, c, problems);
    return c; // durationNs 0 and maxSamples 0: until stopped; no exact µs bins: memory stays the histogram's
}

// The exposition of one scrape: the latest published snapshot and the maxima, copied; the measurement never waits.
std::string monitorExposition(const LatencyExperiment& exp, const LatencyMaxima& maxima,
                              const std::vector<std::pair<std::string, std::string>>& info,
                              const NoiseExperiment* noise)
{
    OpenMetricsInput in;
    in.info = info;
    const std::shared_ptr<const NoiseSnapshot> noiseSnap = noise ? noise->snapshot() : nullptr;
    in.noise = noiseSnap.get();
    const std::shared_ptr<const LatencySnapshot> snap = exp.snapshot();
    const std::map<int, LatencyCpuMaxima> most = maxima.read(nowNs());
    if (snap)
        for (const LatencyThreadStats& t : snap->threads) {
            OpenMetricsCpu c{t.cpu, &t.histogram, t.samples, t.skipped, t.drops, std::nullopt, std::nullopt};
            if (const auto it = most.find(t.cpu); it != most.end()) {
                c.maxNs = it->second.sinceStartNs;
                c.recentMaxNs = it->second.recentNs;
            }
            in.cpus.push_back(c);
        }
    return openMetricsText(in); // before snap goes: the histograms are its
}

// The noise lab beside the measurement (--noise-cpus): until stopped, on CPUs the latency threads do not use (a
// polling thread is a hog to any thread that shares its CPU). The CPUs' own problems are validate()'s.
std::optional<NoiseConfig> toMonitorNoiseConfig(const MonitorOptions& o, const LatencyConfig& latency,
                                                std::vector<std::string>& problems)
{
    if (o.noiseCpus.empty())
        return std::nullopt;
    NoiseConfig n;
    n.durationNs = 0;
    readCpuList("noise-cpus", o.noiseCpus, CpuTopology::current(), n.cpus, problems);
    for (int cpu : n.cpus)
        for (int measured : latency.resolvedCpus(CpuTopology::current()))
            if (cpu == measured)
                problems.push_back("noise-cpus: CPU " + std::to_string(cpu) +
                                   " is a latency measuring CPU; its polling thread would load it. Choose other CPUs");
    for (std::string& p : n.validate(CpuTopology::current()))
        problems.push_back("noise-cpus: " + p);
    return n;
}

int runMonitor(const LatencyConfig& config, const std::optional<NoiseConfig>& noiseConfig, const MonitorListen& listen,
               const MonitorOptions& o)
{
    // A scraper that closes its end while we write must give the server an error, not end the process.
    std::signal(SIGPIPE, SIG_IGN);
    const std::string where = (listen.host.find(':') != std::string::npos ? "[" + listen.host + "]" : listen.host) +
                              ":" + std::to_string(listen.port);
    if (!listen.loopback)
        std::fprintf(stderr,
                     "rtscope monitor: warning: serving /metrics on %s, which is not a loopback address: anyone who "
                     "can reach it can read this machine's kernel, configuration and latency figures\n",
                     where.c_str());
    const CpuTopology topology = CpuTopology::current(); // before this thread narrows its affinity
    const SystemProbe probe = probeSystem();
    LatencyMaxima maxima; // a run sink outlives the experiment
    LatencyExperiment exp;
    exp.setLockAllMemory(true);
    exp.setCompact(true); // never reconfigured: a small process (docs/BENCHMARKS.md, "The far tail")
    exp.setStartInterrupt(stopSignalPending); // a stop signal while the hogs start ends the start-up at once
    exp.setRunSink(&maxima);
    // The measurement runs for months: drain every 10 ms (the ring holds over a second at 1 kHz) and publish ten
    // times a second, so a scrape sees figures at most 0.1 s old; the timeline is not served, so keep the shortest.
    exp.setCollectorPace(10 * kNsPerMs, 100 * kNsPerMs);
    exp.setSeriesWindow(kNsPerSec);
    std::vector<std::pair<std::string, std::string>> info; // set before the server thread starts
    NoiseExperiment noise;
    noise.setLockAllMemory(true);
    const NoiseExperiment* noiseServed = noiseConfig ? &noise : nullptr;
    MetricsServer server([&] { return monitorExposition(exp, maxima, info, noiseServed); }, kOpenMetricsContentType);
    // Bound before anything is measured: a busy port is refused at once.
    if (auto why = server.bind(listen.host, listen.port)) {
        std::fprintf(stderr, "rtscope monitor: metrics-listen: cannot listen on %s: %s\n", where.c_str(), why->c_str());
        return ExitFailure;
    }
    warnAboutOtherMeasurements("monitor", config.resolvedCpus(topology));
    if (Error e = exp.start(config, topology))
        return notStarted("monitor", e).exitCode;
    if (noiseConfig)
        if (Error e = noise.start(*noiseConfig, topology)) {
            exp.stop();
            return notStarted("monitor", e).exitCode;
        }
    std::vector<int> busy = exp.busyCpus();
    for (int cpu : noise.busyCpus())
        busy.push_back(cpu);
    {
        ScopedCallerAffinity offBusy(busy);
        // The config as started: its CPU resolved, so the labels say where it measures.
        info = monitorInfoLabels(probe, exp.config(), exp.config().resolvedCpus(topology));
        server.start(); // its thread starts with this affinity: off the measured and hog CPUs
    }
    if (!o.quiet) {
        printRunHeader("monitor", exp.config().label());
        std::printf("# OpenMetrics on http://%s/metrics until stopped (SIGINT or SIGTERM)\n", where.c_str());
        std::fflush(stdout);
    }
    const int signal = waitForEnd(
        busy, [&] { return exp.finished(); }, [] { return true; });
    noise.stop();
    exp.stop();
    const auto snap = exp.snapshot();
    if (!snap)
        return ExitFailure;
    if (!o.quiet)
        printStoppedBy(signal);
    printLatencySummary(*snap);
    std::string noiseError;
    if (const auto n = noise.snapshot(); noiseConfig && n) {
        for (const NoiseCpuStats& c : n->cpus)
            std::printf("noise CPU %d: %.4f %% available, max single %.1f us, %llu gaps in %.1f s\n", c.cpu,
                        c.availablePercent, double(c.maxSingleNs) / 1000.0, (unsigned long long)c.gaps,
                        double(c.runtimeNs) / 1e9);
        noiseError = n->error;
    }
    return runExitCode(snap->error.empty() ? noiseError : snap->error, true);
}

int run(const MonitorOptions& o)
{
    std::vector<std::string> problems;
    const LatencyConfig config = toMonitorConfig(o, problems);
    const std::optional<MonitorListen> listen = parseMonitorListen(o.listen);
    if (!listen)
        problems.push_back("metrics-listen: '" + o.listen +
                           "' is not an address and port; use a numeric IP and a port 1..65535, e.g. 127.0.0.1:9464 "
                           "or [::1]:9464");
    else if (!listen->loopback && !o.listenAny)
        problems.push_back("metrics-listen: " + o.listen +
                           " is not a loopback address and /metrics has no authentication; add --metrics-listen-any "
                           "to serve it there anyway");
    const std::optional<NoiseConfig> noise = toMonitorNoiseConfig(o, config, problems);
    return runIfValid("monitor", config, std::move(problems), CpuTopology::current(),
                      [&](const LatencyConfig& c) { return runMonitor(c, noise, *listen, o); });
}

void addMonitorFlags(CLI::App* sub, MonitorOptions& o)
{
    addLatencyOptions(sub, o.thread);
    sub->add_option("--noise-cpus", o.noiseCpus,
                    "also run the noise lab on these CPUs (not the measuring ones) and serve rtscope_noise_*: a list "
                    "like 0 or 0,2-3");
    sub->add_option("--metrics-listen", o.listen,
                    "where /metrics is served: a numeric IP and port, e.g. 127.0.0.1:9464 or [::1]:9464")
        ->capture_default_str();
    sub->add_flag("--metrics-listen-any", o.listenAny,
                  "allow a --metrics-listen address that is not loopback (the endpoint has no authentication)");
    sub->add_flag("-q,--quiet", o.quiet, "no header, only the summary when stopped");
}

} // namespace

const OptionsCommand<MonitorOptions>
    kMonitorCommand("monitor", 12,
                    "Measure wake-up latency until stopped and serve it as OpenMetrics for Prometheus (/metrics)",
                    addMonitorFlags, run);

} // namespace rtscope::cli
