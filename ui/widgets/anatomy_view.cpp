#include "ui/widgets/anatomy_view.h"

#include "ui/common/colors.h"
#include "ui/common/text_format.h"
#include "ui/common/text_label.h"
#include "ui/widgets/anatomy_view_data.h"
#include "ui/widgets/culprits_model.h"
#include "ui/widgets/table_style.h"
#include "ui/widgets/worst_wakeups_model.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace rtscope {

AnatomyView::AnatomyView(QWidget* parent)
    : QWidget(parent)
    , m_swimlane(new AnatomySwimlane(this))
    , m_breakdown(new AnatomyBreakdownBar(this))
    , m_title(new QLabel(this))
    , m_verdict(new QLabel(this))
{
    setObjectName("anatomyView");
    m_swimlane->setObjectName("anatomySwimlane");
    m_breakdown->setObjectName("anatomyBreakdown");
    m_title->setObjectName("anatomyTitle");
    initTextLabel(m_verdict, "anatomyVerdict", Qt::RichText);
    m_title->setTextFormat(Qt::RichText);

    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_swimlane, 1);
    row->addWidget(m_breakdown, 0);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_title);
    layout->addLayout(row, 1);
    layout->addWidget(m_verdict);
    clearWakeup(tr("No wake-up selected."));
}

AnatomyView::~AnatomyView() = default;

void AnatomyView::setWakeup(const TracedWakeup& w, int64_t startNs)
{
    m_wakeup = w;
    const WakeupAnatomy& a = w.anatomy;
    const int cpu = a.runCpu >= 0 ? a.runCpu : a.query.cpu;
    // Not "… s ago": that would go stale while the view stays (the list says it).
    m_title->setText(tr("<b>Why late?</b> The wake-up on CPU %1 at %2 s into the run: <b>%3 late</b>")
                         .arg(cpu)
                         .arg(double(a.query.wakeNs - startNs) / 1e9, 0, 'f', 2)
                         .arg(formatLatency(double(a.latencyNs))));
    m_swimlane->setData(anatomySwimlaneData(w));
    m_breakdown->setData(anatomyBreakdownData(a));
    QString text =
        tr("<b>Verdict:</b> %1").arg(QString::fromStdString(anatomyVerdict(a, MicroUnit::Sign)).toHtmlEscaped());
    if (a.eventsLost)
        text += tr("<br><span style='color:%1'>⚠ The kernel lost events around this wake-up: the parts they would "
                   "tell are unknown.</span>")
                    .arg(colors::css(colors::kWarningRed));
    m_verdict->setText(text);
}

void AnatomyView::clearWakeup(const QString& text)
{
    m_wakeup.reset();
    m_title->setText(tr("<b>Why late?</b>"));
    AnatomySwimlaneData empty;
    empty.emptyText = text;
    m_swimlane->setData(empty);
    m_breakdown->setData({});
    m_verdict->setText(QString());
}

QString AnatomyView::title() const
{
    return m_title->text();
}

QString AnatomyView::verdict() const
{
    return m_verdict->text();
}

// ------------------------------------------------------------------------------------------------------------------

AnatomyPanel::AnatomyPanel(QWidget* parent)
    : QWidget(parent)
    , m_status(new QLabel(this))
    , m_worst(new WorstWakeupsModel(this))
    , m_culprits(new CulpritsModel(this))
    , m_worstTable(new QTableView(this))
    , m_culpritsTable(new QTableView(this))
    , m_culpritsTitle(new QLabel(this))
    , m_view(new AnatomyView(this))
{
    setObjectName("anatomyPanel");
    m_status->setObjectName("tracingStatus");
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setToolTip(tr("Events/s: the kernel events the trace reader handed on, per second of the run. Lost: "
                            "dropped by the kernel's buffer or the queue to the analysis; the wake-ups around them "
                            "are partly unknown. Analysed: wake-ups whose events had arrived; fully: with every part "
                            "known; not analysed: their events were not all held."));
    m_worstTable->setObjectName("worstWakeups");
    m_culpritsTable->setObjectName("culprits");

    m_worstTable->setModel(m_worst);
    m_worstTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_worstTable->setSelectionMode(QAbstractItemView::SingleSelection);
    styleTableRows(m_worstTable);
    m_worstTable->horizontalHeader()->setSectionResizeMode(WorstWakeupsModel::Verdict, QHeaderView::Stretch);
    m_worstTable->horizontalHeader()->setStretchLastSection(true);
    m_worstTable->horizontalHeader()->setMinimumSectionSize(40);
    m_worstTable->setTextElideMode(Qt::ElideRight);
    m_worstTable->setToolTip(tr("Pick a wake-up to see its anatomy; a click on the timeline or the histogram picks "
                                "the traced one nearest to it"));

    m_culpritsTable->setModel(m_culprits);
    setUpFiguresTable(m_culpritsTable);
    m_culpritsTable->horizontalHeader()->setStretchLastSection(false);
    m_culpritsTable->horizontalHeader()->setSectionResizeMode(CulpritsModel::Name, QHeaderView::Stretch);

    auto* worstTitle = new QLabel(tr("<b>Worst wake-ups</b> — pick one to see why it was late"), this);
    m_culpritsTitle->setText(tr("<b>Who delayed the measuring thread</b> — the whole run"));

    // The lists side by side above, the anatomy of the one picked below them at full width: the swimlane needs it.
    auto box = [this](QLabel* title, QTableView* table) {
        auto* w = new QWidget(this);
        auto* l = new QVBoxLayout(w);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(2);
        l->addWidget(title);
        l->addWidget(table, 1);
        return w;
    };
    m_tablesSplitter = new QSplitter(Qt::Horizontal, this);
    m_tablesSplitter->setObjectName("anatomyTablesSplitter");
    m_tablesSplitter->addWidget(box(worstTitle, m_worstTable));
    m_tablesSplitter->addWidget(box(m_culpritsTitle, m_culpritsTable));
    m_tablesSplitter->setStretchFactor(0, 58);
    m_tablesSplitter->setStretchFactor(1, 42);
    m_tablesSplitter->setChildrenCollapsible(false);
    m_viewSplitter = new QSplitter(Qt::Vertical, this);
    m_viewSplitter->setObjectName("anatomySplitter");
    m_viewSplitter->addWidget(m_tablesSplitter);
    // The view keeps lanes a name's height at least (AnatomySwimlane::minLaneHeight); where the window leaves less
    // (a small screen, the replay banner above), the panel scrolls (below) rather than crush the lanes.
    m_viewSplitter->addWidget(m_view);
    m_viewSplitter->setStretchFactor(0, 2);
    m_viewSplitter->setStretchFactor(1, 5);
    m_viewSplitter->setChildrenCollapsible(false);

    // The panel scrolls when the page leaves it less than the lists' three rows and the view at its minimum (a
    // 768-pixel screen, the replay banner above): every row stays readable instead of being squeezed to slivers.
    auto* content = new QWidget(this);
    auto* contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 2, 0, 0);
    contentLayout->setSpacing(4);
    contentLayout->addWidget(m_status);
    contentLayout->addWidget(m_viewSplitter, 1);
    auto* panelScroll = new QScrollArea(this);
    panelScroll->setObjectName("anatomyPanelScroll");
    panelScroll->setWidget(content);
    panelScroll->setWidgetResizable(true);
    panelScroll->setFrameShape(QFrame::NoFrame);
    panelScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(panelScroll);

    connect(m_worstTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    rowSelected(current.row(), !m_selecting);
            });
    styleTables();
    clearRun(tr("Turn on \"Explain spikes\" and start the run to see why wake-ups are late."));
}

AnatomyPanel::~AnatomyPanel() = default;

void AnatomyPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        styleTables();
}

void AnatomyPanel::styleTables()
{
    // Three rows at least, so the worst wake-ups can be compared without scrolling.
    for (QTableView* t : {m_worstTable, m_culpritsTable}) {
        int header = 0;
        const int row = styleTableFont(t, font(), 1.0, 6, &header);
        t->setMinimumHeight(header + 10 + 3 * row + 2 * t->frameWidth());
    }
}

void AnatomyPanel::clearRun(const QString& text)
{
    m_tracing.reset();
    m_worst->setTracing(nullptr, 0, 0);
    m_culprits->setCulprits({}, 0);
    m_status->setText(text.toHtmlEscaped());
    m_view->clearWakeup(text);
    m_followWorst = true;
}

void AnatomyPanel::setRun(const LatencySnapshot& s)
{
    m_startNs = s.startNs;
    m_nowNs = s.publishedNs;
    m_tracing = s.tracing;
    if (!m_tracing) {
        const QString text =
            s.config.trace
                ? tr("Kernel tracing was asked for, but this run says nothing about it yet (a run on a remote "
                     "target sends its explanation when it ends).")
                : tr("This run is not traced: turn on \"Explain spikes (kernel tracing)\" to see why wake-ups are "
                     "late.");
        m_worst->setTracing(nullptr, 0, 0);
        m_culprits->setCulprits({}, 0);
        m_status->setText(text.toHtmlEscaped());
        if (!m_view->wakeup())
            m_view->clearWakeup(text);
        return;
    }
    const LatencyTracing& t = *m_tracing;
    m_status->setText(tracingStatusHtml(t, s));

    // Keep the wake-up shown selected in the list, whatever the list's new order.
    const std::optional<TracedWakeup>& shown = m_view->wakeup();
    m_worst->setTracing(m_tracing, s.startNs, s.publishedNs);
    m_culprits->setCulprits(t.figures.culprits, t.figures.wakeupsAnalysed);
    m_culpritsTitle->setText(
        tr("<b>Who delayed the measuring thread</b> — over the %1 wake-ups analysed").arg(t.figures.wakeupsAnalysed));

    if (m_worst->rowCount() == 0) {
        if (!shown)
            m_view->clearWakeup(t.active ? tr("No wake-up analysed yet: their events arrive a moment after them.")
                                         : tr("Kernel tracing is not running, so no wake-up can be explained."));
        return;
    }
    int row = -1;
    if (m_followWorst)
        row = 0;
    else if (shown)
        row = m_worst->rowOf(shown->thread, shown->seq);
    m_selecting = true;
    if (row >= 0) {
        m_worstTable->selectRow(row);
        const TracedWakeup* w = m_worst->wakeup(row);
        if (w && (!shown || shown->thread != w->thread || shown->seq != w->seq))
            m_view->setWakeup(*w, m_startNs);
    } else {
        m_worstTable->clearSelection(); // the one shown has left the list; it stays in the view
    }
    m_selecting = false;
}

void AnatomyPanel::rowSelected(int row, bool byUser)
{
    const TracedWakeup* w = m_worst->wakeup(row);
    if (!w)
        return;
    if (byUser)
        m_followWorst = false;
    const std::optional<TracedWakeup>& shown = m_view->wakeup();
    if (!shown || shown->thread != w->thread || shown->seq != w->seq)
        m_view->setWakeup(*w, m_startNs);
}

void AnatomyPanel::selectRow(int row)
{
    if (row < 0 || row >= m_worst->rowCount())
        return;
    m_followWorst = false;
    m_worstTable->selectRow(row);
    rowSelected(row, true);
}

int AnatomyPanel::tracedCount() const
{
    return m_worst->rowCount();
}

QString AnatomyPanel::statusText() const
{
    return m_status->text();
}

bool AnatomyPanel::showNearestTime(int64_t tNs, int64_t toleranceNs)
{
    int best = -1;
    int64_t bestDist = toleranceNs + 1;
    for (int r = 0; r < m_worst->rowCount(); ++r) {
        const TracedWakeup* w = m_worst->wakeup(r);
        const int64_t dist = std::abs(w->anatomy.query.wakeNs - tNs);
        if (dist < bestDist) {
            bestDist = dist;
            best = r;
        }
    }
    if (best < 0)
        return false;
    selectRow(best);
    return true;
}

bool AnatomyPanel::showNearestLatency(double latencyUs, double factor)
{
    if (latencyUs <= 0)
        return false;
    int best = -1;
    double bestDist = std::log(factor) + 1e-12;
    for (int r = 0; r < m_worst->rowCount(); ++r) {
        const double us = double(m_worst->wakeup(r)->anatomy.latencyNs) / 1e3;
        if (us <= 0)
            continue;
        const double dist = std::abs(std::log(us / latencyUs));
        if (dist <= bestDist) {
            bestDist = dist;
            best = r;
        }
    }
    if (best < 0)
        return false;
    selectRow(best);
    return true;
}

} // namespace rtscope

#include "moc_anatomy_view.cpp"
