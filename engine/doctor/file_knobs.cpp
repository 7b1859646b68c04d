// The knobs that are one file of /proc or /sys (IRQ affinity, sysctls, THP, the workqueue mask, idle states, the
// preemption mode, cpuset control files), a cpuset directory, and the debugfs mount.
#include "engine/doctor/knob_rules.h"

#include <cerrno>

namespace rtscope::doctor::detail {

namespace {

// The word between @p open and @p close ("always [madvise] never" -> "madvise"); the whole text when there is none.
std::string marked(std::string_view text, char open, char close)
{
    const size_t a = text.find(open);
    const size_t b = a == std::string_view::npos ? a : text.find(close, a + 1);
    if (b == std::string_view::npos)
        return trimmed(text);
    return std::string(text.substr(a + 1, b - a - 1));
}

std::string_view fileName(std::string_view path)
{
    return path.substr(path.rfind('/') + 1);
}

bool hasWord(std::string_view text, std::string_view word)
{
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = std::min(text.find_first_of(" \n\t", start), text.size());
        if (text.substr(start, end - start) == word)
            return true;
        start = end + 1;
    }
    return false;
}

class FileKnob final : public Knob {
public:
    FileKnob(RootFs& fs, KnobChange change)
        : Knob(fs, std::move(change))
    {}

    std::string label() const override
    {
        const std::string& t = m_change.target;
        switch (kind()) {
        case KnobKind::IrqAffinity: {
            // /sys/kernel/irq/N/actions names the handlers ("virtio1-req.0"), as /proc/interrupts does.
            const Expected<std::string> actions = m_fs.readLine("/sys/kernel/irq/" + t + "/actions");
            return "IRQ " + t + (actions && !actions->empty() ? " (" + *actions + ")" : std::string()) + " CPUs";
        }
        case KnobKind::Thp:
            return "THP " + t;
        case KnobKind::WorkqueueCpumask:
            return "unbound workqueue CPUs";
        case KnobKind::CpuidleState: {
            const std::string dir = m_change.path.substr(0, m_change.path.rfind('/'));
            const Expected<std::string> name = m_fs.readLine(dir + "/name");
            return t + (name ? " (" + *name + ")" : std::string()) + " disabled";
        }
        case KnobKind::PreemptMode:
            return "preemption mode";
        case KnobKind::CpusetFile:
            return m_fs.shown(m_change.path);
        default:
            return t;
        }
    }

    Expected<std::string> read() const override
    {
        Expected<std::string> raw = m_fs.readText(m_change.path);
        if (!raw) {
            if (kind() == KnobKind::PreemptMode && raw.error().kind == ErrorKind::Permission)
                return failure(ErrorKind::Permission,
                               raw.error().message +
                                   ": the kernel restricts debugfs (lockdown, kernel_lockdown(7)), so the preemption "
                                   "mode can be neither read nor changed at run time; preempt=full on the kernel "
                                   "command line sets it at boot");
            return raw;
        }
        std::string value;
        if (kind() == KnobKind::Thp && m_change.target != "khugepaged/defrag")
            value = marked(*raw, '[', ']');
        else if (kind() == KnobKind::PreemptMode)
            value = marked(*raw, '(', ')');
        else if (kind() == KnobKind::WorkqueueCpumask)
            value = cpuListFromMask(*raw).value_or(trimmed(*raw));
        else if (kind() == KnobKind::CpusetFile && fileName(m_change.path) == "cgroup.subtree_control")
            value = hasWord(*raw, "cpuset") ? "+cpuset" : "-cpuset";
        else
            value = trimmed(*raw);
        // "isolated invalid (Cpu list in cpuset.cpus not exclusive)" is not a value: kept as read, so that the
        // sentence of a failed apply carries the kernel's reason.
        return canonicalValue(kind(), m_change.target, value).value_or(value);
    }

    std::string undoCommand() const override
    {
        return "echo '" + written(m_change.from) + "' > " + m_fs.shown(m_change.path);
    }

protected:
    Error write(const std::string& value) override
    {
        const int err = m_fs.writeText(m_change.path, written(value) + "\n");
        if (err == 0)
            return Error::none();
        return failure(err == EPERM || err == EACCES ? ErrorKind::Permission : ErrorKind::System,
                       label() + ": setting '" + value + "' failed: " + why(err));
    }

private:
    std::string written(const std::string& value) const
    {
        return kind() == KnobKind::WorkqueueCpumask ? maskFromCpuList(value) : value;
    }

    std::string why(int err) const
    {
        const std::string shown = m_fs.shown(m_change.path);
        if (kind() == KnobKind::IrqAffinity && (err == EPERM || err == EIO)) {
            // kernel/irq/proc.c refuses user space when !irq_can_set_affinity_usr(): a managed interrupt (the driver
            // spread its queues over the CPUs and the kernel keeps them there), a per-CPU one, or a chip that cannot
            // steer. 6.18 answers EPERM, older kernels EIO.
            const std::string dir = m_change.path.substr(0, m_change.path.rfind('/'));
            const Expected<std::string> effective = m_fs.readLine(dir + "/effective_affinity_list");
            return "the kernel does not let it be moved (" + errnoText(err) +
                   "): it is a managed interrupt, placed by its driver, or a per-CPU one; it runs on CPU " +
                   (effective ? *effective : std::string("?")) + " (effective_affinity_list)";
        }
        if (kind() == KnobKind::IrqAffinity && err == EINVAL)
            return shown + ": " + errnoText(err) + ": the list has no online CPU the interrupt can use";
        if (kind() == KnobKind::CpusetFile && (err == EBUSY || err == EINVAL))
            return shown + ": " + errnoText(err) +
                   ": the cpuset has tasks, or the CPUs overlap an exclusive sibling or leave the parent's";
        return shown + ": " + errnoText(err);
    }
};

// A directory the doctor makes in a cgroup tree (cpuset_partition.h); reverted, its tasks go back to the parent and
// it is removed.
class CpusetDirectoryKnob final : public Knob {
public:
    CpusetDirectoryKnob(RootFs& fs, KnobChange change)
        : Knob(fs, std::move(change))
    {}

    std::string label() const override { return "cpuset " + m_fs.shown(m_change.path); }

    Expected<std::string> read() const override
    {
        return std::string(m_fs.isDirectory(m_change.path) ? "present" : "absent");
    }

    std::string undoCommand() const override
    {
        return "rmdir " + m_fs.shown(m_change.path) + " (after moving any task in it to its parent)";
    }

protected:
    Error write(const std::string& value) override
    {
        const std::string shown = m_fs.shown(m_change.path);
        if (value == "present") {
            const int err = m_fs.makeDirectory(m_change.path);
            if (err == EEXIST)
                return failure(ErrorKind::Unavailable, shown + " exists already: left by a doctor that did not finish? "
                                                               "'rtscope doctor --undo' removes it");
            return err ? failure(ErrorKind::System, "making " + shown + ": " + errnoText(err)) : Error::none();
        }
        if (Error e = moveTasksToParent())
            return e;
        const int err = m_fs.removeDirectory(m_change.path);
        if (err == ENOENT)
            return Error::none();
        return err ? failure(ErrorKind::System, "removing " + shown + ": " + errnoText(err)) : Error::none();
    }

private:
    // cgroup v1 lists threads in "tasks"; v2 takes whole processes through cgroup.procs. The IDs come from the
    // kernel's own file, never from the journal.
    Error moveTasksToParent()
    {
        const std::string parent = m_change.path.substr(0, m_change.path.rfind('/'));
        const char* file = m_fs.exists(m_change.path + "/tasks") ? "/tasks" : "/cgroup.procs";
        const Expected<std::string> ids = m_fs.readText(m_change.path + file, 1 << 20);
        if (!ids)
            return Error::none(); // no such file: nothing can be in it
        size_t start = 0;
        while (start < ids->size()) {
            const size_t end = std::min(ids->find('\n', start), ids->size());
            const std::string id = trimmed(std::string_view(*ids).substr(start, end - start));
            start = end + 1;
            if (id.empty())
                continue;
            const int err = m_fs.writeText(parent + file, id + "\n");
            if (err && err != ESRCH) // ESRCH: it exited meanwhile
                return failure(ErrorKind::System,
                               "moving task " + id + " out of " + m_fs.shown(m_change.path) + ": " + errnoText(err));
        }
        return Error::none();
    }
};

class DebugfsMountKnob final : public Knob {
public:
    DebugfsMountKnob(RootFs& fs, KnobChange change)
        : Knob(fs, std::move(change))
    {}

    std::string label() const override { return "debugfs on " + m_fs.shown(m_change.path); }

    Expected<std::string> read() const override
    {
        return std::string(m_fs.isDebugfsMount(m_change.path) ? "mounted" : "unmounted");
    }

    std::string undoCommand() const override
    {
        return m_change.from == "unmounted" ? "umount " + m_fs.shown(m_change.path)
                                            : "mount -t debugfs none " + m_fs.shown(m_change.path);
    }

protected:
    Error write(const std::string& value) override
    {
        const int err = value == "mounted" ? m_fs.mountDebugfs(m_change.path) : m_fs.unmount(m_change.path);
        if (err == EBUSY)
            return failure(ErrorKind::System, label() + " is in use (EBUSY): a file of it is open; it stays mounted");
        return err ? failure(ErrorKind::System,
                             label() + ": " + (value == "mounted" ? "mount: " : "umount: ") + errnoText(err))
                   : Error::none();
    }
};

} // namespace

std::unique_ptr<Knob> makeFileKnob(RootFs& fs, KnobChange change)
{
    return std::make_unique<FileKnob>(fs, std::move(change));
}

std::unique_ptr<Knob> makeCpusetDirectoryKnob(RootFs& fs, KnobChange change)
{
    return std::make_unique<CpusetDirectoryKnob>(fs, std::move(change));
}

std::unique_ptr<Knob> makeDebugfsMountKnob(RootFs& fs, KnobChange change)
{
    return std::make_unique<DebugfsMountKnob>(fs, std::move(change));
}

} // namespace rtscope::doctor::detail
