// Writes seed recordings for fuzz_recording into the directory given: one with every block type (header,
// samples, markers, reset, drops, hog work, restart, anatomy, traced wake-up, end) and one whose writer lost samples
// (lost blocks).
#include "engine/recording/recording_writer.h"
#include "engine/util/clock.h"

#include <cstdio>
#include <string>

using namespace rtscope;

namespace {

// The anatomy blocks: a traced run's status, a culprit and one worst wake-up with a window of the common events.
LatencyTracing seedTracing(int64_t deadline)
{
    LatencyTracing t;
    t.active = true;
    t.top = 10;
    t.thresholdNs = 500'000;
    t.updatedNs = deadline + 80 * kNsPerMs;
    t.missingEvents = {"timerlat"};
    t.figures.wakeupsSeen = t.figures.wakeupsAnalysed = 64;
    t.figures.culprits = {{CulpritKind::Task, 4242, "stress-ng-cpu", 120, 1, 900'000, 900'000}};
    TracedWakeup w;
    w.seq = 140;
    w.anatomy.query = {777, 0, deadline, deadline + 1'000'000};
    w.anatomy.latencyNs = 1'000'000;
    w.anatomy.timerIrqDelayNs = 5'000;
    w.anatomy.schedulingNs = 900'000;
    w.anatomy.tasks = {{4242, "stress-ng-cpu", 120, deadline + 5'000, deadline + 905'000, 900'000, true}};
    w.anatomy.interrupts = {{CulpritKind::Irq, 24, "irq 24 (virtio0-input.0)", false, 2'000, 1}};
    TraceEvent e{};
    e.ts = deadline + 5'000;
    e.type = TraceEventType::HrtimerExpireEntry;
    e.hrtimer = {0xffff888003a1b2c0ull, 0xffffffff8114a3b0ull, deadline};
    w.events.push_back(e);
    e = {};
    e.ts = deadline + 5'100;
    e.type = TraceEventType::IrqEntry;
    e.irq.number = 24;
    setTraceText(e.irq.name, "virtio0-input.0");
    w.events.push_back(e);
    e = {};
    e.ts = deadline + 905'000;
    e.type = TraceEventType::SchedSwitch;
    e.pid = 4242;
    e.sw.prev = {"stress-ng-cpu", 4242, 120};
    e.sw.next = {"rtscope-measure", 777, 120};
    w.events.push_back(e);
    t.figures.worst.push_back(w);
    return t;
}

void play(RecordingWriter& w)
{
    LatencyConfig c;
    c.cpu = 1;
    c.hogs = 2;
    const int64_t t0 = 100 * kNsPerSec;
    w.onRunStart({c, t0, {1}, 0});
    w.onMarker({t0, 0, "start: " + c.label()}, c);
    std::vector<LatencySample> batch;
    for (uint64_t i = 0; i < 64; ++i) {
        const int64_t latency = 3'000 + int64_t(i % 7) * 900 + (i == 40 ? 2'500'000 : 0);
        batch.push_back(
            {i, t0 + int64_t(i) * kNsPerMs, t0 + int64_t(i) * kNsPerMs + latency, latency, i == 40 ? 2u : 0u, 0});
    }
    w.onSamples(0, batch);
    w.onDrops(0, 2);
    w.onHogWork(t0 + 70 * kNsPerMs, 1'000'000, 1.4e7);
    LatencyConfig fifo = c;
    fifo.policy = Policy::Fifo;
    fifo.priority = 80;
    w.onMarker({t0 + 70 * kNsPerMs, 64, "FIFO 80"}, fifo);
    w.onReset(t0 + 71 * kNsPerMs);
    w.onRestart(t0 + 72 * kNsPerMs, {0});
    for (auto& s : batch) {
        s.seq += 100;
        s.deadlineNs += 80 * kNsPerMs;
        s.wakeNs += 80 * kNsPerMs;
        s.epoch = 1;
    }
    w.onSamples(0, batch);
    w.onTracing(seedTracing(t0 + 120 * kNsPerMs));
    w.onRunEnd(t0 + 200 * kNsPerMs);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    SystemProbe probe;
    probe.hostname = "seed";
    probe.kernelRelease = "6.1.0";
    probe.onlineCpus = {0, 1};
    RecordingWriter full(probe, dir + "/seed-full.rtrec");
    play(full);
    RecordingWriter::Limits small;
    small.maxFileBytes = 1700; // the header and one block, then samples are lost
    RecordingWriter lossy(probe, dir + "/seed-lost.rtrec", small);
    play(lossy);
    const bool ok = full.status().complete && lossy.status().complete && lossy.status().lost > 0;
    std::printf("seeds: %s\n", ok ? "written" : "FAILED");
    return ok ? 0 : 1;
}
