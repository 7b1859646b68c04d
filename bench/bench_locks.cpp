// Lock throughput at short holds (docs/experiments/locks.md): every lock kind with 2 and 4 workers pinned round-robin
// on the CPUs, busy work inside (hold) and between (work) acquisitions, kinds alternated within each round so they
// share the machine's noise; prints medians and the ratio against the plain pthread mutex measured in the same rounds.
// The RT patch's finding to check: adaptive locks beat the sleeping mutex when holds are short.
// Usage: bench_locks [--rounds N] [--ms M] [--nice N]  (--nice -20 keeps other load from preempting lock holders)
#include "engine/locks/adaptive_lock.h"
#include "engine/locks/busy_work.h"
#include "engine/locks/lock.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace rtscope;

namespace {

struct Variant {
    const char* name;
    LockKind kind;
    bool stealing;
};

const Variant kVariants[] = {
    {"spin", LockKind::Spin, true},
    {"mutex", LockKind::Mutex, true},
    {"adaptive-glibc", LockKind::AdaptiveGlibc, true},
    {"adaptive", LockKind::Adaptive, true},
    {"adaptive-nosteal", LockKind::Adaptive, false},
    {"pi", LockKind::Pi, true},
};
constexpr int kMutexIndex = 1;

struct Setting {
    int threads;
    int64_t holdNs;
    int64_t workNs;
};

struct Sample {
    double perSec = 0;
    double cpuNsPerAcq = 0;
};

void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

std::vector<int> usableCpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof set, &set);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set))
            cpus.push_back(c);
    return cpus;
}

int64_t processCpuNs()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return fromTimespec(ts);
}

// One timed run of one kind: every worker locks, works @p holdNs inside, unlocks, works @p workNs outside.
Sample runOnce(const Variant& v, const Setting& s, int64_t runNs, const std::vector<int>& cpus, int nice)
{
    LockOptions options;
    options.stealing = v.stealing;
    auto lock = makeLock(v.kind, options);
    if (!lock) {
        std::fprintf(stderr, "cannot create %s\n", v.name);
        std::exit(1);
    }
    std::atomic<bool> stop{false};
    std::vector<uint64_t> counts(size_t(s.threads), 0);
    const int64_t t0 = nowNs() + 20 * kNsPerMs; // released together, after every thread exists
    std::vector<std::thread> threads;
    for (int i = 0; i < s.threads; ++i) {
        threads.emplace_back([&, i] {
            pin(cpus[size_t(i) % cpus.size()]);
            if (nice != 0)
                setpriority(PRIO_PROCESS, id_t(gettid()), nice);
            const timespec start = toTimespec(t0);
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, nullptr) == EINTR) {
            }
            uint64_t n = 0;
            int64_t t = nowNs();
            while (!stop.load(std::memory_order_relaxed)) {
                lock->lock();
                const int64_t held = s.holdNs > 0 ? busyWork(nowNs(), s.holdNs) : t;
                lock->unlock();
                ++n;
                t = s.workNs > 0 ? busyWork(held, s.workNs) : held;
            }
            counts[size_t(i)] = n;
        });
    }
    const timespec start = toTimespec(t0);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, nullptr);
    const int64_t cpu0 = processCpuNs();
    const timespec end = toTimespec(t0 + runNs);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, nullptr);
    stop.store(true);
    const int64_t stopped = nowNs();
    for (auto& t : threads)
        t.join();
    const int64_t cpu = processCpuNs() - cpu0;
    uint64_t total = 0;
    for (uint64_t c : counts)
        total += c;
    Sample out;
    out.perSec = double(total) * 1e9 / double(stopped - t0);
    out.cpuNsPerAcq = total ? double(cpu) / double(total) : 0;
    return out;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

std::string rate(double perSec)
{
    char buf[32];
    if (perSec >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2f M", perSec / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.0f k", perSec / 1e3);
    return buf;
}

std::string ns(int64_t v)
{
    char buf[32];
    if (v >= 1000)
        std::snprintf(buf, sizeof buf, "%.1f us", double(v) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%lld ns", (long long)v);
    return buf;
}

} // namespace

int main(int argc, char** argv)
{
    int rounds = 5;
    int64_t runMs = 300;
    int nice = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--rounds") == 0)
            rounds = std::max(1, std::atoi(argv[i + 1]));
        else if (std::strcmp(argv[i], "--ms") == 0)
            runMs = std::max<int64_t>(50, std::atoll(argv[i + 1]));
        else if (std::strcmp(argv[i], "--nice") == 0)
            nice = std::clamp(std::atoi(argv[i + 1]), -20, 19);
    }
    // A negative nice needs CAP_SYS_NICE or RLIMIT_NICE: check once, here, rather than in every worker.
    if (nice < 0) {
        std::thread probe([&] {
            if (setpriority(PRIO_PROCESS, id_t(gettid()), nice) != 0) {
                std::fprintf(stderr, "bench_locks: --nice %d refused (%s); running at nice 0\n", nice,
                             std::strerror(errno));
                nice = 0;
            }
        });
        probe.join();
    }
    const std::vector<int> cpus = usableCpus();
    const Setting settings[] = {
        {2, 100, 1000},
        {2, 1000, 1000},
        {4, 100, 1000},
        {4, 1000, 1000},
    };
    constexpr size_t kKinds = std::size(kVariants);

    std::printf("lock throughput: median of %d rounds x %lld ms per kind, kinds alternated within each round;\n"
                "workers SCHED_OTHER nice %d, pinned round-robin on %zu CPU(s); busy work `hold` inside the lock, "
                "`work` between acquisitions.\nratio = acquisitions/s of the kind / of the plain pthread mutex; cpu = "
                "process CPU time per acquisition.\n",
                rounds, (long long)runMs, nice, cpus.size());
    // Other load decides how often a lock holder is preempted, which is what punishes spinning: print it.
    double load[3] = {};
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3)
            std::printf("load average at start: %.2f %.2f %.2f (1, 5, 15 min)\n", load[0], load[1], load[2]);
        std::fclose(f);
    }
    std::printf("\n%-7s %-7s %-7s", "threads", "hold", "work");
    for (const Variant& v : kVariants)
        std::printf(" | %-23s", v.name);
    std::printf("\n");

    for (const Setting& s : settings) {
        std::vector<std::vector<double>> perSec(kKinds), cpuPerAcq(kKinds);
        for (int r = 0; r < rounds; ++r) {
            // Rotate the starting kind so none always runs first (or last) in a round.
            for (size_t k = 0; k < kKinds; ++k) {
                const size_t idx = (k + size_t(r)) % kKinds;
                const Sample smp = runOnce(kVariants[idx], s, runMs * kNsPerMs, cpus, nice);
                perSec[idx].push_back(smp.perSec);
                cpuPerAcq[idx].push_back(smp.cpuNsPerAcq);
            }
        }
        const double mutex = median(perSec[kMutexIndex]);
        std::printf("%-7d %-7s %-7s", s.threads, ns(s.holdNs).c_str(), ns(s.workNs).c_str());
        for (size_t k = 0; k < kKinds; ++k) {
            const double m = median(perSec[k]);
            char cell[64];
            std::snprintf(cell, sizeof cell, "%s/s %.2fx cpu %s", rate(m).c_str(), mutex > 0 ? m / mutex : 0.0,
                          ns(int64_t(median(cpuPerAcq[k]))).c_str());
            std::printf(" | %-23s", cell);
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
}
