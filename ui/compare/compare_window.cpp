#include "ui/compare/compare_window.h"

#include "ui/common/background_progress.h"
#include "ui/common/colors.h"
#include "ui/compare/compare_table_model.h"
#include "ui/plot/histogram_chart.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QProgressDialog>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <atomic>

namespace rtscope {

namespace {

// Okabe–Ito first (told apart with every common colour-vision deficiency); past eight files, hues spread evenly.
QColor compareCurveColor(size_t i)
{
    static constexpr QRgb kFirst[] = {colors::kOkabeBlue,       colors::kOkabeVermillion, colors::kOkabeGreen,
                                      colors::kOkabeOrange,     colors::kOkabePurple,     colors::kOkabeSkyBlue,
                                      colors::kOkabeYellowDark, colors::kBlueGrey700};
    constexpr size_t n = sizeof kFirst / sizeof kFirst[0];
    if (i < n)
        return QColor(kFirst[i]);
    return QColor::fromHsv(int((i - n) * 360 * 7 / 19 % 360), 200, 190); // a step of 7/19 turn keeps neighbours apart
}

} // namespace

// The files read off the GUI thread: the thread writes results and problems, the GUI thread reads them once it has
// finished.
struct CompareWindow::Loading : BackgroundRead {
    QStringList paths;
    std::vector<ComparedResult> results;
    QStringList problems;
};

CompareWindow::CompareWindow(QWidget* parent)
    : QWidget(parent, Qt::Window)
    , m_chart(new HistogramChart(this))
    , m_problemsLabel(new QLabel(this))
    , m_table(new QTableView(this))
    , m_model(new CompareTableModel(this))
    , m_sorted(new QSortFilterProxyModel(this))
{
    setObjectName("compareWindow");
    setWindowTitle(tr("Compare results — rtscope"));
    setAttribute(Qt::WA_QuitOnClose, false); // the main window alone decides when the app ends
    resize(1440, 860);                       // room for every column of the table at the default font

    m_chart->setObjectName("compareChart");
    m_chart->setLiveVisible(false);
    m_chart->setTitle(tr("Latency histograms, one curve per file"));

    m_problemsLabel->setObjectName("compareProblems");
    m_problemsLabel->setWordWrap(true);
    m_problemsLabel->setTextFormat(Qt::PlainText);
    m_problemsLabel->setStyleSheet(QString("color: %1").arg(colors::css(colors::kAlarmRed)));
    m_problemsLabel->hide();

    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(CompareTableModel::SortRole);
    m_table->setObjectName("compareTable");
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(CompareTableModel::Max, Qt::DescendingOrder); // "which board is the noisy one"
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_problemsLabel);
    layout->addWidget(split, 1);
}

CompareWindow::~CompareWindow()
{
    // The window is going (closed with the main window, a SIGTERM): stop the reading at its next block and wait.
    if (m_loading)
        m_loading->abandon();
}

const std::vector<ComparedResult>& CompareWindow::results() const
{
    return m_model->results();
}

bool CompareWindow::load(const QStringList& paths)
{
    if (m_loading || paths.isEmpty())
        return false;
    m_loading = std::make_unique<Loading>();
    Loading* l = m_loading.get();
    l->paths = paths;
    const auto read = [l] {
        const int n = int(l->paths.size());
        for (int i = 0; i < n && !l->cancel; ++i) {
            const auto progress = [l, i, n](uint64_t done, uint64_t total) {
                l->permille = int((int64_t(i) * 1000 + (total ? int64_t(done * 1000 / total) : 0)) / n);
                return !l->cancel.load();
            };
            ComparedResult r;
            QString error;
            if (readComparedResult(l->paths[i], r, error, progress))
                l->results.push_back(std::move(r));
            else if (!l->cancel)
                l->problems << error;
            l->permille = (i + 1) * 1000 / n;
        }
    };
    // As File › Open recording (ui/common/background_progress.h).
    l->start(read, "rtscope-compare", this, "comparingFiles", tr("Compare results"),
             tr("Reading %n file(s)…", "", int(paths.size())), this, &CompareWindow::finishLoading);
    return true;
}

void CompareWindow::finishLoading()
{
    const std::unique_ptr<Loading> l = takeEndedRead(m_loading);
    if (!l)
        return;
    QStringList problems = l->problems;
    if (l->cancel) {
        const qsizetype unread = l->paths.size() - qsizetype(l->results.size()) - l->problems.size();
        problems << tr("Cancelled: %n file(s) not read", "", int(unread));
    }
    const int readable = int(l->results.size());
    showResults(std::move(l->results), problems);
    emit loaded(readable, problems);
}

void CompareWindow::showResults(std::vector<ComparedResult> results, QStringList problems)
{
    std::vector<QColor> colors;
    std::vector<HistogramOverlay> overlays;
    for (size_t i = 0; i < results.size(); ++i) {
        colors.push_back(compareCurveColor(i));
        overlays.push_back({results[i].curve, colors.back()});
    }
    m_chart->setOverlays(overlays);
    m_model->setResults(std::move(results), std::move(colors));
    m_table->resizeColumnsToContents();
    m_problems = std::move(problems);
    m_problemsLabel->setText(m_problems.join('\n'));
    m_problemsLabel->setVisible(!m_problems.isEmpty());
    setWindowTitle(tr("Compare results: %n file(s) — rtscope", "", m_model->rowCount()));
}

} // namespace rtscope

#include "moc_compare_window.cpp"
