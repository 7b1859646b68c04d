// The File menu end to end: cyclictest files from tests/data held as the latency page's reference with their
// counts; a live run exported as cyclictest text, JSON and CSV equals what the engine's writers make of the same
// samples; a recording replays in the views with the recorded machine; PNG and SVG exports are valid files; and
// malformed or hostile files give a sentence naming the file, never a crash.
#include "engine/export/report_json.h"
#include "engine/formats/cyclictest_format.h"
#include "engine/pipeline/histogram.h"
#include "engine/recording/recording_replay.h"
#include "engine/recording/recording_writer.h"
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "engine/util/clock.h"
#include "tests/common/board_probe.h"
#include "tests/common/fifo_guard.h"
#include "tests/common/latency_samples.h"
#include "tests/common/latency_window.h"
#include "tests/common/model_cell.h"
#include "tests/common/probed_test.h"
#include "tests/common/thread_census.h"
#include "ui/app/file_menu.h"
#include "ui/common/latency_source.h"
#include "ui/experiment_page.h"
#include "ui/latency/latency_import.h"
#include "ui/latency/latency_page.h"
#include "ui/latency/latency_stats_model.h"
#include "ui/latency/recording_spool.h"
#include "ui/main_window.h"
#include "ui/plot/histogram_chart.h"
#include "ui/plot/timeline_chart.h"
#include "ui/system_panel.h"
#include "ui/timers/drift_page.h"

#include "tests/common/test_main.h"
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace rtscope;

namespace {

QString dataFile(const char* name)
{
    return qEnvironmentVariable("RTSCOPE_SOURCE_DIR") + "/tests/data/" + name;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestExportImport : public rtscope::test::ProbedTest {
    Q_OBJECT

    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase() { setUp(); }

    void theFileMenuComesFirst()
    {
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        QVERIFY(w.files);
        const QList<QAction*> menus = w.window->menuBar()->actions();
        QVERIFY(!menus.isEmpty());
        QCOMPARE(menus.first()->menu(), w.files->menu());
        QStringList names;
        for (QAction* a : w.files->menu()->actions())
            if (!a->isSeparator())
                names << a->objectName();
        // The remote target's verbs (ui/main_window.cpp, docs/remote.md) come first.
        QCOMPARE(names, QStringList({"connectTarget", "disconnectTarget", "openRecording", "openCyclictest",
                                     "compareResults", "saveRecording", "exportPng", "exportSvg", "exportHistogram",
                                     "exportJson", "exportCsv"}));
    }

    void importedFilesBecomeTheReference_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("thread");
        QTest::addColumn<qulonglong>("samples");
        QTest::addColumn<QString>("label");
        // Counts and extremes as the cyclictest files in tests/data state them.
        QTest::newRow("json, thread 0") << "cyclictest_t2.json" << 0 << 300ULL
                                        << "cyclictest_t2.json, thread 0, 300 samples";
        QTest::newRow("json, thread 1") << "cyclictest_t2.json" << 1 << 300ULL
                                        << "cyclictest_t2.json, thread 1, 300 samples";
        QTest::newRow("json, summed") << "cyclictest_t2.json" << -1 << 600ULL
                                      << "cyclictest_t2.json, 2 threads, 600 samples";
        QTest::newRow("hist, summed") << "cyclictest_t2.hist" << -1 << 600ULL
                                      << "cyclictest_t2.hist, 2 threads, 600 samples";
        QTest::newRow("hist, one thread") << "cyclictest_t1.hist" << 0 << 0ULL << "cyclictest_t1.hist, 300 samples";
        QTest::newRow("captured stdout") << "cyclictest_t2_stdout.hist" << 1 << 0ULL
                                         << "cyclictest_t2_stdout.hist, thread 1";
    }

    void importedFilesBecomeTheReference()
    {
        QFETCH(QString, file);
        QFETCH(int, thread);
        QFETCH(qulonglong, samples);
        QFETCH(QString, label);
        // The engine's own parse of the same file: what the page must show.
        CyclictestFile parsed;
        QString error;
        QVERIFY2(readCyclictestFile(dataFile(file.toUtf8()), parsed, error), qPrintable(error));
        uint64_t cycles = 0, inBins = 0;
        int64_t minUs = INT64_MAX, maxUs = 0;
        for (size_t i = 0; i < parsed.data.threads.size(); ++i) {
            if (thread >= 0 && int(i) != thread)
                continue;
            const CyclictestThread& t = parsed.data.threads[i];
            cycles += t.cycles;
            for (uint64_t b : t.bins)
                inBins += b;
            minUs = std::min(minUs, t.minUs);
            maxUs = std::max(maxUs, t.maxUs);
        }
        if (samples)
            QCOMPARE(qulonglong(cycles), samples);

        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        QSignalSpy held(w.latency, &ExperimentPage::referenceChanged);
        QVERIFY2(w.files->importCyclictest(dataFile(file.toUtf8()), thread, &error), qPrintable(error));
        QCOMPARE(held.count(), 1);
        QVERIFY(w.latency->hasReference());
        const LatencyStatsModel& m = *w.latency->statsModel();
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.rowKind(0), LatencyStatsModel::RowKind::Reference);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples).toULongLong(), qulonglong(cycles));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Min).toLongLong(), minUs * 1000);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Max).toLongLong(), maxUs * 1000);
        QVERIFY2(test::rawCell(m, 0, LatencyStatsModel::Config).toString().contains(label),
                 qPrintable(test::rawCell(m, 0, LatencyStatsModel::Config).toString()));
        auto* refLabel = w.latency->findChild<QLabel*>("referenceLabel");
        QVERIFY(refLabel->text().startsWith("Reference: " + file));
        // Every sample in the file's bins is on the reference curve; the overflows, whose latencies the file does
        // not give, are counted in the legend (but the maximum), and the percentiles among them are flagged.
        double onCurve = 0;
        const QList<QPointF> pts = w.latency->histogramChart()->referencePoints();
        for (qsizetype i = 0; i < pts.size(); i += 2)
            onCurve += pts[i].y() >= 1 ? pts[i].y() : 0;
        const QString legend = w.latency->histogramChart()->referenceName();
        const QString config = test::rawCell(m, 0, LatencyStatsModel::Config).toString();
        if (inBins < cycles) {
            QCOMPARE(qulonglong(onCurve), qulonglong(inBins + 1)); // and the maximum, the one overflow known
            QVERIFY2(legend.contains(QString("%1 > ").arg(cycles - inBins - 1)), qPrintable(legend));
            if (2 * inBins < cycles) // more than half overflowed: the median is among them
                QVERIFY2(config.startsWith("⚠ p50, p90, p99, p99.9 are at least"), qPrintable(config));
        } else {
            QCOMPARE(qulonglong(onCurve), qulonglong(inBins));
            QVERIFY(!legend.contains("not drawn"));
            QVERIFY(!config.contains("⚠"));
        }
    }

    void aLiveRunOverlaysTheImportedReference()
    {
        auto owned = std::make_unique<ReplayLatencySource>();
        ReplayLatencySource& src = *owned;
        test::LatencyWindow w(std::move(owned), m_probe);
        QVERIFY(w.files->importCyclictest(dataFile("cyclictest_t2.json"), 0));
        QVERIFY(w.latency->start());
        std::vector<LatencySample> batch;
        for (uint64_t i = 0; i < 200; ++i)
            batch.push_back({i, int64_t(i) * kNsPerMs, int64_t(i) * kNsPerMs + 5000, 5000, 0, 0});
        src.replay().add(batch);
        src.publish();
        w.latency->refreshNow();
        const LatencyStatsModel& m = *w.latency->statsModel();
        QCOMPARE(m.rowCount(), 2); // live and reference, side by side
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples).toULongLong(), 200ULL);
        QCOMPARE(test::rawCell(m, 1, LatencyStatsModel::Samples).toULongLong(), 300ULL);
        QVERIFY(!w.latency->histogramChart()->livePoints().isEmpty());
        QVERIFY(!w.latency->histogramChart()->referencePoints().isEmpty());
        w.latency->stop();
    }

    void badFilesGiveASentence_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QByteArray hist = readAll(dataFile("cyclictest_t2.hist"));
        const QByteArray json = readAll(dataFile("cyclictest_t2.json"));
        QTest::newRow("empty") << QByteArray() << "bad.txt: no '# Histogram' line found";
        QTest::newRow("text") << QByteArray("hello\n") << "expected the file cyclictest writes";
        QTest::newRow("truncated histogram") << hist.left(hist.size() / 2) << "bad.txt: line ";
        QTest::newRow("negative count") << QByteArray(hist).replace("000005", "-00005") << "bad.txt: line ";
        QTest::newRow("truncated json") << json.left(json.size() / 2) << "bad.txt: not valid JSON";
        QTest::newRow("huge bin") << QByteArray(json).replace("\"9\": 9", "\"99999999999\": 9")
                                  << "bad.txt: thread.0.histogram.99999999999: bin beyond the supported range";
        QTest::newRow("negative cycles") << QByteArray(json).replace("\"cycles\": 300", "\"cycles\": -300")
                                         << "bad.txt: thread.0.cycles: expected a non-negative integer";
        QTest::newRow("a recording cut short")
            << QByteArray("RTSCREC\n\x01\x00\x00\x00\x01\xff\xff\x00\x00{", 18) << "bad.txt: truncated after 0 samples";
        QTest::newRow("wrong recording version")
            << QByteArray("RTSCREC\n\x07\x00\x00\x00", 12) << "bad.txt: recording format version 7 is not supported";
    }

    void badFilesGiveASentence()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QFile f(path("bad.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(bytes);
        f.close();
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        QString error;
        QVERIFY(!w.files->open(path("bad.txt"), &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY(!w.latency->hasReference());
        QVERIFY(!w.latency->isReplay());
        QVERIFY(!w.files->importCyclictest(dataFile("cyclictest_t2.json"), 5, &error));
        QCOMPARE(error, QString("cyclictest_t2.json: thread 5 does not exist; the file holds threads 0 to 1"));
        QVERIFY(!w.files->open(path("missing.json"), &error));
        QVERIFY2(error.startsWith("missing.json: cannot open"), qPrintable(error));
    }

    // A JSON file saved with a UTF-8 byte-order mark (as editors on Windows do) is read as JSON, not as a histogram.
    void aByteOrderMarkIsSkipped()
    {
        const QByteArray json = readAll(dataFile("cyclictest_t2.json"));
        QFile f(path("bom.json"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QByteArray("\xEF\xBB\xBF") + json);
        f.close();
        CyclictestFile file;
        QString error;
        QVERIFY2(readCyclictestFile(path("bom.json"), file, error), qPrintable(error));
        QCOMPARE(file.format, QString("JSON"));
        CyclictestFile plain;
        QVERIFY(readCyclictestFile(dataFile("cyclictest_t2.json"), plain, error));
        QCOMPARE(file.data.threads.size(), plain.data.threads.size());
        QCOMPARE(file.data.threads.front().cycles, plain.data.threads.front().cycles);
    }

    // --open and File › Open of a FIFO (and the cyclictest import behind them): a sentence, never a wait in open().
    void aFifoIsRefusedNotWaitedFor()
    {
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        test::FifoGuard guard(path("fifo.rtrec"));
        QVERIFY(guard.made());
        QString error;
        QVERIFY(!w.files->open(path("fifo.rtrec"), &error));
        const QString opened = error;
        CyclictestFile file;
        QVERIFY(!readCyclictestFile(path("fifo.rtrec"), file, error));
        QVERIFY2(!guard.finish(), "a reader blocked in open() until a writer came");
        QVERIFY2(opened.contains("fifo.rtrec: '" + path("fifo.rtrec") + "' is a FIFO (named pipe), not a regular file"),
                 qPrintable(opened));
        QVERIFY2(error.contains("is a FIFO (named pipe)"), qPrintable(error));
    }

    void viewExportsAreValidFiles()
    {
        auto owned = std::make_unique<ReplayLatencySource>();
        ReplayLatencySource& src = *owned;
        test::LatencyWindow w(std::move(owned), m_probe);
        w.window->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.window.get()));
        QVERIFY(w.latency->start());
        std::vector<LatencySample> batch;
        for (uint64_t i = 0; i < 500; ++i)
            batch.push_back({i, int64_t(i) * kNsPerMs, int64_t(i) * kNsPerMs + 4000 + int64_t(i % 50) * 100,
                             4000 + int64_t(i % 50) * 100, 0, 0});
        src.replay().add(batch);
        src.publish();
        w.latency->refreshNow();

        QString error;
        QVERIFY2(w.files->exportViewPng(path("view.png"), &error), qPrintable(error));
        const QImage png(path("view.png"));
        QVERIFY(!png.isNull());
        QCOMPARE(png.size(), w.latency->snapshotWidget()->grab().size());

        QVERIFY2(w.files->exportViewSvg(path("view.svg"), &error), qPrintable(error));
        const QByteArray svg = readAll(path("view.svg"));
        QXmlStreamReader xml(svg);
        int paths = 0, texts = 0;
        QString allText;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                paths += xml.name() == u"path" || xml.name() == u"polyline";
                if (xml.name() == u"text") {
                    ++texts;
                    allText += xml.readElementText(QXmlStreamReader::IncludeChildElements) + "\n";
                }
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(paths > 10); // the curves, axes and grid are vectors, not one embedded bitmap
        QVERIFY(texts > 10);
        QVERIFY2(allText.contains("Jitter histogram"), qPrintable(allText.left(400)));
        QVERIFY(allText.contains("latency (µs"));
        QVERIFY(allText.contains("count (log scale)"));
        w.latency->stop();
    }

    void runExportsAreDisabledElsewhereAndBeforeARun()
    {
        test::LatencyWindow w(std::make_unique<LiveLatencySource>(), m_probe);
        QVERIFY(w.files->spool());
        QVERIFY(w.files->runExportBlocker().startsWith("Nothing measured yet"));
        w.window->setCurrentPage(1);
        QVERIFY(w.files->runExportBlocker().startsWith("Only the latency page has a run to export"));
        auto* hist = w.files->menu()->findChild<QAction*>("exportHistogram");
        if (!hist)
            for (QAction* a : w.files->menu()->actions())
                if (a->objectName() == "exportHistogram")
                    hist = a;
        QVERIFY(hist);
        emit w.files->menu()->aboutToShow();
        QVERIFY(!hist->isEnabled());
        QCOMPARE(hist->toolTip(), w.files->runExportBlocker());
        QString error;
        QVERIFY(!w.files->exportCsv(path("nothing.csv"), &error));
        QCOMPARE(error, w.files->runExportBlocker());
    }

    void aLiveRunExportsEverySample()
    {
        test::LatencyWindow w(std::make_unique<LiveLatencySource>(), m_probe);
        LatencyConfig c = w.latency->config();
        c.policy = Policy::Other;
        c.priority = 0;
        c.periodNs = 250 * kNsPerUs;
        c.hogs = 1;
        QVERIFY(w.latency->applyConfig(c).isEmpty());
        QVERIFY(w.latency->start());
        QVERIFY(w.files->runExportBlocker().startsWith("Stop the run first"));
        QTRY_VERIFY(w.latency->shownRun() && w.latency->shownRun()->threads.front().samples > 2000);
        w.latency->stop();
        QCOMPARE(rtscope::test::threadsAlive(), 0); // the recorder's writer too
        QVERIFY2(w.files->runExportBlocker().isEmpty(), qPrintable(w.files->runExportBlocker()));
        const auto live = w.latency->shownRun();
        const LatencyThreadStats& t = live->threads.front();

        QString error;
        QVERIFY2(w.files->exportCsv(path("run.csv"), &error), qPrintable(error));
        QVERIFY2(w.files->exportHistogram(path("run.hist"), &error), qPrintable(error));
        QVERIFY2(w.files->exportJson(path("run.json"), &error), qPrintable(error));
        QVERIFY2(w.files->saveRecording(path("run.rtrec"), &error), qPrintable(error));

        // The CSV has every sample the page counted; the engine's writer given those samples makes the same
        // cyclictest text the page exported.
        std::ifstream csv(path("run.csv").toStdString());
        std::string line;
        std::getline(csv, line);
        QCOMPARE(line, rtscope::test::kSampleCsvHeader);
        Histogram fromCsv(10'000);
        uint64_t rows = 0;
        std::vector<uint64_t> overflowSeqs;
        while (std::getline(csv, line)) {
            const std::optional<rtscope::test::CsvSample> row = rtscope::test::parseCsvSample(line);
            QVERIFY2(row, line.c_str());
            QCOMPARE(row->cpu, t.cpu);
            fromCsv.record(row->sample.latencyNs);
            if (row->sample.latencyNs >= 10'000'000 && overflowSeqs.size() < 10'000)
                overflowSeqs.push_back(row->sample.seq);
            ++rows;
        }
        QCOMPARE(rows, t.samples);
        QCOMPARE(fromCsv.count(), t.histogram.count());
        QCOMPARE(fromCsv.min(), t.histogram.min());
        QCOMPARE(fromCsv.max(), t.histogram.max());
        QCOMPARE(double(fromCsv.sum()), double(t.histogram.sum()));

        CyclictestData expected;
        CyclictestThread ct = cyclictestThreadFrom(fromCsv, 10'000);
        ct.overflowCycles = overflowSeqs;
        expected.threads.push_back(ct);
        CyclictestData exported;
        std::string why;
        QVERIFY2(parseCyclictestHistogram(readAll(path("run.hist")).toStdString(), exported, why), why.c_str());
        QCOMPARE(readAll(path("run.hist")).toStdString(), writeCyclictestHistogram(expected));

        QVERIFY2(parseCyclictestJson(readAll(path("run.json")).toStdString(), exported, why), why.c_str());
        QCOMPARE(exported.threads.front().cycles, t.samples);
        std::vector<uint64_t> nonZero = ct.bins; // the JSON lists bins up to the last non-empty one
        while (!nonZero.empty() && nonZero.back() == 0)
            nonZero.pop_back();
        QCOMPARE(exported.threads.front().bins, nonZero);
        const nlohmann::json j = nlohmann::json::parse(readAll(path("run.json")).toStdString());
        QCOMPARE(j["rtscope"]["probe"]["kernel_release"].get<std::string>(), m_probe.kernelRelease);
        QCOMPARE(j["rtscope"]["recording"]["samples_not_kept"].get<uint64_t>(), uint64_t(0));

        // The saved recording replays to the run the page showed.
        RecordingReplayOptions opts;
        opts.histogramUs = 0;
        const ReplayedRun r = replayRecordingFile(path("run.rtrec").toStdString(), opts);
        QVERIFY2(r.read.ok, r.read.error.c_str());
        QCOMPARE(r.snapshot->threads.front().samples, t.samples);
        QCOMPARE(r.snapshot->threads.front().histogram.max(), t.histogram.max());
        QCOMPARE(r.header.command, std::string("rtscope desktop app"));
    }

    void aRecordingReplaysInTheViews()
    {
        // A known run recorded on a "board": 300 samples at 20 µs, one at 2 ms.
        SystemProbe board = rtscope::test::rtBoardProbe("board-7", "6.6.21-rt26");
        board.scheduler = "EEVDF";
        board.cpuModel = "Cortex-A53";
        LatencyConfig c;
        c.cpu = 3;
        c.periodNs = kNsPerMs;
        const int64_t t0 = 1'000 * kNsPerSec;
        {
            RecordingWriter writer(board, path("board.rtrec").toStdString());
            writer.onRunStart({c, t0, {3}, 0});
            writer.onMarker({t0, 0, "start: " + c.label()}, c);
            std::vector<LatencySample> s;
            for (uint64_t i = 0; i < 300; ++i) {
                const int64_t lat = i == 150 ? 2'000'000 : 20'000;
                s.push_back({i, t0 + int64_t(i) * kNsPerMs, t0 + int64_t(i) * kNsPerMs + lat, lat, 0, 0});
            }
            writer.onSamples(0, s);
            writer.onRunEnd(t0 + 310 * kNsPerMs);
            QVERIFY(writer.status().complete);
        }
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        QSignalSpy replay(w.latency, &LatencyPage::replayChanged);
        QString error;
        QVERIFY2(w.files->open(path("board.rtrec"), &error), qPrintable(error));
        QVERIFY(w.latency->isReplay());
        QCOMPARE(replay.count(), 1);
        const QString banner = w.latency->replayBanner();
        QVERIFY2(banner.contains("Replay of board.rtrec") && banner.contains("board-7") &&
                     banner.contains("6.6.21-rt26") && banner.contains("300 samples"),
                 qPrintable(banner));
        const LatencyStatsModel& m = *w.latency->statsModel();
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples).toULongLong(), 300ULL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Max).toLongLong(), 2'000'000LL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Min).toLongLong(), 20'000LL);
        // The System dock shows the board, not this machine.
        auto* dock = w.window->findChild<QDockWidget*>("systemDock");
        QCOMPARE(dock->windowTitle(), QString("System (recorded run)"));
        bool boardShown = false;
        for (QLabel* l : dock->widget()->findChildren<QLabel*>())
            boardShown = boardShown || l->text().contains("6.6.21-rt26");
        QVERIFY(boardShown);
        // Exports of the replayed run come from its file.
        QVERIFY(w.files->runExportBlocker().isEmpty());
        QVERIFY(!w.files->saveBlocker().isEmpty());
        QVERIFY2(w.files->exportHistogram(path("board.hist"), &error), qPrintable(error));
        CyclictestData exported;
        std::string why;
        QVERIFY(parseCyclictestHistogram(readAll(path("board.hist")).toStdString(), exported, why));
        QCOMPARE(exported.threads.front().cycles, uint64_t(300));
        QCOMPARE(exported.threads.front().bins[20], uint64_t(299));
        QCOMPARE(exported.threads.front().maxUs, int64_t(2000));

        // A hold during the replay keeps the board's run as the reference for the live one.
        QVERIFY(w.latency->holdAsReference());
        // Start means back to live: the banner goes, this machine's probe comes back.
        QVERIFY(w.latency->start());
        QVERIFY(!w.latency->isReplay());
        QCOMPARE(replay.count(), 2);
        QCOMPARE(dock->windowTitle(), QString("System"));
        QVERIFY(w.latency->hasReference());
        w.latency->stop();
    }

    void aRecordingOfTwoCpusShowsEveryCpuAndTheWholeRun()
    {
        // 200 s on CPUs 1 and 3, longer than the 120 s a snapshot's timeline holds: CPU 1 at 20 µs, CPU 3 at 50 µs
        // with one 3 ms stall 10 s after the start, so 190 s before the end.
        LatencyConfig c;
        c.cpus = {1, 3};
        c.periodNs = 100 * kNsPerMs;
        const int64_t t0 = 5'000 * kNsPerSec;
        const int64_t stallNs = t0 + 10 * kNsPerSec;
        {
            RecordingWriter writer(m_probe, path("two-cpus.rtrec").toStdString());
            writer.onRunStart({c, t0, {1, 3}, 0});
            writer.onMarker({t0, 0, "start: " + c.label()}, c);
            for (size_t thread = 0; thread < 2; ++thread) {
                std::vector<LatencySample> s;
                for (uint64_t i = 0; i < 2000; ++i) {
                    const int64_t deadline = t0 + int64_t(i) * c.periodNs;
                    const int64_t lat = thread == 0 ? 20'000 : deadline == stallNs ? 3'000'000 : 50'000;
                    s.push_back({i, deadline, deadline + lat, lat, 0, 0});
                }
                writer.onSamples(thread, s);
            }
            writer.onRunEnd(t0 + 200 * kNsPerSec);
            QVERIFY(writer.status().complete);
        }
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        QString error;
        QVERIFY2(w.files->open(path("two-cpus.rtrec"), &error), qPrintable(error));

        // A table row per CPU, named after it, with that CPU's figures.
        const LatencyStatsModel& m = *w.latency->statsModel();
        QCOMPARE(m.liveRowCount(), 2);
        QCOMPARE(m.headerData(0, Qt::Vertical).toString(), QString("CPU 1"));
        QCOMPARE(m.headerData(1, Qt::Vertical).toString(), QString("CPU 3"));
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Samples).toULongLong(), 2000ULL);
        QCOMPARE(test::rawCell(m, 0, LatencyStatsModel::Max).toLongLong(), 20'000LL);
        QCOMPARE(test::rawCell(m, 1, LatencyStatsModel::Samples).toULongLong(), 2000ULL);
        QCOMPARE(test::rawCell(m, 1, LatencyStatsModel::Max).toLongLong(), 3'000'000LL);
        // A histogram curve per CPU, and the run's curve is both together.
        HistogramChart* histogram = w.latency->histogramChart();
        QCOMPARE(histogram->overlayCount(), 2);
        QCOMPARE(histogram->overlayName(0), QString("CPU 1"));
        QCOMPARE(histogram->overlayName(1), QString("CPU 3"));
        QVERIFY2(histogram->liveName().contains("all 2 CPUs"), qPrintable(histogram->liveName()));
        // The timeline spans the whole 200 s, a curve per CPU, and CPU 3's stall is on it, 190 s before the end.
        TimelineChart* timeline = w.latency->timelineChart();
        QVERIFY2(timeline->windowSeconds() >= 200, qPrintable(QString::number(timeline->windowSeconds())));
        QCOMPARE(timeline->curveCount(), 2);
        QCOMPARE(timeline->curveName(1), QString("CPU 3"));
        const auto stallShown = [](const QList<QPointF>& points) {
            return std::any_of(points.begin(), points.end(),
                               [](const QPointF& p) { return p.y() >= 2999 && p.x() > -191 && p.x() < -189; });
        };
        QVERIFY(stallShown(timeline->curveEnvelope(1)));
        QVERIFY(!stallShown(timeline->curveEnvelope(0)));
        const QString banner = w.latency->replayBanner();
        QVERIFY2(banner.contains("All 2 measured CPUs (1, 3)") && banner.contains("whole recording, 200.0 s"),
                 qPrintable(banner));

        // Held as the reference, the run is every CPU's samples together, like its blue curve.
        QVERIFY(w.latency->holdAsReference());
        QCOMPARE(m.rowKind(2), LatencyStatsModel::RowKind::Reference);
        QCOMPARE(test::rawCell(m, 2, LatencyStatsModel::Samples).toULongLong(), 4000ULL);
        QCOMPARE(test::rawCell(m, 2, LatencyStatsModel::Max).toLongLong(), 3'000'000LL);

        // Back to live: one row and one curve again.
        w.latency->leaveReplay();
        QCOMPARE(histogram->overlayCount(), 0);
        QVERIFY(m.liveRowCount() <= 1);
        QCOMPARE(timeline->windowSeconds(), double(w.latency->timelineSeconds()));
    }

    void aTruncatedRecordingOpensWithAWarning()
    {
        const QByteArray full = readAll(path("board.rtrec"));
        QVERIFY(!full.isEmpty());
        QFile cut(path("cut.rtrec"));
        QVERIFY(cut.open(QIODevice::WriteOnly | QIODevice::Truncate));
        cut.write(full.left(full.size() - 10)); // inside the end block: every sample is there
        cut.close();
        test::LatencyWindow w(std::make_unique<ReplayLatencySource>(), m_probe);
        QString error;
        QVERIFY2(w.files->openRecording(path("cut.rtrec"), &error), qPrintable(error));
        QVERIFY(w.latency->replayBanner().contains("truncated after 300 samples"));
        QCOMPARE(test::rawCell(*w.latency->statsModel(), 0, LatencyStatsModel::Samples).toULongLong(), 300ULL);
    }
};

RTSCOPE_TEST_MAIN(TestExportImport)
#include "tst_export_import.moc"
