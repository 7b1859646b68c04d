// ctest: parallel. Recording stream written in memory.
// A recording fed piece by piece (the agent's results stream, docs/remote.md) replays to the same figures as the
// whole file, whatever the pieces' sizes, across a thread restart; a cut stream keeps what arrived, a broken one
// says where and why.
#include "engine/recording/recording_replay.h"
#include "engine/recording/recording_stream.h"
#include "engine/recording/recording_writer.h"
#include "engine/util/clock.h"

#include "tests/common/test_main.h"
#include <QtTest>

#include <mutex>

using namespace rtscope;

namespace {

constexpr int64_t kStreamT0 = 7'000 * kNsPerSec;

std::vector<LatencySample> streamSamples(size_t n, uint64_t firstSeq, int64_t startNs)
{
    std::vector<LatencySample> out;
    for (size_t i = 0; i < n; ++i) {
        LatencySample s;
        s.seq = firstSeq + i;
        s.deadlineNs = startNs + int64_t(i) * kNsPerMs;
        s.latencyNs = 5'000 + int64_t((i * 7919) % 997) * 100;
        s.wakeNs = s.deadlineNs + s.latencyNs;
        out.push_back(s);
    }
    return out;
}

// A run as the agent streams it: one thread, a change, a reset, drops, then a restart onto two CPUs (the blocks
// after it name thread 1, which only the restart makes exist), then the end.
std::string streamedRun()
{
    std::string bytes;
    std::mutex m;
    {
        SystemProbe probe;
        probe.hostname = "board-7";
        probe.kernelRelease = "6.12.0-rt";
        RecordingWriter writer(probe,
                               [&](std::string_view chunk) {
                                   std::lock_guard lock(m);
                                   bytes.append(chunk);
                                   return Error{};
                               },
                               {});
        LatencyConfig config;
        config.cpu = 2;
        writer.onRunStart({config, kStreamT0, {2}, 0});
        writer.onMarker({kStreamT0, 0, "start: " + config.label()}, config);
        const auto first = streamSamples(3000, 0, kStreamT0);
        for (size_t from = 0; from < first.size(); from += 500)
            writer.onSamples(0, std::span<const LatencySample>(first.data() + from, 500));
        writer.onDrops(0, 4);
        writer.onReset(kStreamT0 + 3100 * kNsPerMs);
        writer.onRestart(kStreamT0 + 3200 * kNsPerMs, {1, 3});
        const auto a = streamSamples(1000, 0, kStreamT0 + 3300 * kNsPerMs);
        const auto b = streamSamples(1500, 0, kStreamT0 + 3300 * kNsPerMs);
        writer.onSamples(0, a);
        writer.onSamples(1, b);
        writer.onRunEnd(kStreamT0 + 5000 * kNsPerMs);
    }
    return bytes;
}

} // namespace

class TestRecordingStream : public QObject {
    Q_OBJECT
private slots:
    void piecesReplayToTheWholeFilesFigures_data()
    {
        QTest::addColumn<int>("piece");
        QTest::newRow("1 byte") << 1;
        QTest::newRow("7 bytes") << 7;
        QTest::newRow("4 KiB") << 4096;
        QTest::newRow("1 MiB") << (1 << 20);
    }
    void piecesReplayToTheWholeFilesFigures()
    {
        QFETCH(int, piece);
        const std::string bytes = streamedRun();
        RecordingReplayOptions options;
        options.histogramUs = 0;
        const ReplayedRun whole = replayRecording(bytes, options);
        QVERIFY2(whole.read.ok, whole.read.error.c_str());
        QCOMPARE(whole.snapshot->threads.size(), size_t(2));

        RecordingStream stream(options);
        QVERIFY(!stream.snapshot()); // nothing before the header
        uint64_t seen = 0;
        for (size_t at = 0; at < bytes.size(); at += size_t(piece)) {
            QVERIFY2(stream.feed(std::string_view(bytes).substr(at, size_t(piece))), stream.error().c_str());
            if (at % 2048 < size_t(piece) && stream.headerRead()) {
                const auto snap = stream.snapshot(); // taken along the way: the samples only ever grow
                QVERIFY(snap);
                QVERIFY(stream.samples() >= seen);
                seen = stream.samples();
            }
        }
        QVERIFY(stream.ended());
        QVERIFY2(stream.error().empty(), stream.error().c_str());
        QCOMPARE(stream.samples(), whole.read.samples);
        QCOMPARE(stream.header().probe.hostname, std::string("board-7"));
        const auto snap = stream.snapshot();
        QVERIFY(snap->finished);
        QVERIFY(!snap->running);
        QCOMPARE(snap->threads.size(), whole.snapshot->threads.size());
        for (size_t i = 0; i < snap->threads.size(); ++i) {
            const LatencyThreadStats& s = snap->threads[i];
            const LatencyThreadStats& w = whole.snapshot->threads[i];
            QCOMPARE(s.cpu, w.cpu);
            QCOMPARE(s.samples, w.samples);
            QCOMPARE(s.histogram.max(), w.histogram.max());
            QCOMPARE(s.histogram.percentile(99), w.histogram.percentile(99));
            QCOMPARE(s.drops, w.drops);
        }
        QCOMPARE(snap->threads[0].samples, uint64_t(1000)); // after the restart, on CPU 1
        QCOMPARE(snap->threads[1].samples, uint64_t(1500));
        QCOMPARE(snap->markers.size(), whole.snapshot->markers.size());
        QVERIFY(!stream.feed("x")); // nothing may follow the end block
        QVERIFY(stream.error().find("follow the end block") != std::string::npos);
    }

    void aCutStreamKeepsWhatArrived()
    {
        const std::string bytes = streamedRun();
        RecordingStream stream;
        QVERIFY(stream.feed(std::string_view(bytes).substr(0, bytes.size() / 2)));
        QVERIFY(!stream.ended());
        QVERIFY(stream.error().empty());
        const auto snap = stream.snapshot();
        QVERIFY(snap);
        QVERIFY(snap->running);
        QVERIFY(stream.samples() > 0 && stream.samples() < 5500);
    }

    void aBrokenStreamSaysWhy()
    {
        RecordingStream notOne;
        QVERIFY(!notOne.feed("this is not a recording at all"));
        QVERIFY2(notOne.error().find("not an rtscope recording") != std::string::npos, notOne.error().c_str());

        const std::string bytes = streamedRun();
        RecordingStream garbage;
        // The signature and a samples block where the header must come first.
        QVERIFY(!garbage.feed(bytes.substr(0, 12) + std::string("\x02\x01\x00\x00\x00x", 6)));
        QVERIFY2(garbage.error().find("expected the header block first") != std::string::npos, garbage.error().c_str());

        RecordingStream huge;
        QVERIFY(!huge.feed(bytes.substr(0, 12) + std::string("\x01\xff\xff\xff\xff", 5)));
        QVERIFY2(huge.error().find("exceeds") != std::string::npos, huge.error().c_str());
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestRecordingStream)
#include "tst_recording_stream.moc"
