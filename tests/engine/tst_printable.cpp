// ctest: parallel. Pure escaping.
// printable(): text from a file reaches a terminal with every control byte, every byte of malformed UTF-8 and the
// bidirectional controls written as \xNN, and everything else, valid UTF-8 such as "µ" included, as it was.
#include "engine/util/printable.h"

#include "tests/common/data_rows.h"
#include "tests/common/test_main.h"

#include <QtTest>

using namespace rtscope;

class TestPrintable : public QObject {
    Q_OBJECT

private slots:
    void escapes_data()
    {
        test::addColumns<QByteArray, QByteArray>("in", "out");
        QTest::newRow("plain ASCII") << QByteArray("board-7 (rtscope latency -p 80)")
                                     << QByteArray("board-7 (rtscope latency -p 80)");
        QTest::newRow("empty") << QByteArray("") << QByteArray("");
        QTest::newRow("micro sign kept") << QByteArray("12.3 \xC2\xB5s") << QByteArray("12.3 \xC2\xB5s");
        QTest::newRow("three and four byte UTF-8 kept")
            << QByteArray("\xE2\x86\x92 \xF0\x9F\x98\x80") << QByteArray("\xE2\x86\x92 \xF0\x9F\x98\x80");
        QTest::newRow("ESC") << QByteArray("\x1b[2J") << QByteArray("\\x1b[2J");
        QTest::newRow("OSC title with BEL")
            << QByteArray("\x1b]0;pwned\x07host") << QByteArray("\\x1b]0;pwned\\x07host");
        QTest::newRow("NUL") << QByteArray("a\0b", 3) << QByteArray("a\\x00b");
        QTest::newRow("newline, CR and tab") << QByteArray("a\nb\rc\td") << QByteArray("a\\x0ab\\x0dc\\x09d");
        QTest::newRow("DEL") << QByteArray("a\x7f") << QByteArray("a\\x7f");
        QTest::newRow("C1 CSI as UTF-8") << QByteArray("\xC2\x9b"
                                                       "2J")
                                         << QByteArray("\\xc2\\x9b2J");
        QTest::newRow("C1 CSI raw byte") << QByteArray("\x9b"
                                                       "2J")
                                         << QByteArray("\\x9b2J");
        QTest::newRow("U+00A0 is not C1") << QByteArray("\xC2\xA0") << QByteArray("\xC2\xA0");
        QTest::newRow("stray continuation") << QByteArray("a\x80z") << QByteArray("a\\x80z");
        QTest::newRow("invalid lead byte") << QByteArray("\xff\xfe") << QByteArray("\\xff\\xfe");
        QTest::newRow("overlong slash") << QByteArray("\xC0\xAF") << QByteArray("\\xc0\\xaf");
        QTest::newRow("overlong three bytes") << QByteArray("\xE0\x80\xAF") << QByteArray("\\xe0\\x80\\xaf");
        QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << QByteArray("\\xed\\xa0\\x80");
        QTest::newRow("above U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << QByteArray("\\xf4\\x90\\x80\\x80");
        QTest::newRow("cut short at the end") << QByteArray("ok\xE2\x86") << QByteArray("ok\\xe2\\x86");
        QTest::newRow("right-to-left override")
            << QByteArray("evil\xE2\x80\xAEtxt.exe") << QByteArray("evil\\xe2\\x80\\xaetxt.exe");
        QTest::newRow("bidi embeddings, marks and isolates")
            << QByteArray("\xE2\x80\xAA\xE2\x80\x8E\xE2\x80\x8F\xE2\x81\xA6\xE2\x81\xA9\xD8\x9C")
            << QByteArray("\\xe2\\x80\\xaa\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xe2\\x81\\xa6\\xe2\\x81\\xa9\\xd8\\x9c");
        QTest::newRow("line and paragraph separators") << QByteArray("a\xE2\x80\xA8"
                                                                     "b\xE2\x80\xA9")
                                                       << QByteArray("a\\xe2\\x80\\xa8"
                                                                     "b\\xe2\\x80\\xa9");
        QTest::newRow("neighbours kept (U+2027, U+202F, U+2065, U+206A)")
            << QByteArray("\xE2\x80\xA7\xE2\x80\xAF\xE2\x81\xA5\xE2\x81\xAA")
            << QByteArray("\xE2\x80\xA7\xE2\x80\xAF\xE2\x81\xA5\xE2\x81\xAA");
        QTest::newRow("cut short by ASCII") << QByteArray("\xE2"
                                                          "a")
                                            << QByteArray("\\xe2a");
    }

    void escapes()
    {
        QFETCH(QByteArray, in);
        QFETCH(QByteArray, out);
        const std::string got = printable(std::string_view(in.constData(), size_t(in.size())));
        QCOMPARE(QByteArray::fromStdString(got), out);
    }

    void nothingATerminalActsOnIsLeft()
    {
        // Every byte value, alone and after a UTF-8 lead byte: no control byte survives.
        for (int a = 0; a < 256; ++a) {
            for (int b = 0; b < 256; b += (a >= 0xc0 ? 1 : 255)) {
                const char raw[2] = {char(a), char(b)};
                const std::string s = printable(std::string_view(raw, 2));
                for (size_t i = 0; i < s.size(); ++i) {
                    const auto c = uint8_t(s[i]);
                    QVERIFY2(c >= 0x20 && c != 0x7f, qPrintable(QString("%1 %2").arg(a).arg(b)));
                    if (c == 0xc2 && i + 1 < s.size())
                        QVERIFY(uint8_t(s[i + 1]) >= 0xa0);
                }
            }
        }
    }
};

RTSCOPE_TEST_APPLESS_MAIN(TestPrintable)
#include "tst_printable.moc"
