#pragma once
// The stop signals (kStopSignals, engine/rt/rt_thread.h) as Qt signals: read from a signalfd by a QSocketNotifier on
// the GUI thread, so a stop request runs the same clean close path as the window's close button (stop, join, save
// settings).
#include <QList>
#include <QObject>

class QSocketNotifier;

namespace rtscope {

class SignalWatcher : public QObject {
    Q_OBJECT
public:
    /// @p signalNumbers must already be blocked in every thread (runGui does it before any thread exists),
    /// otherwise the kernel may deliver them the default way instead of to the signalfd.
    explicit SignalWatcher(const QList<int>& signalNumbers, QObject* parent = nullptr);
    ~SignalWatcher() override;

    bool valid() const { return m_fd >= 0; }

signals:
    void received(int signalNumber);

private:
    void readPending();

    int m_fd = -1;
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace rtscope
