#include "ui/widgets/anatomy_view_data.h"

#include "engine/pipeline/trace_event.h"
#include "engine/pipeline/wakeup_anatomy_steps.h"
#include "engine/util/units.h"
#include "ui/common/colors.h"
#include "ui/common/text_format.h"

#include <QObject>
#include <QStringList>

#include <algorithm>

namespace rtscope {

namespace {

enum AnatomyViewLane { kViewLaneParts, kViewLaneThread, kViewLaneCpu, kViewLaneIrq, kViewLaneCount };

QString anatomyDur(int64_t ns)
{
    return formatLatency(double(ns));
}

// Builds one lane: at most one segment open at a time.
struct AnatomyLaneBuilder {
    explicit AnatomyLaneBuilder(std::vector<SwimSegment>* lane)
        : out(lane)
    {}
    std::vector<SwimSegment>* out;
    SwimSegment cur;
    bool open = false;

    void start(int64_t at, SwimKind kind, const QString& label, const QString& detail, bool inferred = false)
    {
        close(at);
        cur = SwimSegment{at, at, kind, label, detail, inferred, 0};
        open = true;
    }
    void close(int64_t at)
    {
        if (!open)
            return;
        open = false;
        if (at <= cur.fromNs)
            return;
        cur.toNs = at;
        // Two pieces that say the same and touch are one (two tasks of one name are two: their details differ).
        if (!out->empty() && out->back().toNs == cur.fromNs && out->back().kind == cur.kind &&
            out->back().label == cur.label && out->back().detail == cur.detail &&
            out->back().inferred == cur.inferred) {
            out->back().toNs = cur.toNs;
            return;
        }
        out->push_back(cur);
    }
};

struct AnatomyHolder {
    int32_t pid = -1;
    bool inferred = false;
};

SwimKind anatomyHolderKind(int32_t pid, int32_t prio, int32_t tid)
{
    if (pid < 0)
        return SwimKind::Unknown;
    if (pid == 0)
        return SwimKind::Idle;
    if (pid == tid)
        return SwimKind::Measuring;
    if (prio == -2)
        return SwimKind::Unknown; // a task, but of which policy no event says
    return prio < 100 ? SwimKind::RtTask : SwimKind::OtherTask;
}

QString anatomyInterruptLabel(const TraceEvent& e, const WakeupAnatomy& a, bool own, QString* full)
{
    switch (e.type) {
    case TraceEventType::IrqEntry:
    case TraceEventType::IrqExit: {
        const QString name = QString::fromUtf8(traceText(e.irq.name).data(), int(traceText(e.irq.name).size()));
        *full = name.isEmpty() ? QObject::tr("irq %1").arg(e.irq.number)
                               : QObject::tr("irq %1 (%2)").arg(e.irq.number).arg(name);
        return QObject::tr("irq %1").arg(e.irq.number);
    }
    case TraceEventType::SoftirqEntry:
    case TraceEventType::SoftirqExit:
        *full = QObject::tr("softirq %1").arg(QString::fromLatin1(softirqName(e.irq.number)));
        return QString::fromLatin1(softirqName(e.irq.number));
    case TraceEventType::VectorEntry:
    case TraceEventType::VectorExit:
        *full = QString::fromLatin1(traceVectorName(e.irq.vector));
        return *full;
    default:
        break;
    }
    // An hrtimer: the name the anatomy gave its callback, if it met it.
    QString fn;
    for (const AnatomyInterrupt& i : a.interrupts)
        if (i.kind == CulpritKind::Hrtimer && uint64_t(i.id) == e.hrtimer.function && !i.name.empty())
            fn = QString::fromStdString(i.name);
    if (fn.isEmpty())
        fn = QStringLiteral("hrtimer 0x%1").arg(qulonglong(e.hrtimer.function), 0, 16);
    if (own) {
        fn.remove(QObject::tr(" (its own timer)"));
        *full = QObject::tr("its own timer's callback (%1): the timer IRQ that wakes it").arg(fn);
        return QObject::tr("its timer");
    }
    *full = QObject::tr("hrtimer callback %1").arg(fn);
    return fn;
}

// Whether exit @p x closes entry @p e (an hrtimer exit names only its timer).
bool anatomyCloses(const TraceEvent& e, const TraceEvent& x)
{
    switch (x.type) {
    case TraceEventType::IrqExit:
        return e.type == TraceEventType::IrqEntry && e.irq.number == x.irq.number;
    case TraceEventType::SoftirqExit:
        return e.type == TraceEventType::SoftirqEntry && e.irq.number == x.irq.number;
    case TraceEventType::VectorExit:
        return e.type == TraceEventType::VectorEntry && e.irq.vector == x.irq.vector;
    case TraceEventType::HrtimerExpireExit:
        return e.type == TraceEventType::HrtimerExpireEntry && e.hrtimer.timer == x.hrtimer.timer;
    default:
        return false;
    }
}

// Clips @p lane to [from, to] and fills what it leaves uncovered there with Unknown pieces saying @p why.
void anatomyClipAndFill(std::vector<SwimSegment>& lane, int64_t from, int64_t to, const QString& why, bool fill)
{
    std::vector<SwimSegment> kept;
    for (SwimSegment s : lane) {
        if (s.toNs <= from || s.fromNs >= to)
            continue;
        s.fromNs = std::max(s.fromNs, from);
        s.toNs = std::min(s.toNs, to);
        kept.push_back(s);
    }
    if (fill) {
        // Holes between depth-0 pieces (lanes other than the interrupts are one piece at a time).
        std::vector<SwimSegment> holes;
        int64_t at = from;
        for (const SwimSegment& s : kept) {
            if (s.fromNs > at)
                holes.push_back({at, s.fromNs, SwimKind::Unknown, QObject::tr("unknown"), why, false, 0});
            at = std::max(at, s.toNs);
        }
        if (at < to)
            holes.push_back({at, to, SwimKind::Unknown, QObject::tr("unknown"), why, false, 0});
        kept.insert(kept.end(), holes.begin(), holes.end());
        std::stable_sort(kept.begin(), kept.end(),
                         [](const SwimSegment& x, const SwimSegment& y) { return x.fromNs < y.fromNs; });
    }
    lane = std::move(kept);
}

// What the lanes are read from: the wake-up's events in time order, the names they give the tasks, and the
// stretch of the thread's CPU they cover.
struct SwimlaneSource {
    const WakeupAnatomy& anatomy;
    std::vector<TraceEvent> events;
    anatomy::TaskNames names;
    int32_t tid = 0;
    int cpu = -1;
    int64_t wakeNs = 0;
    int64_t knownFromNs = 0;
    int64_t knownToNs = 0;
    QString noEvents; ///< the detail of what lies outside them

    // A task's name and kernel prio as the events give them (-2: no event says).
    std::pair<QString, int32_t> nameOf(int32_t pid) const
    {
        const auto it = names.find(pid);
        if (it == names.end())
            return {QObject::tr("pid %1").arg(pid), -2};
        return {it->second.first.empty() ? QObject::tr("pid %1").arg(pid) : QString::fromStdString(it->second.first),
                it->second.second};
    }
};

SwimlaneSource swimlaneSource(const TracedWakeup& w)
{
    const WakeupAnatomy& a = w.anatomy;
    SwimlaneSource src{a,
                       w.events,
                       {},
                       a.query.tid,
                       a.runCpu >= 0 ? a.runCpu : a.query.cpu,
                       std::max(a.query.wakeNs, a.query.deadlineNs),
                       0,
                       0,
                       {}};
    std::vector<TraceEvent>& ev = src.events;
    if (!std::is_sorted(ev.begin(), ev.end(), [](const TraceEvent& x, const TraceEvent& y) { return x.ts < y.ts; }))
        sortTraceEvents(ev);
    src.names = anatomy::taskNames(ev);
    // What the events cover on the thread's CPU: from the first event of the window to the wake time (and the
    // CPU's first event after it, which the window includes).
    const int64_t wake = src.wakeNs;
    src.knownFromNs = ev.empty() ? wake : ev.front().ts;
    src.knownToNs = ev.empty() ? wake : wake + kAnatomyToleranceNs;
    for (const TraceEvent& e : ev)
        if (e.cpu == src.cpu)
            src.knownToNs = std::max(src.knownToNs, e.ts);
    src.noEvents = ev.empty() ? QObject::tr("no kernel events were kept for this wake-up")
                              : QObject::tr("outside the events kept for this wake-up");
    return src;
}

// The CPU: who holds it. A switch names the task leaving and the one taking it; every other event names the
// task it ran in (common_pid). Where that is another task, a switch was not recorded: the change happened
// somewhere since the CPU's previous event, and that stretch is unknown. The idle task is known only up to the
// last event that names it (this kernel records no switch out of it), and at the wake time the measuring thread
// holds the CPU (it read its clock there).
std::vector<SwimSegment> cpuHolderLane(const SwimlaneSource& src)
{
    const auto& [a, ev, names, tid, cpu, wake, knownFrom, knownTo, noEvents] = src;
    std::vector<SwimSegment> out;
    AnatomyLaneBuilder lane(&out);
    AnatomyHolder holder;
    int64_t prevTs = knownFrom; // the CPU's previous event
    auto holderSegment = [&](int64_t at, int32_t pid, bool inferred) {
        holder = {pid, inferred};
        if (pid < 0) {
            lane.start(at, SwimKind::Unknown, QObject::tr("unknown"), noEvents);
            return;
        }
        const auto [comm, prio] = src.nameOf(pid);
        const SwimKind kind = anatomyHolderKind(pid, prio, tid);
        const QString label = pid == 0 ? QObject::tr("idle") : pid == tid ? QObject::tr("measuring thread") : comm;
        QString detail = pid == 0 ? QObject::tr("the idle task (%1)").arg(comm)
                                  : QObject::tr("%1 (pid %2, %3)")
                                        .arg(comm)
                                        .arg(pid)
                                        .arg(prio >= -1 ? QString::fromStdString(describeKernelPrio(prio))
                                                        : QObject::tr("policy unknown"));
        if (inferred)
            detail += QObject::tr(": its switch-in was not recorded; it is known from the events that ran in "
                                  "its context");
        lane.start(at, kind, label, detail, inferred);
    };
    // An unrecorded switch to @p pid, seen at @p at: unknown since the CPU's previous event.
    auto unrecordedSwitch = [&](int64_t at, int32_t pid, const QString& why) {
        const QString from = holder.pid == 0 ? QObject::tr("the idle task") : src.nameOf(holder.pid).first;
        lane.start(prevTs, SwimKind::Unknown, QObject::tr("unknown"),
                   QObject::tr("%1, then %2: the switch between them was not recorded%3")
                       .arg(from, pid == 0 ? QObject::tr("the idle task") : src.nameOf(pid).first, why));
        holderSegment(at, pid, true);
    };
    holderSegment(knownFrom, -1, false);
    bool wakePassed = false;
    auto passWake = [&] {
        wakePassed = true;
        if (holder.pid == tid || holder.pid < 0) {
            if (holder.pid < 0) // knowledge begins: it reads its clock on this CPU
                holderSegment(wake, tid, true);
            return;
        }
        unrecordedSwitch(wake, tid,
                         holder.pid == 0 ? QObject::tr(" (this kernel records no switch out of the idle task)")
                                         : QString());
    };
    for (const TraceEvent& e : ev) {
        if (e.cpu != cpu)
            continue;
        if (!wakePassed && e.ts > wake)
            passWake();
        if (e.type == TraceEventType::Lost) {
            const int64_t since = e.lost.sinceNs > 0 ? std::max(e.lost.sinceNs, prevTs) : prevTs;
            lane.start(since, SwimKind::Unknown, QObject::tr("lost"),
                       QObject::tr("the kernel lost %1 events here").arg(e.lost.count));
            lane.start(e.ts, SwimKind::Unknown, QObject::tr("unknown"), QObject::tr("after lost events"));
            holder = {-1, false};
            prevTs = e.ts;
            continue;
        }
        const int32_t named = e.type == TraceEventType::SchedSwitch ? e.sw.prev.pid : e.pid;
        if (named != holder.pid) {
            if (holder.pid < 0)
                holderSegment(e.ts, named, false); // knowledge begins here
            else
                unrecordedSwitch(e.ts, named,
                                 holder.pid == 0 ? QObject::tr(" (this kernel records no switch out of the idle task)")
                                                 : QString());
        }
        if (e.type == TraceEventType::SchedSwitch)
            holderSegment(e.ts, e.sw.next.pid, false);
        prevTs = e.ts;
    }
    if (!wakePassed)
        passWake();
    if (holder.pid == 0 && prevTs < knownTo) {
        // Idle since its last event, or not: a switch out of it would not show.
        lane.start(prevTs, SwimKind::Unknown, QObject::tr("unknown"),
                   QObject::tr("the idle task until some moment here: this kernel records no switch out of it"));
    }
    lane.close(knownTo);
    // The durations, now that the pieces are complete.
    for (SwimSegment& s : out)
        if (s.kind != SwimKind::Unknown || !s.detail.isEmpty())
            s.detail += QObject::tr(" — %1").arg(anatomyDur(s.toNs - s.fromNs));
    return out;
}

// The measuring thread: asleep, woken and waiting, running.
std::vector<SwimSegment> measuringThreadLane(const SwimlaneSource& src)
{
    const auto& [a, ev, names, tid, cpu, wake, knownFrom, knownTo, noEvents] = src;
    std::vector<SwimSegment> out;
    AnatomyLaneBuilder lane(&out);
    SwimKind state = SwimKind::Unknown;
    int64_t since = knownFrom;
    int64_t prevCpuTs = knownFrom;
    lane.start(knownFrom, SwimKind::Unknown, QObject::tr("unknown"), noEvents);
    auto set = [&](int64_t at, SwimKind kind, const QString& label, const QString& detail, bool inferred = false) {
        state = kind;
        since = at;
        lane.start(at, kind, label, detail, inferred);
    };
    bool wakeSeen = false;
    auto atWake = [&] {
        wakeSeen = true;
        if (state == SwimKind::Running)
            return;
        // It read its clock at the wake time, so it ran then: the switch-in the events lack lies between the
        // last thing they say and that moment.
        set(since, SwimKind::Unknown, QObject::tr("unknown"),
            QObject::tr("its switch-in was not recorded: it got the CPU somewhere in here (this kernel records "
                        "no switch out of the idle task)"));
        set(wake, SwimKind::Running, QObject::tr("runs"), QObject::tr("read its clock: the wake time"));
    };
    for (const TraceEvent& e : ev) {
        if (!wakeSeen && e.ts > wake)
            atWake();
        if (e.type == TraceEventType::Lost) {
            if (e.cpu != cpu)
                continue;
            const int64_t from = e.lost.sinceNs > 0 ? std::max(e.lost.sinceNs, since) : since;
            set(from, SwimKind::Unknown, QObject::tr("lost"),
                QObject::tr("the kernel lost %1 events here").arg(e.lost.count));
            set(e.ts, SwimKind::Unknown, QObject::tr("unknown"), QObject::tr("after lost events"));
            prevCpuTs = e.ts;
            continue;
        }
        if (e.type == TraceEventType::SchedSwitch && e.sw.prev.pid == tid) {
            const bool preempted = (e.sw.prevState & 0xff) == 0;
            if (preempted)
                set(e.ts, SwimKind::Waiting, QObject::tr("preempted"),
                    QObject::tr("preempted: runnable, waiting for the CPU"));
            else
                set(e.ts, SwimKind::Asleep, QObject::tr("asleep"), QObject::tr("asleep until its timer fires"));
        } else if (e.type == TraceEventType::SchedSwitch && e.sw.next.pid == tid) {
            set(e.ts, SwimKind::Running, QObject::tr("runs"), QObject::tr("on CPU %1").arg(e.cpu));
        } else if ((e.type == TraceEventType::SchedWaking || e.type == TraceEventType::SchedWakeup) &&
                   e.wake.task.pid == tid && state != SwimKind::Running && state != SwimKind::Waiting) {
            set(e.ts, SwimKind::Waiting, QObject::tr("woken, waits"),
                QObject::tr("woken by its timer, waiting for the CPU"));
        } else if (e.cpu == cpu && e.pid == tid && state != SwimKind::Running) {
            // An event in its context: it holds the CPU; since when, between the CPU's previous event and this
            // one, no event says.
            set(std::max(prevCpuTs, since), SwimKind::Unknown, QObject::tr("unknown"),
                QObject::tr("its switch-in was not recorded: it got the CPU somewhere in here"));
            set(e.ts, SwimKind::Running, QObject::tr("runs"),
                QObject::tr("on CPU %1 (its switch-in was not recorded)").arg(cpu), true);
        }
        if (e.cpu == cpu)
            prevCpuTs = e.ts;
    }
    if (!wakeSeen)
        atWake();
    lane.close(knownTo);
    for (SwimSegment& s : out)
        s.detail += QObject::tr(" — %1").arg(anatomyDur(s.toNs - s.fromNs));
    return out;
}

// Interrupt context on the CPU: hard IRQs, vectors, softirqs, hrtimer callbacks, nested.
std::vector<SwimSegment> interruptLane(const SwimlaneSource& src, int64_t windowFromNs, int64_t windowToNs)
{
    const auto& [a, ev, names, tid, cpu, wake, knownFrom, knownTo, noEvents] = src;
    std::vector<SwimSegment> lane;
    struct Open {
        TraceEvent entry;
        int depth;
        bool own;
    };
    std::vector<Open> stack;
    auto push = [&](const TraceEvent& entry, int64_t from, int64_t to, int depth, bool own, const QString& note) {
        QString full;
        const QString label = anatomyInterruptLabel(entry, a, own, &full);
        SwimSegment s{from, to, own ? SwimKind::OwnTimer : SwimKind::Interrupt, label, full, false, depth};
        s.detail += QObject::tr(" — %1").arg(anatomyDur(to - from)) + note;
        lane.push_back(s);
    };
    auto closeAll = [&](int64_t at, const QString& note) {
        while (!stack.empty()) {
            const Open o = stack.back();
            stack.pop_back();
            push(o.entry, o.entry.ts, at, o.depth, o.own, note);
        }
    };
    for (const TraceEvent& e : ev) {
        if (e.cpu != cpu)
            continue;
        if (e.type == TraceEventType::Lost) {
            const int64_t since = e.lost.sinceNs > 0 ? e.lost.sinceNs : knownFrom;
            closeAll(since, QObject::tr(" (its end was lost)"));
            lane.push_back({since, e.ts, SwimKind::Unknown, QObject::tr("lost"),
                            QObject::tr("the kernel lost %1 events here").arg(e.lost.count), false, 0});
        } else if (e.type == TraceEventType::SchedSwitch) {
            closeAll(e.ts, QString()); // a switch runs in task context: nothing is open across it
        } else if (anatomy::isInterruptEntry(e.type)) {
            const bool own = e.type == TraceEventType::HrtimerExpireEntry && a.timerNs && e.ts == *a.timerNs &&
                             int(e.cpu) == a.timerCpu;
            stack.push_back({e, int(stack.size()), own});
        } else if (anatomy::isInterruptExit(e.type)) {
            size_t k = stack.size();
            while (k-- > 0)
                if (anatomyCloses(stack[k].entry, e))
                    break;
            if (k < stack.size()) {
                while (stack.size() > k + 1) {
                    const Open o = stack.back();
                    stack.pop_back();
                    push(o.entry, o.entry.ts, e.ts, o.depth, o.own, QObject::tr(" (no exit recorded)"));
                }
                const Open o = stack.back();
                stack.pop_back();
                push(o.entry, o.entry.ts, e.ts, o.depth, o.own, QString());
            } else {
                // Its entry came before the events kept.
                TraceEvent entry = e;
                entry.type = e.type == TraceEventType::IrqExit       ? TraceEventType::IrqEntry
                             : e.type == TraceEventType::SoftirqExit ? TraceEventType::SoftirqEntry
                             : e.type == TraceEventType::VectorExit  ? TraceEventType::VectorEntry
                                                                     : TraceEventType::HrtimerExpireEntry;
                push(entry, knownFrom, e.ts, 0, false, QObject::tr(" (began before the events kept)"));
            }
        }
    }
    closeAll(knownTo, QObject::tr(" (still running where the events end)"));
    // Outer marks first: inner ones are drawn over them.
    std::stable_sort(lane.begin(), lane.end(), [](const SwimSegment& x, const SwimSegment& y) {
        return x.depth != y.depth ? x.depth < y.depth : x.fromNs < y.fromNs;
    });
    // Before the first event and after the last, nothing is known of interrupts either.
    if (knownFrom > windowFromNs)
        lane.insert(lane.begin(),
                    {windowFromNs, knownFrom, SwimKind::Unknown, QObject::tr("unknown"), noEvents, false, 0});
    if (knownTo < windowToNs)
        lane.insert(lane.begin(), {knownTo, windowToNs, SwimKind::Unknown, QObject::tr("unknown"), noEvents, false, 0});
    return lane;
}

} // namespace

std::vector<SwimSegment> latencyPartsLane(const WakeupAnatomy& a)
{
    const int64_t deadline = a.query.deadlineNs;
    const int64_t wake = std::max(a.query.wakeNs, deadline);
    std::vector<SwimSegment> lane;
    if (a.consistent) {
        if (a.timerIrqDelayNs && *a.timerIrqDelayNs > 0)
            lane.push_back({deadline, deadline + *a.timerIrqDelayNs, SwimKind::PartTimer,
                            QObject::tr("timer IRQ delay"),
                            QObject::tr("timer IRQ delay: %1").arg(anatomyDur(*a.timerIrqDelayNs)), false, 0});
        if (a.irqNs && a.schedulingNs) {
            const int64_t from =
                a.timerNs ? std::max(*a.timerNs, deadline)
                          : (a.runnableAtDeadline ? deadline : std::max(a.wakingNs.value_or(deadline), deadline));
            const int64_t to = a.switchInNs ? std::min(*a.switchInNs, wake) : wake;
            if (to > from)
                lane.push_back({from, to, SwimKind::PartWaiting, QObject::tr("waiting for the CPU"),
                                QObject::tr("waiting for the CPU: scheduling delay %1, interrupts %2")
                                    .arg(anatomyDur(*a.schedulingNs), anatomyDur(*a.irqNs)),
                                false, 0});
        }
        if (a.returnToUserNs && *a.returnToUserNs > 0)
            lane.push_back({wake - *a.returnToUserNs, wake, SwimKind::PartReturn, QObject::tr("return"),
                            QObject::tr("return to user: %1").arg(anatomyDur(*a.returnToUserNs)), false, 0});
    }
    std::stable_sort(lane.begin(), lane.end(),
                     [](const SwimSegment& x, const SwimSegment& y) { return x.fromNs < y.fromNs; });
    const QString why = a.note.empty() ? QObject::tr("no event tells how this time splits")
                                       : QString::fromStdString(withMicroSign(a.note));
    // Holes inside [deadline, wake] only: outside it there is no latency to split.
    std::vector<SwimSegment> holes;
    int64_t at = deadline;
    for (const SwimSegment& s : lane) {
        if (s.fromNs > at)
            holes.push_back({at, s.fromNs, SwimKind::Unknown, QObject::tr("unknown"),
                             QObject::tr("unknown, %1: %2").arg(anatomyDur(s.fromNs - at), why), false, 0});
        at = std::max(at, s.toNs);
    }
    if (at < wake)
        holes.push_back({at, wake, SwimKind::Unknown, QObject::tr("unknown"),
                         QObject::tr("unknown, %1: %2").arg(anatomyDur(wake - at), why), false, 0});
    lane.insert(lane.end(), holes.begin(), holes.end());
    std::stable_sort(lane.begin(), lane.end(),
                     [](const SwimSegment& x, const SwimSegment& y) { return x.fromNs < y.fromNs; });
    return lane;
}

AnatomySwimlaneData anatomySwimlaneData(const TracedWakeup& w)
{
    const WakeupAnatomy& a = w.anatomy;
    const SwimlaneSource src = swimlaneSource(w);
    const int64_t deadline = a.query.deadlineNs;
    const int64_t wake = src.wakeNs;
    const int64_t latency = wake - deadline;
    const int64_t margin = std::max<int64_t>(3'000, latency * 15 / 100);

    AnatomySwimlaneData d;
    d.originNs = deadline;
    d.fromNs = deadline - margin;
    d.toNs = wake + margin;
    d.axisTitle = QObject::tr("µs from deadline");
    d.laneNames = {QObject::tr("latency parts"), QObject::tr("measuring thread"),
                   QObject::tr("CPU %1 runs").arg(src.cpu), QObject::tr("interrupts")};
    d.lanes.resize(kViewLaneCount);
    d.lanes[kViewLaneParts] = latencyPartsLane(a);
    d.lanes[kViewLaneThread] = measuringThreadLane(src);
    d.lanes[kViewLaneCpu] = cpuHolderLane(src);
    d.lanes[kViewLaneIrq] = interruptLane(src, d.fromNs, d.toNs);
    const QString& noEvents = src.noEvents;
    anatomyClipAndFill(d.lanes[kViewLaneCpu], d.fromNs, d.toNs, noEvents, true);
    anatomyClipAndFill(d.lanes[kViewLaneThread], d.fromNs, d.toNs, noEvents, true);
    anatomyClipAndFill(d.lanes[kViewLaneIrq], d.fromNs, d.toNs, noEvents, false);

    d.lines.push_back({deadline, QObject::tr("deadline"), SwimLineRole::Deadline});
    if (a.timerNs)
        d.lines.push_back({*a.timerNs, QObject::tr("timer fired"), SwimLineRole::Timer});
    if (a.switchInNs)
        d.lines.push_back({*a.switchInNs, QObject::tr("switched in"), SwimLineRole::SwitchIn});
    d.lines.push_back({wake, QObject::tr("woke, %1 late").arg(anatomyDur(latency)), SwimLineRole::Wake});
    return d;
}

AnatomyBreakdownData anatomyBreakdownData(const WakeupAnatomy& a)
{
    AnatomyBreakdownData d;
    d.latencyNs = a.latencyNs;
    d.latencyText = anatomyDur(a.latencyNs);
    auto part = [&](BreakdownRole role, const QString& name, std::optional<int64_t> ns, const QString& detail) {
        d.parts.push_back({role, name, ns, ns ? anatomyDur(*ns) : QObject::tr("unknown"), detail});
    };
    const bool ok = a.consistent;
    part(BreakdownRole::TimerDelay, QObject::tr("timer IRQ delay"), ok ? a.timerIrqDelayNs : std::nullopt,
         a.idleAtTimer ? QObject::tr("the CPU was idle: includes the exit from idle") : QString());
    QString irqDetail;
    const auto top = std::find_if(a.interrupts.begin(), a.interrupts.end(),
                                  [](const AnatomyInterrupt& i) { return !i.ownTimer && i.ns > 0; });
    if (top != a.interrupts.end())
        irqDetail = QObject::tr("most: %1, %2").arg(QString::fromStdString(top->name), anatomyDur(top->ns));
    part(BreakdownRole::Interrupts, QObject::tr("interrupts"), ok ? a.irqNs : std::nullopt, irqDetail);
    QString schedDetail;
    if (a.schedulingNs) {
        const std::vector<AnatomyTaskShare> shares = taskShares(a);
        if (!shares.empty() && shares.front().ns > 0) {
            const AnatomyTaskShare& s = shares.front();
            schedDetail = QObject::tr("%1 (pid %2) %3")
                              .arg(s.comm.empty() ? QObject::tr("pid %1").arg(s.pid) : QString::fromStdString(s.comm))
                              .arg(s.pid)
                              .arg(anatomyDur(s.ns));
            if (shares.size() > 1)
                schedDetail += QObject::tr(" + %1 other").arg(shares.size() - 1);
        }
    }
    part(BreakdownRole::Scheduling, QObject::tr("scheduling delay"), ok ? a.schedulingNs : std::nullopt, schedDetail);
    part(BreakdownRole::ReturnToUser, QObject::tr("return to user"), ok ? a.returnToUserNs : std::nullopt, QString());
    if (!ok || !a.complete() || a.unaccountedNs != 0)
        d.parts.push_back({BreakdownRole::Unaccounted, QObject::tr("unknown"), a.unaccountedNs,
                           anatomyDur(a.unaccountedNs), QObject::tr("what the known parts leave unexplained")});
    return d;
}

QString tracingStatusHtml(const LatencyTracing& t, const LatencySnapshot& s)
{
    const QString red = colors::css(colors::kWarningRed);
    if (!t.active) {
        const QString why = t.unavailable.empty() ? QObject::tr("the run reports no reason")
                                                  : QString::fromStdString(t.unavailable).toHtmlEscaped();
        return QObject::tr("<span style='color:%1'><b>Kernel tracing is not running:</b> %2</span>").arg(red, why);
    }
    const double seconds = double(std::max<int64_t>(1, s.publishedNs - s.startNs)) / 1e9;
    const AnatomyFigures& f = t.figures;
    QStringList parts;
    QStringList cpus;
    for (const LatencyThreadStats& th : s.threads)
        cpus << QString::number(th.cpu);
    parts << QObject::tr("<b>Kernel tracing</b> on CPU %1: %2 events/s")
                 .arg(cpus.join(", "))
                 .arg(double(t.stats.events) / seconds, 0, 'f', 0);
    // Lost to the analysis: what the kernel dropped or overwrote, and what the queue to the collector had no room for.
    const uint64_t lost = t.stats.lostEvents + t.stats.kernelOverrun + t.stats.kernelDropped + t.queueDroppedEvents;
    if (lost > 0 || t.stats.lossReports > 0 || t.queueDroppedBatches > 0)
        parts << QObject::tr("<span style='color:%1'><b>⚠ %2 events lost</b> (%3 gaps): %4 wake-ups are partly "
                             "unknown</span>")
                     .arg(red)
                     .arg(lost)
                     .arg(t.stats.lossReports + t.queueDroppedBatches)
                     .arg(f.wakeupsWithLoss);
    else
        parts << QObject::tr("0 events lost");
    parts << QObject::tr("%1 of %2 wake-ups analysed (%3 fully)")
                 .arg(f.wakeupsAnalysed)
                 .arg(f.wakeupsSeen)
                 .arg(f.wakeupsComplete);
    if (t.thresholdNs > 0)
        parts << QObject::tr("%1 over %2").arg(f.overThresholdTotal).arg(anatomyDur(t.thresholdNs));
    if (f.wakeupsNotAnalysed > 0)
        parts << QObject::tr("%1 not analysed").arg(f.wakeupsNotAnalysed);
    if (!t.stopError.empty())
        parts << QObject::tr("<span style='color:%1'>%2</span>")
                     .arg(red, QString::fromStdString(t.stopError).toHtmlEscaped());
    if (!t.missingEvents.empty()) {
        QStringList missing;
        for (const std::string& m : t.missingEvents)
            missing << QString::fromStdString(m).toHtmlEscaped();
        parts << QObject::tr("this kernel lacks %1 (parts that need them stay unknown)").arg(missing.join(", "));
    }
    return parts.join(QStringLiteral(" · "));
}

} // namespace rtscope
