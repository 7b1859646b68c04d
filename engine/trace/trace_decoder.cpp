#include "engine/trace/trace_decoder.h"
#include "engine/trace/tracefs_api.h"

#include <cstring>
#include <string_view>

namespace rtscope {

namespace {

// The field of type U at @p p, widened as its signed twin S when @p isSigned.
template <class U, class S> int64_t decoderLoad(const uint8_t* p, bool isSigned)
{
    U v;
    std::memcpy(&v, p, sizeof v);
    return isSigned ? int64_t(S(v)) : int64_t(v);
}

int64_t decoderNumber(const uint8_t* data, int size, int offset, int width, bool isSigned)
{
    if (offset < 0 || offset + width > size)
        return 0;
    const uint8_t* p = data + offset;
    switch (width) {
    case 1:
        return decoderLoad<uint8_t, int8_t>(p, isSigned);
    case 2:
        return decoderLoad<uint16_t, int16_t>(p, isSigned);
    case 4:
        return decoderLoad<uint32_t, int32_t>(p, isSigned);
    case 8:
        return decoderLoad<uint64_t, int64_t>(p, true);
    default:
        return 0;
    }
}

} // namespace

TraceDecoder::TraceDecoder(tep_handle* tep)
    : m_tep(tep)
    , m_kbuf(tep_kbuffer(tep))
{
    using T = TraceEventType;
    add("sched", "sched_switch", T::SchedSwitch,
        {"prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"});
    add("sched", "sched_waking", T::SchedWaking, {"comm", "pid", "prio", "target_cpu"});
    add("sched", "sched_wakeup", T::SchedWakeup, {"comm", "pid", "prio", "target_cpu"});
    add("sched", "sched_migrate_task", T::SchedMigrate, {"comm", "pid", "prio", "dest_cpu", "orig_cpu"});
    add("irq", "irq_handler_entry", T::IrqEntry, {"irq", "name"});
    add("irq", "irq_handler_exit", T::IrqExit, {"irq", "ret"});
    add("irq", "softirq_entry", T::SoftirqEntry, {"vec"});
    add("irq", "softirq_exit", T::SoftirqExit, {"vec"});
    add("timer", "hrtimer_expire_entry", T::HrtimerExpireEntry, {"hrtimer", "function", "now"});
    add("timer", "hrtimer_expire_exit", T::HrtimerExpireExit, {"hrtimer"});
    add("irq_vectors", "local_timer_entry", T::VectorEntry, {"vector"}, TraceVector::LocalTimer);
    add("irq_vectors", "local_timer_exit", T::VectorExit, {"vector"}, TraceVector::LocalTimer);
    add("irq_vectors", "reschedule_entry", T::VectorEntry, {"vector"}, TraceVector::Reschedule);
    add("irq_vectors", "reschedule_exit", T::VectorExit, {"vector"}, TraceVector::Reschedule);
    add("irq_vectors", "call_function_entry", T::VectorEntry, {"vector"}, TraceVector::CallFunction);
    add("irq_vectors", "call_function_exit", T::VectorExit, {"vector"}, TraceVector::CallFunction);
    add("irq_vectors", "call_function_single_entry", T::VectorEntry, {"vector"}, TraceVector::CallFunctionSingle);
    add("irq_vectors", "call_function_single_exit", T::VectorExit, {"vector"}, TraceVector::CallFunctionSingle);
    add("ftrace", "print", T::Marker, {"buf"});
    add("ftrace", "timerlat", T::Timerlat, {"seqnum", "context", "timer_latency"});
    add("nmi", "nmi_handler", T::Nmi, {"handler", "delta_ns", "handled"});
}

TraceDecoder::~TraceDecoder()
{
    if (m_kbuf)
        kbuffer_free(m_kbuf);
}

bool TraceDecoder::knows(const char* system, const char* event) const
{
    tep_event* e = tep_find_event_by_name(m_tep, system, event);
    return e && e->id >= 0 && size_t(e->id) < m_byId.size() && m_byId[size_t(e->id)].known;
}

void TraceDecoder::add(const char* system, const char* event, TraceEventType type,
                       std::initializer_list<const char*> fields, TraceVector vector)
{
    tep_event* e = tep_find_event_by_name(m_tep, system, event);
    if (!e || e->id < 0)
        return;
    // Every event starts with the same common fields (common_type, common_flags, common_pid): read their place once.
    auto fieldOf = [](tep_format_field* f) {
        Field out;
        if (!f)
            return out;
        out.offset = f->offset;
        out.size = f->size;
        out.isSigned = (f->flags & TEP_FIELD_IS_SIGNED) != 0;
        out.dynamic = (f->flags & TEP_FIELD_IS_DYNAMIC) != 0;
        out.relative = (f->flags & TEP_FIELD_IS_RELATIVE) != 0;
        return out;
    };
    if (m_type.offset < 0) {
        m_type = fieldOf(tep_find_common_field(e, "common_type"));
        m_flags = fieldOf(tep_find_common_field(e, "common_flags"));
        m_pid = fieldOf(tep_find_common_field(e, "common_pid"));
    }
    if (size_t(e->id) >= m_byId.size())
        m_byId.resize(size_t(e->id) + 1);
    Spec& s = m_byId[size_t(e->id)];
    s.known = true;
    s.type = type;
    s.vector = vector;
    int i = 0;
    for (const char* name : fields)
        s.f[i++] = fieldOf(tep_find_field(e, name)); // a field an older kernel lacks stays at offset −1: reads 0
}

TraceDecoder::PageResult TraceDecoder::decode(const void* subBuffer, int cpu, int64_t& lastTs,
                                              std::vector<TraceEvent>& out)
{
    PageResult r;
    if (!m_kbuf || m_type.offset < 0)
        return r;
    if (kbuffer_load_subbuffer(m_kbuf, const_cast<void*>(subBuffer)) < 0)
        return r;
    unsigned long long ts = 0;
    void* data = kbuffer_read_event(m_kbuf, &ts);
    // Only the first record of a sub-buffer carries the loss that came before it.
    const int missed = kbuffer_missed_events(m_kbuf);
    if (missed != 0) {
        TraceEvent lost{};
        lost.type = TraceEventType::Lost;
        lost.cpu = uint16_t(cpu);
        lost.ts = data ? int64_t(ts) : int64_t(kbuffer_subbuf_timestamp(m_kbuf, const_cast<void*>(subBuffer)));
        lost.lost.count = missed > 0 ? uint64_t(missed) : 0;
        lost.lost.sinceNs = lastTs;
        out.push_back(lost);
        r.events += 1;
        r.lost = missed;
    }
    while (data) {
        const int size = kbuffer_event_size(m_kbuf);
        TraceEvent e{};
        if (decodeRecord(static_cast<const uint8_t*>(data), size, int64_t(ts), cpu, e)) {
            out.push_back(e);
            r.events += 1;
        } else {
            r.undecoded += 1;
        }
        lastTs = int64_t(ts);
        data = kbuffer_next_event(m_kbuf, &ts);
    }
    return r;
}

bool TraceDecoder::decodeRecord(const uint8_t* data, int size, int64_t ts, int cpu, TraceEvent& e) const
{
    const int64_t id = decoderNumber(data, size, m_type.offset, m_type.size, false);
    if (id < 0 || size_t(id) >= m_byId.size() || !m_byId[size_t(id)].known)
        return false;
    const Spec& s = m_byId[size_t(id)];
    auto num = [&](int i) {
        return decoderNumber(data, size, s.f[i].offset, s.f[i].size, s.f[i].isSigned);
    };
    auto str = [&](int i) -> std::string_view {
        const Field& f = s.f[i];
        if (f.offset < 0)
            return {};
        int off = f.offset;
        int len = f.size;
        if (f.dynamic) {
            const uint32_t loc = uint32_t(decoderNumber(data, size, f.offset, 4, false));
            off = int(loc & 0xffff) + (f.relative ? f.offset + f.size : 0);
            len = int(loc >> 16);
        } else if (len == 0) {
            len = size - off; // a flexible array (ftrace print's buf): to the end of the record
        }
        if (off < 0 || len <= 0 || off + len > size)
            return {};
        const char* p = reinterpret_cast<const char*>(data + off);
        return std::string_view(p, strnlen(p, size_t(len)));
    };
    auto task = [&](TraceTask& t, int comm, int pid, int prio) {
        setTraceText(t.comm, str(comm));
        t.pid = int32_t(num(pid));
        t.prio = int32_t(num(prio));
    };

    e.ts = ts;
    e.type = s.type;
    e.cpu = uint16_t(cpu);
    e.flags = uint8_t(decoderNumber(data, size, m_flags.offset, m_flags.size, false));
    e.pid = int32_t(decoderNumber(data, size, m_pid.offset, m_pid.size, true));
    switch (s.type) {
    case TraceEventType::SchedSwitch:
        task(e.sw.prev, 0, 1, 2);
        e.sw.prevState = num(3);
        task(e.sw.next, 4, 5, 6);
        break;
    case TraceEventType::SchedWaking:
    case TraceEventType::SchedWakeup:
        task(e.wake.task, 0, 1, 2);
        e.wake.targetCpu = int32_t(num(3));
        e.wake.origCpu = -1;
        break;
    case TraceEventType::SchedMigrate:
        task(e.wake.task, 0, 1, 2);
        e.wake.targetCpu = int32_t(num(3));
        e.wake.origCpu = int32_t(num(4));
        break;
    case TraceEventType::IrqEntry:
        e.irq.number = int32_t(num(0));
        setTraceText(e.irq.name, str(1));
        break;
    case TraceEventType::IrqExit:
        e.irq.number = int32_t(num(0));
        e.irq.ret = int32_t(num(1));
        break;
    case TraceEventType::SoftirqEntry:
    case TraceEventType::SoftirqExit:
        e.irq.number = int32_t(num(0));
        break;
    case TraceEventType::VectorEntry:
    case TraceEventType::VectorExit:
        e.irq.number = int32_t(num(0));
        e.irq.vector = s.vector;
        break;
    case TraceEventType::HrtimerExpireEntry:
        e.hrtimer.timer = uint64_t(num(0));
        e.hrtimer.function = uint64_t(num(1));
        e.hrtimer.nowNs = num(2);
        break;
    case TraceEventType::HrtimerExpireExit:
        e.hrtimer.timer = uint64_t(num(0));
        break;
    case TraceEventType::Marker: {
        std::string_view text = str(0);
        while (!text.empty() && text.back() == '\n')
            text.remove_suffix(1);
        setTraceText(e.marker.text, text);
        break;
    }
    case TraceEventType::Timerlat:
        e.timerlat.seq = uint64_t(num(0));
        e.timerlat.context = int32_t(num(1));
        e.timerlat.latencyNs = num(2);
        break;
    case TraceEventType::Nmi:
        e.nmi.handler = uint64_t(num(0));
        e.nmi.deltaNs = num(1);
        e.nmi.handled = int32_t(num(2));
        break;
    case TraceEventType::Lost:
        return false;
    }
    return true;
}

} // namespace rtscope
