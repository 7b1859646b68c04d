#pragma once
/// @file Raw ring-buffer sub-buffers (as trace_pipe_raw gives them) into TraceEvents. The event formats come from
/// libtraceevent once, at construction: each event's fields are looked up by name then, so decoding a record is
/// a table look-up and a few fixed-offset reads, with no allocation. Used by the session's reader thread only.
#include "engine/pipeline/trace_event.h"

#include <cstdint>
#include <initializer_list>
#include <vector>

struct tep_handle;
struct kbuffer;

namespace rtscope {

class TraceDecoder {
public:
    /// @brief Reads the formats of the events it knows from @p tep (not owned; must outlive the decoder).
    explicit TraceDecoder(tep_handle* tep);
    ~TraceDecoder();
    TraceDecoder(const TraceDecoder&) = delete;
    TraceDecoder& operator=(const TraceDecoder&) = delete;

    /// @brief Whether @p system / @p event is one it decodes and @p tep describes.
    bool knows(const char* system, const char* event) const;

    struct PageResult {
        uint64_t events = 0;    ///< appended (a Lost marker included)
        int64_t lost = 0;       ///< > 0: the kernel dropped this many before the sub-buffer; −1: some, count unknown
        uint64_t undecoded = 0; ///< records of other event types
    };
    /// @brief Decodes one sub-buffer of CPU @p cpu into @p out. A sub-buffer that follows a loss starts with a Lost
    /// event whose gap runs from @p lastTs (the CPU's previous event, 0 when none) to the sub-buffer's first event;
    /// @p lastTs is then the sub-buffer's last event.
    PageResult decode(const void* subBuffer, int cpu, int64_t& lastTs, std::vector<TraceEvent>& out);

private:
    struct Field {
        int offset = -1;
        int size = 0;
        bool isSigned = false;
        bool dynamic = false;  ///< __data_loc: a u32 (length << 16 | offset) at offset
        bool relative = false; ///< __rel_loc: the offset counts from the end of the field
    };
    struct Spec {
        bool known = false;
        TraceEventType type = TraceEventType::Lost;
        TraceVector vector = TraceVector::LocalTimer;
        Field f[8]; ///< the fields of its type, in the order decodeRecord reads them
    };

    void add(const char* system, const char* event, TraceEventType type, std::initializer_list<const char*> fields,
             TraceVector vector = TraceVector::LocalTimer);
    bool decodeRecord(const uint8_t* data, int size, int64_t ts, int cpu, TraceEvent& e) const;

    tep_handle* m_tep;
    kbuffer* m_kbuf = nullptr;
    std::vector<Spec> m_byId;
    Field m_type, m_flags, m_pid;
};

} // namespace rtscope
