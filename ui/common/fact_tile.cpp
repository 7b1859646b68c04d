#include "ui/common/fact_tile.h"

#include "ui/plot/chart_style.h"

#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>

namespace rtscope {

FactTile::FactTile(const QString& title, QWidget* parent)
    : QFrame(parent)
    , m_title(new QLabel(title, this))
    , m_value(new QLabel(this))
    , m_detail(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(12, 6, 12, 6);
    v->setSpacing(0);
    m_value->setObjectName("bigNumber");
    m_detail->setWordWrap(true);
    v->addWidget(m_title);
    v->addWidget(m_value);
    v->addWidget(m_detail);
    v->addStretch(1);
    restyle();
}

void FactTile::setValue(const QString& value, const QString& detail)
{
    m_value->setText(value);
    m_detail->setText(detail);
    m_detail->setVisible(!detail.isEmpty());
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
    return m_value->text();
}

QString FactTile::detail() const
{
    return m_detail->text();
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
    QFont value = plot::chartFont(font(), 2.2);
    value.setBold(true);
    m_value->setFont(value);
    m_detail->setFont(plot::chartFont(font(), 1.0));
    m_value->setStyleSheet(m_accent.isEmpty() ? QString() : QString("QLabel { color: %1; }").arg(m_accent));
}

} // namespace rtscope
