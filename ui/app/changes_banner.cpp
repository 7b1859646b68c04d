#include "ui/app/changes_banner.h"

#include <QLabel>

namespace rtscope {

ChangesBanner::ChangesBanner(QWidget* parent)
    : ActionBanner("changesBanner", "changesText", Qt::RichText, 6, parent)
{
    // The colours of a change in progress, not of an error: the machine is as the user asked, for now.
    setStyleSheet("#changesBanner { background: #e3f2fd; border: 2px solid #1565c0; border-radius: 4px; }"
                  "#changesBanner QLabel { color: #0d2c54; }");
    m_keep = addButton(tr("&Keep until reboot"), "keepChanges", &ChangesBanner::keepRequested);
    m_keep->setToolTip(tr("Leave these settings until the next boot; 'rtscope doctor --undo' puts them back earlier"));
    m_revert = addButton(tr("Re&vert all"), "revertChanges", &ChangesBanner::revertRequested);
    m_revert->setToolTip(tr("Put every setting back as it was before the doctor changed it"));
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

#include "moc_changes_banner.cpp"
