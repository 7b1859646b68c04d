#pragma once
// What this machine does for real-time measurement, from the probe: the context every figure needs.
#include "engine/rt/system_probe.h"

#include <QWidget>

namespace rtscope {

class SystemPanel : public QWidget {
    Q_OBJECT
public:
    explicit SystemPanel(const SystemProbe& probe, QWidget* parent = nullptr);

    /// Label/value pairs in display order (also used by tests).
    static QList<QPair<QString, QString>> rows(const SystemProbe& probe);
    /// The plain-words banner for a machine without RT priority, with the exact fix; empty when RT works.
    static QString rtBannerText(const SystemProbe& probe);
};

} // namespace rtscope
