#include "engine/rt/rt_thread.h"
#include "engine/rt/sched_policy.h"
#include "engine/rt/system_probe.h"
#include "engine/rt/waiter.h"
#include "engine/util/clock.h"
#include "engine/util/name_list.h"

#include "tests/common/test_main.h"
#include "tests/common/test_util.h"

#include <QtTest>

#include <atomic>
#include <functional>
#include <vector>

using namespace rtscope;

Q_DECLARE_METATYPE(rtscope::WaiterKind)

namespace {

constexpr int64_t kPeriod = kNsPerMs;

// QTest starts its watchdog thread before initTestCase, and a thread that leaves SIGALRM unblocked takes the
// process-directed ticks of ITIMER_REAL (the kernel keeps picking the same thread). Block signals before
// main(), as the app does first thing in main(). The itimer waiter forwards stray SIGALRMs, but a sanitizer
// runtime defers the forwarding handler while the watchdog sleeps.
[[maybe_unused]] const bool g_waiterSignalsBlocked = [] {
    blockProcessSignals(false);
    return true;
}();

bool keepsSchedule(WaiterKind k)
{
    return k != WaiterKind::Relative;
}

// Timerfd and Posix report the latest expired tick, counting the earlier ones as skipped; the kinds that
// keep their own schedule report the tick they woke for and count the ticks already past after it.
bool kernelCountsSkips(WaiterKind k)
{
    return k == WaiterKind::Timerfd || k == WaiterKind::Posix;
}

void addAllKinds()
{
    QTest::addColumn<WaiterKind>("kind");
    for (WaiterKind k : waiterKinds())
        QTest::newRow(waiterName(k)) << k;
}

// Appends @p w's wake-ups to @p results until it holds @p count of them or @p stop is set.
void waitInto(Waiter& w, std::vector<WaitResult>& results, int count, const std::atomic<bool>& stop)
{
    while (int(results.size()) < count && !stop.load())
        results.push_back(w.waitNext());
}

} // namespace

class TestWaiter : public QObject {
    Q_OBJECT

private:
    SystemProbe m_probe;
    int m_cpu = 0;

    // Waiters run inside RtThread, as in production: all signals but the wake signal blocked, pinned to the
    // last CPU. FIFO 10 when allowed, so a busy build on the same machine does not make ticks skip; the busy
    // waiter stays SCHED_OTHER so that no test ever leaves an RT thread spinning.
    ThreadSpec specFor(WaiterKind kind) const
    {
        ThreadSpec s;
        const bool rt = m_probe.rtAvailable && kind != WaiterKind::Busy;
        s.policy = rt ? Policy::Fifo : Policy::Other;
        s.priority = rt ? 10 : 0;
        s.cpu = m_cpu;
        s.name = std::string("tst-") + waiterName(kind);
        return s;
    }

    // Runs @p body in a worker and waits until it says it is done (bounded by @p timeoutMs).
    bool runInWorker(WaiterKind kind, const std::function<void(const std::atomic<bool>&)>& body, int timeoutMs)
    {
        std::atomic<bool> done{false};
        RtThread t;
        const Error e = t.start(specFor(kind), [&](const std::atomic<bool>& stop) {
            body(stop);
            done = true;
        });
        if (e) {
            qWarning("%s", e.message.c_str());
            return false;
        }
        const int64_t end = nowNs() + timeoutMs * kNsPerMs;
        while (!done.load() && nowNs() < end)
            QTest::qSleep(5);
        t.stop();
        return done.load();
    }

private slots:
    void initTestCase()
    {
        // ITIMER_REAL's SIGALRM goes to any thread that does not block it: block it (and the rest) here.
        rtscope::test::blockSignalsAndProbe(m_probe, m_cpu);
        if (!m_probe.rtAvailable)
            qWarning("waiters run as SCHED_OTHER: %s", m_probe.rtUnavailableReason.c_str());
    }

    void namesRoundTrip_data() { addAllKinds(); }
    void namesRoundTrip()
    {
        QFETCH(WaiterKind, kind);
        QCOMPARE(parseWaiter(waiterName(kind)), std::optional<WaiterKind>(kind));
        QVERIFY(std::string(waiterLabel(kind)).size() > 3);
    }

    void nameListsComeFromTheTable()
    {
        // Every kind once, in the enum's order (the UI combo and every help text read the same table).
        const std::vector<WaiterKind> kinds = waiterKinds();
        QCOMPARE(kinds.size(), size_t(int(WaiterKind::Busy) + 1));
        for (size_t i = 0; i < kinds.size(); ++i)
            QCOMPARE(int(kinds[i]), int(i));
        QCOMPARE(waiterNameList(), std::string("abs, rel, timerfd, itimer, posix, busy"));
        QCOMPARE(waiterNameList(" or "), std::string("abs, rel, timerfd, itimer, posix or busy"));
        QCOMPARE(policyNameList(), std::string("other, batch, idle, fifo, rr"));
        QCOMPARE(policyNameList(true, " or "), std::string("other, batch, idle, fifo, rr or deadline"));
        // Every listed name is one the parser takes.
        const QStringList policies = QString::fromStdString(policyNameList(true)).split(", ");
        for (const QString& name : policies)
            QVERIFY2(parseLatencyPolicy(name.toStdString()).has_value(), qPrintable(name));
        const std::vector<int> none;
        QCOMPARE(nameList(
                     none, [](int i) { return std::to_string(i); }, " or "),
                 std::string());
        QCOMPARE(nameList(
                     std::vector<int>{7}, [](int i) { return std::to_string(i); }, " or "),
                 std::string("7"));
        QCOMPARE(nameList(
                     std::vector<int>{1, 2}, [](int i) { return std::to_string(i); }, " or "),
                 std::string("1 or 2"));
    }

    void parseAliases()
    {
        QCOMPARE(parseWaiter("ABS"), std::optional<WaiterKind>(WaiterKind::Absolute));
        QCOMPARE(parseWaiter("relative"), std::optional<WaiterKind>(WaiterKind::Relative));
        QCOMPARE(parseWaiter("setitimer"), std::optional<WaiterKind>(WaiterKind::Itimer));
        QVERIFY(!parseWaiter("sleepy").has_value());
        QVERIFY(!parseWaiter("").has_value());
    }

    void periodicTicks_data() { addAllKinds(); }
    void periodicTicks()
    {
        QFETCH(WaiterKind, kind);
        constexpr int kTicks = 201;
        std::vector<WaitResult> results;
        results.reserve(kTicks);
        int64_t t0 = 0;
        Error startError;
        QVERIFY(runInWorker(
            kind,
            [&](const std::atomic<bool>& stop) {
                auto w = makeWaiter(kind, &stop);
                t0 = nowNs() + kPeriod;
                startError = w->start(t0, kPeriod);
                if (startError)
                    return;
                waitInto(*w, results, kTicks, stop);
                w->stop();
            },
            10000));
        QVERIFY2(!startError, startError.message.c_str());
        QCOMPARE(int(results.size()), kTicks);

        int64_t tick = -1;
        uint32_t pendingSkips = 0;
        for (int i = 0; i < kTicks; ++i) {
            const WaitResult& r = results[size_t(i)];
            QCOMPARE(r.error, 0);
            QVERIFY(!r.interrupted);
            QVERIFY2(r.wakeNs >= r.deadlineNs,
                     qPrintable(QString("tick %1 woke %2 ns early").arg(i).arg(r.deadlineNs - r.wakeNs)));
            if (!keepsSchedule(kind))
                continue;
            // Every deadline lies on the grid t0 + k·P, and k moves by one plus the skipped ticks.
            QCOMPARE((r.deadlineNs - t0) % kPeriod, int64_t(0));
            const int64_t k = (r.deadlineNs - t0) / kPeriod;
            const int64_t expected = kernelCountsSkips(kind) ? tick + 1 + r.skipped : tick + 1 + pendingSkips;
            QCOMPARE(k, expected);
            tick = k;
            pendingSkips = r.skipped;
        }
        if (keepsSchedule(kind)) {
            // No accumulated drift: tick 200's deadline is t0 + 200·P on the spot (shifted only by skips).
            const WaitResult& last = results.back();
            QCOMPARE(last.deadlineNs, t0 + tick * kPeriod);
            if (tick == 200)
                QCOMPARE(last.deadlineNs, t0 + 200 * kPeriod);
        } else {
            // Each relative sleep starts after the previous wake-up, so its error is never paid back: the offset
            // from the ideal grid grows with the tick count.
            const auto drift = [&](int k) {
                return results[size_t(k)].wakeNs - (t0 + k * kPeriod);
            };
            QVERIFY2(
                drift(200) > drift(50),
                qPrintable(QString("drift at 50: %1 us, at 200: %2 us").arg(drift(50) / 1e3).arg(drift(200) / 1e3)));
            for (int i = 1; i < kTicks; ++i)
                QVERIFY(results[size_t(i)].deadlineNs - results[size_t(i - 1)].wakeNs >= kPeriod);
            qInfo("relative drift after 50 ticks %.1f us, after 200 ticks %.1f us", drift(50) / 1e3, drift(200) / 1e3);
        }
    }

    // The consumer stalls 5.5 periods between two waits: the ticks it slept through are counted, not lost.
    void stalledConsumerCountsSkippedTicks_data()
    {
        QTest::addColumn<WaiterKind>("kind");
        for (WaiterKind k :
             {WaiterKind::Timerfd, WaiterKind::Posix, WaiterKind::Absolute, WaiterKind::Itimer, WaiterKind::Busy})
            QTest::newRow(waiterName(k)) << k;
    }
    void stalledConsumerCountsSkippedTicks()
    {
        QFETCH(WaiterKind, kind);
        std::vector<WaitResult> results;
        results.reserve(4);
        int64_t t0 = 0;
        QVERIFY(runInWorker(
            kind,
            [&](const std::atomic<bool>& stop) {
                auto w = makeWaiter(kind, &stop);
                t0 = nowNs() + kPeriod;
                if (w->start(t0, kPeriod))
                    return;
                results.push_back(w->waitNext());
                const timespec stall = toTimespec(kPeriod * 11 / 2);
                clock_nanosleep(CLOCK_MONOTONIC, 0, &stall, nullptr);
                results.push_back(w->waitNext());
                results.push_back(w->waitNext());
                w->stop();
            },
            5000));
        QCOMPARE(int(results.size()), 3);
        for (const WaitResult& r : results) {
            QVERIFY(!r.interrupted);
            QCOMPARE(r.error, 0);
            QCOMPARE((r.deadlineNs - t0) % kPeriod, int64_t(0));
        }
        const uint32_t skipped = results[1].skipped;
        QVERIFY2(skipped >= 4, qPrintable(QString("skipped %1").arg(skipped)));
        // After the stall the schedule continues on the same grid, beyond every skipped tick.
        const int64_t k1 = (results[1].deadlineNs - t0) / kPeriod;
        const int64_t k2 = (results[2].deadlineNs - t0) / kPeriod;
        if (kernelCountsSkips(kind))
            QCOMPARE(k2, k1 + 1 + results[2].skipped);
        else
            QCOMPARE(k2, k1 + 1 + results[1].skipped);
    }

    // A wait for a 10 s period must end within 100 ms of RtThread::stop(), whatever the kind; with and without
    // the stop flag handed to the waiter (without it, only the wake signal can end the wait).
    void stopInterruptsAnyWait_data()
    {
        QTest::addColumn<WaiterKind>("kind");
        QTest::addColumn<bool>("withFlag");
        for (WaiterKind k : {WaiterKind::Absolute, WaiterKind::Relative, WaiterKind::Timerfd, WaiterKind::Itimer,
                             WaiterKind::Posix, WaiterKind::Busy}) {
            QTest::newRow(qPrintable(QString(waiterName(k)) + " flag")) << k << true;
            QTest::newRow(qPrintable(QString(waiterName(k)) + " signal only")) << k << false;
        }
    }
    void stopInterruptsAnyWait()
    {
        QFETCH(WaiterKind, kind);
        QFETCH(bool, withFlag);
        std::atomic<bool> waiting{false};
        std::atomic<int> interrupted{0};
        std::atomic<int> samples{0};
        std::atomic<int> errors{0};
        RtThread t;
        const Error e = t.start(specFor(kind), [&](const std::atomic<bool>& stop) {
            auto w = makeWaiter(kind, withFlag ? &stop : nullptr);
            if (w->start(nowNs() + 10 * kNsPerSec, 10 * kNsPerSec)) {
                ++errors;
                return;
            }
            waiting = true;
            while (!stop.load()) {
                const WaitResult r = w->waitNext();
                if (r.interrupted)
                    ++interrupted;
                else if (r.error)
                    ++errors;
                else
                    ++samples;
            }
            w->stop();
        });
        QVERIFY2(!e, e.message.c_str());
        QTRY_VERIFY(waiting.load());
        QTest::qSleep(30); // well inside the wait now
        const int64_t t0 = nowNs();
        QVERIFY(t.stop(100));
        const int64_t tookNs = nowNs() - t0;
        QVERIFY2(tookNs < 100 * kNsPerMs, qPrintable(QString("stop took %1 ms").arg(tookNs / 1e6)));
        QCOMPARE(errors.load(), 0);
        QCOMPARE(samples.load(), 0);
        QVERIFY(interrupted.load() >= 1);
    }

    void setPeriodTakesEffect_data() { addAllKinds(); }
    void setPeriodTakesEffect()
    {
        QFETCH(WaiterKind, kind);
        constexpr int64_t kNewPeriod = 3 * kNsPerMs;
        constexpr int kEach = 20;
        std::vector<WaitResult> before, after;
        Error startError;
        before.reserve(kEach);
        after.reserve(kEach);
        QVERIFY(runInWorker(
            kind,
            [&](const std::atomic<bool>& stop) {
                auto w = makeWaiter(kind, &stop);
                startError = w->start(nowNs() + kPeriod, kPeriod);
                if (startError)
                    return;
                waitInto(*w, before, kEach, stop);
                w->setPeriod(kNewPeriod);
                waitInto(*w, after, kEach, stop);
                w->stop();
            },
            5000));
        QVERIFY2(!startError, startError.message.c_str());
        QCOMPARE(int(after.size()), kEach);
        for (int i = 1; i < kEach; ++i) {
            const WaitResult& a = after[size_t(i - 1)];
            const WaitResult& b = after[size_t(i)];
            QVERIFY(!b.interrupted && b.error == 0);
            if (keepsSchedule(kind)) {
                const uint32_t skips = kernelCountsSkips(kind) ? b.skipped : a.skipped;
                QCOMPARE(b.deadlineNs - a.deadlineNs, kNewPeriod * (1 + skips));
            } else {
                QVERIFY(b.deadlineNs - a.wakeNs >= kNewPeriod);
            }
        }
        const int64_t span = after.back().wakeNs - after.front().wakeNs;
        QVERIFY2(span >= (kEach - 1) * kNewPeriod * 9 / 10, qPrintable(QString("span %1 ms").arg(span / 1e6)));
        // Before the change the ticks followed the old period (plus whole skipped periods).
        for (int i = 1; i < kEach && keepsSchedule(kind); ++i) {
            const WaitResult& a = before[size_t(i - 1)];
            const WaitResult& b = before[size_t(i)];
            const uint32_t skips = kernelCountsSkips(kind) ? b.skipped : a.skipped;
            QCOMPARE(b.deadlineNs - a.deadlineNs, kPeriod * (1 + skips));
        }
    }

    void invalidPeriodIsRefused_data() { addAllKinds(); }
    void invalidPeriodIsRefused()
    {
        QFETCH(WaiterKind, kind);
        auto w = makeWaiter(kind);
        QCOMPARE(w->kind(), kind);
        const Error e = w->start(nowNs(), 0);
        QCOMPARE(e.kind, ErrorKind::InvalidConfig);
        w->stop();
    }

    void itimerIsOnePerProcess()
    {
        auto a = makeWaiter(WaiterKind::Itimer);
        auto b = makeWaiter(WaiterKind::Itimer);
        QVERIFY(!a->start(nowNs() + kNsPerSec, kNsPerSec));
        const Error e = b->start(nowNs() + kNsPerSec, kNsPerSec);
        QCOMPARE(e.kind, ErrorKind::Unavailable);
        a->stop();
        QVERIFY(!b->start(nowNs() + kNsPerSec, kNsPerSec));
        b->stop();
    }

    void timerSlackRoundTrip()
    {
        const int64_t original = timerSlack();
        QVERIFY(original > 0);
        QVERIFY(setTimerSlack(1));
        QCOMPARE(timerSlack(), int64_t(1));
        QVERIFY(setTimerSlack(0)); // back to the thread's default
        QCOMPARE(timerSlack(), original);
        QVERIFY(!setTimerSlack(-5));
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestWaiter)
#include "tst_waiter.moc"
