#pragma once
// The banner over every page while a page holds changes to the machine (the doctor's fixes that helped,
// docs/doctor.md "The Doctor page"): what is changed, from → to, and the two ways out, "Keep until reboot" and
// "Revert all". Closing the window reverts them; a killed app leaves them to the doctor's guardian.
#include "ui/common/action_banner.h"

#include <QStringList>

namespace rtscope {

class ChangesBanner : public ActionBanner {
    Q_OBJECT
public:
    explicit ChangesBanner(QWidget* parent = nullptr);

    /// Shows @p changes (hidden when empty).
    void setChanges(const QStringList& changes);
    QStringList changes() const { return m_changes; }
    QPushButton* keepButton() const { return m_keep; }
    QPushButton* revertButton() const { return m_revert; }

signals:
    void keepRequested();
    void revertRequested();

private:
    QStringList m_changes;
    QPushButton* m_keep;
    QPushButton* m_revert;
};

} // namespace rtscope
