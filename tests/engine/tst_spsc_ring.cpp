// SpscRing: single-thread semantics, and a two-thread fuzz run where every sequence-numbered item must
// arrive exactly once and in order.
#include "engine/pipeline/spsc_ring.h"

#include "tests/common/test_main.h"

#include <QtTest>
#include <pthread.h>
#include <random>
#include <thread>

using rtscope::SpscRing;

namespace {
struct Item {
    uint64_t seq;
    uint64_t check; // a function of seq: detects torn copies
};
uint64_t checksum(uint64_t seq)
{
    return seq * 0x9E3779B97F4A7C15ULL ^ 0xA5A5A5A5ULL;
}
} // namespace

class TestSpscRing : public QObject {
    Q_OBJECT
private slots:
    void capacityRoundsUpToPowerOfTwo_data()
    {
        QTest::addColumn<int>("requested");
        QTest::addColumn<int>("expected");
        QTest::newRow("0") << 0 << 2;
        QTest::newRow("1") << 1 << 2;
        QTest::newRow("2") << 2 << 2;
        QTest::newRow("3") << 3 << 4;
        QTest::newRow("1000") << 1000 << 1024;
        QTest::newRow("65536") << 65536 << 65536;
    }
    void capacityRoundsUpToPowerOfTwo()
    {
        QFETCH(int, requested);
        QFETCH(int, expected);
        SpscRing<int> ring{size_t(requested)};
        QCOMPARE(ring.capacity(), size_t(expected));
    }

    void fifoOrderAndFullCountsDrops()
    {
        SpscRing<int> ring(8);
        int out = -1;
        QVERIFY(!ring.tryPop(out));
        for (int i = 0; i < 8; ++i)
            QVERIFY(ring.tryPush(i));
        QCOMPARE(ring.sizeApprox(), size_t(8));
        QVERIFY(!ring.tryPush(99));
        QVERIFY(!ring.tryPush(100));
        QCOMPARE(ring.drops(), uint64_t(2));
        QCOMPARE(ring.pushed(), uint64_t(8));
        for (int i = 0; i < 8; ++i) {
            QVERIFY(ring.tryPop(out));
            QCOMPARE(out, i);
        }
        QVERIFY(!ring.tryPop(out));
        // Wrap around many times: indices grow, slots are reused.
        for (int round = 0; round < 1000; ++round) {
            for (int i = 0; i < 5; ++i)
                QVERIFY(ring.tryPush(round * 5 + i));
            for (int i = 0; i < 5; ++i) {
                QVERIFY(ring.tryPop(out));
                QCOMPARE(out, round * 5 + i);
            }
        }
        QCOMPARE(ring.drops(), uint64_t(2));
    }

    void popBatchTakesWhatIsThere()
    {
        SpscRing<int> ring(16);
        for (int i = 0; i < 10; ++i)
            QVERIFY(ring.tryPush(i));
        int buf[4];
        QCOMPARE(ring.popBatch(buf, 4), size_t(4));
        QCOMPARE(buf[0], 0);
        QCOMPARE(buf[3], 3);
        int rest[16];
        QCOMPARE(ring.popBatch(rest, 16), size_t(6));
        QCOMPARE(rest[5], 9);
        QCOMPARE(ring.popBatch(rest, 16), size_t(0));
    }

    // Two threads, millions of items through a small ring so it is full and empty constantly: nothing lost,
    // duplicated, reordered or torn. The producer retries on full, so drops here mean "ring was full", not loss.
    void fuzzTwoThreads_data()
    {
        QTest::addColumn<int>("capacity");
        QTest::addColumn<bool>("batch");
        QTest::newRow("cap 4, single pops") << 4 << false;
        QTest::newRow("cap 64, batch pops") << 64 << true;
        QTest::newRow("cap 1024, single pops") << 1024 << false;
    }
    void fuzzTwoThreads()
    {
        QFETCH(int, capacity);
        QFETCH(bool, batch);
#if defined(RTSCOPE_SANITIZED)
        const uint64_t n = 100'000; // sanitizers slow every access ~10x
#else
        const uint64_t n = 1'000'000;
#endif
        SpscRing<Item> ring{size_t(capacity)};
        std::thread producer([&] {
            std::mt19937 rng(42);
            for (uint64_t i = 0; i < n; ++i) {
                const Item item{i, checksum(i)};
                while (!ring.tryPush(item)) {
                }
                if ((rng() & 0xFFF) == 0)
                    std::this_thread::yield(); // vary the interleaving
            }
        });
        uint64_t expected = 0;
        bool ok = true;
        Item buf[32];
        while (expected < n && ok) {
            size_t got = 0;
            if (batch) {
                got = ring.popBatch(buf, 32);
            } else if (ring.tryPop(buf[0])) {
                got = 1;
            }
            for (size_t i = 0; i < got; ++i) {
                if (buf[i].seq != expected || buf[i].check != checksum(expected))
                    ok = false;
                ++expected;
            }
        }
        producer.join();
        QVERIFY2(ok, qPrintable(QString("item %1 arrived out of order or torn").arg(expected - 1)));
        QCOMPARE(expected, n);
        Item extra;
        QVERIFY(!ring.tryPop(extra));
        QCOMPARE(ring.pushed(), n);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestSpscRing)
#include "tst_spsc_ring.moc"
