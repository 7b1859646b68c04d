// The poller's loop clock (engine/util/loop_clock.h): the invariant-TSC test reads /proc/cpuinfo's flags, tick counts
// become nanoseconds at the given rate, and on this machine the clock best() picks agrees with CLOCK_MONOTONIC over a
// sleep (the TSC where it is invariant, which it is on the x86-64 machines CI runs on).
#include "engine/util/loop_clock.h"

#include "tests/common/test_main.h"

#include <QtTest>
#include <fstream>
#include <sstream>

using namespace rtscope;

class TestLoopClock : public QObject {
    Q_OBJECT
private slots:
    void invariantTscNeedsBothFlags()
    {
        std::string why;
        QVERIFY(LoopClock::invariantTsc("processor\t: 0\nflags\t\t: fpu tsc constant_tsc rep_good nonstop_tsc cpuid\n",
                                        &why));
        QVERIFY(!LoopClock::invariantTsc("flags\t\t: fpu tsc constant_tsc cpuid\n", &why));
        QCOMPARE(QString::fromStdString(why),
                 QString("the TSC is not invariant here (no nonstop_tsc in /proc/cpuinfo)"));
        QVERIFY(!LoopClock::invariantTsc("flags\t\t: fpu tsc nonstop_tsc\n", &why));
        QCOMPARE(QString::fromStdString(why),
                 QString("the TSC is not invariant here (no constant_tsc in /proc/cpuinfo)"));
        QVERIFY(!LoopClock::invariantTsc("flags\t\t: fpu tsc constant_tsc_x nonstop_tsc_y\n", &why)); // whole words
        QVERIFY(!LoopClock::invariantTsc("processor\t: 0\n", &why));
        QCOMPARE(QString::fromStdString(why), QString("/proc/cpuinfo names no CPU flags"));
    }

    void ticksBecomeNanoseconds()
    {
        const LoopClock c = LoopClock::tsc(2.5); // 2.5 GHz
        QCOMPARE(c.source(), LoopClock::Source::Tsc);
        QCOMPARE(c.toNs(2500), int64_t(1000));
        QCOMPARE(c.toNs(0), int64_t(0));
        QCOMPARE(c.toNs(uint64_t(25'000'000'000)), int64_t(10'000'000'000)); // 10 s: no overflow in the product
        QCOMPARE(QString::fromStdString(c.describe()),
                 QString("TSC at 2500.0 MHz (calibrated against CLOCK_MONOTONIC)"));
        const LoopClock m = LoopClock::monotonic();
        QCOMPARE(m.toNs(12345), int64_t(12345));
        QCOMPARE(QString::fromStdString(m.describe()), QString("CLOCK_MONOTONIC (vDSO)"));
        QCOMPARE(LoopClock::tsc(0).source(), LoopClock::Source::Monotonic); // a rate that cannot be is refused
        QCOMPARE(LoopClock::tsc(-1).source(), LoopClock::Source::Monotonic);
    }

    void monotonicStampIsTheReadOrAFreshOne()
    {
        const LoopClock m = LoopClock::monotonic();
        const uint64_t t = m.read();
        QCOMPARE(m.monotonicStamp(t), int64_t(t));
        const LoopClock c = LoopClock::tsc(1.0);
        const int64_t before = nowNs();
        const int64_t stamp = c.monotonicStamp(c.read());
        QVERIFY(stamp >= before);
        QVERIFY(stamp <= nowNs());
    }

    // The clock best() picks measures a 100 ms sleep as CLOCK_MONOTONIC does, within 0.5 %: the calibration holds.
    void bestAgreesWithMonotonicHere()
    {
        std::ifstream in("/proc/cpuinfo");
        std::stringstream text;
        text << in.rdbuf();
        std::string why;
#if defined(__x86_64__)
        const bool invariant = LoopClock::invariantTsc(text.str(), &why);
#else
        const bool invariant = false;
#endif
        std::string note;
        const LoopClock c = LoopClock::best(20'000'000, &note);
        QCOMPARE(c.source(), invariant ? LoopClock::Source::Tsc : LoopClock::Source::Monotonic);
        QCOMPARE(note.empty(), invariant);
        const int64_t m0 = nowNs();
        const uint64_t t0 = c.read();
        const timespec pause{0, 100'000'000};
        nanosleep(&pause, nullptr);
        const uint64_t t1 = c.read();
        const int64_t m1 = nowNs();
        const double ratio = double(c.toNs(t1 - t0)) / double(m1 - m0);
        QVERIFY2(ratio > 0.995 && ratio < 1.005, qPrintable(QString("loop clock / CLOCK_MONOTONIC over a 100 ms sleep: "
                                                                    "%1 (%2)")
                                                                .arg(ratio, 0, 'f', 5)
                                                                .arg(QString::fromStdString(c.describe()))));
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestLoopClock)
#include "tst_loop_clock.moc"
