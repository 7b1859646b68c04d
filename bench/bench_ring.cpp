// Ring throughput: rtscope::SpscRing against boost::lockfree::spsc_queue, same item, same capacity,
// producer and consumer pinned to different CPUs, runs alternated (which goes first alternates too); prints medians,
// and the median of the per-round ratios: a VM's cross-core cost changes by 5x within minutes, so only runs taken
// next to each other compare. Two consumers: one item per pop (the classic bench) and a batch drain of up to 256
// items per call, which is how every collector in the engine drains (SpscRing::popBatch against boost's pop(T*, n)).
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
constexpr size_t kBatch = 256;

void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/// @p pop(out, max) returns how many items it wrote to @p out (0 when the ring was empty).
template <class Push, class Pop> double runOnce(uint64_t n, int prodCpu, int consCpu, Push push, Pop pop)
{
    std::atomic<bool> go{false};
    // The producer gets its own copies of what it reads in the loop: captured by reference, the count and the queue
    // pointer would be read from the consumer's stack, a cache line the consumer writes to.
    std::thread producer([&go, n, prodCpu, push]() mutable {
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
    std::vector<LatencySample> out(kBatch);
    while (got < n) {
        const size_t k = pop(out.data(), kBatch);
        for (size_t i = 0; i < k; ++i)
            sum += out[i].seq;
        got += k;
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

using Queue = boost::lockfree::spsc_queue<LatencySample, boost::lockfree::capacity<kCapacity>>;

struct Row {
    std::vector<double> ours, theirs, ratios;
};

/// One round of one consumer kind: both queues, the order alternating by round.
void round(Row& row, int r, bool batch, uint64_t n, int prodCpu, int consCpu)
{
    auto oursRun = [&] {
        const auto owner = std::make_unique<SpscRing<LatencySample>>(kCapacity);
        SpscRing<LatencySample>* ring = owner.get();
        auto push = [ring](const LatencySample& s) {
            return ring->tryPush(s);
        };
        if (batch)
            return runOnce(n, prodCpu, consCpu, push,
                           [&](LatencySample* out, size_t max) { return ring->popBatch(out, max); });
        return runOnce(n, prodCpu, consCpu, push,
                       [&](LatencySample* out, size_t) { return size_t(ring->tryPop(*out) ? 1 : 0); });
    };
    auto theirsRun = [&] {
        const auto owner = std::make_unique<Queue>();
        Queue* q = owner.get();
        auto push = [q](const LatencySample& s) {
            return q->push(s);
        };
        if (batch)
            return runOnce(n, prodCpu, consCpu, push, [&](LatencySample* out, size_t max) { return q->pop(out, max); });
        return runOnce(n, prodCpu, consCpu, push,
                       [&](LatencySample* out, size_t) { return size_t(q->pop(*out) ? 1 : 0); });
    };
    double a, b;
    if (r % 2 == 0) {
        a = oursRun();
        b = theirsRun();
    } else {
        b = theirsRun();
        a = oursRun();
    }
    row.ours.push_back(a);
    row.theirs.push_back(b);
    row.ratios.push_back(a / b);
}

void print(const char* what, const Row& row)
{
    const double a = median(row.ours), b = median(row.theirs), q = median(row.ratios);
    const auto [oMin, oMax] = std::minmax_element(row.ours.begin(), row.ours.end());
    const auto [tMin, tMax] = std::minmax_element(row.theirs.begin(), row.theirs.end());
    const auto [qMin, qMax] = std::minmax_element(row.ratios.begin(), row.ratios.end());
    const long won = std::count_if(row.ratios.begin(), row.ratios.end(), [](double x) { return x >= 1.5; });
    std::printf("%s\n", what);
    std::printf("  rtscope::SpscRing           median %8.1f M items/s (rounds %.1f-%.1f)\n", a / 1e6, *oMin / 1e6,
                *oMax / 1e6);
    std::printf("  boost::lockfree::spsc_queue median %8.1f M items/s (rounds %.1f-%.1f)\n", b / 1e6, *tMin / 1e6,
                *tMax / 1e6);
    std::printf("  ratio rtscope/boost: %.2fx of the medians; per round median %.2fx (%.2f-%.2f), %ld of %zu rounds "
                ">= 1.5x (target >= 1.5x)\n",
                a / b, q, *qMin, *qMax, won, row.ratios.size());
}

int main(int argc, char** argv)
{
    const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20'000'000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
    const int ncpu = int(std::thread::hardware_concurrency());
    const int prodCpu = 0, consCpu = ncpu > 1 ? 1 : 0;
    Row single, batched;
    for (int r = 0; r < rounds; ++r) {
        round(single, r, false, n, prodCpu, consCpu);
        round(batched, r, true, n, prodCpu, consCpu);
    }
    std::printf(
        "ring throughput, %zu-byte items (%zu-byte slots in rtscope's ring), capacity %zu, %llu items x %d rounds, "
        "producer CPU %d, consumer CPU %d\n",
        sizeof(LatencySample), SpscRing<LatencySample>::slotBytes(), kCapacity, (unsigned long long)n, rounds, prodCpu,
        consCpu);
    std::printf("  CPU: %s, %d CPUs\n", cpuModel().c_str(), ncpu);
    print("one item per pop (tryPop / pop(T&))", single);
    print("batch drain, up to 256 items per call (popBatch / pop(T*, n)), as the engine's collectors drain", batched);
    return 0;
}
