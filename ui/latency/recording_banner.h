#pragma once
// The strip above the latency views while they show a replayed recording: which file, when and where it was
// recorded, what it lacks, and the way back to the live measurement.
#include <QFrame>

class QLabel;
class QPushButton;

namespace rtscope {

class ReplayBanner : public QFrame {
    Q_OBJECT
public:
    explicit ReplayBanner(QWidget* parent = nullptr);

    /// Rich text: the first line names the file, the date and the machine.
    void setText(const QString& text);
    QString text() const;

signals:
    void backToLive();

private:
    QLabel* m_text;
    QPushButton* m_back;
};

} // namespace rtscope
