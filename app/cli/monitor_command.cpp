// `rtscope monitor`: the latency measurement left running for hours to months, its figures served as OpenMetrics on
// /metrics for Prometheus (docs/monitor.md).
#include "app/cli/command_util.h"

#include "engine/experiments/latency/latency_experiment.h"
#include "engine/export/openmetrics.h"
#include "engine/rt/caller_affinity.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "engine/util/units.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <httplib.h>
#include <memory>
#include <optional>
#include <pthread.h>
#include <sys/socket.h>
#include <thread>

namespace rtscope::cli {

void printLatencySummary(const LatencySnapshot& snapshot); // latency_command.cpp

namespace {

struct MonitorOptions {
    std::string policy;
    int priority = 0;
    std::string period = "1ms";
    int hogs = 0;
    int cpu = -1;
    std::string cpus;
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
    readPolicy(o.policy, o.priority, c.policy, problems);
    c.priority = o.priority;
    readDuration("period", o.period, kNsPerUs, kBareMicroseconds, c.periodNs, problems);
    c.hogs = o.hogs;
    c.cpu = o.cpu;
    if (!o.cpus.empty()) {
        if (auto list = parseCpuList(o.cpus, CpuTopology::current().allowed))
            c.cpus = *list;
        else
            problems.push_back("cpus: '" + o.cpus + "' is not a CPU list; use all, or numbers and ranges like 0,2-3");
    }
    return c; // durationNs 0 and maxSamples 0: until stopped; no exact µs bins: memory stays the histogram's
}

/// The HTTP side: cpp-httplib's server on its own thread (and its worker pool), serving /metrics only. Stopped and
/// joined by its destructor, so every exit path of the run takes it down.
class MonitorServer {
public:
    MonitorServer(LatencyExperiment& exp, ScrapeIntervalMax& intervalMax)
        : m_exp(exp)
        , m_intervalMax(intervalMax)
    {
        // A scraper that misbehaves costs a worker at most these few seconds; the measurement never waits for it
        // (the handler only copies the latest published snapshot). Two workers: a stuck connection leaves the other
        // for Prometheus.
        m_server.set_read_timeout(2, 0);
        m_server.set_write_timeout(2, 0);
        m_server.set_keep_alive_timeout(2);
        m_server.set_keep_alive_max_count(100);
        m_server.set_payload_max_length(4096);
        m_server.new_task_queue = [] {
            return new httplib::ThreadPool(2);
        };
        // httplib's default also sets SO_REUSEPORT, with which a second monitor on the same port would bind too
        // and share the connections with the first instead of being refused. SO_REUSEADDR alone lets a restart bind
        // while the old connections linger in TIME_WAIT.
        m_server.set_socket_options([](socket_t sock) {
            int yes = 1;
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        });
        m_server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
            res.set_content(exposition(), kOpenMetricsContentType);
        });
        // Read-only: any other method on /metrics is refused with 405 and what is allowed; other paths get 404.
        const auto refuse = [](const httplib::Request&, httplib::Response& res) {
            res.status = 405;
            res.set_header("Allow", "GET, HEAD");
        };
        m_server.Post("/metrics", refuse);
        m_server.Put("/metrics", refuse);
        m_server.Patch("/metrics", refuse);
        m_server.Delete("/metrics", refuse);
        m_server.Options("/metrics", refuse);
    }
    ~MonitorServer()
    {
        m_server.stop();
        if (m_thread.joinable())
            m_thread.join();
    }
    MonitorServer(const MonitorServer&) = delete;
    MonitorServer& operator=(const MonitorServer&) = delete;

    /// Binds the listening socket; on failure the reason (errno of the refused bind or listen).
    std::optional<std::string> bind(const MonitorListen& l)
    {
        errno = 0;
        if (m_server.bind_to_port(l.host.c_str(), l.port))
            return std::nullopt;
        const int err = errno;
        return err == EADDRINUSE ? std::string("the port is in use")
               : err             ? std::string(std::strerror(err))
                                 : std::string("the address cannot be bound here");
    }

    /// Serves on a thread created by the caller, so it starts with the caller's affinity (the CLI keeps it off the
    /// measured and hog CPUs while it starts this); the workers httplib creates inherit it and the name.
    /// @p info: the labels of the info metric, served with every scrape.
    void start(std::vector<std::pair<std::string, std::string>> info)
    {
        m_info = std::move(info);
        m_thread = std::thread([this] {
            pthread_setname_np(pthread_self(), "rtscope-metrics");
            m_server.listen_after_bind();
        });
    }

private:
    std::string exposition()
    {
        OpenMetricsInput in;
        in.info = m_info;
        const std::shared_ptr<const LatencySnapshot> snap = m_exp.snapshot();
        const std::map<int, int64_t> maxima = m_intervalMax.take();
        if (snap)
            for (const LatencyThreadStats& t : snap->threads) {
                OpenMetricsCpu c{t.cpu, &t.histogram, t.samples, t.skipped, t.drops, std::nullopt};
                if (const auto it = maxima.find(t.cpu); it != maxima.end())
                    c.intervalMaxNs = it->second;
                in.cpus.push_back(c);
            }
        return openMetricsText(in); // before snap goes: the histograms are its
    }

    LatencyExperiment& m_exp;
    ScrapeIntervalMax& m_intervalMax;
    std::vector<std::pair<std::string, std::string>> m_info; ///< set before the server thread starts
    httplib::Server m_server;
    std::thread m_thread;
};

int runMonitor(const LatencyConfig& config, const MonitorListen& listen, const MonitorOptions& o)
{
    // A scraper that closes its end while we write must give the writing worker an error, not end the process.
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
    ScrapeIntervalMax intervalMax; // a run sink outlives the experiment
    LatencyExperiment exp;
    exp.setLockAllMemory(true);
    exp.setRunSink(&intervalMax);
    // The measurement runs for months: drain every 10 ms (the ring holds over a second at 1 kHz) and publish ten
    // times a second, so a scrape sees figures at most 0.1 s old; the timeline is not served, so keep the shortest.
    exp.setCollectorPace(10 * kNsPerMs, 100 * kNsPerMs);
    exp.setSeriesWindow(kNsPerSec);
    MonitorServer server(exp, intervalMax);
    // Bound before anything is measured: a busy port is refused at once.
    if (auto why = server.bind(listen)) {
        std::fprintf(stderr, "rtscope monitor: metrics-listen: cannot listen on %s: %s\n", where.c_str(), why->c_str());
        return ExitFailure;
    }
    warnAboutOtherMeasurements("monitor", config.resolvedCpus(topology));
    if (Error e = exp.start(config, topology))
        return notStarted("monitor", e).exitCode;
    {
        ScopedCallerAffinity offBusy(exp.busyCpus());
        // The config as started: its CPU resolved, so the labels say where it measures.
        server.start(monitorInfoLabels(probe, exp.config(), exp.config().resolvedCpus(topology)));
    }
    if (!o.quiet) {
        printRunHeader("monitor", exp.config().label());
        std::printf("# OpenMetrics on http://%s/metrics until stopped (SIGINT or SIGTERM)\n", where.c_str());
        std::fflush(stdout);
    }
    const int signal = waitForExperiment(exp, [] {});
    exp.stop();
    const auto snap = exp.snapshot();
    if (!snap)
        return ExitFailure;
    if (!o.quiet)
        printStoppedBy(signal);
    printLatencySummary(*snap);
    return runExitCode(snap->error, true);
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
    return runIfValid("monitor", config, std::move(problems), CpuTopology::current(),
                      [&](const LatencyConfig& c) { return runMonitor(c, *listen, o); });
}

Command addMonitorCommand(CLI::App& app)
{
    auto o = std::make_shared<MonitorOptions>();
    auto* sub = app.add_subcommand(
        "monitor", "Measure wake-up latency until stopped and serve it as OpenMetrics for Prometheus (/metrics)");
    addPolicyOptions(sub, o->policy, o->priority);
    sub->add_option("-i,--period", o->period, "period 20us..10s; units ns, us, ms, s (bare number: us)")
        ->capture_default_str();
    sub->add_option("--hogs", o->hogs, "CPU-hog threads on each measuring CPU, 0..256")->capture_default_str();
    auto* cpu = noValueBelow(sub->add_option("-a,--cpu", o->cpu, "measuring CPU (default: the highest usable CPU)"));
    sub->add_option("--cpus", o->cpus, "one measuring thread per CPU at once: all, or a list like 0,2-3")
        ->excludes(cpu);
    sub->add_option("--metrics-listen", o->listen,
                    "where /metrics is served: a numeric IP and port, e.g. 127.0.0.1:9464 or [::1]:9464")
        ->capture_default_str();
    sub->add_flag("--metrics-listen-any", o->listenAny,
                  "allow a --metrics-listen address that is not loopback (the endpoint has no authentication)");
    sub->add_flag("-q,--quiet", o->quiet, "no header, only the summary when stopped");
    return {sub, [o] {
                return run(*o);
            }};
}

} // namespace

const CommandRegistration kMonitorRegistration("monitor", 12, &addMonitorCommand);

} // namespace rtscope::cli
