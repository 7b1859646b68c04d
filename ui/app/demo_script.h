#pragma once
// The OTHER-vs-FIFO comparison as a script, for talks and for the screenshot in the README: SCHED_OTHER
// with N hogs, hold as reference, SCHED_FIFO 80 with the same hogs, both in one picture.
#include <QObject>

class QTimer;

namespace rtscope {

class LatencyPage;

class DemoScript : public QObject {
    Q_OBJECT
public:
    DemoScript(LatencyPage* page, double phaseSeconds, int hogs, QObject* parent = nullptr);

    void start();
    int phase() const { return m_phase; }

signals:
    void progress(const QString& what);
    /// @p ok is false when a phase could not run (e.g. SCHED_FIFO refused); the page shows why.
    void finished(bool ok);

private:
    void next();

    LatencyPage* m_page;
    int m_phaseMs;
    int m_hogs;
    int m_phase = 0;
    bool m_ok = true;
    QTimer* m_timer;
};

} // namespace rtscope
