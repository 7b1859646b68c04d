#pragma once
/// @file Holding /dev/cpu_dma_latency at 0 µs (keeps CPUs out of deep idle states while it is open).
#include <string>

namespace rtscope {

class DmaLatencyHold {
public:
    DmaLatencyHold() = default;
    ~DmaLatencyHold();
    DmaLatencyHold(const DmaLatencyHold&) = delete;
    DmaLatencyHold& operator=(const DmaLatencyHold&) = delete;

    /// @brief Opens the device and writes 0. Returns false with a reason ("/dev/cpu_dma_latency: EACCES").
    bool acquire(int microseconds = 0);
    void release();
    bool held() const { return m_fd >= 0; }
    const std::string& reason() const { return m_reason; }

private:
    int m_fd = -1;
    std::string m_reason;
};

} // namespace rtscope
