#pragma once
// Reads the machine's RT and interrupt threads from /proc (the engine's listSystemThreads) on a short-lived thread
// of its own: one read took 14–23 ms for 130 threads on the 2-CPU development VM (debug build) and grows with the
// thread count, too long for the GUI thread at a refresh every few seconds. The result arrives on the GUI thread.
#include "engine/rt/system_threads.h"

#include <QObject>

#include <atomic>
#include <thread>
#include <vector>

namespace rtscope {

class ThreadListReader : public QObject {
    Q_OBJECT
public:
    explicit ThreadListReader(QObject* parent = nullptr);
    ~ThreadListReader() override; ///< joins a read in progress

    /// Starts a read unless one is in progress (then returns false).
    bool read();
    bool busy() const { return m_busy.load(); }
    /// Joins a read in progress; its result is dropped.
    void cancel();

    const std::vector<SystemThread>& threads() const { return m_threads; }
    /// How long the last read took, in milliseconds (wall clock, on the reading thread).
    double lastReadMs() const { return m_lastMs; }
    int reads() const { return m_reads; }

signals:
    /// A read finished; threads() holds its result.
    void finished();

private:
    void deliver(std::vector<SystemThread> threads, double ms, unsigned generation);

    std::thread m_thread;
    std::atomic<bool> m_busy{false};
    unsigned m_generation = 0; ///< a read started before cancel() must not deliver
    std::vector<SystemThread> m_threads;
    double m_lastMs = 0;
    int m_reads = 0;
};

} // namespace rtscope
