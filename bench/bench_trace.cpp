// The cost of the latency anatomy (docs/experiments/anatomy.md): `rtscope latency` with and without `--trace`, same
// configuration, runs alternated, so the only difference is the trace session (its kernel events on the measured
// CPU, its reader thread, the analysis on the collector). Both runs write cyclictest's -h histogram file, read back
// by the same parser; percentiles are computed the same way from those 1 µs bins (as bench_fidelity does). Then the
// reader's throughput: events per second handed on and events lost, from the traced run's --json, at 1 kHz and
// 10 kHz. Targets (issue 16): traced/untraced p50 and p99 ≤ 1.05; 0 lost events. Printed with PASS/MISS, not
// asserted: on a shared 2-vCPU VM a single run's tail is noise (docs/BENCHMARKS.md says how to read them).
#include "bench/histfile_runs.h"
#include "engine/formats/cyclictest_format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace rtscope;

namespace {

using namespace rtscope::bench;

// --self-check: untraced in both slots.
struct Options : BenchRunOptions {
    int pairs = 6;
    int rateSeconds = 5;
    int rateRuns = 2;
    bool skipRates = false;
};

std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// What a run said on stderr: whether another rtscope measured on the same CPU meanwhile (rtscope warns at the start:
// docs/cli.md), which disturbs both; anything else is passed on.
bool disturbed(const std::string& errPath)
{
    const std::string err = readText(errPath);
    bool other = false;
    std::stringstream lines(err);
    for (std::string line; std::getline(lines, line);) {
        if (line.find("another rtscope") != std::string::npos)
            other = true;
        else if (!line.empty())
            std::fprintf(stderr, "  rtscope said: %s\n", line.c_str());
    }
    return other;
}

bool readJson(const std::string& path, nlohmann::json& out)
{
    std::ifstream in(path);
    out = nlohmann::json::parse(in, nullptr, false);
    if (out.is_discarded()) {
        std::fprintf(stderr, "%s: not JSON\n", path.c_str());
        return false;
    }
    return true;
}

const char* verdict(double ratio, double target)
{
    return ratio > 0 && ratio <= target ? "PASS" : "MISS";
}

struct Side {
    std::vector<double> p50, p99; ///< per run, in run order
    CyclictestThread pooled;
    uint64_t samples = 0;
    int disturbed = 0; ///< runs during which another rtscope measured on the same CPU
};

struct Config {
    const char* name;
    std::vector<std::string> flags;
};

std::vector<std::string> baseArgs(const Options& o, int periodUs, int seconds, const std::string& hist)
{
    return {o.rtscope,     "latency",
            "-q",          "--dma-latency",
            "--cpu",       std::to_string(o.cpu),
            "-i",          std::to_string(periodUs),
            "-D",          std::to_string(seconds) + "s",
            "--hogs",      std::to_string(o.hogs),
            "--histogram", "20000",
            "--histfile",  hist};
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    const BenchArgs args = readBenchArgs(argc, argv, {"--self-check", "--no-rates"});
    o.readRunOptions(args);
    o.skipRates = args.has("--no-rates");
    o.pairs = args.integer("--pairs", args.integer("--rounds", o.pairs));
    o.rateSeconds = args.integer("--rate-seconds", o.rateSeconds);
    o.rateRuns = args.integer("--rate-runs", o.rateRuns);
    if (!rtscopeExecutable(o.rtscope))
        return 1;
    const std::string dir = "/tmp/rtscope-bench-trace";
    std::system(("mkdir -p " + dir).c_str());
    const std::string hist = dir + "/run.hist", json = dir + "/run.json", err = dir + "/run.err";
    const char* second = o.selfCheck ? "untraced2" : "traced";
    std::printf("trace cost: rtscope latency with and without --trace, CPU %d, %d hogs (rtscope's own, SCHED_OTHER), "
                "period 1 ms, /dev/cpu_dma_latency 0, %d pairs of %d s, alternated\n",
                o.cpu, o.hogs, o.pairs, o.seconds);
    if (o.selfCheck)
        std::printf("self-check: untraced in both slots, to show the noise floor of the ratios\n");
    int failures = 0;

    const std::vector<Config> configs = {{"SCHED_FIFO 80", {"--policy", "fifo", "-p", "80"}},
                                         {"SCHED_OTHER", {"--policy", "other"}}};
    for (const Config& config : configs) {
        Side plain, traced;
        for (int r = 0; r < o.pairs; ++r) {
            for (int which = 0; which < 2; ++which) {
                const bool withTrace = (r + which) % 2 == 1; // alternate who goes first
                std::vector<std::string> args = baseArgs(o, 1000, o.seconds, hist);
                args.insert(args.end(), config.flags.begin(), config.flags.end());
                if (withTrace && !o.selfCheck)
                    args.insert(args.end(), {"--trace", "--json", json});
                std::remove(hist.c_str());
                const int rc = spawnAndWait(args, err);
                const bool other = disturbed(err);
                CyclictestThread t;
                if (rc != 0 || !readHist(hist, t)) {
                    std::fprintf(stderr, "%s run failed (exit %d)\n", withTrace ? second : "untraced", rc);
                    ++failures;
                    continue;
                }
                if (withTrace && !o.selfCheck) {
                    nlohmann::json j;
                    if (!readJson(json, j) || j["rtscope"]["anatomy"]["status"] != "active") {
                        std::fprintf(stderr, "the traced run did not trace: %s\n",
                                     j.is_object() ? j["rtscope"]["anatomy"].dump().c_str() : "no JSON");
                        ++failures;
                        continue;
                    }
                }
                Side& side = withTrace ? traced : plain;
                side.disturbed += other ? 1 : 0;
                side.p50.push_back(percentileUs(t, 50));
                side.p99.push_back(percentileUs(t, 99));
                side.samples += t.cycles;
                pool(side.pooled, t);
            }
        }
        const double u50 = percentileUs(plain.pooled, 50), t50 = percentileUs(traced.pooled, 50);
        const double u99 = percentileUs(plain.pooled, 99), t99 = percentileUs(traced.pooled, 99);
        std::printf("%s, %d hogs, 1 ms:\n", config.name, o.hogs);
        std::printf("  per run p50, us:  untraced %s | %s %s\n", fixed2List(plain.p50).c_str(), second,
                    fixed2List(traced.p50).c_str());
        std::printf("  per run p99, us:  untraced %s | %s %s\n", fixed2List(plain.p99).c_str(), second,
                    fixed2List(traced.p99).c_str());
        std::printf("  pooled  untraced p50 %8.2f us  p99 %8.2f us  max %6lld us  (%llu samples)\n", u50, u99,
                    (long long)plain.pooled.maxUs, (unsigned long long)plain.samples);
        std::printf("  pooled  %-8s p50 %8.2f us  p99 %8.2f us  max %6lld us  (%llu samples)\n", second, t50, t99,
                    (long long)traced.pooled.maxUs, (unsigned long long)traced.samples);
        const double r50 = u50 > 0 ? t50 / u50 : 0, r99 = u99 > 0 ? t99 / u99 : 0;
        const double m50 = median(plain.p50) > 0 ? median(traced.p50) / median(plain.p50) : 0;
        const double m99 = median(plain.p99) > 0 ? median(traced.p99) / median(plain.p99) : 0;
        std::printf("  ratio %s/untraced, pooled: p50 %.3fx %s, p99 %.3fx %s (target <= 1.05)\n", second, r50,
                    verdict(r50, 1.05), r99, verdict(r99, 1.05));
        std::printf("  ratio %s/untraced, medians of the per-run figures: p50 %.3fx %s, p99 %.3fx %s\n", second, m50,
                    verdict(m50, 1.05), m99, verdict(m99, 1.05));
        if (plain.disturbed || traced.disturbed)
            std::printf(
                "  WARNING: another rtscope measured on CPU %d during %d untraced and %d %s runs: those figures "
                "include its load\n",
                o.cpu, plain.disturbed, traced.disturbed, second);
    }

    if (!o.skipRates && !o.selfCheck) {
        // The reader: how many events a second it handed on and whether the kernel dropped any, where the event rate
        // is highest (the measuring thread's wake-ups are most of it): SCHED_FIFO 80 with the hogs.
        std::printf("reader throughput: SCHED_FIFO 80, %d hogs, --trace, %d runs of %d s per rate\n", o.hogs,
                    o.rateRuns, o.rateSeconds);
        for (const int periodUs : {1000, 100}) {
            for (int r = 0; r < o.rateRuns; ++r) {
                std::vector<std::string> args = baseArgs(o, periodUs, o.rateSeconds, hist);
                args.insert(args.end(), {"--policy", "fifo", "-p", "80", "--trace", "--json", json});
                const int rc = spawnAndWait(args, err);
                const bool other = disturbed(err);
                nlohmann::json j;
                if (rc != 0 || !readJson(json, j) || j["rtscope"]["anatomy"]["status"] != "active") {
                    std::fprintf(stderr, "traced run at %d us failed (exit %d)\n", periodUs, rc);
                    ++failures;
                    continue;
                }
                const nlohmann::json& a = j["rtscope"]["anatomy"];
                const nlohmann::json& st = a["stats"];
                const uint64_t lost = st["lost_events"].get<uint64_t>() + st["kernel_overrun"].get<uint64_t>() +
                                      st["kernel_dropped"].get<uint64_t>() + st["queue_dropped_events"].get<uint64_t>();
                std::printf("  %5d Hz: %9.0f events/s handed on (%llu events), lost %llu (kernel lost %llu, overrun "
                            "%llu, dropped %llu, queue %llu), unread at stop %llu, %llu of %llu wake-ups analysed, "
                            "p99 %.1f us  %s\n",
                            1'000'000 / periodUs, st["events_per_second"].get<double>(),
                            (unsigned long long)st["events"].get<uint64_t>(), (unsigned long long)lost,
                            (unsigned long long)st["lost_events"].get<uint64_t>(),
                            (unsigned long long)st["kernel_overrun"].get<uint64_t>(),
                            (unsigned long long)st["kernel_dropped"].get<uint64_t>(),
                            (unsigned long long)st["queue_dropped_events"].get<uint64_t>(),
                            (unsigned long long)st["unread_at_stop"].get<uint64_t>(),
                            (unsigned long long)a["wakeups"]["analysed"].get<uint64_t>(),
                            (unsigned long long)a["wakeups"]["seen"].get<uint64_t>(),
                            j["rtscope"]["threads"][0]["p99_ns"].get<double>() / 1000.0,
                            lost == 0 ? "PASS (target 0 lost)" : "MISS (target 0 lost)");
                if (other)
                    std::printf("         (another rtscope measured on CPU %d during this run)\n", o.cpu);
            }
        }
    }
    return failures ? 1 : 0;
}
