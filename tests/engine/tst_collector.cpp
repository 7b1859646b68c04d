// The collector (engine/pipeline/collector.*), with fake sources that record every call: every source is drained at
// the drain pace and published at the slower publish pace, each publish after a drain of the same pass; a requested
// publish comes at the next pass; stop() and flushNow() drain until empty and publish once; a removed source is never
// touched again; a source added twice is one source; a pinned collector runs on its CPU. The machine is shared and
// noisy, so time is asserted only where the collector's own code makes it exact (it never drains or publishes
// faster than asked), and "fast enough" only with a wide margin or by waiting for the event.
#include "engine/pipeline/collector.h"

#include "engine/util/clock.h"
#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <sched.h>
#include <thread>
#include <vector>

using rtscope::Collector;
using rtscope::CollectorSource;
using rtscope::kNsPerMs;
using rtscope::nowNs;

namespace {

/// One call of the collector into a source.
struct CollectorTestCall {
    enum Kind { Drain, Publish };
    Kind kind = Drain;
    int64_t enteredNs = 0;
    int64_t leftNs = 0;
    std::thread::id thread;
    int cpu = -1;
    bool afterMark = false; ///< the test's mark() was set when the call began
    size_t moved = 0;       ///< what a drain returned
};

/// A source with items waiting in it, drained @p batch at a time, that records every call.
class CollectorTestSource final : public CollectorSource {
public:
    explicit CollectorTestSource(size_t items = 0, size_t batch = 1)
        : m_pending(items)
        , m_batch(batch)
    {}

    size_t drain() override
    {
        CollectorTestCall c = begin(CollectorTestCall::Drain);
        std::lock_guard lock(m_mutex);
        c.moved = std::min(m_batch, m_pending);
        m_pending -= c.moved;
        c.leftNs = nowNs();
        m_calls.push_back(c);
        return c.moved;
    }
    void publish() override
    {
        CollectorTestCall c = begin(CollectorTestCall::Publish);
        std::lock_guard lock(m_mutex);
        c.leftNs = nowNs();
        m_calls.push_back(c);
    }

    void addItems(size_t n)
    {
        std::lock_guard lock(m_mutex);
        m_pending += n;
    }
    size_t pending() const
    {
        std::lock_guard lock(m_mutex);
        return m_pending;
    }
    /// From now on, calls are marked afterMark (the test sets it once something has happened).
    void mark() { m_mark.store(true, std::memory_order_release); }
    size_t drainsAfterMark() const
    {
        std::lock_guard lock(m_mutex);
        return size_t(std::count_if(m_calls.begin(), m_calls.end(),
                                    [](const auto& c) { return c.kind == CollectorTestCall::Drain && c.afterMark; }));
    }
    std::vector<CollectorTestCall> calls() const
    {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }
    size_t count(CollectorTestCall::Kind kind) const
    {
        std::lock_guard lock(m_mutex);
        return size_t(std::count_if(m_calls.begin(), m_calls.end(), [kind](const auto& c) { return c.kind == kind; }));
    }
    size_t drains() const { return count(CollectorTestCall::Drain); }
    size_t publishes() const { return count(CollectorTestCall::Publish); }

private:
    CollectorTestCall begin(CollectorTestCall::Kind kind) const
    {
        CollectorTestCall c;
        c.kind = kind;
        c.afterMark = m_mark.load(std::memory_order_acquire);
        c.enteredNs = nowNs();
        c.thread = std::this_thread::get_id();
        c.cpu = sched_getcpu();
        return c;
    }

    mutable std::mutex m_mutex;
    std::vector<CollectorTestCall> m_calls;
    size_t m_pending;
    size_t m_batch;
    std::atomic<bool> m_mark{false};
};

/// The calls of @p calls made on @p thread (or on any other thread with @p on = false).
std::vector<CollectorTestCall> collectorTestCallsOn(const std::vector<CollectorTestCall>& calls, std::thread::id thread,
                                                    bool on = true)
{
    std::vector<CollectorTestCall> out;
    for (const auto& c : calls)
        if ((c.thread == thread) == on)
            out.push_back(c);
    return out;
}

size_t collectorTestCount(const std::vector<CollectorTestCall>& calls, CollectorTestCall::Kind kind)
{
    return size_t(std::count_if(calls.begin(), calls.end(), [kind](const auto& c) { return c.kind == kind; }));
}

/// What stop() and flushNow() do to one source: drains until one returns 0, then exactly one publish, last.
void checkCollectorTestFlush(const std::vector<CollectorTestCall>& calls, size_t items, size_t batch)
{
    const size_t draining = (items + batch - 1) / batch;
    QCOMPARE(calls.size(), draining + 2);
    for (size_t i = 0; i < draining; ++i) {
        QCOMPARE(calls[i].kind, CollectorTestCall::Drain);
        QCOMPARE(calls[i].moved, std::min(batch, items - i * batch));
    }
    QCOMPARE(calls[draining].kind, CollectorTestCall::Drain);
    QCOMPARE(calls[draining].moved, size_t(0));
    QCOMPARE(calls.back().kind, CollectorTestCall::Publish);
}

} // namespace

class TestCollector : public QObject {
    Q_OBJECT

private slots:
    void drainsEverySourceAtTheDrainPaceAndPublishesAtThePublishPace()
    {
        CollectorTestSource a(1000, 3);
        CollectorTestSource b;
        Collector collector;
        collector.addSource(&a);
        collector.addSource(&b);
        const int64_t t0 = nowNs();
        collector.start(1 * kNsPerMs, 50 * kNsPerMs);
        QVERIFY(collector.running());
        // At least 300 ms, and at least three publishes (on a loaded machine the collector may get its turns late).
        QTest::qWait(300);
        QTRY_VERIFY_WITH_TIMEOUT(b.publishes() >= 3, 10000);
        collector.stop();
        const int64_t elapsedNs = nowNs() - t0;
        QVERIFY(!collector.running());

        const auto self = std::this_thread::get_id();
        const std::vector<CollectorTestCall> aRun = collectorTestCallsOn(a.calls(), self, false);
        const std::vector<CollectorTestCall> bRun = collectorTestCallsOn(b.calls(), self, false);
        const size_t drains = collectorTestCount(bRun, CollectorTestCall::Drain);
        const size_t publishes = collectorTestCount(bRun, CollectorTestCall::Publish);
        qInfo("%.0f ms: %zu drains, %zu publishes, %llu passes", double(elapsedNs) / 1e6, drains, publishes,
              (unsigned long long)collector.passes());
        // Every pass drains every source once (passes() counts them), and publishes them all or none.
        QCOMPARE(collectorTestCount(aRun, CollectorTestCall::Drain), drains);
        QCOMPARE(collectorTestCount(aRun, CollectorTestCall::Publish), publishes);
        QCOMPARE(uint64_t(drains), collector.passes());
        // Never faster than asked: a pass waits a drain interval after the last one, and a publish comes a publish
        // interval after the last one (the first one after the start).
        QVERIFY(publishes >= 3);
        QVERIFY2(int64_t(publishes) * 50 * kNsPerMs <= elapsedNs, qPrintable(QString::number(publishes)));
        QVERIFY2(int64_t(drains - 1) * kNsPerMs <= elapsedNs, qPrintable(QString::number(drains)));
        // The drains far outnumber the publishes: about 50 to 1 here; 4 to 1 would take a collector that gets its
        // turn only every 12 ms.
        QVERIFY2(drains > 4 * publishes, qPrintable(QString("%1 drains, %2 publishes").arg(drains).arg(publishes)));
        // The calls of one pass: drains, then, when it is time, the publishes, each publish after the source's drain.
        for (const auto* run : {&aRun, &bRun}) {
            QCOMPARE(run->front().kind, CollectorTestCall::Drain);
            for (size_t i = 1; i < run->size(); ++i)
                if ((*run)[i].kind == CollectorTestCall::Publish)
                    QCOMPARE((*run)[i - 1].kind, CollectorTestCall::Drain);
        }
        // The items went out at the drain pace, three per drain, none left after the stop.
        QCOMPARE(a.pending(), size_t(0));
        QCOMPARE(aRun.front().moved, size_t(3));
    }

    void aRunningCollectorTakesANewPublishInterval()
    {
        // Presentation mode: the GUI asks a running collector to publish more often, and back.
        CollectorTestSource s;
        Collector collector;
        collector.addSource(&s);
        collector.start(1 * kNsPerMs, 10'000 * kNsPerMs); // on its own: never within this test
        QTRY_VERIFY(s.drains() >= 1);
        QCOMPARE(s.publishes(), size_t(0));
        // The new interval counts from the last publish (here the start), so it applies at the next pass.
        collector.setPublishInterval(5 * kNsPerMs);
        QTRY_VERIFY_WITH_TIMEOUT(s.publishes() >= 5, 5000); // several, unasked, at the new pace
        collector.setPublishInterval(10'000 * kNsPerMs);
        // At most one more publish (a pass already past the check), then none while passes go on.
        const size_t before = s.publishes();
        const uint64_t passes = collector.passes();
        QTRY_VERIFY(collector.passes() >= passes + 30);
        QVERIFY2(s.publishes() <= before + 1, qPrintable(QString("%1 -> %2").arg(before).arg(s.publishes())));
        collector.stop();
    }

    void aRequestedPublishComesAtTheNextPass()
    {
        CollectorTestSource s;
        Collector collector;
        collector.addSource(&s);
        // Publishing on its own only every 10 s: every publish below is a requested one.
        collector.start(5 * kNsPerMs, 10'000 * kNsPerMs);
        QTRY_VERIFY(s.drains() >= 1);
        QCOMPARE(s.publishes(), size_t(0));
        for (size_t n = 1; n <= 3; ++n) {
            const size_t drainsBefore = s.drains();
            collector.requestPublish();
            QTRY_COMPARE_WITH_TIMEOUT(s.publishes(), n, 5000);
            // At the next pass: the one in progress when it was asked (if it had not yet looked) or the one after,
            // which drains first.
            const std::vector<CollectorTestCall> calls = s.calls();
            size_t drainsUntilPublish = 0;
            size_t publishes = 0;
            for (size_t i = 0; i < calls.size() && publishes < n; ++i) {
                if (calls[i].kind == CollectorTestCall::Drain) {
                    ++drainsUntilPublish;
                    continue;
                }
                ++publishes;
                QVERIFY(i > 0 && calls[i - 1].kind == CollectorTestCall::Drain);
            }
            QVERIFY2(drainsUntilPublish - drainsBefore <= 2, qPrintable(QString::number(drainsUntilPublish)));
            // One request, one publish: the passes go on without publishing.
            QTRY_VERIFY(s.drains() >= drainsBefore + 5);
            QCOMPARE(s.publishes(), n);
        }
        collector.stop();
        QCOMPARE(s.publishes(), size_t(4)); // the stop's own
    }

    void stopDrainsUntilEmptyAndPublishesOnce()
    {
        CollectorTestSource a;
        CollectorTestSource b;
        Collector collector;
        collector.addSource(&a);
        collector.addSource(&b);
        // Passes 10 s apart: after the first one the thread waits, and only stop() drains what comes next.
        collector.start(10'000 * kNsPerMs, 10'000 * kNsPerMs);
        QTRY_VERIFY(a.drains() == 1 && b.drains() == 1);
        a.addItems(100);
        b.addItems(5);
        const int64_t t0 = nowNs();
        collector.stop();
        // The waiting thread is woken, not waited for.
        QVERIFY2(nowNs() - t0 < 5'000 * kNsPerMs, "stop() waited for the drain interval");
        QCOMPARE(a.pending(), size_t(0));
        QCOMPARE(b.pending(), size_t(0));
        const auto self = std::this_thread::get_id();
        // The collector thread made its first pass only; the stop drained on this thread: a in 100 (batch 1) + 1
        // drains, b in 5 + 1, each followed by one publish.
        for (const auto* s : {&a, &b}) {
            const std::vector<CollectorTestCall> onThread = collectorTestCallsOn(s->calls(), self, false);
            QCOMPARE(onThread.size(), size_t(1));
            QCOMPARE(onThread.front().kind, CollectorTestCall::Drain);
        }
        checkCollectorTestFlush(collectorTestCallsOn(a.calls(), self), 100, 1);
        checkCollectorTestFlush(collectorTestCallsOn(b.calls(), self), 5, 1);
        // A second stop has nothing to do.
        collector.stop();
        QCOMPARE(a.calls().size(), size_t(1 + 102));
    }

    void flushNowWhenNotRunning()
    {
        CollectorTestSource a(20, 7);
        CollectorTestSource b;
        Collector collector;
        collector.addSource(&a);
        collector.addSource(&b);
        QVERIFY(!collector.running());
        collector.flushNow();
        const auto self = std::this_thread::get_id();
        QCOMPARE(collectorTestCallsOn(a.calls(), self).size(), a.calls().size());
        checkCollectorTestFlush(a.calls(), 20, 7);
        checkCollectorTestFlush(b.calls(), 0, 1);
        QCOMPARE(a.pending(), size_t(0));
        // Again, with nothing waiting: one empty drain and one publish each.
        collector.flushNow();
        QCOMPARE(a.calls().size(), size_t(3 + 1 + 1 + 2));
        QCOMPARE(a.publishes(), size_t(2));
        QCOMPARE(b.publishes(), size_t(2));
        QCOMPARE(collector.passes(), uint64_t(0)); // not a pass of the thread
    }

    void aRemovedSourceIsNeverTouchedAgain()
    {
        CollectorTestSource removed(1'000'000, 1);
        CollectorTestSource kept;
        Collector collector;
        collector.addSource(&removed);
        collector.addSource(&kept);
        collector.start(1 * kNsPerMs, 5 * kNsPerMs);
        QTRY_VERIFY(removed.drains() >= 10 && removed.publishes() >= 2);
        collector.removeSource(&removed);
        const int64_t removedNs = nowNs();
        const size_t callsAtRemoval = removed.calls().size();
        // The collector goes on with the other source for a while: passes, publishes, and the stop's flush.
        const size_t keptDrains = kept.drains();
        const size_t keptPublishes = kept.publishes();
        QTest::qWait(100);
        QTRY_VERIFY(kept.drains() >= keptDrains + 20 && kept.publishes() >= keptPublishes + 3);
        collector.stop();
        collector.flushNow();

        const std::vector<CollectorTestCall> calls = removed.calls();
        QCOMPARE(calls.size(), callsAtRemoval);
        // Every call had ended by the time removeSource() returned: it waits for a pass in progress.
        for (const CollectorTestCall& c : calls)
            QVERIFY(c.leftNs <= removedNs);
        QVERIFY(removed.pending() > 0); // it was not drained to the end
        const std::vector<CollectorTestCall> keptCalls = kept.calls();
        QVERIFY(std::any_of(keptCalls.begin(), keptCalls.end(),
                            [&](const CollectorTestCall& c) { return c.enteredNs > removedNs; }));
    }

    void aSourceAddedTwiceIsOneSource()
    {
        CollectorTestSource twice;
        CollectorTestSource once;
        Collector collector;
        collector.addSource(&twice);
        collector.addSource(&twice);
        collector.addSource(&once);
        collector.flushNow();
        QCOMPARE(twice.drains(), size_t(1));
        QCOMPARE(twice.publishes(), size_t(1));

        collector.start(1 * kNsPerMs, 5 * kNsPerMs);
        collector.addSource(&twice); // while running, too
        QTRY_VERIFY(once.drains() >= 20 && once.publishes() >= 3);
        collector.stop();
        QCOMPARE(twice.drains(), once.drains());
        QCOMPARE(twice.publishes(), once.publishes());

        // One removal removes it.
        collector.removeSource(&twice);
        const size_t calls = twice.calls().size();
        collector.flushNow();
        QCOMPARE(twice.calls().size(), calls);
        QCOMPARE(once.publishes(), twice.publishes() + 1);
    }

    void aPinnedCollectorRunsOnItsCpu_data()
    {
        QTest::addColumn<int>("cpu");
        // Every usable CPU in turn: a collector that floats could run on one of them by chance, not on each.
        for (int cpu : rtscope::test::usableCpus())
            QTest::addRow("cpu %d", cpu) << cpu;
    }
    void aPinnedCollectorRunsOnItsCpu()
    {
        QFETCH(int, cpu);
        CollectorTestSource s;
        Collector collector;
        collector.addSource(&s);
        collector.start(1 * kNsPerMs, 5 * kNsPerMs, cpu);
        // start() pins the thread after creating it, so a pass that began before it returned may have run anywhere:
        // only the calls that began after are asked about.
        s.mark();
        QTRY_VERIFY(s.drainsAfterMark() >= 30 && s.publishes() >= 3);
        collector.stop();
        const std::vector<CollectorTestCall> onThread =
            collectorTestCallsOn(s.calls(), std::this_thread::get_id(), false);
        size_t asked = 0;
        for (const CollectorTestCall& c : onThread) {
            if (!c.afterMark)
                continue;
            ++asked;
            QCOMPARE(c.cpu, cpu);
        }
        QVERIFY(asked >= 30);
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestCollector)
#include "tst_collector.moc"
