#pragma once
// A FIFO for the tests that hand one to a reader (engine/util/input_file.h): should the reader block in open(),
// waiting for a writer, the guard's thread opens the other end after a few seconds to release it, and finish() says
// so. The test then fails instead of hanging the suite until ctest's timeout.
#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace rtscope::test {

// A FIFO at @p path, and a thread that unblocks a reader stuck in open() on it after a few seconds.
class FifoGuard {
public:
    explicit FifoGuard(const QString& path)
        : m_path(path.toStdString())
    {
        m_made = ::mkfifo(m_path.c_str(), 0600) == 0;
        m_thread = std::thread([this] {
            std::unique_lock lock(m_mutex);
            if (m_done.wait_for(lock, std::chrono::seconds(5), [this] { return m_finished; }))
                return;
            // O_NONBLOCK: succeeds only if a reader is stuck in open(), which this releases.
            const int fd = ::open(m_path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd >= 0) {
                m_unblocked = true;
                ::close(fd);
            }
        });
    }
    ~FifoGuard() { finish(); }
    bool made() const { return m_made; }
    /// Whether a reader had to be released from open(): the regression.
    bool finish()
    {
        {
            std::lock_guard lock(m_mutex);
            m_finished = true;
        }
        m_done.notify_all();
        if (m_thread.joinable())
            m_thread.join();
        return m_unblocked;
    }

private:
    std::string m_path;
    bool m_made = false;
    std::mutex m_mutex;
    std::condition_variable m_done;
    bool m_finished = false;
    std::atomic<bool> m_unblocked{false};
    std::thread m_thread;
};

} // namespace rtscope::test
