#include "engine/rt/dma_latency.h"

#include "engine/rt/rt_environment.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace rtscope {

namespace {

std::string describe(const std::string& device, const char* what, int err)
{
    std::string s = device + ": " + (what[0] ? std::string(what) + ": " : std::string()) + errnoName(err) + " (" +
                    strerror(err) + ")";
    if (err == EACCES || err == EPERM)
        s += "; it is writable by root only";
    return s;
}

} // namespace

DmaLatencyHold::DmaLatencyHold(std::string device)
    : m_device(std::move(device))
{}

DmaLatencyHold::~DmaLatencyHold()
{
    release();
}

bool DmaLatencyHold::acquire(int microseconds)
{
    release();
    m_reason.clear();
    m_attempted = true;
    m_acquired = false;
    m_microseconds = microseconds;
    if (microseconds < 0) {
        m_reason = m_device + ": a negative latency is meaningless";
        return false;
    }
    const int fd = ::open(m_device.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        m_reason = describe(m_device, "", errno);
        return false;
    }
    // The PM QoS interface (Documentation/power/pm_qos_interface.rst) takes a binary s32; the request
    // lives exactly as long as the file stays open, so the fd is the hold.
    const int32_t value = microseconds;
    if (::write(fd, &value, sizeof value) != ssize_t(sizeof value)) {
        m_reason = describe(m_device, "write", errno);
        ::close(fd);
        return false;
    }
    m_fd = fd;
    m_acquired = true;
    return true;
}

std::string DmaLatencyHold::note() const
{
    if (!m_attempted)
        return {};
    return m_acquired ? "held at " + std::to_string(m_microseconds) + " us" : "NOT held: " + m_reason;
}

void DmaLatencyHold::release()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace rtscope
