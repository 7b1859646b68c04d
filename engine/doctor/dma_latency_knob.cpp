// A PM QoS request on /dev/cpu_dma_latency (Documentation/power/pm_qos_interface.rst): the request is the open
// descriptor. Writing the value makes it; closing the descriptor (or the process's death) ends it. Reading the device
// gives the value in force: the lowest of all open requests, 2000000000 µs (no constraint) when there is none.
#include "engine/doctor/knob_rules.h"

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <unistd.h>

namespace rtscope::doctor::detail {

namespace {

class DmaLatencyKnob final : public Knob {
public:
    DmaLatencyKnob(RootFs& fs, KnobChange change)
        : Knob(fs, std::move(change))
    {}
    ~DmaLatencyKnob() override { release(); }

    std::string label() const override { return m_fs.shown(m_change.path) + " request (µs)"; }

    Expected<std::string> read() const override
    {
        const int fd = m_fs.openFile(m_change.path, O_RDONLY);
        if (fd < 0)
            return failure(errorKindOf(-fd), m_fs.shown(m_change.path) + ": " + errnoText(-fd));
        int32_t value = 0;
        const ssize_t n = ::read(fd, &value, sizeof value);
        const int err = errno;
        ::close(fd);
        if (n != ssize_t(sizeof value))
            return failure(ErrorKind::System, m_fs.shown(m_change.path) + ": read " +
                                                  (n < 0 ? errnoText(err) : std::to_string(n) + " bytes, not 4"));
        return std::to_string(value);
    }

    Error apply() override
    {
        if (m_fd >= 0)
            return Error::none();
        const int fd = m_fs.openFile(m_change.path, O_WRONLY);
        if (fd < 0)
            return failure(errorKindOf(-fd), label() + ": " + m_fs.shown(m_change.path) + ": " + errnoText(-fd));
        // The interface takes a binary s32 (a text "0x…" also works, but the binary form is the documented one).
        const int32_t value = std::stoi(m_change.to);
        if (::write(fd, &value, sizeof value) != ssize_t(sizeof value)) {
            const int err = errno;
            ::close(fd);
            return failure(ErrorKind::System, label() + ": write: " + errnoText(err));
        }
        m_fd = fd;
        const Expected<std::string> now = read();
        if (!now)
            return now.error();
        // Another process may hold a stricter request: the value in force is the lowest, never above ours.
        if (std::stoll(*now) > value)
            return failure(ErrorKind::System,
                           label() + ": requested " + m_change.to + " but the value in force reads " + *now);
        return Error::none();
    }

    /// Closing the descriptor ends the request. A knob rebuilt from a journal holds none: its request ended when
    /// the process that held it exited, so there is nothing to write.
    Error revert() override
    {
        release();
        return Error::none();
    }

    std::string undoCommand() const override
    {
        return "nothing to run: the request ends when the process holding " + m_fs.shown(m_change.path) + " open exits";
    }

protected:
    Error write(const std::string&) override { return Error::none(); } // apply() and revert() do not use it

private:
    void release()
    {
        if (m_fd >= 0) {
            ::close(m_fd);
            m_fd = -1;
        }
    }

    int m_fd = -1;
};

} // namespace

std::unique_ptr<Knob> makeDmaLatencyKnob(RootFs& fs, KnobChange change)
{
    return std::make_unique<DmaLatencyKnob>(fs, std::move(change));
}

} // namespace rtscope::doctor::detail
