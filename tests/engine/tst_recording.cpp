// Recordings: a known run written through the run sink and read back replays to the same figures as the run
// itself (replayed and live); the CSV holds every sample; samples the writer could not keep are counted and said;
// truncated, hostile and malformed files give a sentence, never a crash.
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/latency/latency_replay.h"
#include "engine/export/latency_export.h"
#include "engine/export/report_json.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/recording/recording_replay.h"
#include "engine/recording/recording_writer.h"
#include "engine/rt/cpu_topology.h"
#include "engine/util/clock.h"
#include "tests/common/board_probe.h"
#include "tests/common/latency_samples.h"
#include "tests/common/thread_census.h"

#include "tests/common/test_main.h"
#include <QTemporaryDir>

#include <QtTest>

#include <fstream>
#include <sstream>

using namespace rtscope;

namespace {

constexpr int64_t kRecordingT0 = 5'000 * kNsPerSec;

SystemProbe testProbe()
{
    SystemProbe p = rtscope::test::rtBoardProbe("board", "6.1.0-rt-test");
    p.scheduler = "CFS";
    p.preemptRt = true;
    p.onlineCpus = {0, 1, 2, 3};
    p.timerSlackNs = 50'000;
    return p;
}

std::vector<LatencySample> recordedSamples(const std::vector<int64_t>& latencies, uint64_t firstSeq, int64_t startNs,
                                           int64_t periodNs = kNsPerMs)
{
    std::vector<LatencySample> out = rtscope::test::periodicSamples(latencies, firstSeq, startNs, periodNs);
    for (LatencySample& s : out)
        s.skipped = s.latencyNs > periodNs ? uint32_t(s.latencyNs / periodNs) : 0;
    return out;
}

std::vector<int64_t> spread(size_t n, int64_t baseNs, int64_t stepNs)
{
    std::vector<int64_t> v;
    for (size_t i = 0; i < n; ++i)
        v.push_back(baseNs + int64_t((i * 7919) % 997) * stepNs);
    return v;
}

std::string readBytes(const QString& path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const QString& path, const std::string& bytes)
{
    std::ofstream(path.toStdString(), std::ios::binary | std::ios::trunc) << bytes;
}

// Feeds the same known run to a LatencyReplay (what the views showed) and to a sink (what was recorded), the
// way LatencyExperiment does: start marker, samples, a change with its marker, a reset, drops, the end.
struct KnownRun {
    LatencyConfig config;
    LatencyReplay reference;
    uint64_t samplesSent = 0;

    KnownRun()
    {
        config.cpu = 2;
        config.periodNs = kNsPerMs;
        config.hogs = 4;
        config.histogramUs = 10'000;
    }

    void play(LatencyRunSink& sink)
    {
        reference.setSeriesWindow(120 * kNsPerSec);
        sink.onRunStart({config, kRecordingT0, {2}, 0});
        reference.start(config, kRecordingT0);
        sink.onMarker({kRecordingT0, 0, "start: " + config.label()}, config);

        auto send = [&](const std::vector<LatencySample>& batch) {
            for (size_t from = 0; from < batch.size(); from += 1024) {
                const size_t n = std::min<size_t>(1024, batch.size() - from);
                sink.onSamples(0, std::span<const LatencySample>(batch.data() + from, n));
            }
            reference.add(batch);
            samplesSent += batch.size();
        };
        send(recordedSamples(spread(3000, 8'000, 1'500), 0, kRecordingT0));
        sink.onDrops(0, 3);
        reference.setDrops(3);
        sink.onHogWork(kRecordingT0 + 3 * kNsPerSec, 123'456'789, 4.1e7);
        reference.setHogIterations(123'456'789, 4.1e7);

        LatencyConfig fifo = config;
        fifo.policy = Policy::Fifo;
        fifo.priority = 80;
        const int64_t tChange = kRecordingT0 + 3 * kNsPerSec;
        sink.onMarker({tChange, 3000, "FIFO 80"}, fifo);
        reference.reconfigure(fifo, tChange);
        sink.onDrops(0, 5);
        sink.onReset(tChange + 2 * kNsPerMs);
        reference.resetStatistics(tChange + 2 * kNsPerMs);
        // A gap of 10 sequence numbers, a skipped period and a 3.2 ms stall among microsecond wake-ups.
        auto after = recordedSamples(spread(2000, 3'000, 20), 3010, tChange + 5 * kNsPerMs);
        after[500].latencyNs = 3'200'000;
        after[500].wakeNs = after[500].deadlineNs + after[500].latencyNs;
        after[500].skipped = 3;
        send(after);
        sink.onDrops(0, 7);
        reference.setDrops(2); // drops since the reset: 7 − 5
        sink.onRunEnd(tChange + 3 * kNsPerSec);
        reference.stop();
    }
};

void compareThreads(const LatencyThreadStats& a, const LatencyThreadStats& b)
{
    QCOMPARE(a.samples, b.samples);
    QCOMPARE(a.histogram.count(), b.histogram.count());
    QCOMPARE(a.histogram.min(), b.histogram.min());
    QCOMPARE(a.histogram.max(), b.histogram.max());
    QCOMPARE(double(a.histogram.sum()), double(b.histogram.sum()));
    for (double p : {50.0, 90.0, 99.0, 99.9, 99.99})
        QCOMPARE(a.histogram.percentile(p), b.histogram.percentile(p));
    QCOMPARE(a.skipped, b.skipped);
    QCOMPARE(a.drops, b.drops);
    QCOMPARE(a.seqGaps, b.seqGaps);
    QCOMPARE(a.overflowSeqs, b.overflowSeqs);
}

std::string sampleBlockBytes(uint16_t thread, uint32_t count, const std::string& body)
{
    std::string p;
    p.push_back(char(thread & 0xff));
    p.push_back(char(thread >> 8));
    for (int i = 0; i < 4; ++i)
        p.push_back(char((count >> (8 * i)) & 0xff));
    p += body;
    std::string b(1, char(2));
    const uint32_t len = uint32_t(p.size());
    for (int i = 0; i < 4; ++i)
        b.push_back(char((len >> (8 * i)) & 0xff));
    return b + p;
}

} // namespace

class TestRecording : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString path(const char* name) const { return m_dir.filePath(name); }

    /// A recording of KnownRun in memory, and the run's reference snapshot.
    std::string knownRecording(std::shared_ptr<const LatencySnapshot>* reference = nullptr)
    {
        KnownRun run;
        RecordingWriter writer(testProbe(), path("known.rtrec").toStdString());
        writer.setCommand("rtscope test");
        run.play(writer);
        if (reference)
            *reference = run.reference.publish(kRecordingT0 + 6 * kNsPerSec);
        const auto st = writer.status();
        if (!st.complete || !st.error.empty() || st.samples != run.samplesSent)
            qWarning("writer: complete %d, samples %llu, error %s", st.complete, (unsigned long long)st.samples,
                     st.error.c_str());
        return readBytes(path("known.rtrec"));
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void aKnownRunReplaysToTheSameFigures()
    {
        std::shared_ptr<const LatencySnapshot> reference;
        const std::string bytes = knownRecording(&reference);
        const ReplayedRun r = replayRecording(bytes);
        QVERIFY2(r.read.ok, r.read.error.c_str());
        QCOMPARE(r.read.samples, uint64_t(5000));
        QCOMPARE(r.read.lost, uint64_t(0));
        QCOMPARE(r.read.endNs, kRecordingT0 + 6 * kNsPerSec);
        QVERIFY(r.snapshot);
        QCOMPARE(r.snapshot->threads.size(), size_t(1));
        compareThreads(r.snapshot->threads.front(), reference->threads.front());
        QCOMPARE(r.snapshot->threads.front().samples, uint64_t(2000)); // since the reset
        QCOMPARE(r.snapshot->threads.front().seqGaps, uint64_t(10));
        QCOMPARE(r.snapshot->threads.front().drops, uint64_t(2));
        QCOMPARE(r.snapshot->threads.front().cpu, 2);
        QCOMPARE(r.snapshot->hogIterations, uint64_t(123'456'789));
        QCOMPARE(r.snapshot->config.policy, Policy::Fifo);
        QCOMPARE(r.snapshot->startNs, kRecordingT0);
        QCOMPARE(r.snapshot->resetNs, reference->resetNs);
        QCOMPARE(r.samplesSinceReset, uint64_t(2000));
        // The markers the views draw, in the live experiment's words, and the labels the file carries.
        QCOMPARE(r.snapshot->markers.size(), reference->markers.size());
        for (size_t i = 0; i < reference->markers.size(); ++i) {
            QCOMPARE(r.snapshot->markers[i].label, reference->markers[i].label);
            QCOMPARE(r.snapshot->markers[i].tNs, reference->markers[i].tNs);
        }
        QCOMPARE(r.markers.size(), size_t(2));
        QCOMPARE(r.markers[1].label, std::string("FIFO 80"));
        QCOMPARE(r.markers[1].config.priority, 80);
        // Header: the probe and the start config came back.
        QCOMPARE(r.header.host, std::string("board"));
        QCOMPARE(r.header.command, std::string("rtscope test"));
        QCOMPARE(r.header.probe.kernelRelease, std::string("6.1.0-rt-test"));
        QCOMPARE(r.header.probe.preemptModel, std::string("PREEMPT_RT"));
        QVERIFY(r.header.probe.preemptRt);
        QCOMPARE(r.header.probe.onlineCpus, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(r.header.config.hogs, 4);
        QCOMPARE(r.header.cpus, std::vector<int>{2});
        QVERIFY(!r.header.recordedAt.empty());
        // Compact: well under the 40 bytes of a LatencySample each.
        QVERIFY2(bytes.size() < 5000 * 16, std::to_string(bytes.size()).c_str());
    }

    void exportsOfAReplayEqualTheEngineWriters()
    {
        std::shared_ptr<const LatencySnapshot> reference;
        knownRecording(&reference);
        const ReplayedRun r = replayRecordingFile(path("known.rtrec").toStdString());
        QVERIFY2(r.read.ok, r.read.error.c_str());
        // The cyclictest text is what the engine's writer makes of the run's own snapshot.
        QCOMPARE(replayedHistogramText(r), writeCyclictestHistogram(cyclictestDataFrom(*reference)));
        CyclictestData parsed;
        std::string error;
        QVERIFY(parseCyclictestHistogram(replayedHistogramText(r), parsed, error));
        QCOMPARE(parsed.threads.front().cycles, uint64_t(2000));
        QCOMPARE(parsed.threads.front().overflows, uint64_t(0)); // 3.2 ms < 10 000 bins
        QCOMPARE(parsed.threads.front().maxUs, int64_t(3200));

        const nlohmann::json j = replayedRunJson(r, "known.rtrec");
        QVERIFY(parseCyclictestJson(j.dump(), parsed, error));
        QCOMPARE(parsed.threads.front().cycles, uint64_t(2000));
        QCOMPARE(j["sysinfo"]["nodename"].get<std::string>(), std::string("board"));
        QCOMPARE(j["rtscope"]["probe"]["kernel_release"].get<std::string>(), std::string("6.1.0-rt-test"));
        QCOMPARE(j["rtscope"]["recording"]["samples_not_kept"].get<uint64_t>(), uint64_t(0));
        QCOMPARE(j["rtscope"]["markers"].size(), reference->markers.size());
        QCOMPARE(j["cmdline:"].get<std::string>(), std::string("rtscope test"));
    }

    void csvHoldsEverySample()
    {
        knownRecording();
        std::ostringstream csv;
        const RecordingReadResult r = writeRecordingCsv(path("known.rtrec").toStdString(), csv);
        QVERIFY2(r.ok, r.error.c_str());
        std::istringstream in(csv.str());
        std::string line;
        std::getline(in, line);
        QCOMPARE(line, rtscope::test::kSampleCsvHeader);
        size_t rows = 0;
        int64_t maxLatency = 0;
        uint64_t lastSeq = 0;
        while (std::getline(in, line)) {
            ++rows;
            const std::optional<rtscope::test::CsvSample> row = rtscope::test::parseCsvSample(line);
            QVERIFY2(row, line.c_str());
            const LatencySample& s = row->sample;
            QCOMPARE(row->cpu, 2);
            QCOMPARE(s.wakeNs - s.deadlineNs, s.latencyNs);
            QVERIFY(s.deadlineNs >= 0); // relative to the start
            maxLatency = std::max(maxLatency, s.latencyNs);
            lastSeq = s.seq;
        }
        QCOMPARE(rows, size_t(5000));
        QCOMPARE(maxLatency, int64_t(3'200'000));
        QCOMPARE(lastSeq, uint64_t(3010 + 1999));
    }

    void aLiveRunRecordsEverySampleItCounted()
    {
        // The tap on the real experiment: what the collector aggregated is what the file holds, change and reset
        // included, so a replay gives the live run's final figures exactly.
        LatencyExperiment exp;
        RecordingWriter writer(probeSystem(), path("live.rtrec").toStdString());
        exp.setRunSink(&writer);
        LatencyConfig c;
        c.periodNs = 200 * kNsPerUs;
        c.hogs = 1;
        c.histogramUs = 2000;
        Error e = exp.start(c, CpuTopology::current());
        QVERIFY2(!e, e.message.c_str());
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->threads.front().samples > 300);
        LatencyConfig next = exp.config();
        next.periodNs = 100 * kNsPerUs;
        next.hogs = 2;
        QVERIFY(!exp.reconfigure(next));
        exp.resetStatistics();
        QTRY_VERIFY(exp.snapshot()->threads.front().samples > 500);
        QVERIFY(writer.status().recording);
        exp.stop();
        QCOMPARE(rtscope::test::threadsAlive(), 0); // measuring, hogs, collector and the writer
        const auto live = exp.snapshot();
        const auto st = writer.status();
        QVERIFY2(st.complete, st.error.c_str());
        QCOMPARE(st.lost, uint64_t(0));

        RecordingReplayOptions opts;
        opts.histogramUs = 0; // as recorded: the live run's 2000 bins
        const ReplayedRun r = replayRecordingFile(path("live.rtrec").toStdString(), opts);
        QVERIFY2(r.read.ok, r.read.error.c_str());
        QCOMPARE(r.read.samples, st.samples);
        compareThreads(r.snapshot->threads.front(), live->threads.front());
        QCOMPARE(r.snapshot->threads.front().cpu, live->threads.front().cpu);
        QCOMPARE(r.snapshot->resetNs, live->resetNs);
        QCOMPARE(r.snapshot->config.periodNs, 100 * kNsPerUs);
        QCOMPARE(r.snapshot->config.hogs, 2);
        QStringList labels;
        for (const auto& m : r.markers)
            labels << QString::fromStdString(m.label);
        QCOMPARE(labels.size(), 2);
        QVERIFY(labels[0].startsWith("start: "));
        QCOMPARE(labels[1], QString("period 100.0 us, 2 hogs"));
        QCOMPARE(r.header.cpus, std::vector<int>{live->threads.front().cpu});
        QCOMPARE(r.read.endNs - r.header.startNs > 0, true);
        QCOMPARE(r.header.config.periodNs, 200 * kNsPerUs);
    }

    void aCpuChangeRestartsTheThreadsInTheFile()
    {
        const CpuTopology topo = CpuTopology::current();
        std::vector<int> usable;
        for (int cpu : topo.allowed)
            if (topo.usable(cpu))
                usable.push_back(cpu);
        if (usable.size() < 2)
            RTSCOPE_SKIP(Cpus, "needs two usable CPUs to move the measuring thread");
        LatencyExperiment exp;
        RecordingWriter writer(probeSystem(), path("move.rtrec").toStdString());
        exp.setRunSink(&writer);
        LatencyConfig c;
        c.periodNs = 200 * kNsPerUs;
        c.cpu = usable[0];
        QVERIFY(!exp.start(c, topo));
        QTRY_VERIFY(exp.snapshot() && exp.snapshot()->threads.front().samples > 200);
        LatencyConfig moved = exp.config();
        moved.cpu = usable[1];
        QVERIFY(!exp.reconfigure(moved));
        QTRY_VERIFY(exp.snapshot()->threads.front().cpu == usable[1] && exp.snapshot()->threads.front().samples > 200);
        exp.stop();
        const auto live = exp.snapshot();
        struct Restarts : RecordingVisitor {
            std::vector<std::vector<int>> seen;
            void restart(int64_t, const std::vector<int>& cpus) override { seen.push_back(cpus); }
        } visitor;
        const RecordingReadResult read = readRecordingFile(path("move.rtrec").toStdString(), visitor);
        QVERIFY2(read.ok, read.error.c_str());
        QCOMPARE(visitor.seen.size(), size_t(1));
        QCOMPARE(visitor.seen.front(), std::vector<int>{usable[1]});
        RecordingReplayOptions opts;
        opts.histogramUs = 0;
        const ReplayedRun r = replayRecordingFile(path("move.rtrec").toStdString(), opts);
        QVERIFY2(r.read.ok, r.read.error.c_str());
        // The new thread's figures start afresh, as the live ones did.
        QCOMPARE(r.snapshot->threads.front().samples, live->threads.front().samples);
        QCOMPARE(r.snapshot->threads.front().histogram.max(), live->threads.front().histogram.max());
        QCOMPARE(r.snapshot->threads.front().cpu, usable[1]);
    }

    void samplesTheWriterCannotKeepAreCountedAndSaid()
    {
        KnownRun run;
        RecordingWriter::Limits limits;
        limits.maxFileBytes = 6000; // the header and the first block or two, then no room
        RecordingWriter writer(testProbe(), path("capped.rtrec").toStdString(), limits);
        run.play(writer);
        const auto st = writer.status();
        QVERIFY2(st.complete, st.error.c_str());
        QVERIFY(st.lost > 0);
        QCOMPARE(st.samples + st.lost, run.samplesSent);
        const ReplayedRun r = replayRecordingFile(path("capped.rtrec").toStdString());
        QVERIFY2(r.read.ok, r.read.error.c_str()); // a complete file that says what it lacks
        QCOMPARE(r.read.lost, st.lost);
        QCOMPARE(r.read.samples, st.samples);
        QVERIFY(QString::fromStdString(replayedHistogramText(r))
                    .startsWith(QString("# rtscope: incomplete: %1 samples of the run were not kept").arg(st.lost)));
        QCOMPARE(replayedRunJson(r, "capped.rtrec")["rtscope"]["recording"]["samples_not_kept"].get<uint64_t>(),
                 st.lost);
        std::ostringstream csv;
        writeRecordingCsv(path("capped.rtrec").toStdString(), csv);
        QVERIFY(QString::fromStdString(csv.str()).startsWith(QString("# rtscope: this CSV does not hold every sample "
                                                                     "of the run: %1 samples were not kept")
                                                                 .arg(st.lost)));
    }

    void anUnwritablePathIsAnErrorNotACrash()
    {
        KnownRun run;
        RecordingWriter writer(testProbe(), "/nonexistent-dir/x.rtrec");
        run.play(writer);
        const auto st = writer.status();
        QVERIFY(!st.complete);
        QVERIFY(QString::fromStdString(st.error).startsWith("cannot write '/nonexistent-dir/x.rtrec'"));
    }

    void truncatedFilesKeepWhatWasRead()
    {
        const std::string bytes = knownRecording();
        // Every cut: never a crash, never more samples than were written, "truncated after N samples".
        uint64_t previous = 0;
        const size_t step = std::max<size_t>(7, bytes.size() / 400) | 1; // odd: cuts land everywhere in a block
        for (size_t cut = 0; cut < bytes.size(); cut += step) {
            const ReplayedRun r = replayRecording(std::string_view(bytes).substr(0, cut));
            QVERIFY(!r.read.ok);
            QVERIFY(r.read.samples >= previous); // a longer prefix never yields fewer samples
            previous = r.read.samples;
            if (r.read.headerRead) {
                QVERIFY2(r.read.truncated, r.read.error.c_str());
                QVERIFY(QString::fromStdString(r.read.error)
                            .startsWith(QString("truncated after %1 samples").arg(r.read.samples)));
                QVERIFY(r.snapshot);
            }
        }
        const ReplayedRun almost = replayRecording(std::string_view(bytes).substr(0, bytes.size() - 1));
        QCOMPARE(almost.read.samples, uint64_t(5000)); // cut inside the end block: every sample was read
        QVERIFY(almost.read.truncated);
        const ReplayedRun half = replayRecording(std::string_view(bytes).substr(0, bytes.size() / 2));
        QVERIFY(half.read.samples > 0 && half.read.samples < 5000);
        QVERIFY(half.snapshot);
        QVERIFY(half.snapshot->threads.front().samples <= half.read.samples);
    }

    void hostileFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        const std::string good = knownRecording();
        const size_t firstBlock = 12; // magic and version
        auto replaceAt = [&](size_t at, const std::string& with) {
            std::string b = good;
            b.replace(at, with.size(), with);
            return QByteArray::fromStdString(b);
        };
        auto headerLen = [&] {
            uint32_t len = 0;
            for (int i = 0; i < 4; ++i)
                len |= uint32_t(uint8_t(good[firstBlock + 1 + size_t(i)])) << (8 * i);
            return len;
        };
        const size_t afterHeader = firstBlock + 5 + headerLen();
        auto withHeader = [&](const std::string& tail) {
            return QByteArray::fromStdString(good.substr(0, afterHeader) + tail);
        };
        QTest::newRow("empty") << QByteArray() << "not an rtscope recording";
        QTest::newRow("wrong magic") << replaceAt(0, "RTSCREX") << "not an rtscope recording";
        QTest::newRow("a cyclictest file") << QByteArray("# Histogram\n000000 000001\n") << "not an rtscope recording";
        QTest::newRow("version 3") << replaceAt(8, std::string("\x03\x00\x00\x00", 4))
                                   << "recording format version 3 is not supported";
        QTest::newRow("unknown block type")
            << replaceAt(firstBlock, std::string(1, char(42))) << "offset 12: unknown block type 42";
        QTest::newRow("samples before the header")
            << QByteArray::fromStdString(good.substr(0, firstBlock) + sampleBlockBytes(0, 1, std::string(6, '\0')))
            << "offset 12, samples block: expected the header block first";
        QTest::newRow("huge header length") << replaceAt(firstBlock + 1, std::string("\xff\xff\xff\x7f", 4))
                                            << "offset 12, header block: length 2147483647 exceeds the limit";
        QTest::newRow("header not JSON") << replaceAt(firstBlock + 5, "#") << "header block: not a JSON object";
        QTest::newRow("second header") << withHeader(good.substr(firstBlock, afterHeader - firstBlock))
                                       << "header block: a second header block";
        QTest::newRow("huge sample count") << withHeader(sampleBlockBytes(0, 65536, std::string(64, '\0')))
                                           << "samples block: 65536 samples cannot fit in 64 bytes";
        QTest::newRow("zero samples") << withHeader(sampleBlockBytes(0, 0, "")) << "sample count 0 is outside";
        QTest::newRow("no such thread") << withHeader(sampleBlockBytes(7, 1, std::string(6, '\0')))
                                        << "thread 7 does not exist (the run has 1 measuring thread)";
        QTest::newRow("overlong varint") << withHeader(sampleBlockBytes(0, 1, std::string(11, '\xff') + "\0\0\0\0\0"))
                                         << "sample 0 of 1 is cut short or malformed";
        // deadline −1 (zigzag 1): CLOCK_MONOTONIC is never negative.
        QTest::newRow("negative time") << withHeader(sampleBlockBytes(0, 1, std::string("\x00\x01\x00\x00\x00\x00", 6)))
                                       << "sample 0: time out of range";
        QTest::newRow("bytes left over") << withHeader(sampleBlockBytes(0, 1, std::string(7, '\0')))
                                         << "1 bytes left over after 1 samples";
        QTest::newRow("drops go down")
            << withHeader(std::string("\x05\x0a\x00\x00\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00\x00", 15) +
                          std::string("\x05\x0a\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00", 15))
            << "drops block: the drop count of thread 0 went down";
        QTest::newRow("end counts wrong")
            << withHeader(std::string("\x09\x18\x00\x00\x00", 5) + std::string(8, '\0') + std::string("\x05", 1) +
                          std::string(7, '\0') + std::string(8, '\0'))
            << "end block: it counts 5 samples and 0 lost, the file holds 0 and 0";
        QTest::newRow("data after the end")
            << withHeader(std::string("\x09\x18\x00\x00\x00", 5) + std::string(24, '\0') + "x")
            << "end block: 1 bytes follow the end block";
        QTest::newRow("nan hog rate") << withHeader(std::string("\x06\x18\x00\x00\x00", 5) + std::string(16, '\0') +
                                                    std::string("\x00\x00\x00\x00\x00\x00\xf8\x7f", 8))
                                      << "hog work block: time or rate out of range";
        QTest::newRow("restart to 0 threads")
            << withHeader(std::string("\x07\x0a\x00\x00\x00", 5) + std::string(10, '\0'))
            << "restart block: expected a time and 1 to 128 CPU numbers";
        QTest::newRow("lost nothing") << withHeader(std::string("\x08\x08\x00\x00\x00", 5) + std::string(8, '\0'))
                                      << "lost block: expected a non-zero count";
    }

    void hostileFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        const ReplayedRun r = replayRecording(std::string_view(bytes.constData(), size_t(bytes.size())));
        QVERIFY(!r.read.ok);
        QVERIFY(!r.read.truncated);
        QVERIFY2(QString::fromStdString(r.read.error).contains(error), r.read.error.c_str());
        writeBytes(path("hostile.rtrec"), bytes.toStdString());
        const ReplayedRun fromFile = replayRecordingFile(path("hostile.rtrec").toStdString());
        QCOMPARE(fromFile.read.error, r.read.error);
    }

    void headerFieldsAreChecked_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<QString>("error");
        const QString probe = R"("probe":{"kernel_release":"6.1"})";
        const QString base = R"("format":"rtscope-recording","start_ns":1000,"start_unix_ns":0,"cpus":[1])";
        QTest::newRow("not ours") << QString(R"({"format":"other"})") << "format: expected \"rtscope-recording\"";
        QTest::newRow("no cpus") << QString(R"({"format":"rtscope-recording","start_ns":1,"start_unix_ns":0,)"
                                            R"("config":{},%1})")
                                        .arg(probe)
                                 << "cpus: expected an array";
        QTest::newRow("period 0") << QString("{%1,\"config\":{\"period_ns\":0},%2}").arg(base, probe)
                                  << "config: period must be between";
        QTest::newRow("histogram too big")
            << QString("{%1,\"config\":{\"histogram_us\":2000000000},%2}").arg(base, probe)
            << "config: histogram must be between 0 and 1000000 us";
        QTest::newRow("unknown config key")
            << QString("{%1,\"config\":{\"colour\":1},%2}").arg(base, probe) << "config: unknown field 'colour'";
        QTest::newRow("probe of the wrong type")
            << QString("{%1,\"config\":{},\"probe\":{\"preempt_rt\":\"yes\"}}").arg(base)
            << "probe: preempt_rt has the wrong type";
        QTest::newRow("negative start") << QString(R"({"format":"rtscope-recording","start_ns":-5,"start_unix_ns":0,)"
                                                   R"("cpus":[1],"config":{},%1})")
                                               .arg(probe)
                                        << "start_ns: out of range";
    }

    void headerFieldsAreChecked()
    {
        QFETCH(QString, header);
        QFETCH(QString, error);
        const std::string json = header.toStdString();
        std::string bytes(kRecordingMagic, sizeof kRecordingMagic);
        bytes += std::string("\x01\x00\x00\x00\x01", 5);
        const uint32_t len = uint32_t(json.size());
        for (int i = 0; i < 4; ++i)
            bytes.push_back(char((len >> (8 * i)) & 0xff));
        bytes += json;
        const ReplayedRun r = replayRecording(bytes);
        QVERIFY(!r.read.headerRead);
        QVERIFY(!r.snapshot);
        QVERIFY2(QString::fromStdString(r.read.error).contains(error), r.read.error.c_str());
    }

    void mutatedFilesNeverCrash()
    {
        // A cheap in-test fuzz pass (the fuzz/ targets run the real one): flip bytes all over a valid file.
        const std::string good = knownRecording();
        uint32_t rng = 12345;
        for (int round = 0; round < 600; ++round) {
            std::string b = good;
            for (int k = 0; k < 1 + round % 4; ++k) {
                rng = rng * 1664525u + 1013904223u;
                b[rng % b.size()] = char(rng >> 24);
            }
            const ReplayedRun r = replayRecording(b);
            QVERIFY(r.read.ok || !r.read.error.empty());
        }
    }
};

RTSCOPE_TEST_GUILESS_MAIN(TestRecording)
#include "tst_recording.moc"
