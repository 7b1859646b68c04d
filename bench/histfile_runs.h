#pragma once
// What the benchmarks that run rtscope and cyclictest as programs share (bench_fidelity, bench_trace): starting a
// run, reading its cyclictest `-h` file, and the percentiles both tools are compared by, computed identically from
// the 1 µs bins (docs/BENCHMARKS.md).
#include "engine/formats/cyclictest_format.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace rtscope::bench {

/// A benchmark's command line: "--flag" for the names given as flags, "--key VALUE" for every other name (a value
/// missing at the end is dropped).
struct BenchArgs {
    std::set<std::string> flags;
    std::map<std::string, std::string> values;

    bool has(const std::string& flag) const { return flags.count(flag) > 0; }
    std::string text(const std::string& key, const std::string& fallback) const
    {
        const auto it = values.find(key);
        return it == values.end() ? fallback : it->second;
    }
    int integer(const std::string& key, int fallback) const
    {
        const auto it = values.find(key);
        return it == values.end() ? fallback : std::atoi(it->second.c_str());
    }
};
inline BenchArgs readBenchArgs(int argc, char** argv, std::initializer_list<std::string> flagNames)
{
    BenchArgs a;
    const std::set<std::string> flags(flagNames);
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        if (flags.count(k))
            a.flags.insert(k);
        else if (i + 1 < argc)
            a.values[k] = argv[++i];
    }
    return a;
}

/// The options of both: the rtscope binary, the length of a run, the hogs and the measured CPU, and --self-check (the
/// same instrument in both slots of the alternation: the noise floor the ratios have to be read against).
struct BenchRunOptions {
    std::string rtscope = "build/release/app/rtscope";
    int seconds = 5;
    int hogs = 4;
    int cpu = 1;
    bool selfCheck = false;

    /// --rtscope, --seconds, --hogs, --cpu and --self-check from @p args; the defaults where absent.
    void readRunOptions(const BenchArgs& args)
    {
        selfCheck = args.has("--self-check");
        rtscope = args.text("--rtscope", rtscope);
        seconds = args.integer("--seconds", seconds);
        hogs = args.integer("--hogs", hogs);
        cpu = args.integer("--cpu", cpu);
    }
};

/// @p values with two decimals, separated by spaces, in their order.
inline std::string fixed2List(const std::vector<double>& values)
{
    std::string out;
    for (double x : values) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.2f", out.empty() ? "" : " ", x);
        out += buf;
    }
    return out;
}

/// Whether @p path is an executable rtscope; if not, says so on stderr.
inline bool rtscopeExecutable(const std::string& path)
{
    if (access(path.c_str(), X_OK) == 0)
        return true;
    std::fprintf(stderr, "rtscope binary not found at %s (use --rtscope PATH)\n", path.c_str());
    return false;
}

/// Runs @p args (argv[0] looked up in PATH) with stdout to /dev/null and stderr to @p errPath (an empty path: left as
/// it is); returns the exit status, -1 when it could not start or did not exit.
/// Runs @p args and waits; the exit code, or -1. @p peakRssKib, when given, gets the child's peak resident memory
/// (getrusage's ru_maxrss, KiB).
inline int spawnAndWait(const std::vector<std::string>& args, const std::string& errPath = {},
                        long* peakRssKib = nullptr)
{
    std::vector<char*> argv;
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (!errPath.empty())
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    if (peakRssKib)
        *peakRssKib = usage.ru_maxrss;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Percentile @p p (µs) from 1 µs bins plus overflows, interpolated inside the bin.
inline double percentileUs(const CyclictestThread& t, double p)
{
    uint64_t total = t.overflows;
    for (uint64_t b : t.bins)
        total += b;
    const double target = p / 100.0 * double(total);
    double cum = 0;
    for (size_t i = 0; i < t.bins.size(); ++i) {
        if (t.bins[i] && cum + double(t.bins[i]) >= target)
            return double(i) + (target - cum) / double(t.bins[i]);
        cum += double(t.bins[i]);
    }
    return double(t.bins.size());
}

/// The first thread of the cyclictest histogram file @p path; false (and why, on stderr) when it does not parse.
inline bool readHist(const std::string& path, CyclictestThread& out)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    CyclictestData data;
    std::string error;
    if (!parseCyclictestHistogram(ss.str(), data, error) || data.threads.empty()) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(), error.c_str());
        return false;
    }
    out = data.threads.front();
    return true;
}

/// Adds run @p t's bins and counts to @p into.
inline void pool(CyclictestThread& into, const CyclictestThread& t)
{
    if (into.bins.size() < t.bins.size())
        into.bins.resize(t.bins.size(), 0);
    for (size_t i = 0; i < t.bins.size(); ++i)
        into.bins[i] += t.bins[i];
    into.overflows += t.overflows;
    into.cycles += t.cycles;
    into.maxUs = std::max(into.maxUs, t.maxUs);
}

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace rtscope::bench
