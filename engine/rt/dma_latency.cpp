#include "engine/rt/dma_latency.h"

#include "engine/rt/rt_environment.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace rtscope {

namespace {

constexpr const char* kDevice = "/dev/cpu_dma_latency";

std::string describe(const char* what, int err)
{
    std::string s = std::string(kDevice) + ": " + (what[0] ? std::string(what) + ": " : std::string()) +
                    errnoName(err) + " (" + strerror(err) + ")";
    if (err == EACCES || err == EPERM)
        s += "; it is writable by root only";
    return s;
}

} // namespace

DmaLatencyHold::~DmaLatencyHold()
{
    release();
}

bool DmaLatencyHold::acquire(int microseconds)
{
    release();
    m_reason.clear();
    if (microseconds < 0) {
        m_reason = std::string(kDevice) + ": a negative latency is meaningless";
        return false;
    }
    const int fd = ::open(kDevice, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        m_reason = describe("", errno);
        return false;
    }
    // The PM QoS interface (Documentation/power/pm_qos_interface.rst) takes a binary s32; the request
    // lives exactly as long as the file stays open, so the fd is the hold.
    const int32_t value = microseconds;
    if (::write(fd, &value, sizeof value) != ssize_t(sizeof value)) {
        m_reason = describe("write", errno);
        ::close(fd);
        return false;
    }
    m_fd = fd;
    return true;
}

void DmaLatencyHold::release()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace rtscope
