// ctest: parallel. In-process producer/consumer fuzz; no time bounds.
// SpscRing: single-thread semantics, and a two-thread fuzz run where every sequence-numbered item must
// arrive exactly once and in order.
#include "engine/pipeline/spsc_ring.h"

#include "tests/common/data_rows.h"
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
        rtscope::test::addColumns<int, int>("requested", "expected");
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

    // A freed slot is usable at once: a ring that is not full never drops.
    void oneFreedSlotTakesOnePush()
    {
        SpscRing<int> ring(4);
        for (int i = 0; i < 4; ++i)
            QVERIFY(ring.tryPush(i));
        QVERIFY(!ring.tryPush(4));
        int out = -1;
        QVERIFY(ring.tryPop(out));
        QCOMPARE(out, 0);
        QVERIFY(ring.tryPush(4));
        QVERIFY(!ring.tryPush(5));
        QCOMPARE(ring.drops(), uint64_t(2));
        QCOMPARE(ring.sizeApprox(), size_t(4));
        for (int i = 1; i <= 4; ++i) {
            QVERIFY(ring.tryPop(out));
            QCOMPARE(out, i);
        }
        QVERIFY(!ring.tryPop(out)); // empty: returns (after a short back-off) without an item
    }

    // popBatch across the end of the slot array: the copy wraps to slot 0 in order.
    void popBatchWrapsAround()
    {
        SpscRing<int> ring(8);
        int out = -1;
        for (int i = 0; i < 6; ++i)
            QVERIFY(ring.tryPush(i));
        for (int i = 0; i < 6; ++i)
            QVERIFY(ring.tryPop(out));
        for (int i = 0; i < 8; ++i) // slots 6, 7, 0, …, 5
            QVERIFY(ring.tryPush(100 + i));
        int buf[8];
        QCOMPARE(ring.popBatch(buf, 8), size_t(8));
        for (int i = 0; i < 8; ++i)
            QCOMPARE(buf[i], 100 + i);
    }

    // A slot keeps the sequence of the item it held on the previous lap: a drained ring reads as empty, and after one
    // more push exactly that item comes out, however many are asked for.
    void previousLapReadsAsEmpty()
    {
        SpscRing<int> ring(4);
        int buf[8];
        for (int lap = 0; lap < 3; ++lap) {
            for (int i = 0; i < 4; ++i)
                QVERIFY(ring.tryPush(lap * 10 + i));
            QCOMPARE(ring.popBatch(buf, 8), size_t(4));
            QCOMPARE(buf[3], lap * 10 + 3);
            QCOMPARE(ring.popBatch(buf, 8), size_t(0));
        }
        QVERIFY(ring.tryPush(77));
        QCOMPARE(ring.popBatch(buf, 8), size_t(1));
        QCOMPARE(buf[0], 77);
        QCOMPARE(ring.drops(), uint64_t(0));
    }

    // Slots are the item and its sequence padded to a power of two up to a cache line (a multiple of lines above),
    // and the storage starts on a slot boundary: no slot straddles two cache lines.
    void slotsNeverStraddleACacheLine()
    {
        struct Sample40 {
            uint64_t w[5];
        };
        struct Event88 {
            uint64_t w[11];
        };
        QCOMPARE(SpscRing<uint64_t>::slotBytes(), size_t(16));
        QCOMPARE(SpscRing<Item>::slotBytes(), size_t(32));
        QCOMPARE(SpscRing<Sample40>::slotBytes(), size_t(64));
        QCOMPARE(SpscRing<Event88>::slotBytes(), size_t(128));
        SpscRing<Sample40> ring(1000);
        QCOMPARE(ring.storageBytes(), size_t(1024 * 64));
        QCOMPARE(reinterpret_cast<uintptr_t>(ring.storage()) % 64, uintptr_t(0));
        SpscRing<Item> small(16);
        QCOMPARE(reinterpret_cast<uintptr_t>(small.storage()) % 32, uintptr_t(0));
    }

    // The producer never retries (as on the RT path): every push is either delivered, in order, or counted as a
    // drop, and the consumer sees nothing else. Benchmark-sized items (5 words), each word a function of seq.
    void droppedPlusDeliveredIsEverything()
    {
        struct Wide {
            uint64_t seq, a, b, c, d;
        };
#if defined(RTSCOPE_SANITIZED)
        const uint64_t n = 100'000;
#else
        const uint64_t n = 2'000'000;
#endif
        SpscRing<Wide> ring(64);
        std::atomic<bool> done{false};
        uint64_t accepted = 0;
        std::thread producer([&] {
            for (uint64_t i = 0; i < n; ++i)
                accepted += ring.tryPush(Wide{i, checksum(i), i + 1, ~i, checksum(i + 7)}) ? 1 : 0;
            done.store(true, std::memory_order_release);
        });
        uint64_t delivered = 0, last = 0, sum = 0;
        bool ok = true, first = true;
        Wide w{};
        for (;;) {
            const bool finished = done.load(std::memory_order_acquire);
            while (ring.tryPop(w)) {
                if ((!first && w.seq <= last) || w.a != checksum(w.seq) || w.b != w.seq + 1 || w.c != ~w.seq ||
                    w.d != checksum(w.seq + 7))
                    ok = false;
                first = false;
                last = w.seq;
                sum += w.seq;
                ++delivered;
            }
            if (finished)
                break;
        }
        producer.join();
        QVERIFY2(ok, "an item arrived torn, duplicated or out of order");
        QCOMPARE(delivered, accepted);
        QCOMPARE(ring.pushed(), accepted);
        QCOMPARE(ring.drops() + accepted, n);
        QVERIFY(sum <= n * (n - 1) / 2);
    }

    // Two threads, millions of items through a small ring so it is full and empty constantly: nothing lost,
    // duplicated, reordered or torn. The producer retries on full, so drops here mean "ring was full", not loss.
    void fuzzTwoThreads_data()
    {
        rtscope::test::addColumns<int, bool>("capacity", "batch");
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
