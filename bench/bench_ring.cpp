// Ring throughput: rtscope::SpscRing against boost::lockfree::spsc_queue, same item, same capacity,
// producer and consumer pinned to different CPUs, runs alternated; prints medians and the ratio.
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/pipeline/spsc_ring.h"
#include "engine/util/clock.h"

#include <algorithm>
#include <boost/lockfree/spsc_queue.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

using namespace rtscope;

namespace {

constexpr size_t kCapacity = 1 << 16;

void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

template <class Push, class Pop> double runOnce(uint64_t n, int prodCpu, int consCpu, Push push, Pop pop)
{
    std::atomic<bool> go{false};
    std::thread producer([&] {
        pin(prodCpu);
        while (!go.load(std::memory_order_acquire)) {
        }
        for (uint64_t i = 0; i < n; ++i) {
            LatencySample s;
            s.seq = i;
            s.latencyNs = int64_t(i);
            while (!push(s)) {
            }
        }
    });
    pin(consCpu);
    uint64_t got = 0, sum = 0;
    const int64_t t0 = nowNs();
    go.store(true, std::memory_order_release);
    LatencySample s;
    while (got < n) {
        if (pop(s)) {
            sum += s.seq;
            ++got;
        }
    }
    const int64_t t1 = nowNs();
    producer.join();
    if (sum != n * (n - 1) / 2) {
        std::fprintf(stderr, "checksum mismatch: items lost\n");
        std::exit(1);
    }
    return double(n) / (double(t1 - t0) / 1e9);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// The host's CPU model (/proc/cpuinfo "model name"): the ratio differs between hosts, so every row names its CPU.
std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            const size_t colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "unknown";
}

} // namespace

int main(int argc, char** argv)
{
    const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20'000'000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
    const int ncpu = int(std::thread::hardware_concurrency());
    const int prodCpu = 0, consCpu = ncpu > 1 ? 1 : 0;
    std::vector<double> ours, theirs;
    for (int r = 0; r < rounds; ++r) {
        {
            auto ring = std::make_unique<SpscRing<LatencySample>>(kCapacity);
            ours.push_back(runOnce(
                n, prodCpu, consCpu, [&](const LatencySample& s) { return ring->tryPush(s); },
                [&](LatencySample& s) { return ring->tryPop(s); }));
        }
        {
            auto q =
                std::make_unique<boost::lockfree::spsc_queue<LatencySample, boost::lockfree::capacity<kCapacity>>>();
            theirs.push_back(runOnce(
                n, prodCpu, consCpu, [&](const LatencySample& s) { return q->push(s); },
                [&](LatencySample& s) { return q->pop(s); }));
        }
    }
    const double a = median(ours), b = median(theirs);
    std::printf(
        "ring throughput, %zu-byte items, capacity %zu, %llu items x %d rounds, producer CPU %d, consumer CPU %d\n",
        sizeof(LatencySample), kCapacity, (unsigned long long)n, rounds, prodCpu, consCpu);
    std::printf("  CPU: %s, %d CPUs\n", cpuModel().c_str(), ncpu);
    const auto [oMin, oMax] = std::minmax_element(ours.begin(), ours.end());
    const auto [tMin, tMax] = std::minmax_element(theirs.begin(), theirs.end());
    std::printf("  rtscope::SpscRing          median %8.1f M items/s (rounds %.1f-%.1f)\n", a / 1e6, *oMin / 1e6,
                *oMax / 1e6);
    std::printf("  boost::lockfree::spsc_queue median %8.1f M items/s (rounds %.1f-%.1f)\n", b / 1e6, *tMin / 1e6,
                *tMax / 1e6);
    std::printf("  ratio rtscope/boost: %.2fx (target >= 1.5x)\n", a / b);
    return 0;
}
