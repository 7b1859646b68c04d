#include "ui/app/changes_banner.h"

#include "ui/common/text_label.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace rtscope {

ChangesBanner::ChangesBanner(QWidget* parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
    , m_keep(new QPushButton(tr("&Keep until reboot"), this))
    , m_revert(new QPushButton(tr("Re&vert all"), this))
{
    setObjectName("changesBanner");
    // The colours of a change in progress, not of an error: the machine is as the user asked, for now.
    setStyleSheet("#changesBanner { background: #e3f2fd; border: 2px solid #1565c0; border-radius: 4px; }"
                  "#changesBanner QLabel { color: #0d2c54; }");
    initTextLabel(m_text, "changesText", Qt::RichText);
    m_keep->setObjectName("keepChanges");
    m_keep->setToolTip(tr("Leave these settings until the next boot; 'rtscope doctor --undo' puts them back earlier"));
    m_revert->setObjectName("revertChanges");
    m_revert->setToolTip(tr("Put every setting back as it was before the doctor changed it"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_keep);
    layout->addWidget(m_revert);
    connect(m_keep, &QPushButton::clicked, this, &ChangesBanner::keepRequested);
    connect(m_revert, &QPushButton::clicked, this, &ChangesBanner::revertRequested);
    hide();
}

void ChangesBanner::setChanges(const QStringList& changes)
{
    m_changes = changes;
    if (changes.isEmpty()) {
        hide();
        return;
    }
    QString list;
    for (const QString& c : changes)
        list += QStringLiteral("<br>• ") + c.toHtmlEscaped();
    m_text->setText(tr("<b>The doctor changed this machine</b> (a fix that helped, still applied; closing rtscope "
                       "puts it back):%1")
                        .arg(list));
    show();
}

} // namespace rtscope
