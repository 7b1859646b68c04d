#pragma once
// "What am I seeing?": a collapsible pane with the current page's explanation(), a tab beside the System panel
// (F1 toggles it, the window's saved state remembers it), and the one layout every page's explanation follows.
#include <QDockWidget>
#include <QString>
#include <QStringList>

class QTextBrowser;

namespace rtscope {

class ExperimentPage;
struct SystemProbe;

/// The four parts of an explanation, in plain language; @p thisMachine are short sentences built from the
/// SystemProbe (what this kernel, scheduler, slack or VM does differently), never figures measured elsewhere.
struct Explanation {
    QString title;
    QString looking; ///< what you are looking at
    QString expect;  ///< what to expect, and how to make it happen
    QString why;
    QStringList thisMachine;
};

/// The HTML every page's explanation() returns: the title, then the four parts under the same headings.
QString explanationHtml(const Explanation& e);

/// Sentences about this machine that several lessons share, all read from the probe.
/// "Linux 6.18 with the EEVDF scheduler; preemption model PREEMPT_DYNAMIC (full)."
QString kernelSentence(const SystemProbe& probe);
/// What the lesson looks like under this kernel's scheduler: @p eevdf with EEVDF, @p cfs with CFS (older kernels).
QString schedulerSentence(const SystemProbe& probe, const QString& eevdf, const QString& cfs);
/// Whether this is a virtual machine, and what that does to every measurement.
QString vmSentence(const SystemProbe& probe);
/// Whether this process may use SCHED_FIFO, and why not.
QString rtSentence(const SystemProbe& probe);
/// This process's timer slack and who escapes it.
QString slackSentence(const SystemProbe& probe);

class ExplanationPane : public QDockWidget {
    Q_OBJECT
public:
    explicit ExplanationPane(QWidget* parent = nullptr);

    /// Shows @p page's explanation (none when null); the main window calls it on every page switch.
    void showPage(const ExperimentPage* page);
    QString text() const; ///< the explanation as plain text
    QString pageTitle() const { return m_pageTitle; }

private:
    QTextBrowser* m_text;
    QString m_pageTitle;
};

} // namespace rtscope
