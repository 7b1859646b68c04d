// ctest: parallel. Result comparison; memory ratio measured in a forked child.
// The compare window (File › Compare results…, `rtscope --compare`): three results made here — two histfiles with
// different maxima written with the engine's own writer, one JSON — give three rows sorted by the worst maximum, with
// the figures worked out by hand from the bins below, one curve each; a file that is no result gets its sentence and
// the others still show. And the --compare option's parsing.
#include "engine/formats/cyclictest_format.h"
#include "engine/util/clock.h"
#include "tests/common/fifo_guard.h"
#include "tests/common/forked_child.h"
#include "tests/common/recording_bytes.h"
#include "tests/common/test_main.h"
#include "ui/app/gui_options.h"
#include "ui/compare/compare_data.h"
#include "ui/compare/compare_table_model.h"
#include "ui/compare/compare_window.h"
#include "ui/plot/histogram_chart.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace rtscope;

namespace {

// A thread with @p bins (whole µs) and @p overflows samples at or past the last bin, the largest @p maxUs.
CyclictestThread compareTestThread(std::vector<uint64_t> bins, uint64_t overflows, int64_t minUs, int64_t maxUs)
{
    CyclictestThread t;
    t.bins = std::move(bins);
    t.overflows = overflows;
    t.cycles = overflows;
    for (uint64_t n : t.bins)
        t.cycles += n;
    t.minUs = minUs;
    t.maxUs = maxUs;
    t.avgUs = double(minUs);
    return t;
}

std::vector<uint64_t> compareTestBins(size_t size, std::initializer_list<std::pair<size_t, uint64_t>> filled)
{
    std::vector<uint64_t> bins(size, 0);
    for (const auto& [bin, n] : filled)
        bins[bin] = n;
    return bins;
}

// VmHWM of /proc/self/status in KiB, -1 when unreadable.
long long peakResidentKib()
{
    QFile status("/proc/self/status");
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

QString cell(const QTableView* table, int row, int column)
{
    return table->model()->index(row, column).data().toString();
}

// Row @p row of @p table shows each (column, text) of @p cells.
void checkCells(const QTableView* table, int row, std::initializer_list<std::pair<int, QString>> cells)
{
    for (const auto& [column, text] : cells) {
        const QString shown = cell(table, row, column);
        QVERIFY2(shown == text,
                 qPrintable(QString("row %1, column %2: '%3', not '%4'").arg(row).arg(column).arg(shown, text)));
    }
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_quiet, m_noisy, m_json, m_garbage;

    QString write(const QString& name, const std::string& bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()))
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // quiet.hist, 1000 samples: 900 at 10 µs, 90 at 20, 9 at 50, 1 at 80 (max 80, no overflow).
        // p50 = 10 (rank 500), p99 = 20 (rank 990), p99.9 = 50 (rank 999), p99.99 = 80 (rank 1000).
        CyclictestData quiet;
        quiet.threads.push_back(
            compareTestThread(compareTestBins(100, {{10, 900}, {20, 90}, {50, 9}, {80, 1}}), 0, 10, 80));
        m_quiet = write("quiet.hist", writeCyclictestHistogram(quiet));
        // noisy.hist, two threads of 100 bins summed to 1000 samples: 990 at 5 µs, 5 at 30, 5 past the last bin with
        // the maximum 250. p50 = p99 = 5 (ranks 500, 990), p99.9 and p99.99 (ranks 999, 1000) lie among the
        // overflows: "> last bin".
        CyclictestData noisy;
        noisy.threads.push_back(compareTestThread(compareTestBins(100, {{5, 500}, {30, 5}}), 5, 5, 250));
        noisy.threads.push_back(compareTestThread(compareTestBins(100, {{5, 490}}), 0, 5, 5));
        m_noisy = write("noisy.hist", writeCyclictestHistogram(noisy));
        // board.json, 100 samples on CPU 1: 99 at 3 µs, 1 at 7. p50 = p99 = 3 (ranks 50, 99), p99.9 = p99.99 = 7.
        CyclictestData board;
        board.threads.push_back(compareTestThread(compareTestBins(8, {{3, 99}, {7, 1}}), 0, 3, 7));
        board.threads.back().cpu = 1;
        m_json = write("board.json", cyclictestJson(board, "cyclictest -h 8", 0, 0).dump(2));
        m_garbage = write("notes.txt", "these are my notes, not a latency result\n");
    }

    void threeFilesSortedByWorstMax()
    {
        CompareWindow w;
        QSignalSpy loaded(&w, &CompareWindow::loaded);
        QVERIFY(w.load({m_json, m_quiet, m_noisy}));
        QVERIFY(w.isLoading() || loaded.count() == 1);
        QVERIFY(loaded.count() == 1 || loaded.wait(10000));
        QCOMPARE(loaded.first().at(0).toInt(), 3);
        QVERIFY(w.problems().isEmpty());

        const QTableView* t = w.table();
        QCOMPARE(t->model()->rowCount(), 3);
        using C = CompareTableModel;
        const QStringList order{cell(t, 0, C::File), cell(t, 1, C::File), cell(t, 2, C::File)};
        QCOMPARE(order, (QStringList{"noisy.hist", "quiet.hist", "board.json"}));

        // noisy.hist: cyclictest's text names no machine.
        checkCells(t, 0,
                   {{C::Samples, "1 000"},
                    {C::P50, "5"},
                    {C::P99, "5"},
                    {C::Max, "250"},
                    {C::Overflows, "5"},
                    {C::Host, "unknown"},
                    {C::Kernel, "unknown"}});
        QVERIFY2(cell(t, 0, C::P999).startsWith("> last bin"), qPrintable(cell(t, 0, C::P999)));
        QVERIFY2(cell(t, 0, C::P9999).startsWith("> last bin"), qPrintable(cell(t, 0, C::P9999)));
        QVERIFY(cell(t, 0, C::P999).contains("100"));
        QVERIFY2(cell(t, 0, C::Cpus).contains("unknown"), qPrintable(cell(t, 0, C::Cpus)));
        // quiet.hist
        checkCells(t, 1,
                   {{C::Samples, "1 000"},
                    {C::P50, "10"},
                    {C::P99, "20"},
                    {C::P999, "50"},
                    {C::P9999, "80"},
                    {C::Max, "80"},
                    {C::Overflows, "0"}});
        // board.json: its sysinfo names this machine (cyclictestJson describes the machine that writes it).
        utsname uts{};
        QCOMPARE(uname(&uts), 0);
        checkCells(t, 2,
                   {{C::Host, uts.nodename},
                    {C::Kernel, uts.release},
                    {C::Cpus, "1"},
                    {C::Samples, "100"},
                    {C::P50, "3"},
                    {C::P99, "3"},
                    {C::P999, "7"},
                    {C::P9999, "7"},
                    {C::Max, "7"}});

        // One curve per file, in the order given; the noisy one draws its bins and its maximum, and says how many
        // overflows it could not draw.
        HistogramChart* chart = w.chart();
        QCOMPARE(chart->overlayCount(), 3);
        QVERIFY2(chart->overlayName(0).startsWith("board.json"), qPrintable(chart->overlayName(0)));
        QVERIFY2(chart->overlayName(1).startsWith("quiet.hist"), qPrintable(chart->overlayName(1)));
        QVERIFY2(chart->overlayName(2).contains("noisy.hist") && chart->overlayName(2).contains("4 > 100 µs not drawn"),
                 qPrintable(chart->overlayName(2)));
        for (int i = 0; i < 3; ++i)
            QVERIFY(!chart->overlayPoints(i).isEmpty());

        // Sortable: by p50, lowest first.
        w.table()->sortByColumn(C::P50, Qt::AscendingOrder);
        QCOMPARE(cell(t, 0, C::File), QString("board.json"));
        QCOMPARE(cell(t, 1, C::File), QString("noisy.hist"));
        QCOMPARE(cell(t, 2, C::File), QString("quiet.hist"));
        // By p99.9, highest first: the one beyond its last bin (≥ 100 µs) above 50 µs.
        w.table()->sortByColumn(C::P999, Qt::DescendingOrder);
        QCOMPARE(cell(t, 0, C::File), QString("noisy.hist"));
    }

    void aFileThatIsNoResultIsNamedAndTheOthersShow()
    {
        CompareWindow w;
        QSignalSpy loaded(&w, &CompareWindow::loaded);
        QVERIFY(w.load({m_quiet, m_garbage, m_json}));
        QVERIFY(loaded.count() == 1 || loaded.wait(10000));
        QCOMPARE(loaded.first().at(0).toInt(), 2);
        QCOMPARE(w.problems().size(), 1);
        const QString why = w.problems().first();
        QVERIFY2(why.startsWith("notes.txt: ") && why.contains("not a cyclictest histogram"), qPrintable(why));
        QCOMPARE(w.table()->model()->rowCount(), 2);
        QCOMPARE(w.chart()->overlayCount(), 2);
        const auto* label = w.findChild<QLabel*>("compareProblems");
        QVERIFY(label);
        QVERIFY(label->text().contains(why));

        // A missing file is named too.
        const QString gone = m_dir.filePath("gone.json");
        QVERIFY(w.load({gone}));
        QVERIFY(loaded.wait(10000));
        QCOMPARE(loaded.last().at(0).toInt(), 0);
        QVERIFY2(w.problems().first().startsWith("gone.json: cannot open"), qPrintable(w.problems().first()));
        QCOMPARE(w.table()->model()->rowCount(), 0);
    }

    // A recording is one more row: read by replaying it, turned into the whole-µs figures its cyclictest export
    // would have. 700 samples at 5, 6, … 11 µs (100 of each, RecordingBytes' pattern), on host "board".
    void aRecordingIsARow()
    {
        test::RecordingBytes b({1});
        b.samples(0, 0, test::RecordingBytes::kStartNs, 700);
        const QString path = write("board.rtrec", b.end(test::RecordingBytes::kStartNs + 701 * kNsPerMs));
        ComparedResult r;
        QString error;
        QVERIFY2(readComparedResult(path, r, error), qPrintable(error));
        QCOMPARE(r.format, QString("recording"));
        QCOMPARE(r.host, QString("board"));
        QCOMPARE(r.samples, uint64_t(700));
        QCOMPARE(r.maxUs, int64_t(11));
        QCOMPARE(r.overflows, uint64_t(0));
        QCOMPARE(r.p50.us, int64_t(8));  // rank 350 of 700: the fourth hundred, 8 µs
        QCOMPARE(r.p99.us, int64_t(11)); // rank 693: the last hundred
        QVERIFY(!r.p9999.lowerBound);
        QVERIFY2(r.note.isEmpty(), qPrintable(r.note));
    }

    // --compare FIFO: a sentence, never a wait in open().
    void aFifoIsRefusedNotWaitedFor()
    {
        QTemporaryDir dir;
        test::FifoGuard guard(dir.filePath("fifo.hist"));
        QVERIFY(guard.made());
        ComparedResult r;
        QString error;
        QVERIFY(!readComparedResult(dir.filePath("fifo.hist"), r, error));
        QVERIFY2(!guard.finish(), "readComparedResult blocked in open() until a writer came");
        QVERIFY2(error.contains("is a FIFO (named pipe), not a regular file"), qPrintable(error));
    }

    // File › Compare reads a histfile whole and parses it: the cost must follow the file, not the number of counts
    // on one line. A 32 MB file of one row with 16 million counts ("\t0") made the parser keep a token list and a
    // vector per count: about 37 times the file (a 62 MB one peaked at 2.31 GB). The import runs in a child (fork),
    // its peak resident size reset before (proc(5), clear_refs 5) and read after (VmHWM): the growth is what the
    // import cost, whatever this test process holds.
    void aOneRowHistfileCostsMemoryInProportionToTheFile()
    {
        const QString path = m_dir.filePath("one-row.hist");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("# Histogram\n000000");
            const QByteArray chunk = QByteArray("\t0").repeated(1 << 20);
            for (int i = 0; i < 16; ++i)
                QCOMPARE(f.write(chunk), qint64(chunk.size()));
            f.write("\n");
        }
        const qint64 fileBytes = QFileInfo(path).size();
        QByteArray answer;
        rtscope::test::answerOfForkedChild(
            [&path] {
                QFile clear("/proc/self/clear_refs");
                const bool reset = clear.open(QIODevice::WriteOnly) && clear.write("5") == 1;
                clear.close();
                const long long before = peakResidentKib();
                ComparedResult r;
                QString error;
                const bool read = readComparedResult(path, r, error);
                const long long grown = reset && before >= 0 ? peakResidentKib() - before : -1;
                return QByteArray::fromStdString(std::to_string(grown) + " " + (read ? "read" : error.toStdString()) +
                                                 "\n");
            },
            answer);
        if (QTest::currentTestFailed())
            return;
        const qsizetype space = answer.indexOf(' ');
        QVERIFY2(space > 0, answer.constData());
        const long long grownKib = answer.left(space).toLongLong();
        QVERIFY2(grownKib >= 0, "the peak resident size could not be reset or read");
        // The whole file is read into memory once (1×); the parse must not add more than that again.
        const double ratio = double(grownKib) * 1024.0 / double(fileBytes);
        qInfo("a %lld MB one-row histfile: the import grew the peak resident size by %lld MB (%.1f times the file)",
              fileBytes >> 20, grownKib >> 10, ratio);
        QVERIFY2(ratio < 3.0, qPrintable(QString("importing a %1 MB one-row histfile grew the peak resident size by "
                                                 "%2 MB, %3 times the file")
                                             .arg(fileBytes >> 20)
                                             .arg(grownKib >> 10)
                                             .arg(ratio, 0, 'f', 1)));
        // Not a cyclictest file: refused with the sentence naming the line and the limit.
        QVERIFY2(answer.contains("columns; cyclictest writes one per measuring thread"), answer.constData());
    }

    void compareOption()
    {
        QStringList problems;
        GuiOptions o;
        problems = parseGuiOptions({"rtscope", "--compare", m_json, m_quiet, m_noisy}, o);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QCOMPARE(o.compare, (QStringList{m_json, m_quiet, m_noisy}));
        QVERIFY(o.open.isEmpty()); // the files are compared, not opened

        // Options may come first; a file that cannot be read is the window's to say, so it passes here.
        GuiOptions withTheme;
        const QString gone = m_dir.filePath("gone.hist");
        problems = parseGuiOptions({"rtscope", "--theme", "dark", "--compare", m_quiet, gone}, withTheme);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
        QCOMPARE(withTheme.compare, (QStringList{m_quiet, gone}));
        QCOMPARE(withTheme.theme, QString("dark"));

        GuiOptions none;
        problems = parseGuiOptions({"rtscope", "--compare"}, none);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().startsWith("compare needs the files"), qPrintable(problems.first()));

        // The screenshot may not be written over a compared file.
        GuiOptions overwrite;
        problems = parseGuiOptions({"rtscope", "--screenshot", m_quiet, "--compare", m_quiet}, overwrite);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains("--compare"), qPrintable(problems.first()));
    }
};

RTSCOPE_TEST_MAIN(TestCompare)
#include "tst_compare.moc"
