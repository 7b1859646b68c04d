// ctest: parallel. Pure parsing and formatting.
#include "engine/formats/cyclictest_format.h"
#include "engine/pipeline/histogram.h"

#include "tests/common/test_main.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <random>

using namespace rtscope;

namespace {

QString dataPath(const QString& name)
{
    const QByteArray root = qgetenv("RTSCOPE_SOURCE_DIR");
    if (!root.isEmpty())
        return QString::fromLocal8Bit(root) + QStringLiteral("/tests/data/") + name;
    return QFINDTESTDATA(QStringLiteral("../data/") + name);
}

QByteArray readData(const QString& name)
{
    QFile f(dataPath(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

std::string_view view(const QByteArray& b)
{
    return std::string_view(b.constData(), size_t(b.size()));
}

std::vector<uint64_t> trimmed(std::vector<uint64_t> bins)
{
    while (!bins.empty() && bins.back() == 0)
        bins.pop_back();
    return bins;
}

CyclictestData sampleData()
{
    CyclictestData d;
    d.preamble = {"# /dev/cpu_dma_latency set to 0us"};
    CyclictestThread a;
    a.bins = {0, 0, 3, 17, 250, 40, 0, 2, 0, 0};
    a.overflows = 4;
    a.overflowCycles = {12, 80, 81, 300};
    a.cycles = 316;
    a.minUs = 2;
    a.avgUs = 4.57;
    a.maxUs = 1234;
    a.cpu = 1;
    CyclictestThread b = a;
    b.bins = {0, 1, 0, 0, 0, 0, 0, 0, 0, 9};
    b.overflows = 25; // more than bins.size(): only the first ten cycles were kept
    b.overflowCycles = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    b.cycles = 35;
    b.minUs = 1;
    b.avgUs = 900.125;
    b.maxUs = 99999;
    b.cpu = 3;
    d.threads = {a, b};
    return d;
}

} // namespace

class TestCyclictestFormat : public QObject {
    Q_OBJECT

private slots:
    void realHistogramWritesBackByteForByte_data();
    void realHistogramWritesBackByteForByte();
    void histofallSummaryColumnIsDropped();
    void textAndJsonOfTheSameRunAgree_data();
    void textAndJsonOfTheSameRunAgree();
    void textRoundTrip();
    void writerFormatsLikeCyclictest();
    void jsonLayout();
    void jsonRoundTrip();
    void jsonNanosecondResolution();
    void threadFromHistogram();
    void malformedText_data();
    void malformedText();
    void malformedJson_data();
    void malformedJson();
    void truncatedAndMutatedFilesNeverCrash();
};

void TestCyclictestFormat::realHistogramWritesBackByteForByte_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("threads");
    QTest::newRow("1 thread, overflows and others") << "cyclictest_t1.hist" << 1;
    QTest::newRow("1 thread, no overflow") << "cyclictest_t1_no_overflow.hist" << 1;
    QTest::newRow("2 threads") << "cyclictest_t2.hist" << 2;
    QTest::newRow("2 threads on stdout, preamble") << "cyclictest_t2_stdout.hist" << 2;
}

void TestCyclictestFormat::realHistogramWritesBackByteForByte()
{
    QFETCH(QString, file);
    QFETCH(int, threads);
    const QByteArray original = readData(file);
    QVERIFY2(!original.isEmpty(), qPrintable(dataPath(file)));

    CyclictestData data;
    std::string error;
    QVERIFY2(parseCyclictestHistogram(view(original), data, error), error.c_str());
    QVERIFY(error.empty());
    QCOMPARE(int(data.threads.size()), threads);
    for (const auto& t : data.threads) {
        uint64_t inBins = 0;
        for (uint64_t v : t.bins)
            inBins += v;
        QCOMPARE(t.cycles, inBins + t.overflows);
        QCOMPARE(uint64_t(t.overflowCycles.size()), std::min<uint64_t>(t.overflows, t.bins.size()));
    }

    const std::string written = writeCyclictestHistogram(data);
    QCOMPARE(QByteArray::fromStdString(written), original);
}

void TestCyclictestFormat::histofallSummaryColumnIsDropped()
{
    const QByteArray original = readData("cyclictest_t2_histofall.hist");
    QVERIFY(!original.isEmpty());
    CyclictestData data;
    std::string error;
    QVERIFY2(parseCyclictestHistogram(view(original), data, error), error.c_str());
    QCOMPARE(int(data.threads.size()), 2);
    QCOMPARE(data.threads[0].bins.size(), size_t(10));
    QCOMPARE(data.threads[0].bins[7], uint64_t(4));
    QCOMPARE(data.threads[1].bins[7], uint64_t(5));
    QCOMPARE(data.threads[0].maxUs, int64_t(2772));
    QCOMPARE(data.threads[1].overflows, uint64_t(158));
    QCOMPARE(data.threads[1].cycles, uint64_t(200));

    // Our writer has no summary column; what it writes reads back to the same figures.
    CyclictestData again;
    QVERIFY2(parseCyclictestHistogram(writeCyclictestHistogram(data), again, error), error.c_str());
    QCOMPARE(again.threads[1].bins, data.threads[1].bins);
    QCOMPARE(again.threads[1].overflowCycles, data.threads[1].overflowCycles);
}

void TestCyclictestFormat::textAndJsonOfTheSameRunAgree_data()
{
    QTest::addColumn<QString>("stem");
    QTest::newRow("1 thread") << "cyclictest_t1";
    QTest::newRow("2 threads") << "cyclictest_t2";
}

void TestCyclictestFormat::textAndJsonOfTheSameRunAgree()
{
    // Each pair comes from one cyclictest run with --histfile and --json.
    QFETCH(QString, stem);
    CyclictestData text, json;
    std::string error;
    QVERIFY2(parseCyclictestHistogram(view(readData(stem + ".hist")), text, error), error.c_str());
    QVERIFY2(parseCyclictestJson(view(readData(stem + ".json")), json, error), error.c_str());
    QCOMPARE(json.threads.size(), text.threads.size());
    for (size_t i = 0; i < text.threads.size(); ++i) {
        const auto& t = text.threads[i];
        const auto& j = json.threads[i];
        QCOMPARE(trimmed(j.bins), trimmed(t.bins));
        QCOMPARE(j.cycles, t.cycles);
        QCOMPARE(j.overflows, t.overflows);
        QCOMPARE(j.minUs, t.minUs);
        QCOMPARE(j.maxUs, t.maxUs);
        QCOMPARE(std::trunc(j.avgUs), t.avgUs);
        QCOMPARE(j.cpu, 1);
    }
}

void TestCyclictestFormat::textRoundTrip()
{
    const CyclictestData d = sampleData();
    CyclictestData back;
    std::string error;
    QVERIFY2(parseCyclictestHistogram(writeCyclictestHistogram(d), back, error), error.c_str());
    QCOMPARE(back.preamble, d.preamble);
    QCOMPARE(back.threads.size(), d.threads.size());
    for (size_t i = 0; i < d.threads.size(); ++i) {
        QCOMPARE(back.threads[i].bins, d.threads[i].bins);
        QCOMPARE(back.threads[i].overflows, d.threads[i].overflows);
        QCOMPARE(back.threads[i].overflowCycles, d.threads[i].overflowCycles);
        QCOMPARE(back.threads[i].cycles, d.threads[i].cycles);
        QCOMPARE(back.threads[i].minUs, d.threads[i].minUs);
        QCOMPARE(back.threads[i].maxUs, d.threads[i].maxUs);
        QCOMPARE(back.threads[i].avgUs, std::trunc(d.threads[i].avgUs)); // the text carries it truncated
    }
    // A second pass is the identity.
    QCOMPARE(writeCyclictestHistogram(back), writeCyclictestHistogram(d));
}

void TestCyclictestFormat::writerFormatsLikeCyclictest()
{
    CyclictestData d;
    CyclictestThread t;
    t.bins = {5, 1234567};
    t.overflows = 3;
    t.overflowCycles = {7};
    t.cycles = 1234575;
    t.minUs = 0;
    t.avgUs = 1.99;
    t.maxUs = 123456;
    d.threads = {t};
    const std::string expected = "# Histogram\n"
                                 "000000 000005\n"
                                 "000001 1234567\n"
                                 "# Total: 001234572\n"
                                 "# Min Latencies: 00000\n"
                                 "# Avg Latencies: 00001\n"
                                 "# Max Latencies: 123456\n"
                                 "# Histogram Overflows: 00003\n"
                                 "# Histogram Overflow at cycle number:\n"
                                 "# Thread 0: 00007 # 00002 others\n"
                                 "\n";
    QCOMPARE(writeCyclictestHistogram(d), expected);

    // No cycles: cyclictest prints an average of 0 whatever its accumulator holds.
    d.threads[0].cycles = 0;
    d.threads[0].avgUs = std::nan("");
    QVERIFY(writeCyclictestHistogram(d).find("# Avg Latencies: 00000\n") != std::string::npos);
}

void TestCyclictestFormat::jsonLayout()
{
    const nlohmann::json doc = cyclictestJson(sampleData(), "rtscope latency -t 2", 1700000000, 1700000060);
    QCOMPARE(doc.at("file_version").get<int>(), 1);
    QVERIFY(doc.contains("cmdline:"));
    QVERIFY(doc.contains("rt_test_version:"));
    QCOMPARE(doc.at("cmdline:").get<std::string>(), std::string("rtscope latency -t 2"));
    QCOMPARE(doc.at("start_time").get<std::string>(), std::string("Tue, 14 Nov 2023 22:13:20 +0000"));
    QCOMPARE(doc.at("end_time").get<std::string>(), std::string("Tue, 14 Nov 2023 22:14:20 +0000"));
    QCOMPARE(doc.at("return_code").get<int>(), 0);
    QVERIFY(doc.at("sysinfo").at("sysname").is_string());
    QVERIFY(doc.at("sysinfo").at("realtime").is_number_integer());
    QCOMPARE(doc.at("num_threads").get<int>(), 2);
    QCOMPARE(doc.at("resolution_in_ns").get<int>(), 0);
    const auto& t0 = doc.at("thread").at("0");
    // Only the non-zero bins, keyed by the bin as a string.
    QCOMPARE(t0.at("histogram").size(), size_t(5));
    QCOMPARE(t0.at("histogram").at("4").get<uint64_t>(), uint64_t(250));
    QVERIFY(!t0.at("histogram").contains("0"));
    QCOMPARE(t0.at("cycles").get<uint64_t>(), uint64_t(316));
    QCOMPARE(t0.at("min").get<int64_t>(), int64_t(2));
    QCOMPARE(t0.at("max").get<int64_t>(), int64_t(1234));
    QVERIFY(t0.at("avg").is_number_float());
    QCOMPARE(t0.at("avg").get<double>(), 4.57);
    QCOMPARE(t0.at("cpu").get<int>(), 1);
    QVERIFY(t0.at("node").is_number_integer());
    QCOMPARE(doc.at("thread").at("1").at("avg").get<double>(), 900.13); // two decimals, like cyclictest's %.2f
}

void TestCyclictestFormat::jsonRoundTrip()
{
    const CyclictestData d = sampleData();
    const std::string text = cyclictestJson(d, "x", 0, 1).dump(2);
    CyclictestData back;
    std::string error;
    QVERIFY2(parseCyclictestJson(text, back, error), error.c_str());
    QCOMPARE(back.threads.size(), d.threads.size());
    for (size_t i = 0; i < d.threads.size(); ++i) {
        // The JSON lists non-zero bins only, so trailing empty bins are not carried.
        QCOMPARE(back.threads[i].bins, trimmed(d.threads[i].bins));
        QCOMPARE(back.threads[i].cycles, d.threads[i].cycles);
        QCOMPARE(back.threads[i].overflows, d.threads[i].overflows);
        QCOMPARE(back.threads[i].minUs, d.threads[i].minUs);
        QCOMPARE(back.threads[i].maxUs, d.threads[i].maxUs);
        QVERIFY(std::abs(back.threads[i].avgUs - d.threads[i].avgUs) <= 0.005 + 1e-9);
        QCOMPARE(back.threads[i].cpu, d.threads[i].cpu);
    }
}

void TestCyclictestFormat::jsonNanosecondResolution()
{
    // cyclictest -N: every figure in ns, bins per ns; a µs bin is floor(ns / 1000), so the conversion is exact.
    const std::string text = R"({"resolution_in_ns": 1, "num_threads": 1, "thread": {"0": {
        "histogram": {"999": 2, "1000": 3, "1999": 1, "5500": 4}, "cycles": 12, "min": 999, "max": 7100000,
        "avg": 150757.12, "cpu": 2, "node": 0}}})";
    CyclictestData d;
    std::string error;
    QVERIFY2(parseCyclictestJson(text, d, error), error.c_str());
    const auto& t = d.threads.at(0);
    QCOMPARE(t.bins, (std::vector<uint64_t>{2, 4, 0, 0, 0, 4}));
    QCOMPARE(t.overflows, uint64_t(2));
    QCOMPARE(t.minUs, int64_t(0));
    QCOMPARE(t.maxUs, int64_t(7100));
    QCOMPARE(t.avgUs, 150.75712);
    QCOMPARE(t.cpu, 2);
}

void TestCyclictestFormat::threadFromHistogram()
{
    Histogram h(20);
    std::vector<uint64_t> expected(20, 0);
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<int64_t> dist(1500, 25000);
    for (int i = 0; i < 5000; ++i) {
        const int64_t v = dist(rng);
        h.record(v);
        if (v / 1000 < 20)
            ++expected[size_t(v / 1000)];
    }
    const CyclictestThread t = cyclictestThreadFrom(h, 20);
    QCOMPARE(t.bins, expected);
    QCOMPARE(t.cycles, uint64_t(5000));
    QCOMPARE(t.overflows, h.exactUsOverflow());
    QCOMPARE(t.minUs, h.min() / 1000);
    QCOMPARE(t.maxUs, h.max() / 1000);
    QCOMPARE(t.avgUs, h.mean() / 1000.0);

    // Fewer bins than the histogram has: the rest are overflows, as cyclictest would count them.
    const CyclictestThread shorter = cyclictestThreadFrom(h, 5);
    QCOMPARE(shorter.bins, std::vector<uint64_t>(expected.begin(), expected.begin() + 5));
    uint64_t inBins = 0;
    for (uint64_t v : shorter.bins)
        inBins += v;
    QCOMPARE(shorter.overflows, uint64_t(5000) - inBins);

    // Without exact bins the log buckets stand in; small values are still exact.
    Histogram logOnly;
    for (int64_t v : {100, 300, 450, 900})
        logOnly.record(v);
    QCOMPARE(cyclictestThreadFrom(logOnly, 3).bins, (std::vector<uint64_t>{4, 0, 0}));
}

void TestCyclictestFormat::malformedText_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error"); // a part of the expected message

    const QByteArray footer1 = "# Total: 000000003\n# Min Latencies: 00000\n# Avg Latencies: 00001\n"
                               "# Max Latencies: 00001\n# Histogram Overflows: 00000\n"
                               "# Histogram Overflow at cycle number:\n# Thread 0:\n\n";
    const QByteArray good = "# Histogram\n000000 000001\n000001 000002\n" + footer1;
    // The good text parses: each row below breaks exactly one thing.
    QTest::newRow("empty") << QByteArray() << "no '# Histogram'";
    QTest::newRow("binary junk") << QByteArray("\x7f"
                                               "ELF\x02\x01\x01\0\0\0\xff\xfe",
                                               12)
                                 << "no '# Histogram'";
    QTest::newRow("only the header") << QByteArray("# Histogram\n") << "line 2: unexpected end of input";
    QTest::newRow("missing counts") << QByteArray("# Histogram\n000000\n") << "line 2: histogram row without counts";
    QTest::newRow("mismatched columns") << QByteArray("# Histogram\n000000 000001\t000002\n000001 000001\n")
                                        << "line 3: expected 2 counts, found 1";
    QTest::newRow("bin out of order") << QByteArray("# Histogram\n000000 000001\n000002 000001\n")
                                      << "line 3: expected bin 1";
    QTest::newRow("negative count") << QByteArray("# Histogram\n000000 -00001\n") << "line 2: expected a count";
    QTest::newRow("huge count") << QByteArray("# Histogram\n000000 99999999999999999999999\n")
                                << "line 2: expected a count";
    QTest::newRow("huge bin") << QByteArray("# Histogram\n99999999999999999999999 1\n")
                              << "line 2: expected a histogram row";
    QTest::newRow("garbage row") << QByteArray("# Histogram\nhello world\n") << "line 2: expected a histogram row";
    QTest::newRow("blank row") << QByteArray("# Histogram\n000000 000001\n\n") << "line 3: expected a histogram row";
    QTest::newRow("missing total") << QByteArray("# Histogram\n000000 000001\n# Min Latencies: 00000\n")
                                   << "line 3: expected '# Total:'";
    QTest::newRow("wrong total") << QByteArray(good).replace("000000003", "000000004")
                                 << "line 4: total 4 of column 0 differs from the sum of its bins, 3";
    QTest::newRow("total not a number") << QByteArray(good).replace("000000003", "three")
                                        << "line 4: expected a non-negative number";
    QTest::newRow("two totals for one column")
        << QByteArray(good).replace("000000003", "000000003 000000003") << "line 4: expected 1 totals, found 2";
    QTest::newRow("missing min") << QByteArray(good).replace("# Min Latencies: 00000\n", "")
                                 << "line 5: expected '# Min Latencies:'";
    QTest::newRow("no minima") << QByteArray(good).replace("# Min Latencies: 00000", "# Min Latencies:")
                               << "line 5: no thread columns";
    QTest::newRow("minima for two threads") << QByteArray(good).replace("Latencies: 00000", "Latencies: 0 0")
                                            << "line 5: 2 minima for a histogram of 1 columns";
    QTest::newRow("avg count") << QByteArray(good).replace("Avg Latencies: 00001", "Avg Latencies: 1 1")
                               << "line 6: expected 1 averages, found 2";
    QTest::newRow("missing max") << QByteArray(good).replace("# Max Latencies: 00001\n", "")
                                 << "line 7: expected '# Max Latencies:'";
    QTest::newRow("overflow count mismatch")
        << QByteArray(good).replace("Overflows: 00000", "Overflows: 00002")
        << "line 10: thread 0 lists 0 overflow cycles and 0 others, but reports 2 overflows";
    QTest::newRow("others disagree") << QByteArray(good).replace("# Thread 0:", "# Thread 0: 00001 # 00005 others")
                                     << "line 10: thread 0 lists 1 overflow cycles and 5 others";
    QTest::newRow("others malformed") << QByteArray(good).replace("# Thread 0:", "# Thread 0: 00001 # 5")
                                      << "line 10: expected '# N others'";
    QTest::newRow("cycle not a number") << QByteArray(good).replace("# Thread 0:", "# Thread 0: x")
                                        << "line 10: expected a cycle number";
    QTest::newRow("missing cycle header") << QByteArray(good).replace("# Histogram Overflow at cycle number:\n", "")
                                          << "line 9: expected '# Histogram Overflow at cycle number:'";
    QTest::newRow("missing thread line") << QByteArray(good).replace("# Thread 0:\n\n", "")
                                         << "line 10: unexpected end of input, expected '# Thread 0:'";
    QTest::newRow("wrong thread number") << QByteArray(good).replace("# Thread 0:", "# Thread 1:")
                                         << "line 10: expected '# Thread 0:'";
    QTest::newRow("counts overflow uint64")
        << QByteArray("# Histogram\n000000 18446744073709551615\n000001 000001\n# Total: 000000000\n"
                      "# Min Latencies: 0\n# Avg Latencies: 0\n# Max Latencies: 0\n# Histogram Overflows: 0\n"
                      "# Histogram Overflow at cycle number:\n# Thread 0:\n")
        << "line 4: the counts of column 0 overflow";
    QTest::newRow("cycles overflow uint64")
        << QByteArray("# Histogram\n000000 18446744073709551615\n# Total: 18446744073709551615\n"
                      "# Min Latencies: 0\n# Avg Latencies: 0\n# Max Latencies: 0\n# Histogram Overflows: 1\n"
                      "# Histogram Overflow at cycle number:\n# Thread 0: 1\n")
        << "line 3: the sample count of thread 0 overflows";
    QTest::newRow("larger than 64 MiB") << QByteArray(100 << 20, '0') << "bytes, more than the 64 MiB";
}

void TestCyclictestFormat::malformedText()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    CyclictestData out;
    out.threads.resize(3); // a failed parse must leave the output alone
    std::string message;
    QVERIFY(!parseCyclictestHistogram(view(text), out, message));
    QVERIFY2(QString::fromStdString(message).contains(error),
             qPrintable(QStringLiteral("message: %1").arg(QString::fromStdString(message))));
    QCOMPARE(out.threads.size(), size_t(3));
}

void TestCyclictestFormat::malformedJson_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    const QByteArray t0 = R"("histogram": {"1": 2}, "cycles": 3, "min": 1, "max": 9, "avg": 2.5, "cpu": 0)";
    auto doc = [&](const QByteArray& thread) {
        return R"({"num_threads": 1, "thread": {"0": {)" + thread + "}}}";
    };
    QVERIFY(doc(t0).size() > 0);
    QTest::newRow("empty") << QByteArray() << "not valid JSON";
    QTest::newRow("binary") << QByteArray("\x00\x01\xff{", 4) << "not valid JSON";
    QTest::newRow("truncated") << doc(t0).left(30) << "not valid JSON";
    QTest::newRow("array") << QByteArray("[1,2]") << "(top level): expected an object";
    QTest::newRow("no thread") << QByteArray(R"({"num_threads": 0})") << "thread: missing";
    QTest::newRow("thread is a list") << QByteArray(R"({"thread": []})") << "thread: expected an object";
    QTest::newRow("no threads") << QByteArray(R"({"thread": {}})") << "thread: no threads";
    QTest::newRow("num_threads disagrees")
        << QByteArray(doc(t0)).replace("\"num_threads\": 1", "\"num_threads\": 2") << "num_threads: does not match";
    QTest::newRow("thread key gap") << QByteArray(doc(t0)).replace("\"0\":", "\"1\":")
                                    << "thread.1: thread keys must be 0 .. num_threads-1";
    QTest::newRow("thread not object") << QByteArray(R"({"thread": {"0": 5}})") << "thread.0: expected an object";
    QTest::newRow("missing cycles") << doc(QByteArray(t0).replace("\"cycles\": 3,", "")) << "thread.0.cycles: missing";
    QTest::newRow("negative cycles") << doc(QByteArray(t0).replace("\"cycles\": 3", "\"cycles\": -3"))
                                     << "thread.0.cycles: expected a non-negative integer";
    QTest::newRow("string cycles") << doc(QByteArray(t0).replace("\"cycles\": 3", "\"cycles\": \"3\""))
                                   << "thread.0.cycles: expected a non-negative integer";
    QTest::newRow("huge min") << doc(QByteArray(t0).replace("\"min\": 1", "\"min\": 18446744073709551615"))
                              << "thread.0.min: integer out of range";
    QTest::newRow("float max") << doc(QByteArray(t0).replace("\"max\": 9", "\"max\": 9.5"))
                               << "thread.0.max: expected an integer";
    QTest::newRow("avg overflows double") << doc(QByteArray(t0).replace("2.5", "1e400")) << "";
    QTest::newRow("avg string") << doc(QByteArray(t0).replace("2.5", "\"x\"")) << "thread.0.avg: expected a number";
    QTest::newRow("bin key junk") << doc(QByteArray(t0).replace("\"1\": 2", "\"a\": 2"))
                                  << "thread.0.histogram.a: bin keys must be non-negative integers";
    QTest::newRow("bin key huge") << doc(QByteArray(t0).replace("\"1\": 2", "\"999999999999\": 2"))
                                  << "bin beyond the supported range";
    QTest::newRow("count negative") << doc(QByteArray(t0).replace("\"1\": 2", "\"1\": -2"))
                                    << "thread.0.histogram.1: expected a non-negative integer";
    QTest::newRow("more binned than cycles")
        << doc(QByteArray(t0).replace("\"1\": 2", "\"1\": 20")) << "thread.0.cycles: fewer cycles than samples";
    QTest::newRow("counts overflow") << doc(QByteArray(t0).replace(
                                            "\"1\": 2", "\"1\": 18446744073709551615, \"2\": 18446744073709551615"))
                                     << "count overflows";
    QTest::newRow("resolution 1000") << QByteArray(R"({"resolution_in_ns": 1000, "thread": {}})")
                                     << "resolution_in_ns: expected 0 or 1";
    QTest::newRow("deep nesting") << QByteArray(200000, '[')
                                  << "nests lists and objects 200000 levels deep; rtscope reads at most 64";
    QTest::newRow("larger than 64 MiB") << QByteArray(100 << 20, ' ') << "bytes, more than the 64 MiB";
}

void TestCyclictestFormat::malformedJson()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    CyclictestData out;
    std::string message;
    QVERIFY(!parseCyclictestJson(view(text), out, message));
    QVERIFY(!message.empty());
    QVERIFY2(QString::fromStdString(message).contains(error),
             qPrintable(QStringLiteral("message: %1").arg(QString::fromStdString(message))));
    QVERIFY(out.threads.empty());
}

void TestCyclictestFormat::truncatedAndMutatedFilesNeverCrash()
{
    // A cheap stand-in for a fuzzer: every prefix, and random byte damage, of real files. Under ASan/UBSan this
    // is where an out-of-bounds read or a signed overflow would show.
    for (const char* name : {"cyclictest_t2.hist", "cyclictest_t2.json", "cyclictest_t2_histofall.hist"}) {
        const QByteArray original = readData(QString::fromLatin1(name));
        QVERIFY(!original.isEmpty());
        const bool isJson = QByteArray(name).endsWith(".json");
        auto check = [&](const QByteArray& b) {
            CyclictestData out;
            std::string error;
            const bool ok =
                isJson ? parseCyclictestJson(view(b), out, error) : parseCyclictestHistogram(view(b), out, error);
            if (!ok && error.empty())
                QFAIL(qPrintable(QStringLiteral("%1: failure without a message").arg(QLatin1String(name))));
            if (!ok && !isJson && error.rfind("line ", 0) != 0 && error.find("no '# Histogram'") == std::string::npos)
                QFAIL(qPrintable(QStringLiteral("%1: message without a line: %2")
                                     .arg(QLatin1String(name), QString::fromStdString(error))));
        };
        for (qsizetype n = 0; n < original.size(); ++n)
            check(original.left(n));
        std::mt19937 rng(42);
        for (int round = 0; round < 3000; ++round) {
            QByteArray b = original;
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                const auto at = qsizetype(rng() % uint32_t(b.size()));
                switch (rng() % 4) {
                case 0:
                    b[at] = char(rng());
                    break;
                case 1:
                    b.remove(at, 1 + qsizetype(rng() % 8));
                    break;
                case 2:
                    b.insert(at, QByteArray::number(qulonglong(rng()) * 99991ULL));
                    break;
                case 3:
                    b.insert(at, isJson ? "\"" : "\t");
                    break;
                }
                if (b.isEmpty())
                    b = "x";
            }
            check(b);
        }
    }
}

RTSCOPE_TEST_APPLESS_MAIN(TestCyclictestFormat)
#include "tst_cyclictest_format.moc"
