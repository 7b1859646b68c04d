// Starting and stopping CPU hogs (the latency experiment's `--hogs N`, engine/rt/hog_set.h) against the plainest way to
// do the same: N std::threads spinning on an atomic flag, pinned to the same CPU with the same attribute glibc applies
// before the thread runs. Both under mlockall(MCL_CURRENT|MCL_FUTURE), as the CLI runs (every new stack is populated
// when it is mapped). Rounds alternate who goes first; medians and the ratio rtscope/peer are printed per count. The
// figures to read: whether start-up grows linearly with N (time per hog flat) and how far it is from the peer.
// A third column, up to --wait-max hogs, starts them the way rtscope did before issue 27 (item 5): one
// RtThread::start() per hog, each waiting for its thread's first turn among the spinners already on the CPU.
// Usage: bench_hogs [--cpu C] [--rounds R] [--counts 16,64,128,256] [--wait-max N]
#include "engine/rt/caller_affinity.h"
#include "engine/rt/hog_set.h"
#include "engine/rt/memory_lock.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <sched.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace rtscope;

namespace {

struct Times {
    double startMs = 0;
    double stopMs = 0;
};

Times runHogSet(int cpu, int n)
{
    HogSet hogs(n);
    hogs.place({{cpu}, Policy::Other, 0, "rtscope-hog"});
    const int64_t t0 = nowNs();
    if (Error e = hogs.setPerCpu(n)) {
        std::fprintf(stderr, "HogSet: %s\n", e.message.c_str());
        std::exit(1);
    }
    const int64_t t1 = nowNs();
    hogs.stopAll();
    const int64_t t2 = nowNs();
    return {double(t1 - t0) / 1e6, double(t2 - t1) / 1e6};
}

// The old way: each hog start()ed and waited for, from a thread off the hog CPU (as HogSet starts them now).
Times runStartEach(int cpu, int n)
{
    const ScopedCallerAffinity offTheHogCpu({cpu});
    std::vector<RtThread> threads(static_cast<size_t>(n));
    ThreadSpec spec;
    spec.cpu = cpu;
    spec.name = "bench-hog";
    spec.stackBytes = 64 * 1024;
    spec.prefaultBytes = 0;
    spec.lockStack = false;
    const int64_t t0 = nowNs();
    for (RtThread& t : threads)
        if (Error e = t.start(spec, [](const std::atomic<bool>& stop) {
                while (!stop.load(std::memory_order_relaxed)) {
                }
            })) {
            std::fprintf(stderr, "start(): %s\n", e.message.c_str());
            std::exit(1);
        }
    const int64_t t1 = nowNs();
    std::vector<RtThread*> all;
    for (RtThread& t : threads)
        all.push_back(&t);
    RtThread::stopAll(all, kJoinBudgetMs);
    const int64_t t2 = nowNs();
    return {double(t1 - t0) / 1e6, double(t2 - t1) / 1e6};
}

std::atomic<bool> g_peerStop{false};

void* peerSpin(void*)
{
    while (!g_peerStop.load(std::memory_order_relaxed)) {
    }
    return nullptr;
}

Times runPeer(int cpu, int n)
{
    g_peerStop = false;
    std::vector<pthread_t> threads(static_cast<size_t>(n));
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    const int64_t t0 = nowNs();
    for (auto& t : threads)
        if (pthread_create(&t, &attr, peerSpin, nullptr) != 0) {
            std::fprintf(stderr, "peer: pthread_create failed\n");
            std::exit(1);
        }
    const int64_t t1 = nowNs();
    g_peerStop = true;
    for (auto& t : threads)
        pthread_join(t, nullptr);
    const int64_t t2 = nowNs();
    pthread_attr_destroy(&attr);
    return {double(t1 - t0) / 1e6, double(t2 - t1) / 1e6};
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    int cpu = 1;
    int rounds = 5;
    int waitMax = 64;
    std::vector<int> counts = {16, 64, 128, 256};
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        if (k == "--cpu")
            cpu = std::atoi(argv[i + 1]);
        else if (k == "--wait-max")
            waitMax = std::atoi(argv[i + 1]);
        else if (k == "--rounds")
            rounds = std::max(1, std::atoi(argv[i + 1]));
        else if (k == "--counts") {
            counts.clear();
            std::stringstream ss(argv[i + 1]);
            for (std::string item; std::getline(ss, item, ',');)
                counts.push_back(std::atoi(item.c_str()));
        }
    }
    const MemoryLockStatus lock = lockAllMemory();
    std::printf("hogs on CPU %d, %d rounds alternated, memory: %s\n", cpu, rounds, lock.detail.c_str());
    std::printf("%6s  %22s  %22s  %12s  %12s  %16s\n", "hogs", "start rtscope / peer", "stop rtscope / peer",
                "start/hog", "start ratio", "start() each");
    for (int n : counts) {
        std::vector<double> rsStart, rsStop, peerStart, peerStop, eachStart;
        for (int r = 0; r < rounds; ++r) {
            for (int which = 0; which < 2; ++which) {
                if ((r + which) % 2 == 0) {
                    const Times t = runHogSet(cpu, n);
                    rsStart.push_back(t.startMs);
                    rsStop.push_back(t.stopMs);
                } else {
                    const Times t = runPeer(cpu, n);
                    peerStart.push_back(t.startMs);
                    peerStop.push_back(t.stopMs);
                }
            }
            if (n <= waitMax)
                eachStart.push_back(runStartEach(cpu, n).startMs);
        }
        const double rs = median(rsStart), peer = median(peerStart);
        char each[32] = "-";
        if (!eachStart.empty())
            std::snprintf(each, sizeof each, "%.1f ms", median(eachStart));
        std::printf("%6d  %9.2f / %7.2f ms  %9.2f / %7.2f ms  %9.1f us  %11.2fx  %16s\n", n, rs, peer, median(rsStop),
                    median(peerStop), 1000.0 * rs / n, peer > 0 ? rs / peer : 0.0, each);
        std::fflush(stdout);
    }
    return 0;
}
