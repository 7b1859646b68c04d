// ctest: parallel. In-process writer/reader race; generous 10 s QTRY.
// SnapshotPublisher (engine/pipeline/snapshot_publisher.h): null before the first publish, the latest one wins, a
// reader's snapshot stays valid and unchanged whatever is published after it, an old snapshot is destroyed outside
// the lock, and a reader that races a writer never sees the generation go back nor a snapshot half written.
#include "engine/pipeline/snapshot_publisher.h"

#include "engine/util/clock.h"
#include "tests/common/test_main.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

using rtscope::SnapshotPublisher;

namespace {

struct PublisherTestSnapshot {
    uint64_t generation = 0;
    std::vector<uint64_t> payload; ///< every element is the generation: a torn or changed snapshot shows
    std::atomic<int>* destroyed = nullptr;
    /// Called as the snapshot is destroyed (for the lock test).
    std::function<void()> onDestroy;

    ~PublisherTestSnapshot()
    {
        if (onDestroy)
            onDestroy();
        if (destroyed)
            destroyed->fetch_add(1);
    }
};

std::shared_ptr<PublisherTestSnapshot> publisherTestSnapshot(uint64_t generation, std::atomic<int>* destroyed = nullptr)
{
    auto s = std::make_shared<PublisherTestSnapshot>();
    s->generation = generation;
    s->payload.assign(64, generation);
    s->destroyed = destroyed;
    return s;
}

bool publisherTestIntact(const PublisherTestSnapshot& s)
{
    for (uint64_t v : s.payload)
        if (v != s.generation)
            return false;
    return s.payload.size() == 64;
}

} // namespace

class TestSnapshotPublisher : public QObject {
    Q_OBJECT

private slots:
    void nullBeforeTheFirstPublish()
    {
        SnapshotPublisher<PublisherTestSnapshot> publisher;
        QVERIFY(publisher.latest() == nullptr);
        QVERIFY(publisher.latest() == nullptr); // reading does not make one
        publisher.publish(publisherTestSnapshot(1));
        QVERIFY(publisher.latest() != nullptr);
        publisher.publish(nullptr); // clears
        QVERIFY(publisher.latest() == nullptr);
    }

    void theLatestWins()
    {
        SnapshotPublisher<PublisherTestSnapshot> publisher;
        const std::shared_ptr<const PublisherTestSnapshot> first = publisherTestSnapshot(1);
        const std::shared_ptr<const PublisherTestSnapshot> second = publisherTestSnapshot(2);
        publisher.publish(first);
        QCOMPARE(publisher.latest().get(), first.get());
        publisher.publish(second);
        QCOMPARE(publisher.latest().get(), second.get());
        QCOMPARE(publisher.latest()->generation, uint64_t(2));
        // Whatever its generation: the publisher does not order them, the last publish() is the one.
        publisher.publish(first);
        QCOMPARE(publisher.latest().get(), first.get());
    }

    void aReadersSnapshotStaysValidAndUnchanged()
    {
        std::atomic<int> destroyed{0};
        SnapshotPublisher<PublisherTestSnapshot> publisher;
        publisher.publish(publisherTestSnapshot(1, &destroyed));
        std::shared_ptr<const PublisherTestSnapshot> held = publisher.latest();
        const PublisherTestSnapshot* address = held.get();
        publisher.publish(publisherTestSnapshot(2, &destroyed));
        publisher.publish(publisherTestSnapshot(3, &destroyed));
        // The second was held by nobody once the third came; the first is the reader's alone, untouched.
        QCOMPARE(destroyed.load(), 1);
        QCOMPARE(held.get(), address);
        QCOMPARE(held.use_count(), 1L);
        QCOMPARE(held->generation, uint64_t(1));
        QVERIFY(publisherTestIntact(*held));
        QCOMPARE(publisher.latest()->generation, uint64_t(3));
        held.reset();
        QCOMPARE(destroyed.load(), 2);
    }

    void theReplacedSnapshotIsDestroyedOutsideTheLock()
    {
        // A snapshot's destructor asks for the latest one from another thread: if publish() still held its lock,
        // that reader would wait for the destructor, and the destructor's wait (2 s at most) would time out.
        SnapshotPublisher<PublisherTestSnapshot> publisher;
        std::atomic<bool> readerWaited{false};
        std::atomic<bool> ran{false};
        std::thread reader; // joined at the end: if the lock were held, it gets it only once publish() returns
        auto old = publisherTestSnapshot(1);
        old->onDestroy = [&] {
            ran = true;
            auto read = std::make_shared<std::promise<void>>();
            std::future<void> readDone = read->get_future();
            reader = std::thread([&publisher, read] {
                publisher.latest();
                read->set_value();
            });
            if (readDone.wait_for(std::chrono::seconds(2)) != std::future_status::ready)
                readerWaited = true;
        };
        publisher.publish(std::move(old));
        publisher.publish(publisherTestSnapshot(2));
        reader.join();
        QVERIFY(ran.load());
        QVERIFY2(!readerWaited.load(), "the old snapshot was destroyed while publish() held the lock");
    }

    void aRacingReaderNeverSeesTheGenerationGoBack()
    {
        SnapshotPublisher<PublisherTestSnapshot> publisher;
        std::atomic<bool> stop{false};
        std::atomic<uint64_t> published{0};
        std::atomic<uint64_t> reads{0};
        std::atomic<uint64_t> distinct{0};
        std::atomic<uint64_t> wentBack{0};
        std::atomic<uint64_t> torn{0};
        std::thread writer([&] {
            for (uint64_t g = 1; !stop.load(std::memory_order_relaxed); ++g) {
                publisher.publish(publisherTestSnapshot(g));
                published.store(g, std::memory_order_relaxed);
            }
        });
        std::thread reader([&] {
            uint64_t last = 0;
            while (!stop.load(std::memory_order_relaxed)) {
                const std::shared_ptr<const PublisherTestSnapshot> s = publisher.latest();
                reads.fetch_add(1, std::memory_order_relaxed);
                if (!s)
                    continue;
                if (s->generation < last)
                    wentBack.fetch_add(1);
                if (!publisherTestIntact(*s))
                    torn.fetch_add(1);
                if (s->generation != last)
                    distinct.fetch_add(1, std::memory_order_relaxed);
                last = s->generation;
            }
        });
        // About 100 ms of racing, and long enough that both sides have done plenty (a loaded machine may not run
        // them together at first).
        const int64_t t0 = rtscope::nowNs();
        QTest::qWait(100);
        QTRY_VERIFY_WITH_TIMEOUT(published.load() >= 1000 && reads.load() >= 1000 && distinct.load() >= 10, 10000);
        stop = true;
        writer.join();
        reader.join();
        qInfo("%.0f ms: %llu published, %llu reads, %llu generations seen", double(rtscope::nowNs() - t0) / 1e6,
              (unsigned long long)published.load(), (unsigned long long)reads.load(),
              (unsigned long long)distinct.load());
        QCOMPARE(wentBack.load(), uint64_t(0));
        QCOMPARE(torn.load(), uint64_t(0));
        QCOMPARE(publisher.latest()->generation, published.load());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestSnapshotPublisher)
#include "tst_snapshot_publisher.moc"
