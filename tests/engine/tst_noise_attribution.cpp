// ctest: parallel. Pure attribution of hand-made events.
// The noise lab's attribution with trace events written by hand: each gap's time goes to the innermost traced context
// (an interrupt inside a thread's time is the interrupt's), what nothing traced covers is unexplained, the kinds add
// up to the gap exactly, late batches and lost events are handled. No threads, no tracefs.
#include "engine/experiments/noise/noise_attribution.h"
#include "engine/util/clock.h"

#include "tests/common/find_by.h"
#include "tests/common/test_main.h"
#include "tests/common/trace_event_util.h"

#include <QRandomGenerator>
#include <QtTest>
#include <numeric>

using namespace rtscope;
using namespace rtscope::test;

namespace {

constexpr int kCpu = 1;
constexpr int kPoller = 4242;
constexpr int64_t kT = 10'000'000'000; // 10 s: an arbitrary CLOCK_MONOTONIC origin
constexpr int64_t kUs = 1000;

const SwitchTask kPollerTask{kPoller, "rtscope-noise", 120};
const SwitchTask kCulpritTask{555, "xqculprit", 9}; // FIFO 90

TraceEvent noiseIrq(TraceEventType type, int64_t ts, int number, const char* name = "")
{
    TraceEvent e = traceEvent(type, ts, kPoller, kCpu);
    e.irq.number = number;
    setTraceText(e.irq.name, name);
    return e;
}

TraceEvent noiseVector(TraceEventType type, int64_t ts, TraceVector v)
{
    TraceEvent e = traceEvent(type, ts, kPoller, kCpu);
    e.irq.vector = v;
    return e;
}

TraceEvent noiseLost(int64_t sinceNs, int64_t ts, uint64_t count)
{
    TraceEvent e = traceEvent(TraceEventType::Lost, ts, 0, kCpu);
    e.lost.sinceNs = sinceNs;
    e.lost.count = count;
    return e;
}

NoiseAttribution oneCpu(bool traced = true)
{
    return NoiseAttribution({{kCpu, kPoller}}, traced);
}

int64_t kindSum(const NoiseCpuAttribution& a)
{
    return std::accumulate(a.kindNs.begin(), a.kindNs.end(), int64_t(0));
}

int64_t kindNs(const NoiseCpuAttribution& a, NoiseKind k)
{
    return a.kindNs[size_t(k)];
}

const NoiseCulprit* findCulprit(const std::vector<NoiseCulprit>& list, const std::string& name)
{
    return rtscope::test::findBy(list, &NoiseCulprit::name, name);
}

} // namespace

class TestNoiseAttribution : public QObject {
    Q_OBJECT
private slots:
    // A thread takes the CPU for 290 µs; an interrupt inside its time is the interrupt's, not the thread's.
    void irqNestedInAThread()
    {
        NoiseAttribution a = oneCpu();
        const std::vector<TraceEvent> events{
            traceSwitch(kT + 10 * kUs, kCpu, kPollerTask, 0, kCulpritTask),
            noiseIrq(TraceEventType::IrqEntry, kT + 100 * kUs, 24, "virtio0-input.0"),
            noiseIrq(TraceEventType::IrqExit, kT + 120 * kUs, 24),
            traceSwitch(kT + 300 * kUs, kCpu, kCulpritTask, 1, kPollerTask),
        };
        a.addEvents(events);
        a.addGap(0, {kT, kT + 400 * kUs});
        a.finish();
        const NoiseCpuAttribution& f = a.cpu(0);
        QCOMPARE(f.gaps, uint64_t(1));
        QCOMPARE(f.noiseNs, 400 * kUs);
        QCOMPARE(kindNs(f, NoiseKind::Thread), 270 * kUs);
        QCOMPARE(kindNs(f, NoiseKind::Irq), 20 * kUs);
        QCOMPARE(kindNs(f, NoiseKind::Unexplained), 110 * kUs); // before the switch, and after the switch back
        QCOMPARE(kindSum(f), f.noiseNs);
        QCOMPARE(f.kindCount[size_t(NoiseKind::Thread)], uint64_t(1));
        QCOMPARE(f.kindCount[size_t(NoiseKind::Irq)], uint64_t(1));
        QCOMPARE(f.kindCount[size_t(NoiseKind::Unexplained)], uint64_t(0)); // the gap was touched

        const int64_t runtime = 10'000 * kUs;
        const std::vector<NoiseCulprit> list = a.culprits(std::span(&runtime, 1), 10);
        QCOMPARE(list.size(), size_t(3));
        QCOMPARE(QString::fromStdString(list[0].name), QString("xqculprit")); // longest first
        QCOMPARE(list[0].kind, NoiseKind::Thread);
        QCOMPARE(list[0].pid, 555);
        QCOMPARE(list[0].cpu, kCpu);
        QCOMPARE(QString::fromStdString(list[0].sched), QString("RT 90 (FIFO/RR)"));
        QCOMPARE(list[0].maxNs, 270 * kUs);
        QCOMPARE(list[0].percent, 2.7);
        QCOMPARE(QString::fromStdString(list[1].name), QString("unexplained (HW/VM)"));
        QCOMPARE(QString::fromStdString(list[2].name), QString("irq 24 virtio0-input.0"));
        QCOMPARE(list[2].kind, NoiseKind::Irq);
    }

    // An NMI is told at its end with its length: its time comes back from what it interrupted (the thread here, then
    // the unexplained time before the switch), never more than that held, and the kinds still add up.
    void nmiTakesItsTimeBackFromWhatItInterrupted()
    {
        NoiseAttribution a = oneCpu();
        TraceEvent nmiInThread = traceEvent(TraceEventType::Nmi, kT + 200 * kUs, 555, kCpu);
        nmiInThread.nmi = {0xffffffff81000000ULL, 30 * kUs, 1};
        TraceEvent nmiBefore = traceEvent(TraceEventType::Nmi, kT + 8 * kUs, kPoller, kCpu);
        nmiBefore.nmi = {0xffffffff81000000ULL, 50 * kUs, 1}; // longer than the gap so far (8 µs): only 8 come back
        const std::vector<TraceEvent> events{
            nmiBefore,
            traceSwitch(kT + 10 * kUs, kCpu, kPollerTask, 0, kCulpritTask),
            nmiInThread,
            traceSwitch(kT + 300 * kUs, kCpu, kCulpritTask, 1, kPollerTask),
        };
        a.addEvents(events);
        a.addGap(0, {kT, kT + 400 * kUs});
        a.finish();
        const NoiseCpuAttribution& f = a.cpu(0);
        QCOMPARE(kindNs(f, NoiseKind::Nmi), 38 * kUs);
        QCOMPARE(f.kindCount[size_t(NoiseKind::Nmi)], uint64_t(2));
        QCOMPARE(kindNs(f, NoiseKind::Thread), 260 * kUs);      // 290 less the NMI's 30
        QCOMPARE(kindNs(f, NoiseKind::Unexplained), 102 * kUs); // 10 − 8 before the switch, 100 after it
        QCOMPARE(kindSum(f), f.noiseNs);
        const int64_t runtime = 10'000 * kUs;
        const NoiseCulprit* nmi = findCulprit(a.culprits(std::span(&runtime, 1), 10), "NMI");
        QVERIFY(nmi);
        QCOMPARE(nmi->kind, NoiseKind::Nmi);
        QCOMPARE(nmi->count, uint64_t(2));
        QCOMPARE(nmi->maxNs, 30 * kUs);
    }

    // The timer interrupt, a softirq after it, an IPI: each by its name.
    void softirqAndVectors()
    {
        NoiseAttribution a = oneCpu();
        const std::vector<TraceEvent> events{
            noiseVector(TraceEventType::VectorEntry, kT + 5 * kUs, TraceVector::LocalTimer),
            noiseVector(TraceEventType::VectorExit, kT + 15 * kUs, TraceVector::LocalTimer),
            noiseIrq(TraceEventType::SoftirqEntry, kT + 16 * kUs, 1),
            noiseVector(TraceEventType::VectorEntry, kT + 20 * kUs, TraceVector::CallFunction), // inside the softirq
            noiseVector(TraceEventType::VectorExit, kT + 23 * kUs, TraceVector::CallFunction),
            noiseIrq(TraceEventType::SoftirqExit, kT + 30 * kUs, 1),
            noiseVector(TraceEventType::VectorEntry, kT + 35 * kUs, TraceVector::Reschedule),
            noiseVector(TraceEventType::VectorExit, kT + 37 * kUs, TraceVector::Reschedule),
        };
        a.addEvents(events);
        a.addGap(0, {kT, kT + 50 * kUs});
        a.finish();
        const NoiseCpuAttribution& f = a.cpu(0);
        QCOMPARE(kindNs(f, NoiseKind::Irq), 15 * kUs);
        QCOMPARE(kindNs(f, NoiseKind::Softirq), 11 * kUs);
        QCOMPARE(kindNs(f, NoiseKind::Unexplained), 24 * kUs);
        QCOMPARE(kindSum(f), 50 * kUs);
        QCOMPARE(f.kindCount[size_t(NoiseKind::Irq)], uint64_t(3));
        const int64_t runtime = kNsPerSec;
        const std::vector<NoiseCulprit> list = a.culprits(std::span(&runtime, 1), 10);
        QVERIFY(findCulprit(list, "local_timer") && findCulprit(list, "local_timer")->totalNs == 10 * kUs);
        QVERIFY(findCulprit(list, "softirq TIMER") && findCulprit(list, "softirq TIMER")->totalNs == 11 * kUs);
        QVERIFY(findCulprit(list, "IPI call_function") && findCulprit(list, "IPI call_function")->totalNs == 3 * kUs);
        QVERIFY(findCulprit(list, "IPI reschedule") && findCulprit(list, "IPI reschedule")->totalNs == 2 * kUs);
    }

    // Nothing traced inside the gap: all of it is unexplained, and the gap counts as untouched.
    void nothingTracedIsUnexplained()
    {
        NoiseAttribution a = oneCpu();
        const std::vector<TraceEvent> before{noiseIrq(TraceEventType::IrqEntry, kT - 20 * kUs, 24, "x"),
                                             noiseIrq(TraceEventType::IrqExit, kT - 10 * kUs, 24)};
        a.addEvents(before);
        a.addGap(0, {kT, kT + 80 * kUs});
        a.finish();
        const NoiseCpuAttribution& f = a.cpu(0);
        QCOMPARE(kindNs(f, NoiseKind::Unexplained), 80 * kUs);
        QCOMPARE(kindSum(f), 80 * kUs);
        QCOMPARE(f.untouchedGaps, uint64_t(1));
        QCOMPARE(f.kindCount[size_t(NoiseKind::Unexplained)], uint64_t(1));
    }

    // Random gaps with random (also unbalanced) events: the kinds always add up to the noise, none is negative.
    void kindsAlwaysAddUp()
    {
        QRandomGenerator rng(30);
        NoiseAttribution a = oneCpu();
        std::vector<TraceEvent> events;
        std::vector<NoiseGap> gaps;
        int64_t t = kT;
        for (int g = 0; g < 400; ++g) {
            const int64_t start = t + int64_t(rng.bounded(50'000));
            const int64_t end = start + 1000 + int64_t(rng.bounded(500'000));
            gaps.push_back({start, end});
            for (int64_t ts = start - 20'000; ts < end + 20'000; ts += 1 + int64_t(rng.bounded(30'000))) {
                switch (rng.bounded(9)) {
                case 0:
                    events.push_back(noiseIrq(TraceEventType::IrqEntry, ts, int(rng.bounded(3)), "dev"));
                    break;
                case 1:
                    events.push_back(noiseIrq(TraceEventType::IrqExit, ts, int(rng.bounded(3))));
                    break;
                case 2:
                    events.push_back(noiseIrq(TraceEventType::SoftirqEntry, ts, int(rng.bounded(10))));
                    break;
                case 3:
                    events.push_back(noiseIrq(TraceEventType::SoftirqExit, ts, int(rng.bounded(10))));
                    break;
                case 4:
                    events.push_back(noiseVector(TraceEventType::VectorEntry, ts, TraceVector(rng.bounded(4))));
                    break;
                case 5:
                    events.push_back(noiseVector(TraceEventType::VectorExit, ts, TraceVector(rng.bounded(4))));
                    break;
                case 6:
                    events.push_back(traceSwitch(ts, kCpu, kPollerTask, 0, kCulpritTask));
                    break;
                case 7:
                    events.push_back(traceSwitch(ts, kCpu, kCulpritTask, 1, kPollerTask));
                    break;
                default:
                    events.push_back(noiseLost(ts - int64_t(rng.bounded(40'000)), ts, 3));
                }
            }
            t = end + 30'000;
        }
        sortTraceEvents(events);
        // In batches of a few hundred, each settled as it comes.
        size_t gi = 0;
        for (size_t from = 0; from < events.size(); from += 300) {
            const size_t n = std::min<size_t>(300, events.size() - from);
            a.addEvents(std::span(events).subspan(from, n));
            const int64_t newest = events[from + n - 1].ts;
            while (gi < gaps.size() && gaps[gi].endNs <= newest) {
                a.addGap(0, gaps[gi]);
                a.setProgress(0, gaps[gi].endNs);
                ++gi;
            }
            a.settle(newest - 200'000);
        }
        for (; gi < gaps.size(); ++gi)
            a.addGap(0, gaps[gi]);
        a.finish();
        const NoiseCpuAttribution& f = a.cpu(0);
        int64_t total = 0;
        for (const NoiseGap& g : gaps)
            total += g.endNs - g.startNs;
        QCOMPARE(f.gaps, uint64_t(gaps.size()));
        QCOMPARE(f.noiseNs, total);
        QCOMPARE(kindSum(f), total);
        for (NoiseKind k : kNoiseKinds)
            QVERIFY2(kindNs(f, k) >= 0, noiseKindName(k));
        QVERIFY(kindNs(f, NoiseKind::Thread) > 0 && kindNs(f, NoiseKind::Irq) > 0 &&
                kindNs(f, NoiseKind::Softirq) > 0 && f.lostNs > 0);
        QCOMPARE(kindNs(f, NoiseKind::Untraced), int64_t(0));
    }

    // A later batch holds events older than the previous batch's newest: the gap waits for them.
    void lateBatchIsWaitedFor()
    {
        NoiseAttribution a = oneCpu();
        a.addGap(0, {kT, kT + 100 * kUs});
        a.setProgress(0, kT + 20'000 * kUs);
        const std::vector<TraceEvent> first{noiseIrq(TraceEventType::SoftirqEntry, kT + 5'000 * kUs, 3),
                                            noiseIrq(TraceEventType::SoftirqExit, kT + 5'010 * kUs, 3)};
        a.addEvents(first);
        a.settle();
        QCOMPARE(a.cpu(0).gaps, uint64_t(0)); // 5 ms of events: the watermark is still before the gap
        // The gap's own interrupt, in a later batch though older than the first batch's newest.
        const std::vector<TraceEvent> late{noiseIrq(TraceEventType::IrqEntry, kT + 30 * kUs, 11, "eth0"),
                                           noiseIrq(TraceEventType::IrqExit, kT + 70 * kUs, 11)};
        a.addEvents(late);
        const std::vector<TraceEvent> later{noiseIrq(TraceEventType::SoftirqEntry, kT + 200'000 * kUs, 3)};
        a.addEvents(later);
        a.settle();
        const NoiseCpuAttribution& f = a.cpu(0);
        QCOMPARE(f.gaps, uint64_t(1));
        QCOMPARE(kindNs(f, NoiseKind::Irq), 40 * kUs);
        QCOMPARE(kindNs(f, NoiseKind::Unexplained), 60 * kUs);
        QCOMPARE(f.settledNs, kT + 20'000 * kUs); // no further than the poller's progress
        QCOMPARE(a.lateEvents(), uint64_t(0));
        // An event for the settled gap that comes now is too late: counted, not charged.
        const std::vector<TraceEvent> tooLate{noiseIrq(TraceEventType::IrqEntry, kT + 80 * kUs, 12, "late")};
        a.addEvents(tooLate);
        QCOMPARE(a.lateEvents(), uint64_t(1));
        a.finish();
        QCOMPARE(kindNs(a.cpu(0), NoiseKind::Irq), 40 * kUs);
    }

    // A gap is never settled past the poller's progress, however new the events (a gap not yet drained could start
    // before them).
    void progressBoundsTheSettling()
    {
        NoiseAttribution a = oneCpu();
        a.setProgress(0, kT);
        const std::vector<TraceEvent> events{noiseIrq(TraceEventType::IrqEntry, kT + 10 * kUs, 5, "d"),
                                             noiseIrq(TraceEventType::IrqExit, kT + 30 * kUs, 5),
                                             noiseIrq(TraceEventType::SoftirqEntry, kT + 900'000 * kUs, 3)};
        a.addEvents(events);
        a.settle();
        QCOMPARE(a.cpu(0).settledNs, kT);
        a.addGap(0, {kT + 1 * kUs, kT + 50 * kUs}); // drained only now: its events are still there
        a.setProgress(0, kT + 60 * kUs);
        a.settle();
        QCOMPARE(a.cpu(0).gaps, uint64_t(1));
        QCOMPARE(kindNs(a.cpu(0), NoiseKind::Irq), 20 * kUs);
    }

    // Events lost inside a gap: that part is unexplained whatever the events around it say, and counted.
    void lostEventsLeaveTimeUnexplained()
    {
        NoiseAttribution a = oneCpu();
        const std::vector<TraceEvent> events{
            traceSwitch(kT + 10 * kUs, kCpu, kPollerTask, 0, kCulpritTask),
            noiseLost(kT + 40 * kUs, kT + 60 * kUs, 7),
            traceSwitch(kT + 90 * kUs, kCpu, kCulpritTask, 1, kPollerTask),
        };
        a.addEvents(events);
        a.addGap(0, {kT, kT + 100 * kUs});
        a.finish();
        const NoiseCpuAttribution& f = a.cpu(0);
        QCOMPARE(kindNs(f, NoiseKind::Thread), 60 * kUs);
        QCOMPARE(kindNs(f, NoiseKind::Unexplained), 40 * kUs);
        QCOMPARE(f.lostNs, 20 * kUs);
        QCOMPARE(a.lostEvents(), uint64_t(7));
        QCOMPARE(a.lossReports(), uint64_t(1));
        QCOMPARE(kindSum(f), f.noiseNs);
    }

    // Without tracing every gap is untraced, settled at once.
    void untracedGapsAreUntraced()
    {
        NoiseAttribution a = oneCpu(false);
        a.setProgress(0, kT + 100 * kUs);
        a.addGap(0, {kT, kT + 30 * kUs});
        a.addGap(0, {kT + 50 * kUs, kT + 55 * kUs});
        const NoiseCpuAttribution& f = a.cpu(0);
        QCOMPARE(f.gaps, uint64_t(2));
        QCOMPARE(kindNs(f, NoiseKind::Untraced), 35 * kUs);
        QCOMPARE(kindSum(f), 35 * kUs);
        QCOMPARE(f.kindCount[size_t(NoiseKind::Untraced)], uint64_t(2));
    }

    // Hours of events: what is settled is let go, so the buffer stays bounded by the watermark's lag.
    void memoryStaysBounded()
    {
        NoiseAttribution a = oneCpu();
        int64_t t = kT;
        for (int round = 0; round < 2000; ++round) { // 2000 reader polls of 10 ms, each with 100 events
            std::vector<TraceEvent> batch;
            for (int i = 0; i < 50; ++i) {
                const int64_t ts = t + i * 200 * kUs;
                batch.push_back(noiseVector(TraceEventType::VectorEntry, ts, TraceVector::LocalTimer));
                batch.push_back(noiseVector(TraceEventType::VectorExit, ts + 2 * kUs, TraceVector::LocalTimer));
                a.addGap(0, {ts - 1 * kUs, ts + 3 * kUs});
            }
            a.setProgress(0, t + 10'000 * kUs);
            a.addEvents(batch);
            a.settle();
            t += 10'000 * kUs;
        }
        QVERIFY2(a.bufferedEvents() <= 100 * 12, qPrintable(QString::number(a.bufferedEvents())));
        a.finish();
        QCOMPARE(a.bufferedEvents(), size_t(0));
        QCOMPARE(a.cpu(0).gaps, uint64_t(100'000));
        QCOMPARE(kindNs(a.cpu(0), NoiseKind::Irq), int64_t(100'000) * 2 * kUs);
        QCOMPARE(kindSum(a.cpu(0)), a.cpu(0).noiseNs);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestNoiseAttribution)
#include "tst_noise_attribution.moc"
