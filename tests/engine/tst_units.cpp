// ctest: parallel. Pure unit formatting.
#include "engine/util/units.h"

#include "tests/common/data_rows.h"
#include "tests/common/test_main.h"

#include <QtTest>

#include <limits>

using namespace rtscope;

class TestUnits : public QObject {
    Q_OBJECT

private slots:
    void parseDurationAccepts_data();
    void parseDurationAccepts();
    void parseDurationRejects_data();
    void parseDurationRejects();
    void parseDurationBareUnit_data();
    void parseDurationBareUnit();
    void formatDuration_data();
    void formatDuration();
    void formatThenParse();
    void formatDurationExactKeepsEveryDigit();
    void parseCpuList_data();
    void parseCpuList();
    void splitList_data();
    void splitList();
};

void TestUnits::parseDurationAccepts_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<qint64>("ns");
    QTest::newRow("bare number is us") << QByteArray("250") << qint64(250000);
    QTest::newRow("zero") << QByteArray("0") << qint64(0);
    QTest::newRow("us") << QByteArray("250us") << qint64(250000);
    QTest::newRow("micro sign") << QByteArray("250\xC2\xB5s") << qint64(250000);
    QTest::newRow("greek mu") << QByteArray("250\xCE\xBCs") << qint64(250000);
    QTest::newRow("ns") << QByteArray("100ns") << qint64(100);
    QTest::newRow("ms") << QByteArray("3ms") << qint64(3000000);
    QTest::newRow("s") << QByteArray("2s") << qint64(2000000000);
    QTest::newRow("fraction ms") << QByteArray("1.5ms") << qint64(1500000);
    QTest::newRow("fraction bare") << QByteArray("0.25") << qint64(250);
    QTest::newRow("fraction s") << QByteArray("0.000000001s") << qint64(1);
    QTest::newRow("rounds half up") << QByteArray("0.0015us") << qint64(2);
    QTest::newRow("rounds down") << QByteArray("1.4ns") << qint64(1);
    QTest::newRow("rounds up") << QByteArray("1.5ns") << qint64(2);
    QTest::newRow("one space") << QByteArray("1 ms") << qint64(1000000);
    QTest::newRow("surrounding blanks") << QByteArray("  20us\t") << qint64(20000);
    QTest::newRow("leading zeros") << QByteArray("007ms") << qint64(7000000);
    QTest::newRow("max 1e8 s") << QByteArray("100000000s") << qint64(100000000) * 1000000000;
    QTest::newRow("max in us") << QByteArray("100000000000000") << qint64(100000000) * 1000000000;
    QTest::newRow("past 30 days") << QByteArray("2592001s") << qint64(2592001) * 1000000000;
    QTest::newRow("18 fraction digits") << QByteArray("1.000000000000000001s") << qint64(1000000000);
}

void TestUnits::parseDurationAccepts()
{
    QFETCH(QByteArray, text);
    QFETCH(qint64, ns);
    const auto got = parseDuration(std::string_view(text.constData(), size_t(text.size())));
    QVERIFY2(got.has_value(), text.constData());
    QCOMPARE(*got, ns);
}

void TestUnits::parseDurationRejects_data()
{
    QTest::addColumn<QByteArray>("text");
    for (const char* bad : {"",
                            " ",
                            "-1ms",
                            "-0",
                            "+1ms",
                            "ms",
                            "us",
                            "1xs",
                            "1.2.3",
                            "1.",
                            ".5ms",
                            "nan",
                            "inf",
                            "NaN",
                            "1e3",
                            "1e3us",
                            "1  ms",
                            "1\tms",
                            "1 m s",
                            "1MS",
                            "1Ms",
                            "1ms ms",
                            "1 ",
                            "0x10",
                            "1,5ms",
                            "100000001s",
                            "100000000.001s",
                            "100000000000001",
                            "99999999999999999999999999999s",
                            "1.0000000000000000001s",
                            "1 \xC2\xB5",
                            "\xC2\xB5s",
                            "1\xB5s",
                            "12h",
                            "1min"})
        QTest::addRow("'%s'", bad) << QByteArray(bad);
    QTest::newRow("embedded NUL") << QByteArray("1\0ms", 4);
}

void TestUnits::parseDurationRejects()
{
    QFETCH(QByteArray, text);
    const auto got = parseDuration(std::string_view(text.constData(), size_t(text.size())));
    // "1 " is the odd one: trimming makes it a bare number, which is fine, so it is checked apart.
    if (text == "1 ") {
        QCOMPARE(got, std::optional<int64_t>(1000));
        return;
    }
    QVERIFY2(!got.has_value(),
             qPrintable(QStringLiteral("accepted '%1' as %2 ns").arg(QString::fromUtf8(text)).arg(got.value_or(0))));
}

void TestUnits::parseDurationBareUnit_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<qint64>("bareUnitNs");
    QTest::addColumn<qint64>("expected"); // -1: rejected
    const qint64 sec = 1000000000;
    QTest::newRow("bare seconds") << QByteArray("10") << sec << 10 * sec;
    QTest::newRow("fraction of a second") << QByteArray("1.5") << sec << sec * 3 / 2;
    QTest::newRow("unit wins over bare") << QByteArray("10ms") << sec << qint64(10000000);
    QTest::newRow("bare ns") << QByteArray("10") << qint64(1) << qint64(10);
    QTest::newRow("beyond limit") << QByteArray("100000001") << sec << qint64(-1);
    QTest::newRow("zero bare unit") << QByteArray("1") << qint64(0) << qint64(-1);
    QTest::newRow("negative bare unit") << QByteArray("1") << qint64(-1000) << qint64(-1);
    QTest::newRow("huge bare unit") << QByteArray("1") << std::numeric_limits<qint64>::max() << qint64(-1);
}

void TestUnits::parseDurationBareUnit()
{
    QFETCH(QByteArray, text);
    QFETCH(qint64, bareUnitNs);
    QFETCH(qint64, expected);
    const auto got = parseDuration(std::string_view(text.constData(), size_t(text.size())), bareUnitNs);
    if (expected < 0)
        QVERIFY(!got.has_value());
    else
        QCOMPARE(got, std::optional<int64_t>(expected));
}

void TestUnits::formatDuration_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QString>("text");
    QTest::newRow("0") << qint64(0) << "0 ns";
    QTest::newRow("850 ns") << qint64(850) << "850 ns";
    QTest::newRow("999 ns") << qint64(999) << "999 ns";
    QTest::newRow("1 us") << qint64(1000) << "1.0 us";
    QTest::newRow("12.3 us") << qint64(12345) << "12.3 us";
    QTest::newRow("rounds to 12.4") << qint64(12350) << "12.4 us";
    QTest::newRow("999.9 us") << qint64(999940) << "999.9 us";
    QTest::newRow("carries into ms") << qint64(999960) << "1.00 ms";
    QTest::newRow("1.50 ms") << qint64(1500000) << "1.50 ms";
    QTest::newRow("999.99 ms") << qint64(999994999) << "999.99 ms";
    QTest::newRow("carries into s") << qint64(999995000) << "1.000 s";
    QTest::newRow("2 s") << qint64(2000000000) << "2.000 s";
    QTest::newRow("hours") << qint64(3600) * 1000000000 << "3600.000 s";
    QTest::newRow("negative") << qint64(-1500) << "-1.5 us";
    QTest::newRow("int64 min") << std::numeric_limits<qint64>::min() << "-9223372036.855 s";
    QTest::newRow("int64 max") << std::numeric_limits<qint64>::max() << "9223372036.855 s";
}

void TestUnits::formatDuration()
{
    QFETCH(qint64, ns);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(rtscope::formatDuration(ns)), text);
}

void TestUnits::formatThenParse()
{
    // What we print, we read back to within half of the last printed digit.
    for (int64_t ns : {0LL, 7LL, 999LL, 1234LL, 56789LL, 1234567LL, 98765432LL, 4321098765LL}) {
        const std::string text = rtscope::formatDuration(ns);
        const auto back = parseDuration(text);
        QVERIFY2(back.has_value(), text.c_str());
        const int64_t halfDigit = ns < 1000 ? 0 : ns < 1000000 ? 50 : ns < 1000000000 ? 5000 : 500000;
        QVERIFY2(std::abs(*back - ns) <= halfDigit, text.c_str());
    }
}

void TestUnits::formatDurationExactKeepsEveryDigit()
{
    QCOMPARE(rtscope::formatDurationExact(10'000'000'001), std::string("10.000000001 s"));
    QCOMPARE(rtscope::formatDurationExact(10'000'000'000), std::string("10 s"));
    QCOMPARE(rtscope::formatDurationExact(1'500'000), std::string("1.5 ms"));
    QCOMPARE(rtscope::formatDurationExact(1'000'100), std::string("1.0001 ms"));
    QCOMPARE(rtscope::formatDurationExact(12'345), std::string("12.345 us"));
    QCOMPARE(rtscope::formatDurationExact(850), std::string("850 ns"));
    QCOMPARE(rtscope::formatDurationExact(0), std::string("0 ns"));
    QCOMPARE(rtscope::formatDurationExact(-1'500), std::string("-1.5 us"));
    QCOMPARE(rtscope::formatDurationExact(std::numeric_limits<int64_t>::min()), std::string("-9223372036.854775808 s"));
    // Read back, it is the same number of nanoseconds.
    for (int64_t ns : {7LL, 1234LL, 56789LL, 1234567LL, 98765432LL, 4321098765LL, 10'000'000'001LL})
        QCOMPARE(parseDuration(rtscope::formatDurationExact(ns)).value_or(-1), ns);
}

void TestUnits::parseCpuList_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<int>>("all");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QList<int>>("cpus");
    const QList<int> four{3, 0, 1, 2, 1};
    QTest::newRow("single") << "3" << four << true << QList<int>{3};
    QTest::newRow("list and range") << "0,2-3" << four << true << QList<int>{0, 2, 3};
    QTest::newRow("unsorted duplicates") << "3,1,1-2, 0" << four << true << QList<int>{0, 1, 2, 3};
    QTest::newRow("spaces") << " 1 - 2 , 5 " << four << true << QList<int>{1, 2, 5};
    QTest::newRow("one-element range") << "4-4" << four << true << QList<int>{4};
    QTest::newRow("all") << "all" << four << true << QList<int>{0, 1, 2, 3};
    QTest::newRow("all without cpus") << "all" << QList<int>{} << false << QList<int>{};
    QTest::newRow("empty") << "" << four << false << QList<int>{};
    QTest::newRow("blank") << "  " << four << false << QList<int>{};
    QTest::newRow("empty item") << "0,,1" << four << false << QList<int>{};
    QTest::newRow("trailing comma") << "0," << four << false << QList<int>{};
    QTest::newRow("reversed range") << "3-1" << four << false << QList<int>{};
    QTest::newRow("open range") << "1-" << four << false << QList<int>{};
    QTest::newRow("negative") << "-1" << four << false << QList<int>{};
    QTest::newRow("letters") << "cpu0" << four << false << QList<int>{};
    QTest::newRow("double dash") << "1--2" << four << false << QList<int>{};
    QTest::newRow("stride not supported") << "0-7:2" << four << false << QList<int>{};
    QTest::newRow("huge") << "0-4000000000" << four << false << QList<int>{};
    QTest::newRow("beyond limit") << "70000" << four << false << QList<int>{};
    QTest::newRow("All is case sensitive") << "ALL" << four << false << QList<int>{};
}

void TestUnits::parseCpuList()
{
    QFETCH(QString, text);
    QFETCH(QList<int>, all);
    QFETCH(bool, ok);
    QFETCH(QList<int>, cpus);
    const QByteArray utf8 = text.toUtf8();
    const auto got = rtscope::parseCpuList(std::string_view(utf8.constData(), size_t(utf8.size())),
                                           std::vector<int>(all.begin(), all.end()));
    QCOMPARE(got.has_value(), ok);
    if (ok)
        QCOMPARE(QList<int>(got->begin(), got->end()), cpus);
}

void TestUnits::splitList_data()
{
    test::addRows<QString, QString, QStringList>({"text", "sep", "items"},
                                                 {{"simple", "a,b,c", ",", QStringList{"a", "b", "c"}},
                                                  {"trimmed", " a , b\t,c ", ",", QStringList{"a", "b", "c"}},
                                                  {"empties dropped", ",a,,b, ,", ",", QStringList{"a", "b"}},
                                                  {"empty", "", ",", QStringList{}},
                                                  {"only separators", ",,,", ",", QStringList{}},
                                                  {"other separator", "x:y z: w", ":", QStringList{"x", "y z", "w"}},
                                                  {"no separator", "alone", ",", QStringList{"alone"}}});
}

void TestUnits::splitList()
{
    QFETCH(QString, text);
    QFETCH(QString, sep);
    QFETCH(QStringList, items);
    const QByteArray utf8 = text.toUtf8();
    QStringList got;
    for (const std::string& s :
         rtscope::splitList(std::string_view(utf8.constData(), size_t(utf8.size())), sep.toLatin1().at(0)))
        got << QString::fromStdString(s);
    QCOMPARE(got, items);
}

RTSCOPE_TEST_APPLESS_MAIN(TestUnits)
#include "tst_units.moc"
