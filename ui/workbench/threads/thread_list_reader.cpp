#include "ui/workbench/threads/thread_list_reader.h"

#include "engine/util/clock.h"

#include <pthread.h>

namespace rtscope {

ThreadListReader::ThreadListReader(QObject* parent)
    : QObject(parent)
{}

ThreadListReader::~ThreadListReader()
{
    cancel();
}

bool ThreadListReader::read()
{
    if (m_busy.load())
        return false;
    if (m_thread.joinable())
        m_thread.join(); // finished: its result was delivered
    m_busy = true;
    const unsigned generation = m_generation;
    m_thread = std::thread([this, generation] {
        pthread_setname_np(pthread_self(), "rtscope-proc");
        const int64_t t0 = nowNs();
        std::vector<SystemThread> threads = listSystemThreads(true);
        const double ms = double(nowNs() - t0) / 1e6;
        // Queued to this object's (the GUI) thread; dropped by Qt if the object is gone by then.
        QMetaObject::invokeMethod(
            this,
            [this, threads = std::move(threads), ms, generation]() mutable {
                deliver(std::move(threads), ms, generation);
            },
            Qt::QueuedConnection);
        m_busy = false;
    });
    return true;
}

void ThreadListReader::cancel()
{
    ++m_generation;
    if (m_thread.joinable())
        m_thread.join();
    m_busy = false;
}

void ThreadListReader::deliver(std::vector<SystemThread> threads, double ms, unsigned generation)
{
    if (generation != m_generation)
        return;
    if (m_thread.joinable() && !m_busy.load())
        m_thread.join();
    m_threads = std::move(threads);
    m_lastMs = ms;
    ++m_reads;
    emit finished();
}

} // namespace rtscope

#include "moc_thread_list_reader.cpp"
