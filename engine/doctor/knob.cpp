#include "engine/doctor/knob.h"

#include "engine/doctor/knob_rules.h"
#include "engine/util/name_list.h"

namespace rtscope::doctor {

namespace {

struct KindName {
    KnobKind kind;
    const char* name;
};
constexpr KindName kKindNames[] = {
    {KnobKind::IrqAffinity, "irq-affinity"},
    {KnobKind::Sysctl, "sysctl"},
    {KnobKind::Thp, "thp"},
    {KnobKind::WorkqueueCpumask, "workqueue-cpumask"},
    {KnobKind::CpuidleState, "cpuidle-state"},
    {KnobKind::DebugfsMount, "debugfs-mount"},
    {KnobKind::PreemptMode, "preempt-mode"},
    {KnobKind::CpusetDirectory, "cpuset-dir"},
    {KnobKind::CpusetFile, "cpuset-file"},
    {KnobKind::ThreadAffinity, "thread-affinity"},
    {KnobKind::ThreadScheduling, "thread-scheduling"},
    {KnobKind::CpuDmaLatency, "cpu-dma-latency"},
};

} // namespace

const char* kindName(KnobKind kind)
{
    return rowField(kKindNames, &KindName::kind, kind, &KindName::name, "?");
}

std::optional<KnobKind> kindFromName(std::string_view name)
{
    if (const KindName* k = findRow(kKindNames, &KindName::name, name))
        return k->kind;
    return std::nullopt;
}

Knob::Knob(RootFs& fs, KnobChange change)
    : m_fs(fs)
    , m_change(std::move(change))
{}

Knob::~Knob() = default;

std::string Knob::id() const
{
    return std::string(kindName(m_change.kind)) + ":" + m_change.target;
}

Error Knob::capture()
{
    Expected<std::string> now = read();
    if (!now)
        return now.error();
    // A value that could not be written back is no value to start from: the journal would refuse it at --undo.
    if (!detail::canonicalValue(m_change.kind, m_change.target, *now))
        return failure(ErrorKind::Unavailable, label() + " reads '" + *now +
                                                   "', which is not a value the doctor could set back (" +
                                                   detail::valuesText(m_change.kind, m_change.target) + ")");
    m_change.from = std::move(*now);
    return Error::none();
}

Error Knob::apply()
{
    return setAndCheck(m_change.to);
}

Error Knob::revert()
{
    return setAndCheck(m_change.from);
}

Error Knob::setAndCheck(const std::string& value)
{
    Expected<std::string> before = read();
    // Writing the value a setting has already is not always a no-op: an IRQ's affinity written again may move its
    // effective CPU (the vector allocator picks the least busy one), a mount stacks a second debugfs.
    if (before && *before == value)
        return Error::none();
    if (Error e = write(value))
        return e;
    Expected<std::string> after = read();
    if (!after)
        return after.error();
    if (*after != value)
        return failure(ErrorKind::System, label() + ": wrote '" + value + "' but it reads back '" + *after + "'");
    return Error::none();
}

} // namespace rtscope::doctor
