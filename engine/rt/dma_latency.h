#pragma once
/// @file Holding /dev/cpu_dma_latency at 0 µs (keeps CPUs out of deep idle states while it is open).
#include <string>

namespace rtscope {

inline constexpr const char* kDmaLatencyDevice = "/dev/cpu_dma_latency";

class DmaLatencyHold {
public:
    /// @p device is the PM QoS device; another path only in tests.
    explicit DmaLatencyHold(std::string device = kDmaLatencyDevice);
    ~DmaLatencyHold();
    DmaLatencyHold(const DmaLatencyHold&) = delete;
    DmaLatencyHold& operator=(const DmaLatencyHold&) = delete;

    /// @brief Opens the device and writes 0. Returns false with a reason ("/dev/cpu_dma_latency: EACCES").
    bool acquire(int microseconds = 0);
    void release();
    bool held() const { return m_fd >= 0; }
    const std::string& reason() const { return m_reason; }
    /// @brief What the last acquire() gave, still true after release(): a run reports what it had while it ran,
    /// and it reports after it has let go of the device.
    bool acquired() const { return m_acquired; }
    /// @brief "held at N us" or "NOT held: REASON" for the last acquire(); empty before the first.
    std::string note() const;

private:
    std::string m_device;
    int m_fd = -1;
    bool m_attempted = false;
    bool m_acquired = false;
    int m_microseconds = 0;
    std::string m_reason;
};

} // namespace rtscope
