#pragma once
// A separate top-level window that compares several latency results (File › Compare results…, `rtscope --compare
// a.json b.json c.hist`): one histogram curve per file in the same axes, and a table row per file sorted by the
// worst maximum, to find the noisy board among many. Files are read off the GUI thread with a progress dialog (the
// pattern of FileMenu::openRecordingInBackground); a file that cannot be read gets a sentence in the window while
// the others are shown.
#include "ui/compare/compare_data.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace rtscope {

class CompareTableModel;
class HistogramChart;

class CompareWindow : public QWidget {
    Q_OBJECT
public:
    explicit CompareWindow(QWidget* parent = nullptr);
    ~CompareWindow() override;

    /// Reads @p paths off the GUI thread and then shows them, replacing what the window showed; returns at once.
    /// A progress dialog ("comparingFiles") with Cancel shows while a reading lasts more than a moment. False when
    /// a reading is going on already or @p paths is empty.
    bool load(const QStringList& paths);
    bool isLoading() const { return m_loading != nullptr; }

    const std::vector<ComparedResult>& results() const; ///< in the order the files were given
    QStringList problems() const { return m_problems; } ///< one sentence per file that could not be read
    HistogramChart* chart() const { return m_chart; }
    QTableView* table() const { return m_table; } ///< its model is the sorting proxy

signals:
    /// load() ended: @p readable files shown, @p problems the sentences of the others (a cancel is one too).
    void loaded(int readable, const QStringList& problems);

private:
    struct Loading;
    void finishLoading();
    void showResults(std::vector<ComparedResult> results, QStringList problems);

    HistogramChart* m_chart;
    QLabel* m_problemsLabel;
    QTableView* m_table;
    CompareTableModel* m_model;
    QSortFilterProxyModel* m_sorted;
    QStringList m_problems;
    std::unique_ptr<Loading> m_loading;
};

} // namespace rtscope
