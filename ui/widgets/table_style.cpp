#include "ui/widgets/table_style.h"

#include "ui/plot/chart_style.h"

#include <QEvent>
#include <QFontMetrics>
#include <QHeaderView>
#include <QHelpEvent>
#include <QPainter>
#include <QProxyStyle>
#include <QStyle>
#include <QStyleOptionHeader>
#include <QTableView>
#include <QTextDocument>
#include <QTimer>
#include <QToolTip>

#include <algorithm>
#include <vector>

namespace rtscope {

namespace {

const char* const kTableFitterName = "rtscopeTableFitter";

/// The width of the widest line (headers put their unit on a second line).
int tableTextWidth(const QFontMetrics& metrics, const QString& text)
{
    int widest = 0;
    for (const QString& line : text.split(QLatin1Char('\n')))
        widest = std::max(widest, metrics.horizontalAdvance(line));
    return widest;
}

QFont roleFont(const QVariant& value, const QFont& base)
{
    return value.canConvert<QFont>() ? value.value<QFont>().resolve(base) : base;
}

/// The whole text first; the model's own explanation, when it has one that says more, after it.
QString tipWithModelTip(const QString& whole, const QString& modelTip)
{
    if (modelTip.isEmpty() || modelTip == whole)
        return whole;
    if (Qt::mightBeRichText(modelTip))
        return whole.toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1String("<br>")) + "<br><br>" + modelTip;
    return whole + "\n\n" + modelTip;
}

/// Qt clips a header label that is wider than its section in the middle ("ethod"); this style elides it at the end
/// instead ("Metho…"), which the tooltip completes.
class ElidingHeaderStyle : public QProxyStyle {
public:
    void drawControl(ControlElement element, const QStyleOption* option, QPainter* painter,
                     const QWidget* widget) const override
    {
        const auto* header = qstyleoption_cast<const QStyleOptionHeader*>(option);
        if (element != CE_HeaderLabel || !header) {
            QProxyStyle::drawControl(element, option, painter, widget);
            return;
        }
        QStyleOptionHeader elided(*header);
        QStringList lines = header->text.split(QLatin1Char('\n'));
        for (QString& line : lines)
            line = painter->fontMetrics().elidedText(line, Qt::ElideRight, header->rect.width());
        elided.text = lines.join(QLatin1Char('\n'));
        QProxyStyle::drawControl(element, &elided, painter, widget);
    }
};

/// Fits the columns into the table's width and answers the tooltip requests of elided cells and headers.
class TableFitter : public QObject {
public:
    explicit TableFitter(QTableView* table)
        : QObject(table)
        , m_table(table)
    {
        setObjectName(kTableFitterName);
        m_pending.setSingleShot(true);
        m_pending.setInterval(0);
        connect(&m_pending, &QTimer::timeout, this, &TableFitter::fit);
        table->installEventFilter(this);
        table->viewport()->installEventFilter(this);
        table->horizontalHeader()->viewport()->installEventFilter(this);
        if (QAbstractItemModel* model = table->model()) {
            const auto later = [this] {
                m_measured.clear(); // every column is measured again
                m_pending.start();
            };
            // New figures: only their columns are measured again (a live table's, 60 times a second).
            connect(model, &QAbstractItemModel::dataChanged, this,
                    [this](const QModelIndex& from, const QModelIndex& to) {
                        for (int c = from.column(); c <= to.column() && size_t(c) < m_measured.size(); ++c)
                            m_measured[size_t(c)] = -1; // a header's title is not data: its width stays
                        m_pending.start();
                    });
            connect(model, &QAbstractItemModel::headerDataChanged, this, later);
            connect(model, &QAbstractItemModel::layoutChanged, this, later);
            connect(model, &QAbstractItemModel::modelReset, this, later);
            connect(model, &QAbstractItemModel::rowsInserted, this, later);
            connect(model, &QAbstractItemModel::rowsRemoved, this, later);
        }
        m_pending.start();
    }

    void refit()
    {
        m_measured.clear();
        m_pending.start();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        QHeaderView* header = m_table->horizontalHeader();
        if (event->type() == QEvent::ToolTip && m_table->model()) {
            const QPoint pos = static_cast<QHelpEvent*>(event)->pos();
            QString tip;
            QRect area;
            if (watched == m_table->viewport()) {
                const QModelIndex index = m_table->indexAt(pos);
                tip = elidedCellText(m_table, index);
                if (!tip.isEmpty())
                    tip = tipWithModelTip(tip, index.data(Qt::ToolTipRole).toString());
                area = m_table->visualRect(index);
            } else if (watched == header->viewport()) {
                const int section = header->logicalIndexAt(pos);
                tip = elidedHeaderText(m_table, section);
                if (!tip.isEmpty())
                    tip = tipWithModelTip(
                        tip, m_table->model()->headerData(section, Qt::Horizontal, Qt::ToolTipRole).toString());
                area =
                    QRect(header->sectionViewportPosition(section), 0, header->sectionSize(section), header->height());
            }
            if (!tip.isEmpty()) {
                QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), tip, static_cast<QWidget*>(watched),
                                   area);
                return true;
            }
            return false; // the view's own tooltip: the model's ToolTipRole
        }
        const QEvent::Type t = event->type();
        if (t == QEvent::FontChange || t == QEvent::StyleChange || t == QEvent::Show)
            m_measured.clear();
        if (t == QEvent::Resize || t == QEvent::FontChange || t == QEvent::StyleChange || t == QEvent::Show)
            m_pending.start();
        return false;
    }

private:
    /// What each column would take; when the sum is more than the viewport, a common cap for the widest ones
    /// (the numbers, usually narrow, stay whole; long names and headers give way).
    void fit()
    {
        QHeaderView* header = m_table->horizontalHeader();
        const int n = header->count();
        if (!m_table->model() || n == 0)
            return;
        if (int(m_modes.size()) != n) {
            // The page's own modes (stretched name columns, contents-sized figures), restored whenever all fits.
            m_modes.clear();
            for (int i = 0; i < n; ++i)
                m_modes.push_back(header->sectionResizeMode(i));
            m_stretchLast = header->stretchLastSection();
            m_fitting = false;
        }
        std::vector<int> content(size_t(n), 0), want(size_t(n), 0);
        int total = 0, contents = 0;
        for (int i = 0; i < n; ++i) {
            if (header->isSectionHidden(i))
                continue;
            content[size_t(i)] = std::max(measured(i), header->minimumSectionSize());
            want[size_t(i)] = std::max(content[size_t(i)], headerWant(i));
            // A stretched column (names, configurations) takes the spare width when there is some and gives way
            // first when there is none: its text elides beyond an eighth of the table, before any header does.
            if (m_modes[size_t(i)] == QHeaderView::Stretch)
                content[size_t(i)] = std::min(content[size_t(i)],
                                              std::max(header->minimumSectionSize(), m_table->viewport()->width() / 8));
            total += want[size_t(i)];
            contents += content[size_t(i)];
        }
        const int room = m_table->viewport()->width();
        if (room <= 0)
            return;
        if (total <= room) {
            if (m_fitting) {
                m_fitting = false;
                for (int i = 0; i < n; ++i)
                    header->setSectionResizeMode(i, m_modes[size_t(i)]);
                header->setStretchLastSection(m_stretchLast);
            }
            return;
        }
        // The headers give way first (the figures stay whole, the long titles elide), the cells only when their
        // contents alone are wider than the table.
        std::vector<int> widths(size_t(n), 0);
        if (contents <= room) {
            std::vector<int> extra(size_t(n), 0);
            for (size_t i = 0; i < extra.size(); ++i)
                extra[i] = want[i] - content[i];
            const int cap = waterLevel(extra, room - contents);
            for (size_t i = 0; i < widths.size(); ++i)
                widths[i] = content[i] + std::min(extra[i], cap);
        } else {
            const int cap = waterLevel(content, room);
            for (size_t i = 0; i < widths.size(); ++i)
                widths[i] = std::min(content[i], cap);
        }
        // Each setter below repaints the header even when it changes nothing, and a live table's model reports new
        // data 40-60 times a second: only what differs is set (bench_ui_feed saw a second window repaint a frame).
        m_fitting = true;
        if (header->stretchLastSection())
            header->setStretchLastSection(false);
        // The final widths are worked out first and set once: setting a column to a width and then correcting it
        // by the rounding's few pixels repainted the header twice on every refit.
        const int minimum = header->minimumSectionSize();
        std::vector<int> sizes(size_t(n), 0);
        int used = 0;
        for (int i = 0; i < n; ++i)
            if (!header->isSectionHidden(i)) {
                sizes[size_t(i)] = std::max(widths[size_t(i)], minimum);
                used += sizes[size_t(i)];
            }
        // The rounding's few pixels to the first column cut short, so the table ends at its edge.
        for (int i = 0; i < n && used < room; ++i)
            if (!header->isSectionHidden(i) && widths[size_t(i)] < want[size_t(i)]) {
                sizes[size_t(i)] += room - used;
                used = room;
                break;
            }
        // And what the sections' minimum width added, from the widest ones, so no scroll bar is left.
        for (int over = used - room; over > 0; over = used - room) {
            const auto widest = size_t(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
            const int give = std::min(over, sizes[widest] - minimum);
            if (give <= 0)
                break; // every column at its minimum: the scroll bar is the only way left
            sizes[widest] -= give;
            used -= give;
        }
        for (int i = 0; i < n; ++i) {
            if (header->sectionResizeMode(i) != QHeaderView::Interactive)
                header->setSectionResizeMode(i, QHeaderView::Interactive);
            if (!header->isSectionHidden(i) && header->sectionSize(i) != sizes[size_t(i)])
                header->resizeSection(i, sizes[size_t(i)]);
        }
    }

    /// The largest level c with sum(min(v, c)) <= budget: every value below it whole, the rest cut to it.
    static int waterLevel(std::vector<int> v, int budget)
    {
        std::sort(v.begin(), v.end());
        int below = 0;
        for (size_t k = 0; k < v.size(); ++k) {
            const int even = (budget - below) / int(v.size() - k);
            if (even <= v[k])
                return std::max(even, 0);
            below += v[k];
        }
        return v.empty() ? 0 : v.back();
    }

    /// The width column @p i's cells want, measured again only after its data, the font or the layout changed.
    int measured(int i)
    {
        sizeCaches();
        if (m_measured[size_t(i)] < 0)
            m_measured[size_t(i)] = static_cast<QAbstractItemView*>(m_table)->sizeHintForColumn(i);
        return m_measured[size_t(i)];
    }
    /// The width column @p i's header title wants (laid out text of a bold font: as costly as a cell's, and it
    /// changes only with the titles, the font or the style, which clear both caches).
    int headerWant(int i)
    {
        sizeCaches();
        if (m_headerWant[size_t(i)] < 0)
            m_headerWant[size_t(i)] = m_table->horizontalHeader()->sectionSizeHint(i);
        return m_headerWant[size_t(i)];
    }
    void sizeCaches()
    {
        const size_t n = size_t(m_table->horizontalHeader()->count());
        if (m_measured.size() != n || m_headerWant.size() != n) {
            m_measured.assign(n, -1);
            m_headerWant.assign(n, -1);
        }
    }

    QTableView* m_table;
    QTimer m_pending;
    std::vector<int> m_measured;   ///< per column, -1: to be measured
    std::vector<int> m_headerWant; ///< per column, -1: to be measured
    std::vector<QHeaderView::ResizeMode> m_modes;
    bool m_stretchLast = false;
    bool m_fitting = false;
};

} // namespace

QString elidedCellText(const QTableView* table, const QModelIndex& index)
{
    if (!index.isValid())
        return {};
    const QString text = index.data(Qt::DisplayRole).toString();
    if (text.isEmpty())
        return {};
    // As QStyledItemDelegate lays a cell out: a focus-frame margin and a pixel each side of the text.
    const int margin = table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1;
    int room = table->visualRect(index).width() - 2 * margin;
    if (index.data(Qt::DecorationRole).isValid())
        room -= table->iconSize().width() + 2 * margin;
    const QFont font = roleFont(index.data(Qt::FontRole), table->font());
    return tableTextWidth(QFontMetrics(font), text) > room ? text : QString();
}

QString elidedHeaderText(const QTableView* table, int section)
{
    const QHeaderView* header = table->horizontalHeader();
    if (!table->model() || section < 0 || section >= header->count() || header->isSectionHidden(section))
        return {};
    const QString text = table->model()->headerData(section, Qt::Horizontal, Qt::DisplayRole).toString();
    if (text.isEmpty())
        return {};
    const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    int room = header->sectionSize(section) - 2 * margin;
    if (header->isSortIndicatorShown() && header->sortIndicatorSection() == section)
        room -= header->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header) + margin;
    const QFont font = roleFont(table->model()->headerData(section, Qt::Horizontal, Qt::FontRole), header->font());
    return tableTextWidth(QFontMetrics(font), text) > room ? text : QString();
}

void fitColumnsAndTipElided(QTableView* table)
{
    table->setTextElideMode(Qt::ElideRight);
    // TableFitter has no Q_OBJECT (nothing of it is reflected), so it is found by its name and cast: Qt 6.8 refuses
    // findChild<T>() for a T without the macro.
    if (auto* fitter =
            dynamic_cast<TableFitter*>(table->findChild<QObject*>(kTableFitterName, Qt::FindDirectChildrenOnly))) {
        fitter->refit();
        return;
    }
    new TableFitter(table);
    auto* style = new ElidingHeaderStyle;
    style->setParent(table); // outlives the header, a child created before it
    table->horizontalHeader()->setStyle(style);
}

int styleTableFont(QTableView* table, const QFont& base, double scale, int padding, int* headerLineHeight)
{
    const QFont font = plot::chartFont(base, scale);
    table->setFont(font);
    QFont header = font;
    header.setBold(true);
    table->horizontalHeader()->setFont(header);
    const int rowHeight = QFontMetrics(font).height() + padding;
    table->verticalHeader()->setDefaultSectionSize(rowHeight);
    if (headerLineHeight)
        *headerLineHeight = QFontMetrics(header).height();
    fitColumnsAndTipElided(table);
    return rowHeight;
}

namespace {
/// A figures table's header. New figures (the model's dataChanged, 40-60 times a second on a live page) change cells,
/// not titles: Qt's header repaints every column a dataChanged spans anyway, 0.3-0.5 ms a frame under Xvfb
/// (bench_ui_feed). This one only sizes again the columns sized to their contents, which repaints when a width
/// really changes.
class FiguresHeader : public QHeaderView {
public:
    using QHeaderView::QHeaderView;

protected:
    void dataChanged(const QModelIndex&, const QModelIndex&, const QList<int>&) override
    {
        for (int i = 0; i < count(); ++i)
            if (sectionResizeMode(i) == ResizeToContents) {
                resizeSections();
                return;
            }
    }
};
} // namespace

void useFiguresHeader(QTableView* table)
{
    if (dynamic_cast<FiguresHeader*>(table->horizontalHeader()))
        return;
    auto* header = new FiguresHeader(Qt::Horizontal, table);
    const QHeaderView* old = table->horizontalHeader();
    header->setSectionsClickable(old->sectionsClickable());
    header->setHighlightSections(old->highlightSections());
    header->setDefaultAlignment(old->defaultAlignment());
    // Set up after the fitter (styleTableFont first): the eliding style and the tooltips go over to the new header.
    if (old->style() != table->style())
        header->setStyle(old->style());
    if (QObject* fitter = table->findChild<QObject*>(kTableFitterName, Qt::FindDirectChildrenOnly))
        header->viewport()->installEventFilter(fitter);
    table->setHorizontalHeader(header); // the table deletes the old one
}

void styleTableRows(QTableView* table)
{
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void setUpFiguresTable(QTableView* table)
{
    useFiguresHeader(table);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setFocusPolicy(Qt::NoFocus);
    styleTableRows(table);
}

void setUpFiguresTable(QTableView* table, QAbstractItemModel* model, const char* name)
{
    table->setModel(model);
    table->setObjectName(QString::fromLatin1(name));
    setUpFiguresTable(table);
}

int styleFiguresTable(QTableView* table, double scale, int padding, int* headerLineHeight)
{
    setUpFiguresTable(table);
    table->horizontalHeader()->setStretchLastSection(true);
    return styleTableFont(table, table->font(), scale, padding, headerLineHeight);
}

} // namespace rtscope
