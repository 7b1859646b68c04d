// What a recording can make a replay cost is bounded by the file: a few kilobytes that ask for 128 threads with
// the largest histogram are refused with a sentence before anything is allocated for them; thousands of restart
// blocks cost about what their samples cost; a reading can be followed and stopped from a progress callback.
#include "engine/recording/recording_replay.h"
#include "engine/util/clock.h"
#include "tests/common/recording_bytes.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <QElapsedTimer>

#include <sys/resource.h>

using namespace rtscope;
using rtscope::test::RecordingBytes;

namespace {

constexpr int64_t kLimitsT0 = RecordingBytes::kStartNs;

std::vector<int> cpuRange(int n, int first = 0)
{
    std::vector<int> v;
    for (int i = 0; i < n; ++i)
        v.push_back(first + i);
    return v;
}

long peakRssKb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// @p restarts restart blocks, each followed by 50 samples of thread 0; the CPU list alternates between one and four
// threads, as a run whose CPU list is changed back and forth does. With 0 restarts, the same samples in one run.
std::string restartingRun(int restarts, int samplesPerRestart = 50)
{
    RecordingBytes b({0});
    int64_t t = kLimitsT0;
    if (restarts == 0) {
        for (int i = 0; i < 16'000; i += 80) {
            b.samples(0, uint64_t(i) * uint64_t(samplesPerRestart), t, uint32_t(80 * samplesPerRestart));
            t += 80 * samplesPerRestart * kNsPerMs;
        }
    }
    for (int r = 0; r < restarts; ++r) {
        b.restart(t, r % 2 ? std::vector<int>{0} : std::vector<int>{1, 2, 3, 4});
        b.samples(0, 0, t, uint32_t(samplesPerRestart));
        t += samplesPerRestart * kNsPerMs;
    }
    return b.end(t);
}

} // namespace

class TestRecordingLimits : public QObject {
    Q_OBJECT

private slots:
    void manyThreadsTimesTheLargestHistogramIsRefused()
    {
        // 128 threads × 1 000 000 exact bins: 1 GiB of counters (and as much again for the snapshot) from a file
        // of a couple of kilobytes.
        RecordingBytes b(cpuRange(128), {{"histogram_us", 1'000'000}});
        b.samples(5, 0, kLimitsT0, 10);
        const std::string bytes = b.end(kLimitsT0 + 20 * kNsPerMs);
        QVERIFY(bytes.size() < 8 * 1024);
        const long before = peakRssKb();
        QElapsedTimer timer;
        timer.start();
        const ReplayedRun r = replayRecording(bytes);
        const qint64 ms = timer.elapsed();
        const long grewKb = peakRssKb() - before;
        QVERIFY(!r.read.ok);
        QVERIFY(!r.read.truncated);
        QVERIFY(!r.snapshot);
        QVERIFY2(r.read.error.find("header block: cpus: 128 measuring threads × histogram_us 1000000 = 128000000 "
                                   "exact 1 us histogram bins; a replay holds at most 16777216 bins for all threads "
                                   "together (with 128 threads, a histogram of at most 131072 us)") !=
                     std::string::npos,
                 r.read.error.c_str());
        QVERIFY2(ms < 2000, qPrintable(QString("refusing took %1 ms").arg(ms)));
        QVERIFY2(grewKb < 64 * 1024, qPrintable(QString("the peak RSS grew by %1 KiB").arg(grewKb)));
    }

    void aRestartToManyThreadsIsRefusedToo()
    {
        RecordingBytes b({0}, {{"histogram_us", 1'000'000}});
        b.samples(0, 0, kLimitsT0, 10);
        b.restart(kLimitsT0 + 20 * kNsPerMs, cpuRange(128));
        const ReplayedRun r = replayRecording(b.end(kLimitsT0 + 30 * kNsPerMs));
        QVERIFY(!r.read.ok && !r.read.truncated);
        QVERIFY(!r.snapshot);
        QVERIFY2(r.read.error.find("restart block: restart: 128 measuring threads × histogram_us 1000000") !=
                     std::string::npos,
                 r.read.error.c_str());
    }

    void aLargerReplayHistogramCountsToo()
    {
        // The recorded size is small; the replay's own (--histogram) would take 64 × 1 000 000 bins.
        RecordingBytes b(cpuRange(64));
        b.samples(0, 0, kLimitsT0, 10);
        RecordingReplayOptions options;
        options.histogramUs = 1'000'000;
        const ReplayedRun r = replayRecording(b.end(kLimitsT0 + 20 * kNsPerMs), options);
        QVERIFY(!r.snapshot);
        QVERIFY2(r.read.error.find("cpus: 64 measuring threads × a replay histogram (--histogram) of 1000000 us") !=
                     std::string::npos,
                 r.read.error.c_str());
        // Within the budget the same file replays: 64 × 200 000 bins is 12 800 000.
        options.histogramUs = 200'000;
        RecordingBytes ok(cpuRange(64));
        ok.samples(0, 0, kLimitsT0, 10);
        const ReplayedRun fine = replayRecording(ok.end(kLimitsT0 + 20 * kNsPerMs), options);
        QVERIFY2(fine.read.ok, fine.read.error.c_str());
        QVERIFY(fine.snapshot);
        QCOMPARE(fine.snapshot->threads.size(), size_t(64));
        QCOMPARE(fine.snapshot->threads.front().histogram.exactUsBinCount(), size_t(200'000));
    }

    void aConfigListingTooManyCpusIsRefused()
    {
        std::vector<int> many = cpuRange(1000);
        RecordingBytes b({0}, {{"cpus", many}});
        const ReplayedRun r = replayRecording(b.end(kLimitsT0 + kNsPerMs));
        QVERIFY(!r.read.ok);
        QVERIFY2(r.read.error.find("config: cpus lists 1000 CPUs; a recording holds at most 128 measuring threads") !=
                     std::string::npos,
                 r.read.error.c_str());
    }

    void restartsCostAboutWhatTheirSamplesCost()
    {
        // The same 800 000 samples, in one run and split by 16 000 restart blocks: the second may cost a few times
        // the first (each restart starts a thread's figures anew), not a whole histogram and timeline per restart.
        // The slow replay is stopped at the bound, so that a regression fails in seconds rather than minutes.
        const std::string flat = restartingRun(0);
        const std::string restarting = restartingRun(16'000);
        qint64 flatMs = std::numeric_limits<qint64>::max();
        for (int i = 0; i < 3; ++i) {
            QElapsedTimer t;
            t.start();
            const ReplayedRun r = replayRecording(flat);
            QVERIFY2(r.read.ok, r.read.error.c_str());
            QCOMPARE(r.read.samples, uint64_t(800'000));
            flatMs = std::min(flatMs, t.elapsed());
        }
        const qint64 boundMs = 4 * flatMs + 300;
        QElapsedTimer t;
        t.start();
        RecordingReplayOptions options;
        options.progress = [&](uint64_t, uint64_t) {
            return t.elapsed() < boundMs;
        };
        const ReplayedRun r = replayRecording(restarting, options);
        const qint64 restartingMs = t.elapsed();
        QVERIFY2(r.read.ok, qPrintable(QString("%1 (one run: %2 ms, bound %3 ms)")
                                           .arg(QString::fromStdString(r.read.error))
                                           .arg(flatMs)
                                           .arg(boundMs)));
        QCOMPARE(r.read.samples, uint64_t(800'000));
        qInfo("one run: %lld ms; 16 000 restarts: %lld ms", (long long)flatMs, (long long)restartingMs);
        // The replay still means what it meant: the figures of the last restart's threads.
        QVERIFY(r.snapshot);
        QCOMPARE(r.snapshot->threads.size(), size_t(1));
        QCOMPARE(r.snapshot->threads.front().samples, uint64_t(50));
    }

    void aReadingReportsProgressAndCanBeStopped()
    {
        const std::string bytes = restartingRun(2'000);
        std::vector<uint64_t> seen;
        RecordingReplayOptions options;
        options.progress = [&](uint64_t done, uint64_t total) {
            if (total != bytes.size())
                return false;
            seen.push_back(done);
            return done < bytes.size() / 2;
        };
        const ReplayedRun r = replayRecording(bytes, options);
        QVERIFY(r.read.cancelled);
        QVERIFY(!r.read.ok && !r.read.truncated);
        QVERIFY(!r.snapshot);
        QVERIFY2(r.read.error.find("stopped after ") == 0, r.read.error.c_str());
        QVERIFY(seen.size() > 100);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QVERIFY(seen.back() >= bytes.size() / 2 && seen.back() < bytes.size());
        QVERIFY(r.read.samples > 0 && r.read.samples < 100'000);
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestRecordingLimits)
#include "tst_recording_limits.moc"
