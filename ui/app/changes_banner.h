#pragma once
// The banner over every page while a page holds changes to the machine (the doctor's fixes that helped,
// docs/doctor.md "The Doctor page"): what is changed, from → to, and the two ways out, "Keep until reboot" and
// "Revert all". Closing the window reverts them; a killed app leaves them to the doctor's guardian.
#include <QFrame>
#include <QStringList>

class QLabel;
class QPushButton;

namespace rtscope {

class ChangesBanner : public QFrame {
    Q_OBJECT
public:
    explicit ChangesBanner(QWidget* parent = nullptr);

    /// Shows @p changes (hidden when empty).
    void setChanges(const QStringList& changes);
    QStringList changes() const { return m_changes; }
    QLabel* textLabel() const { return m_text; }
    QPushButton* keepButton() const { return m_keep; }
    QPushButton* revertButton() const { return m_revert; }

signals:
    void keepRequested();
    void revertRequested();

private:
    QStringList m_changes;
    QLabel* m_text;
    QPushButton* m_keep;
    QPushButton* m_revert;
};

} // namespace rtscope
