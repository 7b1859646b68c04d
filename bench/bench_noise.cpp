// The noise lab against oslat (rt-tests) on the same CPU, same load, runs alternated (docs/BENCHMARKS.md, "Noise
// lab"). Both measure the length of every loop of a busy-polling thread; oslat's histogram (--json, buckets of 1 µs
// labelled by their upper edge) and rtscope's (--histfile, cyclictest's -h layout, labelled by the lower edge) are
// put on the same 1 µs bins and read by the same percentile code (bench/histfile_runs.h), so what differs is the
// instrument. The load is this program's own: a SCHED_FIFO thread pinned to the measured CPU that spins 300 µs every
// 20 ms, identical for both tools. rtscope is compared untraced (the instrument alone); a third, traced run per round
// gives how much of the noise its attribution explained, and what tracing costs the loop.
#include "bench/histfile_runs.h"
#include "engine/formats/cyclictest_format.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <sched.h>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace rtscope;
using namespace rtscope::bench;

namespace {

struct Options {
    std::string rtscope = "build/bench/app/rtscope";
    int cpu = -1;
    int seconds = 5;
    int rounds = 3;
    bool load = true;
};

// Of every loop: how many. Of the gaps (loops of 1 µs or more, what both tools call noise at their finest): how
// many, their p50 and p99 (interpolated in the 1 µs bins), the share of them 10 µs or longer, and the longest loop.
struct Figures {
    uint64_t loops = 0, gaps = 0;
    double share10 = 0, gapP50 = 0, gapP99 = 0, maxUs = 0;
};

int64_t monoNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The load both tools see: FIFO 20 on the measured CPU, 300 µs of spinning every 20 ms (1.5 % of the CPU).
class PeriodicLoad {
public:
    explicit PeriodicLoad(int cpu)
    {
        m_thread = std::thread([this, cpu] {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
            sched_param sp{};
            sp.sched_priority = 20;
            m_fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
            int64_t next = monoNs();
            while (!m_stop.load(std::memory_order_relaxed)) {
                const int64_t end = monoNs() + 300'000;
                while (monoNs() < end) {
                }
                next += 20'000'000;
                if (next < monoNs())
                    next = monoNs() + 19'700'000;
                timespec ts{time_t(next / 1'000'000'000), long(next % 1'000'000'000)};
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
            }
            sp.sched_priority = 0;
            pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
        });
    }
    ~PeriodicLoad()
    {
        m_stop.store(true);
        m_thread.join();
    }
    bool fifo() const { return m_fifo.load(); }

private:
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_fifo{false};
    std::thread m_thread;
};

Figures figuresOf(const CyclictestThread& t)
{
    Figures f;
    uint64_t long10 = t.overflows;
    CyclictestThread gaps = t; // the same bins without the sub-microsecond loops
    f.loops = t.overflows;
    for (size_t i = 0; i < t.bins.size(); ++i) {
        f.loops += t.bins[i];
        if (i >= 10)
            long10 += t.bins[i];
    }
    if (!gaps.bins.empty())
        gaps.bins[0] = 0;
    f.gaps = f.loops - (t.bins.empty() ? 0 : t.bins[0]);
    f.gapP50 = f.gaps ? percentileUs(gaps, 50) : 0;
    f.gapP99 = f.gaps ? percentileUs(gaps, 99) : 0;
    f.share10 = f.gaps ? double(long10) / double(f.gaps) : 0;
    f.maxUs = double(t.maxUs);
    return f;
}

std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// oslat --json: thread."0".histogram {"k": count}, where bucket k holds loops of (k−1, k] µs (oslat rounds up).
// Moved to the lower-edge bin k−1 of cyclictest's layout; its last bucket is open-ended, as ours is.
bool readOslat(const std::string& path, CyclictestThread& out)
{
    const nlohmann::json j = nlohmann::json::parse(readText(path), nullptr, false);
    if (j.is_discarded() || !j.contains("thread") || j["thread"].empty()) {
        std::fprintf(stderr, "%s: not oslat's JSON\n", path.c_str());
        return false;
    }
    const nlohmann::json& t = j["thread"].begin().value();
    out = CyclictestThread{};
    out.bins.assign(1024, 0);
    for (const auto& [key, count] : t["histogram"].items()) {
        const long k = std::strtol(key.c_str(), nullptr, 10);
        if (k >= 1 && size_t(k - 1) < out.bins.size())
            out.bins[size_t(k - 1)] += count.get<uint64_t>();
        else
            out.overflows += count.get<uint64_t>();
    }
    out.maxUs = t.value("max", int64_t(0));
    return true;
}

// Of rtscope's noise, the share its attribution explained (not unexplained, not untraced), and its max single.
bool readCoverage(const std::string& path, double& coverage, double& maxSingleUs)
{
    const nlohmann::json j = nlohmann::json::parse(readText(path), nullptr, false);
    if (j.is_discarded() || !j.contains("rtscope"))
        return false;
    const nlohmann::json& c = j["rtscope"]["cpus"][0];
    const double noise = c["noise_us"].get<double>() * 1000.0;
    const auto& k = c["noise_ns_by_kind"];
    const double unexplained = k["unexplained"].get<double>() + k["untraced"].get<double>();
    coverage = noise > 0 ? 1.0 - unexplained / noise : 1.0;
    maxSingleUs = c["max_single_us"].get<double>();
    return true;
}

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

void printRow(const char* tool, const std::string& round, const Figures& f)
{
    std::printf("%-8s %6s %12llu %9llu %9.2f %9.2f %9.0f %12.6f\n", tool, round.c_str(), (unsigned long long)f.loops,
                (unsigned long long)f.gaps, f.gapP50, f.gapP99, f.maxUs, 100.0 * f.share10);
}

double ratio(double a, double b)
{
    return b != 0 ? a / b : (a == 0 ? 1.0 : INFINITY);
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    const BenchArgs args = readBenchArgs(argc, argv, {"--no-load"});
    o.load = !args.has("--no-load");
    o.rtscope = args.text("--rtscope", o.rtscope);
    o.seconds = args.integer("--seconds", o.seconds);
    o.rounds = args.integer("--rounds", o.rounds);
    o.cpu = args.integer("--cpu", o.cpu);
    if (o.cpu < 0)
        o.cpu = int(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
    if (!rtscopeExecutable(o.rtscope))
        return 1;
    if (o.seconds < 1 || o.rounds < 1 || o.cpu < 1) {
        std::fprintf(stderr, "--seconds and --rounds must be at least 1, --cpu at least 1 (CPU 0 runs the tools' "
                             "main threads)\n");
        return 2;
    }
    std::printf("CPU: %s; measured CPU %d; %d rounds of %d s each, oslat and rtscope noise alternated; load: %s\n",
                cpuModel().c_str(), o.cpu, o.rounds, o.seconds,
                o.load ? "FIFO 20 thread, 300 us every 20 ms on the measured CPU" : "none");
    std::unique_ptr<PeriodicLoad> load;
    if (o.load) {
        load = std::make_unique<PeriodicLoad>(o.cpu);
        usleep(50'000);
        if (!load->fifo()) {
            std::fprintf(stderr, "the load thread could not become SCHED_FIFO: run as root\n");
            return 1;
        }
    }
    char dirTemplate[] = "/tmp/rtscope-bench-noise.XXXXXX";
    const std::string dir = mkdtemp(dirTemplate);
    std::printf("\n%-8s %6s %12s %9s %9s %9s %9s %12s   (gaps: loops >= 1 us; us; share of the gaps in %%)\n", "tool",
                "round", "loops", "gaps", "gap p50", "gap p99", "max", "gaps>=10us");
    CyclictestThread oslatAll, rtscopeAll, tracedAll;
    std::vector<double> coverages, maxSingles;
    const std::string cpu = std::to_string(o.cpu), secs = std::to_string(o.seconds);
    for (int r = 0; r < o.rounds; ++r) {
        for (int step = 0; step < 3; ++step) {
            // oslat and the untraced run alternate their order; the traced run (attribution) comes last.
            const bool oslatNow = step < 2 && (step == 0) == (r % 2 == 0);
            const bool traced = step == 2;
            if (oslatNow) {
                const std::string json = dir + "/oslat.json";
                const int rc =
                    spawnAndWait({"oslat", "-c", cpu, "-C", "0", "-D", secs, "-b", "1024", "-q", "--json=" + json},
                                 dir + "/oslat.err");
                CyclictestThread t;
                if (rc != 0 || !readOslat(json, t)) {
                    std::fprintf(stderr, "oslat failed (exit %d): %s\n", rc, readText(dir + "/oslat.err").c_str());
                    return 1;
                }
                printRow("oslat", std::to_string(r + 1), figuresOf(t));
                pool(oslatAll, t);
            } else {
                const std::string hist = dir + "/noise.hist", json = dir + "/noise.json";
                std::vector<std::string> args{o.rtscope, "noise",      "--cpus", cpu,      "-D", secs + "s",
                                              "-q",      "--histfile", hist,     "--json", json};
                if (!traced)
                    args.push_back("--no-trace");
                const int rc = spawnAndWait(args, dir + "/noise.err");
                CyclictestThread t;
                if (rc != 0 || !readHist(hist, t)) {
                    std::fprintf(stderr, "rtscope noise failed (exit %d): %s\n", rc,
                                 readText(dir + "/noise.err").c_str());
                    return 1;
                }
                printRow(traced ? "traced" : "rtscope", std::to_string(r + 1), figuresOf(t));
                pool(traced ? tracedAll : rtscopeAll, t);
                double coverage = 0, maxSingle = 0;
                if (traced && readCoverage(json, coverage, maxSingle)) {
                    coverages.push_back(coverage);
                    maxSingles.push_back(maxSingle);
                }
            }
        }
    }
    const Figures a = figuresOf(oslatAll), b = figuresOf(rtscopeAll);
    std::printf("\npooled over %d rounds:\n", o.rounds);
    printRow("oslat", "all", a);
    printRow("rtscope", "all", b);
    const Figures c = figuresOf(tracedAll);
    printRow("traced", "all", c);
    std::printf("\nratio rtscope (untraced) / oslat (target: within 10 %%, i.e. 0.90 .. 1.10):\n");
    std::printf("  gap p50 %.3f   gap p99 %.3f   max %.3f   gaps >= 10 us %.3f   (loops %.3f, gaps per loop %.3f)\n",
                ratio(b.gapP50, a.gapP50), ratio(b.gapP99, a.gapP99), ratio(b.maxUs, a.maxUs),
                ratio(b.share10, a.share10), ratio(double(b.loops), double(a.loops)),
                ratio(double(b.gaps) / double(b.loops), double(a.gaps) / double(a.loops)));
    std::printf("the cost of tracing, traced / untraced rtscope: gap p50 %.3f   gap p99 %.3f   gaps per loop %.3f\n",
                ratio(c.gapP50, b.gapP50), ratio(c.gapP99, b.gapP99),
                ratio(double(c.gaps) / double(c.loops), double(b.gaps) / double(b.loops)));
    if (!coverages.empty())
        std::printf("attribution coverage (noise time explained by traced work), median of %zu runs: %.1f %%; "
                    "max single noise median %.1f us\n",
                    coverages.size(), 100.0 * median(coverages), median(maxSingles));
    return 0;
}
