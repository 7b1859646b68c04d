#pragma once
// The line over the pages while a remote target is connected: which machine is measured and through what, or that
// the link was lost (with Reconnect and Save run so far), and on every page but Latency that the page measures this
// computer, not the target (docs/remote.md, Desktop app).
#include "ui/common/action_banner.h"

namespace rtscope {

class TargetBanner : public ActionBanner {
    Q_OBJECT
public:
    explicit TargetBanner(QWidget* parent = nullptr);

    /// "Measuring on board-7 (aarch64, 6.12.0-rt) via ssh root@board rtscope agent --stdio".
    void showMeasuring(const QString& machine, const QString& command);
    /// "board-7 …: connection lost at 12:34:56 (why). Everything received is kept.", with Reconnect and Save.
    /// @p canSave: the page's received run can be saved as a recording (the Latency page's).
    void showLost(const QString& machine, const QString& lostText, bool canSave);
    /// On a page that does not run on a target (every page of the app does; a lab added without remote support
    /// would not): "Local only: this page measures this computer (ws-1), not board-7 (…): it does not run on a target
    /// yet." (and the lost link, with Reconnect, if it is lost).
    void showLocalPage(const QString& page, const QString& localHost, const QString& machine, const QString& lostText);
    QPushButton* reconnectButton() const { return m_reconnect; }
    QPushButton* disconnectButton() const { return m_disconnect; }
    QPushButton* saveButton() const { return m_save; }

signals:
    void reconnectRequested();
    /// Save the run received so far as a recording (File › Save run as recording…).
    void saveRequested();
    void disconnectRequested();

private:
    QPushButton* m_reconnect;
    QPushButton* m_save;
    QPushButton* m_disconnect;
};

} // namespace rtscope
