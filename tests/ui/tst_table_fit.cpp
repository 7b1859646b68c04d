// ctest: parallel. Layout and tooltip checks; temp settings; no measurement.
// Tables and fact tiles on a small screen (issue #20, "every table column readable at 1366×768 or elided with a
// tooltip"): a table wider than its room loses no column behind a scroll bar, its headers give way before its
// figures, every elided header and cell shows its whole text as a tooltip, and the page's own column modes come
// back when the room does; on every page of the window at 1366×768 the same holds for each visible table, and no
// fact tile draws outside itself.
#include "engine/rt/rt_thread.h"
#include "engine/rt/system_probe.h"
#include "ui/common/fact_tile.h"
#include "ui/experiment_page.h"
#include "ui/experiment_pages.h"
#include "ui/main_window.h"
#include "ui/widgets/table_style.h"

#include "tests/common/exposed_widget.h"
#include "tests/common/test_main.h"
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolTip>

#include <QtTest>

using namespace rtscope;

namespace {

/// The tooltip the table shows when the pointer rests at @p pos of @p target (a viewport), or empty.
QString tableFitTipAt(QWidget* target, QPoint pos)
{
    QToolTip::hideText();
    QHelpEvent event(QEvent::ToolTip, pos, target->mapToGlobal(pos));
    QApplication::sendEvent(target, &event);
    return QToolTip::isVisible() ? QToolTip::text() : QString();
}

bool tableFitWider(const QFont& font, const QString& text, int room)
{
    int widest = 0;
    for (const QString& line : text.split('\n'))
        widest = std::max(widest, QFontMetrics(font).horizontalAdvance(line));
    return widest > room;
}

/// Checks every header section and visible cell of @p table: text wider than its room has a tooltip starting with
/// the whole text. Returns how many were elided.
int tableFitCheckTips(QTableView* table, const QString& where)
{
    int elided = 0;
    QHeaderView* header = table->horizontalHeader();
    const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    for (int s = 0; s < header->count(); ++s) {
        if (header->isSectionHidden(s) || header->sectionSize(s) == 0)
            continue;
        const QString text = table->model()->headerData(s, Qt::Horizontal).toString();
        if (!tableFitWider(header->font(), text, header->sectionSize(s) - 2 * margin))
            continue;
        ++elided;
        const QPoint at(header->sectionViewportPosition(s) + header->sectionSize(s) / 2, header->height() / 2);
        const QString tip = tableFitTipAt(header->viewport(), at);
        if (!tip.startsWith(text))
            qWarning("%s: header '%s' is elided and its tooltip reads '%s'", qPrintable(where), qPrintable(text),
                     qPrintable(tip));
        if (!tip.startsWith(text))
            return -1;
    }
    const int cellMargin = table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1;
    for (int r = 0; r < table->model()->rowCount(); ++r)
        for (int c = 0; c < table->model()->columnCount(); ++c) {
            const QModelIndex index = table->model()->index(r, c);
            const QRect rect = table->visualRect(index);
            if (rect.isEmpty() || !table->viewport()->rect().contains(rect.center()))
                continue;
            const QString text = index.data().toString();
            QFont font = table->font();
            if (index.data(Qt::FontRole).canConvert<QFont>())
                font = index.data(Qt::FontRole).value<QFont>().resolve(table->font());
            if (!tableFitWider(font, text, rect.width() - 2 * cellMargin))
                continue;
            ++elided;
            const QString tip = tableFitTipAt(table->viewport(), rect.center());
            if (!tip.startsWith(text)) {
                qWarning("%s: cell '%s' is elided and its tooltip reads '%s'", qPrintable(where), qPrintable(text),
                         qPrintable(tip));
                return -1;
            }
        }
    return elided;
}

} // namespace

class TestTableFit : public QObject {
    Q_OBJECT

private slots:
    void aNarrowTableElidesHeadersFirstAndTipsEveryElidedText()
    {
        QStandardItemModel model(3, 6);
        const QStringList headers{"Method", "Tick N", "Rate (nominal 1000 Hz)", "of nominal", "Latency p50", "Dropped"};
        model.setHorizontalHeaderLabels(headers);
        const QStringList names{"naive loop (work; sleep the period)", "absolute clock_nanosleep", "timerfd"};
        for (int r = 0; r < 3; ++r) {
            model.setItem(r, 0, new QStandardItem(names[r]));
            const QStringList figures{"500", "873.0 Hz", "87.3 %", "121.0 µs", "0"};
            for (int c = 1; c < 6; ++c)
                model.setItem(r, c, new QStandardItem(figures[c - 1]));
        }
        model.item(2, 0)->setToolTip("the model's own explanation");
        QTableView table;
        table.setModel(&model);
        setUpFiguresTable(&table);
        table.horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
        styleTableFont(&table, table.font(), 1.0, 6);
        // Wide: the page's modes, nothing elided.
        QVERIFY(test::showExposed(table, 1200, 200));
        QTRY_COMPARE(table.horizontalHeader()->sectionResizeMode(0), QHeaderView::Stretch);
        QCOMPARE(tableFitCheckTips(&table, "wide"), 0);

        // Narrower than the headers, wider than the figures: the headers (and the stretched name column, which gives
        // way first) elide, the figures stay whole.
        int contents = 0;
        for (int c = 0; c < 6; ++c)
            contents += static_cast<QAbstractItemView&>(table).sizeHintForColumn(c);
        table.resize(contents + 2 * table.frameWidth() + 40, 200);
        QTRY_COMPARE(table.horizontalHeader()->sectionResizeMode(0), QHeaderView::Interactive);
        QTRY_COMPARE(table.horizontalScrollBar()->maximum(), 0);
        for (int r = 0; r < 3; ++r)
            for (int c = 1; c < 6; ++c)
                QVERIFY2(elidedCellText(&table, model.index(r, c)).isEmpty(),
                         qPrintable(model.index(r, c).data().toString()));
        QVERIFY(!elidedHeaderText(&table, 2).isEmpty()); // "Rate (nominal 1000 Hz)" is the widest
        QVERIFY(tableFitCheckTips(&table, "headers") > 0);

        // Narrower than the figures: the widest cells elide too, each with its whole text (and the model's tip).
        table.resize(contents / 2, 200);
        QTRY_VERIFY(!elidedCellText(&table, model.index(0, 0)).isEmpty());
        QTRY_COMPARE(table.horizontalScrollBar()->maximum(), 0);
        QVERIFY(tableFitCheckTips(&table, "cells") > 2);
        QVERIFY(elidedCellText(&table, model.index(0, 5)).isEmpty()); // "0" stays whole
        if (!elidedCellText(&table, model.index(2, 0)).isEmpty()) {
            const QRect rect = table.visualRect(model.index(2, 0));
            QCOMPARE(tableFitTipAt(table.viewport(), rect.center()), QString("timerfd\n\nthe model's own explanation"));
        }

        // Wide again: the page's own modes come back.
        table.resize(1200, 200);
        QTRY_COMPARE(table.horizontalHeader()->sectionResizeMode(0), QHeaderView::Stretch);
        QCOMPARE(table.horizontalHeader()->sectionResizeMode(1), QHeaderView::ResizeToContents);
        QCOMPARE(tableFitCheckTips(&table, "wide again"), 0);
    }

    // A live table's model reports new figures 40-60 times a second; when they fit as before, the refit must leave the
    // header alone: each of its setters repaints the header even when it changes nothing, which cost a second window
    // repaint a frame (bench_ui_feed, docs/BENCHMARKS.md).
    void aRefitThatChangesNothingDoesNotRepaintTheHeader()
    {
        QStandardItemModel model(2, 4);
        model.setHorizontalHeaderLabels({"Thread and its configuration", "Latency p50", "Latency p99", "Dropped"});
        for (int r = 0; r < 2; ++r) {
            model.setItem(r, 0, new QStandardItem("FIFO 80 · 50.0 us · 4 hogs"));
            model.setItem(r, 1, new QStandardItem("12.0 µs"));
            model.setItem(r, 2, new QStandardItem("40.0 µs"));
            model.setItem(r, 3, new QStandardItem("0"));
        }
        QTableView table;
        table.setModel(&model);
        setUpFiguresTable(&table);
        table.horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
        styleTableFont(&table, table.font(), 1.0, 6);
        int contents = 0;
        for (int c = 0; c < 4; ++c)
            contents += static_cast<QAbstractItemView&>(table).sizeHintForColumn(c);
        table.resize(contents + 2 * table.frameWidth() + 20, 150); // narrower than the headers: the fitting mode
        table.show();
        QVERIFY(QTest::qWaitForWindowExposed(&table));
        QTRY_COMPARE(table.horizontalHeader()->sectionResizeMode(0), QHeaderView::Interactive);
        QTest::qWait(50);

        struct PaintCounter : QObject {
            int paints = 0;
            bool eventFilter(QObject*, QEvent* e) override
            {
                paints += e->type() == QEvent::Paint;
                return false;
            }
        } header, cells;
        table.horizontalHeader()->viewport()->installEventFilter(&header);
        table.viewport()->installEventFilter(&cells);
        int change = 0;
        const auto newFigures = [&](int times) {
            for (int i = 0; i < times; ++i, ++change) {
                // New figures in one row or the other, each of the same width.
                model.item(change % 2, 1)->setText((change / 2) % 2 ? "12.1 µs" : "12.3 µs");
                QTest::qWait(20);
            }
        };
        newFigures(2); // what the first show left pending (a paint or two of the header) is done
        header.paints = cells.paints = 0;
        newFigures(8);
        QVERIFY2(cells.paints > 0, "the cells were repainted with their new figures");
        // Qt repaints the header once with each change of the model's data; the refit that follows adds no second paint
        // (before: two a change, 16 here).
        QVERIFY2(header.paints <= 8, qPrintable(QString("%1 paints of the header for 8 changes").arg(header.paints)));
    }

    void aFactTileNeverDrawsOutsideItself()
    {
        QWidget row;
        auto* layout = new QHBoxLayout(&row);
        auto* tile = new FactTile("clock_getres(CLOCK_MONOTONIC)");
        auto* other = new FactTile("Timer slack in force");
        layout->addWidget(tile);
        layout->addWidget(other);
        tile->setValue("1 ns", "how finely the clock can be <i>read</i>");
        other->setValue(QString::fromUtf8("50.0 µs"),
                        "median of a 0 ns sleep: nanosleep 104.9 µs · rel 104.2 µs · abs 104.3 µs · busy-wait: 140 ns");
        QVERIFY(test::showExposed(row, 360, 60));
        QTest::qWait(50);
        for (FactTile* t : {tile, other}) {
            QCOMPARE(t->value(), t == tile ? QString("1 ns") : QString::fromUtf8("50.0 µs"));
            QCOMPARE(t->shownValue(), t->value()); // the figure is never cut at this width
            for (QLabel* label : t->findChildren<QLabel*>()) {
                if (!label->isVisible())
                    continue;
                QVERIFY2(t->rect().contains(label->geometry()), qPrintable(label->text()));
                if (label->wordWrap())
                    QVERIFY2(label->height() >= label->heightForWidth(label->width()), qPrintable(label->text()));
                else
                    QVERIFY2(QFontMetrics(label->font()).horizontalAdvance(label->text()) <= label->width(),
                             qPrintable(label->text()));
            }
        }
        // A figure wider than its tile shrinks instead of losing its end.
        other->setValue("5000 / 5000", "ticks");
        QTest::qWait(50);
        QCOMPARE(other->shownValue(), other->value());
        // The long one-word title elides and keeps its whole text as the tooltip; the other wraps.
        QVERIFY(tile->shownTitle() != tile->title());
        QVERIFY(tile->shownTitle().endsWith(QChar(0x2026)));
        auto titleLabel = [](FactTile* t) {
            for (QLabel* l : t->findChildren<QLabel*>())
                if (l->text() == t->shownTitle())
                    return l;
            return static_cast<QLabel*>(nullptr);
        };
        QVERIFY(titleLabel(tile));
        QCOMPARE(titleLabel(tile)->toolTip(), tile->title());
        QCOMPARE(other->shownTitle(), other->title());
    }

    void everyPageFitsA1366Window()
    {
        installWakeSignalHandler();
        const SystemProbe probe = probeSystem();
        QTemporaryDir dir;
        QSettings settings(dir.filePath("fit.ini"), QSettings::IniFormat);
        MainWindow window(createExperimentPages(probe), probe, &settings);
        QVERIFY(test::showExposed(window, 1366, 768));
        int tables = 0, tiles = 0;
        for (int i = 0; i < window.pageCount(); ++i) {
            window.setCurrentPage(i);
            QWidget* page = window.page(i);
            QTest::qWait(30);
            const QString name = window.page(i)->name();
            for (QTableView* table : page->findChildren<QTableView*>()) {
                if (!table->isVisible() || !table->model())
                    continue;
                ++tables;
                QTRY_VERIFY2(table->horizontalScrollBar()->maximum() == 0 || !table->horizontalScrollBar()->isVisible(),
                             qPrintable(name + ": " + table->objectName()));
                QVERIFY2(tableFitCheckTips(table, name) >= 0, qPrintable(name));
            }
            for (FactTile* tile : page->findChildren<FactTile*>()) {
                if (!tile->isVisible())
                    continue;
                ++tiles;
                const QRect inPage(tile->mapTo(page, QPoint()), tile->size());
                QVERIFY2(page->rect().contains(inPage), qPrintable(name + ": " + tile->title()));
                for (QLabel* label : tile->findChildren<QLabel*>())
                    if (label->isVisible())
                        QVERIFY2(tile->rect().contains(label->geometry()),
                                 qPrintable(name + ": " + tile->title() + " / " + label->text()));
                QVERIFY2(tile->shownTitle() == tile->title() ||
                             tile->findChildren<QLabel*>().constFirst()->toolTip() == tile->title(),
                         qPrintable(name + ": " + tile->title()));
            }
        }
        QVERIFY(tables >= 5);
        QVERIFY(tiles >= 10);
    }
};

RTSCOPE_TEST_MAIN(TestTableFit)
#include "tst_table_fit.moc"
