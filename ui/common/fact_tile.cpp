#include "ui/common/fact_tile.h"

#include "ui/plot/chart_style.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QSizePolicy>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace rtscope {

namespace {
constexpr double kValueScale = 2.2;    ///< the value's type against the body text
constexpr double kMinValueScale = 1.4; ///< how far it shrinks on a narrow tile before eliding
} // namespace

FactTile::FactTile(const QString& title, QWidget* parent)
    : QFrame(parent)
    , m_title(new QLabel(title, this))
    , m_value(new QLabel(this))
    , m_detail(new QLabel(this))
    , m_titleText(title)
{
    setFrameShape(QFrame::StyledPanel);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(12, 6, 12, 6);
    v->setSpacing(0);
    m_value->setObjectName("bigNumber");
    m_detail->setWordWrap(true);
    // The title asks for no width of its own (fitText() wraps or elides it to what the tile gets) and the value only
    // for its smallest type, so a row of tiles fits a 1366-pixel screen instead of pushing past it.
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_value->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_value->installEventFilter(this); // its width settles after the tile's: fitted again then
    v->addWidget(m_title);
    v->addWidget(m_value);
    v->addWidget(m_detail);
    v->addStretch(1);
    restyle();
}

void FactTile::setValue(const QString& value, const QString& detail)
{
    m_valueText = value;
    m_detail->setText(detail);
    m_detail->setVisible(!detail.isEmpty());
    fitText();
}

void FactTile::setAccent(const QString& color)
{
    if (color == m_accent)
        return;
    m_accent = color;
    restyle();
}

QString FactTile::value() const
{
    return m_valueText;
}

QString FactTile::title() const
{
    return m_titleText;
}

void FactTile::setTitle(const QString& title)
{
    m_titleText = title;
    fitText();
}

QString FactTile::shownTitle() const
{
    return m_title->text();
}

QString FactTile::shownValue() const
{
    return m_value->text();
}

void FactTile::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    fitText();
}

bool FactTile::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_value && event->type() == QEvent::Resize &&
        static_cast<QResizeEvent*>(event)->size().width() != static_cast<QResizeEvent*>(event)->oldSize().width())
        fitText();
    return QFrame::eventFilter(watched, event);
}

void FactTile::fitText()
{
    const int room = contentsRect().width() - layout()->contentsMargins().left() - layout()->contentsMargins().right();
    const QFontMetrics titleMetrics(m_title->font());
    // The title wraps between words while each word fits; a longer word ("clock_getres(CLOCK_MONOTONIC)") elides.
    bool wordsFit = true;
    for (const QString& word : m_titleText.split(QLatin1Char(' '), Qt::SkipEmptyParts))
        wordsFit = wordsFit && titleMetrics.horizontalAdvance(word) <= room;
    m_title->setWordWrap(wordsFit);
    const QString title =
        wordsFit ? m_titleText : titleMetrics.elidedText(m_titleText, Qt::ElideRight, std::max(room, 0));
    m_title->setText(title);
    m_title->setToolTip(title == m_titleText ? QString() : m_titleText);
    // The value, the figure itself, keeps its whole text: on a narrow tile its type shrinks to fit (down to 1.4 times
    // the body text, still the largest on the tile), and only below that does it elide.
    QFont smallest = plot::chartFont(font(), kMinValueScale);
    smallest.setBold(true);
    m_value->setMinimumWidth(QFontMetrics(smallest).horizontalAdvance(m_valueText) + 2);
    QFont valueFont = plot::chartFont(font(), kValueScale);
    valueFont.setBold(true);
    const int whole = QFontMetrics(valueFont).horizontalAdvance(m_valueText);
    const int valueRoom = m_value->width() > 0 ? std::min(m_value->width(), std::max(room, 0)) : room;
    if (valueRoom > 0 && whole > valueRoom)
        valueFont = plot::chartFont(font(), std::max(kMinValueScale, kValueScale * valueRoom / whole));
    valueFont.setBold(true);
    m_value->setFont(valueFont);
    const QString value = QFontMetrics(valueFont).elidedText(m_valueText, Qt::ElideRight, std::max(valueRoom, 0));
    m_value->setText(value);
    m_value->setToolTip(value == m_valueText ? QString() : m_valueText);
    // The wrapped detail needs more height as the tile narrows: asking for it here (the width is known only now)
    // makes the page give it, rather than the text running over the value or out of the frame.
    const int needed = layout()->totalHeightForWidth(width());
    if (needed > 0 && needed != minimumHeight())
        setMinimumHeight(needed);
}

QString FactTile::detail() const
{
    return m_detail->text();
}

QString FactTile::text() const
{
    return value() + " · " + detail();
}

void FactTile::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange)
        restyle();
}

void FactTile::restyle()
{
    QFont title = plot::chartFont(font(), 1.1);
    title.setBold(true);
    m_title->setFont(title);
    m_detail->setFont(plot::chartFont(font(), 1.0));
    m_value->setStyleSheet(m_accent.isEmpty() ? QString() : QString("QLabel { color: %1; }").arg(m_accent));
    fitText();
}

QHBoxLayout* tileRow(std::initializer_list<TilePlace> tiles)
{
    auto* row = new QHBoxLayout;
    row->setSpacing(8);
    for (const TilePlace& t : tiles) {
        t.tile->setObjectName(QString::fromLatin1(t.name));
        row->addWidget(t.tile, t.stretch);
    }
    return row;
}

} // namespace rtscope

#include "moc_fact_tile.cpp"
