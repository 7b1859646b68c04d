#pragma once
// The strip above the latency views while they show a replayed recording: which file, when and where it was
// recorded, what it lacks, and the way back to the live measurement.
#include "ui/common/action_banner.h"

namespace rtscope {

class ReplayBanner : public ActionBanner {
    Q_OBJECT
public:
    explicit ReplayBanner(QWidget* parent = nullptr);

    /// Rich text: the first line names the file, the date and the machine.
    void setText(const QString& text);

signals:
    void backToLive();

private:
    QPushButton* m_back;
};

} // namespace rtscope
