#include "ui/app/demo_script.h"

#include "ui/latency/latency_page.h"

#include <QTimer>

namespace rtscope {

DemoScript::DemoScript(LatencyPage* page, double phaseSeconds, int hogs, QObject* parent)
    : QObject(parent)
    , m_page(page)
    , m_phaseMs(int(phaseSeconds * 1000))
    , m_hogs(hogs)
    , m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &DemoScript::next);
}

void DemoScript::start()
{
    m_phase = 0;
    next();
}

void DemoScript::next()
{
    switch (m_phase++) {
    case 0: {
        LatencyConfig c = m_page->config();
        c.policy = Policy::Other;
        c.priority = 0;
        c.hogs = m_hogs;
        m_page->setResetOnChange(true);
        m_ok = m_page->applyConfig(c).isEmpty() && m_page->start();
        emit progress(tr("Demo: SCHED_OTHER with %1 hogs").arg(m_hogs));
        m_timer->start(m_phaseMs);
        break;
    }
    case 1: {
        m_ok = m_page->holdAsReference() && m_ok;
        LatencyConfig c = m_page->config();
        c.policy = Policy::Fifo;
        c.priority = 80;
        // Applied live: the marker "FIFO 80" lands on the timeline and the statistics start over.
        m_ok = m_page->applyConfig(c).isEmpty() && m_ok;
        emit progress(tr("Demo: SCHED_FIFO 80 with %1 hogs, OTHER held as reference").arg(m_hogs));
        m_timer->start(m_phaseMs);
        break;
    }
    default:
        emit finished(m_ok);
        break;
    }
}

} // namespace rtscope
