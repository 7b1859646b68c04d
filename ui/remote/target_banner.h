#pragma once
// The line over the pages while a remote target is connected: which machine is measured and through what, or that
// the link was lost, with Reconnect and Disconnect (docs/remote.md, Desktop app).
#include <QFrame>

class QLabel;
class QPushButton;

namespace rtscope {

class TargetBanner : public QFrame {
    Q_OBJECT
public:
    explicit TargetBanner(QWidget* parent = nullptr);

    /// "Measuring on board-7 (aarch64, 6.12.0-rt) via ssh root@board rtscope agent --stdio".
    void showMeasuring(const QString& machine, const QString& command);
    /// "board-7 …: connection lost at 12:34:56 (why). Everything received is kept.", with Reconnect.
    void showLost(const QString& machine, const QString& lostText);
    QString text() const;
    QPushButton* reconnectButton() const { return m_reconnect; }
    QPushButton* disconnectButton() const { return m_disconnect; }

signals:
    void reconnectRequested();
    void disconnectRequested();

private:
    QLabel* m_text;
    QPushButton* m_reconnect;
    QPushButton* m_disconnect;
};

} // namespace rtscope
