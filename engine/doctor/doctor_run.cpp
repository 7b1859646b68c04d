#include "engine/doctor/doctor_run.h"

#include "engine/doctor/cpuset_partition.h"
#include "engine/doctor/diagnosis.h"
#include "engine/doctor/session.h"
#include "engine/experiments/latency/latency_experiment.h"
#include "engine/experiments/noise/noise_experiment.h"
#include "engine/rt/load_process.h"
#include "engine/util/clock.h"
#include "engine/util/name_list.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <unistd.h>

namespace rtscope::doctor {

namespace {

std::string figuresText(const LatencyFigures& f)
{
    return "p50 " + usText(f.p50Us) + " us, p99 " + usText(f.p99Us) + " us, p99.9 " + usText(f.p99_9Us) + " us, max " +
           usText(f.maxUs) + " us (" + std::to_string(f.samples) + " wake-ups)";
}

// The io load: a 16 MiB file written and synced over and over (the page cache's writeback and the disk's interrupts
// are what a real-time thread meets on a workstation that saves files), removed when the shell ends.
std::string ioLoadCommand()
{
    const std::string dir = std::filesystem::temp_directory_path().string();
    return "f=$(mktemp -p '" + dir +
           "' rtscope-doctor-io.XXXXXX) || exit 1; trap 'rm -f \"$f\"' EXIT; trap 'exit 0' TERM INT; "
           "while :; do dd if=/dev/zero of=\"$f\" bs=1M count=16 conv=fsync status=none || exit 1; done";
}

} // namespace

const char* stageName(DoctorStage stage)
{
    return enumName<DoctorStage::Failed>(
        stage, {"idle", "baseline", "diagnosis", "trials", "combined", "keeping", "done", "stopped", "failed"});
}

std::vector<std::string> DoctorPlan::validate(const CpuTopology& topology) const
{
    std::vector<std::string> problems;
    if (cpu != -1 && !topology.usable(cpu))
        problems.push_back("cpu must be one of the usable CPUs " + topology.usableText() + " (got " +
                           std::to_string(cpu) + ")");
    if (topology.online.size() < 2)
        problems.push_back("the doctor needs at least two online CPUs: its fixes move work off the measured one");
    if (isRealtime(policy) && (priority < 1 || priority > 98))
        problems.push_back("priority must be 1..98 with policy " + std::string(policyName(policy)) +
                           " (99 is the guardian's and the kernel's) (got " + std::to_string(priority) + ")");
    if (!isRealtime(policy) && policy != Policy::Other)
        problems.push_back("policy must be fifo, rr or other (got " + std::string(policyName(policy)) + ")");
    if (periodNs < 100'000 || periodNs > 100'000'000)
        problems.push_back("period must be 100us..100ms (got " + std::to_string(periodNs / 1000) + " us)");
    if (load == DoctorLoadKind::Command && loadCommand.empty())
        problems.push_back("load command must not be empty");
    if (phases.pairs < 2 || phases.pairs > 20)
        problems.push_back("pairs must be 2..20 (got " + std::to_string(phases.pairs) + ")");
    if (phases.phaseNs < 100'000'000 || phases.phaseNs > 60'000'000'000)
        problems.push_back("phase length must be 100ms..60s");
    if (phases.baselineNs < 1'000'000'000 || phases.baselineNs > 600'000'000'000)
        problems.push_back("baseline length must be 1s..600s");
    if ((keep || hold) && !tryFixes)
        problems.push_back(std::string(keep ? "keep" : "hold") + " needs the trials: only a fix that helped is kept");
    if (keep && hold)
        problems.push_back(
            "keep and hold exclude each other: keep leaves the fixes to the journal, hold to the caller");
    return problems;
}

class DoctorRun::Loop {
public:
    Loop(DoctorRun& owner, DoctorPlan plan, CpuTopology topology)
        : m_owner(owner)
        , m_plan(std::move(plan))
        , m_topology(std::move(topology))
        , m_fsOwned(std::make_unique<RootFs>(m_plan.root))
        , m_fs(*m_fsOwned)
        , m_startNs(nowNs())
    {}

    void run();

private:
    bool stopping() const { return m_owner.m_stop.load(); }
    // Waits @p ns unless stopped (true: the time passed); a stop is seen within 50 ms.
    bool sleepFor(int64_t ns)
    {
        std::unique_lock lock(m_owner.m_mutex);
        return !m_owner.m_cv.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(ns, 0)),
                                      [this] { return stopping(); });
    }
    void log(const std::string& line)
    {
        if (m_owner.m_log)
            m_owner.m_log(line);
    }
    void emit(const DoctorEvent& event)
    {
        if (m_owner.m_events)
            m_owner.m_events(event);
    }
    void judged(const std::string& id, const TrialResult& result)
    {
        DoctorEvent e;
        e.kind = DoctorEvent::Kind::TrialJudged;
        e.finding = id;
        e.verdict = result.verdict;
        e.why = result.why;
        emit(e);
    }
    DoctorEvent phaseEvent(DoctorEvent::Kind kind, const std::string& finding, int phase, bool withFix) const
    {
        DoctorEvent e;
        e.kind = kind;
        e.finding = finding;
        e.phase = phase;
        e.phases = 2 * m_plan.phases.pairs;
        e.figures.withFix = withFix;
        return e;
    }
    void publish(const std::string& message)
    {
        m_progress.message = message;
        m_progress.elapsedNs = nowNs() - m_startNs;
        m_report.elapsedNs = m_progress.elapsedNs;
        const double budget = double(std::max<int64_t>(m_budgetNs, 1));
        m_progress.fraction = std::min(1.0, double(m_progress.elapsedNs) / budget);
        m_owner.publish(m_progress, std::make_shared<const DoctorReport>(m_report));
    }
    LatencyConfig measuringConfig(bool trace) const
    {
        LatencyConfig c;
        c.policy = m_policy;
        c.priority = isRealtime(m_policy) ? m_plan.priority : 0;
        c.periodNs = m_plan.periodNs;
        c.cpu = m_cpu;
        c.hogs = m_plan.load == DoctorLoadKind::Hogs ? 1 : 0;
        c.trace = trace;
        c.traceTop = LatencyConfig::kMaxTraceTop;
        return c;
    }
    // The histogram the running measurement has published (empty before its first publication).
    static Histogram histogramOf(const LatencyExperiment& exp)
    {
        auto s = exp.snapshot();
        return s && !s->threads.empty() ? s->threads.front().histogram : Histogram();
    }
    // Waits until @p untilNs unless stopped, publishing @p partial's view of the measurement every 250 ms.
    bool sleepPublishing(int64_t untilNs, const std::function<void()>& partial)
    {
        while (nowNs() < untilNs) {
            if (!sleepFor(std::min<int64_t>(250'000'000, untilNs - nowNs())))
                return false;
            partial();
            publish(m_progress.message);
        }
        return true;
    }
    // A snapshot published after @p sinceNs + @p lengthNs whose statistics were reset at or after @p sinceNs.
    std::shared_ptr<const LatencySnapshot> phaseSnapshot(LatencyExperiment& exp, int64_t sinceNs, int64_t lengthNs,
                                                         const std::function<void()>& partial)
    {
        if (!sleepPublishing(sinceNs + lengthNs, partial))
            return nullptr;
        for (int i = 0; i < 40; ++i) { // the collector publishes every 50 ms: 2 s is plenty
            auto s = exp.snapshot();
            if (s && s->resetNs >= sinceNs && s->publishedNs >= sinceNs + lengthNs)
                return s;
            if (!sleepFor(50'000'000))
                return nullptr;
        }
        return exp.snapshot();
    }

    bool baseline();
    /// The noise lab on the measured CPU (DoctorPlan::noise): its attribution as the evidence; the poller's tid joins
    /// @p measuringTids (never a culprit). nullopt with m_report.error set when it could not run.
    std::optional<MeasuredLateness> noiseEvidence(std::vector<int>& measuringTids);
    void chooseTrials();
    [[nodiscard]] Error knobsOf(const Fix& fix, std::vector<std::unique_ptr<Knob>>& out);
    bool trial(const std::vector<const Fix*>& fixes, TrialResult& result, const std::string& id,
               const std::string& label);
    void keepHelpful();
    void finish(DoctorStage stage);

    DoctorRun& m_owner;
    DoctorPlan m_plan;
    CpuTopology m_topology;
    std::unique_ptr<RootFs> m_fsOwned; ///< on the heap: a held session (HeldFixes) outlives the loop with it
    RootFs& m_fs;
    int64_t m_startNs = 0;
    int64_t m_budgetNs = 0;
    int m_cpu = -1;
    Policy m_policy = Policy::Fifo;
    DoctorReport m_report;
    DoctorProgress m_progress;
    LoadProcess m_load;
    std::unique_ptr<LatencyExperiment> m_trialExp;
    std::unique_ptr<DoctorSession> m_session;
    std::vector<size_t> m_trials; ///< indices of m_report.findings to try, in order
    bool m_anatomy = false;       ///< the baseline was traced: the findings have their shares
};

bool DoctorRun::Loop::baseline()
{
    m_progress.stage = DoctorStage::Baseline;
    publish("baseline: measuring CPU " + std::to_string(m_cpu) + " for " +
            std::to_string(m_plan.phases.baselineNs / 1'000'000'000) + " s with the anatomy on");
    const Expected<std::string> interrupts = m_fs.readText("/proc/interrupts", 1 << 20);
    const std::vector<IrqFact> before = interrupts ? parseInterrupts(*interrupts) : std::vector<IrqFact>();
    LatencyExperiment exp;
    exp.setLockAllMemory(true);
    exp.setCollectorPace(10 * kNsPerMs, 50 * kNsPerMs);
    Error e = exp.start(measuringConfig(true), m_topology);
    if (e && e.kind == ErrorKind::Permission && isRealtime(m_policy)) {
        // Without the privilege of a real-time thread the doctor still diagnoses, from a SCHED_OTHER baseline.
        m_report.anatomyNote = "the baseline ran as SCHED_OTHER: " + e.message;
        m_policy = Policy::Other;
        e = exp.start(measuringConfig(true), m_topology);
    }
    if (e) {
        m_report.error = "the baseline could not start: " + e.message;
        return false;
    }
    sleepPublishing(nowNs() + m_plan.phases.baselineNs, [&] { m_progress.live = histogramOf(exp); });
    exp.stop();
    if (stopping())
        return false;
    auto snap = exp.snapshot();
    if (!snap || snap->threads.empty()) {
        m_report.error = "the baseline published nothing";
        return false;
    }
    const LatencyThreadStats& t = snap->threads.front();
    m_report.baselineHistogram = t.histogram;
    m_report.baseline = figuresOf(t.histogram);
    m_report.baselineDone = true;
    m_report.measuring = policyLabel(m_policy, isRealtime(m_policy) ? m_plan.priority : 0) + " · " +
                         std::to_string(m_plan.periodNs / 1000) + " us";
    log("baseline: " + figuresText(m_report.baseline));

    m_progress.stage = DoctorStage::Diagnosis;
    publish("reading the machine's facts");
    m_report.facts = readMachineFacts(m_fs, m_cpu);
    const std::vector<uint64_t> counts = interruptsSince(before, m_report.facts.irqs, m_cpu);
    for (size_t i = 0; i < counts.size(); ++i)
        m_report.facts.irqs[i].runCount = counts[i];
    AnatomyFigures figures;
    if (snap->tracing && snap->tracing->active) {
        figures = snap->tracing->figures;
        m_anatomy = true;
        m_report.anatomyNote += (m_report.anatomyNote.empty() ? "" : "; ") + std::to_string(figures.wakeupsAnalysed) +
                                " of " + std::to_string(figures.wakeupsSeen) + " wake-ups analysed, the " +
                                std::to_string(figures.worst.size()) + " worst kept with their anatomy";
    } else {
        m_report.anatomyNote += (m_report.anatomyNote.empty() ? "" : "; ") + std::string("no anatomy: ") +
                                (snap->tracing ? snap->tracing->unavailable : "tracing was not asked for") +
                                "; the findings rest on the facts alone";
    }
    DiagnosisContext ctx;
    ctx.cpu = m_cpu;
    ctx.policy = m_policy;
    ctx.priority = m_plan.priority;
    for (const LatencyThreadStats& th : snap->threads)
        ctx.measuringTids.push_back(th.tid);
    ctx.onlineCpus = m_topology.online;
    ctx.loadHogs = m_plan.load == DoctorLoadKind::Hogs;
    MeasuredLateness lateness = summarizeLateness(figures, t.histogram.mean());
    if (m_plan.noise) {
        std::optional<MeasuredLateness> noise = noiseEvidence(ctx.measuringTids);
        if (!noise)
            return false;
        lateness = std::move(*noise);
    }
    m_report.findings = diagnose(m_report.facts, lateness, ctx);
    publish(std::to_string(m_report.findings.size()) + " finding(s)");
    DoctorEvent done;
    done.kind = DoctorEvent::Kind::BaselineDone;
    emit(done);
    return true;
}

std::optional<MeasuredLateness> DoctorRun::Loop::noiseEvidence(std::vector<int>& measuringTids)
{
    NoiseConfig config;
    config.cpus = {m_cpu};
    config.durationNs = std::min<int64_t>(m_plan.phases.baselineNs, 10 * kNsPerSec);
    publish("noise: a busy poller on CPU " + std::to_string(m_cpu) + " for " +
            std::to_string(config.durationNs / kNsPerSec) + " s, every gap attributed");
    NoiseExperiment exp;
    exp.setLockAllMemory(true);
    if (Error e = exp.start(config, m_topology)) {
        m_report.error = "the noise measurement could not start: " + e.message;
        return std::nullopt;
    }
    sleepPublishing(nowNs() + config.durationNs, [] {});
    exp.stop();
    if (stopping())
        return std::nullopt;
    const auto snap = exp.snapshot();
    if (!snap || snap->cpus.empty()) {
        m_report.error = "the noise measurement published nothing";
        return std::nullopt;
    }
    const NoiseCpuStats& c = snap->cpus.front();
    measuringTids.push_back(c.tid);
    char line[256];
    std::snprintf(line, sizeof line,
                  "evidence: the noise lab, %.1f s of busy polling: %.4f %% available, %llu gaps, longest %.1f us; ",
                  double(c.runtimeNs) / 1e9, c.availablePercent, (unsigned long long)c.gaps,
                  double(c.maxSingleNs) / 1000.0);
    m_report.anatomyNote += (m_report.anatomyNote.empty() ? "" : "; ") + std::string(line) +
                            (snap->traced ? "every gap attributed from the kernel's trace events" +
                                                (snap->traceNote.empty() ? std::string() : " (" + snap->traceNote + ")")
                                          : "not attributed: " + snap->traceNote);
    log(line);
    return summarizeNoise(*snap, m_cpu);
}

void DoctorRun::Loop::chooseTrials()
{
    int chosen = 0;
    for (size_t i = 0; i < m_report.findings.size(); ++i) {
        Finding& f = m_report.findings[i];
        const bool asked = std::find(m_plan.only.begin(), m_plan.only.end(), f.id) != m_plan.only.end();
        if (!m_plan.only.empty() && !asked) {
            f.trial.why = "not asked for";
            continue;
        }
        if (!f.fix.runtime) {
            f.trial.why = "boot-only: it needs a reboot (see --recipe)";
            continue;
        }
        if (f.fix.changes.empty() && f.fix.kind != FixKind::CpusetPartition) {
            f.trial.why = "nothing to change at run time: " + f.fix.from;
            continue;
        }
        // Without an anatomy nothing has a share: the trials are what tells the fixes apart.
        if (!asked && f.tailShare <= 0 && f.share <= 0 && !m_plan.phases.tryUnseen && m_anatomy) {
            f.trial.why = "it explains none of the measured lateness (--thorough tries it anyway)";
            continue;
        }
        if (!asked && chosen >= m_plan.phases.maxTrials) {
            f.trial.why = "beyond the " + std::to_string(m_plan.phases.maxTrials) + " trials of a " +
                          depthName(m_plan.depth) + " run (--thorough tries every one)";
            continue;
        }
        m_trials.push_back(i);
        ++chosen;
    }
}

Error DoctorRun::Loop::knobsOf(const Fix& fix, std::vector<std::unique_ptr<Knob>>& out)
{
    if (fix.kind == FixKind::CpusetPartition) {
        const CpusetHierarchies& h = m_report.facts.cpusets;
        auto knobs = !h.v2.empty() ? cpusetV2Partition(m_fs, h.v2, m_cpu)
                                   : (!h.v1.empty() ? cpusetV1Partition(m_fs, h.v1, m_cpu)
                                                    : Expected<std::vector<std::unique_ptr<Knob>>>(failure(
                                                          ErrorKind::Unavailable, "no cpuset hierarchy: " + h.v2Note)));
        if (!knobs)
            return knobs.error();
        for (auto& k : *knobs)
            out.push_back(std::move(k));
        return Error::none();
    }
    for (const KnobChange& c : fix.changes) {
        auto k = makeKnob(m_fs, c, KnobOrigin::New);
        if (!k)
            return k.error();
        out.push_back(std::move(k).value());
    }
    return Error::none();
}

bool DoctorRun::Loop::trial(const std::vector<const Fix*>& fixes, TrialResult& result, const std::string& id,
                            const std::string& label)
{
    result = TrialResult{};
    m_progress.phases.clear();
    m_progress.live = Histogram();
    m_progress.liveWithout = Histogram();
    Histogram before(0);
    Histogram after(0);
    for (int pair = 0; pair < m_plan.phases.pairs; ++pair) {
        for (const bool withFix : {false, true}) {
            const std::string what = label + " · phase " + (withFix ? "B" : "A") + " " + std::to_string(pair + 1) +
                                     " of " + std::to_string(m_plan.phases.pairs);
            publish(what);
            const int phase = 2 * pair + (withFix ? 1 : 0);
            emit(phaseEvent(DoctorEvent::Kind::PhaseStarted, id, phase, withFix));
            if (withFix) {
                std::vector<std::unique_ptr<Knob>> knobs;
                Error e;
                for (const Fix* f : fixes)
                    if (!e)
                        e = knobsOf(*f, knobs);
                // Fixes tried together may share a knob (a softirq's IRQs and one of them on its own): once is enough.
                std::vector<std::unique_ptr<Knob>> unique;
                for (auto& k : knobs)
                    if (std::none_of(unique.begin(), unique.end(), [&](const auto& u) { return u->id() == k->id(); }))
                        unique.push_back(std::move(k));
                if (!e)
                    e = m_session->applyAll(std::move(unique));
                if (e) {
                    result = TrialResult{}; // an A phase alone is no trial: no figures
                    result.why = "could not apply: " + e.message;
                    judged(id, result);
                    return !stopping();
                }
            }
            if (!sleepFor(m_plan.phases.settleNs))
                return false;
            const int64_t since = nowNs();
            m_trialExp->resetStatistics();
            auto snap = phaseSnapshot(*m_trialExp, since, m_plan.phases.phaseNs, [&] {
                Histogram partial = histogramOf(*m_trialExp);
                partial.merge(withFix ? after : before);
                (withFix ? m_progress.live : m_progress.liveWithout) = std::move(partial);
            });
            if (withFix)
                if (Error e = m_session->revertAll()) {
                    m_report.restore.push_back(e.message);
                    result.restored = false;
                }
            if (!snap)
                return false;
            if (snap->threads.empty() || !snap->error.empty()) {
                m_report.error = "the measurement failed during a trial: " + snap->error;
                return false;
            }
            const Histogram& h = snap->threads.front().histogram;
            (withFix ? after : before).merge(h);
            result.phases.push_back({withFix, figuresOf(h)});
            m_progress.phases = result.phases;
            DoctorEvent finished = phaseEvent(DoctorEvent::Kind::PhaseFinished, id, phase, withFix);
            finished.figures = result.phases.back();
            emit(finished);
        }
    }
    result.before = figuresOf(before);
    result.after = figuresOf(after);
    result.beforeHistogram = before;
    result.afterHistogram = after;
    result.verdict = judgeTrial(result.phases, result.why);
    judged(id, result);
    return true;
}

void DoctorRun::Loop::keepHelpful()
{
    std::vector<std::unique_ptr<Knob>> knobs;
    for (const Finding& f : m_report.findings) {
        if (f.trial.verdict != Verdict::Helped)
            continue;
        if (f.fix.kind == FixKind::CpuDmaLatency && !m_plan.hold) {
            m_report.keepNote = "/dev/cpu_dma_latency is a request that ends with the process holding it: not kept "
                                "(the recipe's tuned profile holds it, force_latency)";
            continue;
        }
        if (Error e = knobsOf(f.fix, knobs)) {
            m_report.keepNote += (m_report.keepNote.empty() ? "" : "; ") + f.id + ": " + e.message;
            continue;
        }
        m_report.kept.push_back(f.id);
    }
    if (m_report.kept.empty()) {
        m_report.keepNote += std::string(m_report.keepNote.empty() ? "" : "; ") + "nothing that helped can be kept";
        return;
    }
    if (Error e = m_session->applyAll(std::move(knobs))) {
        m_report.keepNote += (m_report.keepNote.empty() ? "" : "; ") + std::string("not kept: ") + e.message;
        m_report.kept.clear();
        return;
    }
    if (m_plan.hold) {
        // The caller takes the session with the fixes applied; its guardian goes on watching this process.
        auto held = std::make_unique<HeldFixes>(std::move(m_fsOwned), std::move(m_session), m_report.kept);
        std::lock_guard lock(m_owner.m_mutex);
        m_owner.m_held = std::move(held);
        return;
    }
    if (Error e = m_session->keep()) {
        m_report.keepNote += (m_report.keepNote.empty() ? "" : "; ") + std::string("not kept: ") + e.message;
        m_report.kept.clear();
    }
}

void DoctorRun::Loop::finish(DoctorStage stage)
{
    m_trialExp.reset(); // the measuring threads leave first (joined within 100 ms), then the machine is put back
    if (m_session && !m_session->finished())
        if (Error e = m_session->finish())
            m_report.restore.push_back(e.message);
    m_session.reset();
    m_load.stop();
    m_report.stopped = stage == DoctorStage::Stopped;
    m_progress.stage = stage;
    publish(stageName(stage));
    DoctorEvent e;
    e.kind = DoctorEvent::Kind::Finished;
    e.stage = stage;
    e.why = m_report.error;
    emit(e);
}

void DoctorRun::Loop::run()
{
    m_cpu = m_plan.cpu >= 0 ? m_plan.cpu : m_topology.lastUsable();
    m_policy = m_plan.policy;
    m_report.cpu = m_cpu;
    m_report.depth = m_plan.depth;
    m_budgetNs = m_plan.tryFixes ? m_plan.phases.budgetNs() : m_plan.phases.baselineNs;
    switch (m_plan.load) {
    case DoctorLoadKind::None:
        m_report.load = "none";
        break;
    case DoctorLoadKind::Hogs:
        m_report.load = "hogs (one SCHED_OTHER hog on the measured CPU)";
        break;
    case DoctorLoadKind::Io:
        m_report.load = "io (16 MiB written and synced in a loop)";
        break;
    case DoctorLoadKind::Command:
        m_report.load = "command: " + m_plan.loadCommand;
        break;
    }
    const std::string loadCommand = m_plan.load == DoctorLoadKind::Io ? ioLoadCommand() : m_plan.loadCommand;
    if (!loadCommand.empty())
        if (Error e = m_load.start(loadCommand)) {
            m_report.error = "the load could not start: " + e.message;
            return finish(DoctorStage::Failed);
        }
    if (!baseline())
        return finish(stopping() ? DoctorStage::Stopped : DoctorStage::Failed);
    chooseTrials();
    if (!m_plan.tryFixes) {
        m_report.trialsNotRun = "trials not asked for (--no-trials)";
    } else if (m_trials.empty()) {
        m_report.trialsNotRun = "no run-time fix to try";
    } else if (::geteuid() != 0) {
        m_report.trialsNotRun = "the trials change /proc, /sys and other threads' scheduling, which needs root "
                                "(sudo rtscope doctor)";
    } else {
        DoctorSession::Options o;
        o.paths = m_plan.journal;
        o.guardian = m_plan.guardian;
        o.command = m_plan.command;
        // A copy of the log, not the loop: a held session (HeldFixes) outlives the loop and may still report.
        o.report = [log = m_owner.m_log](const std::string& line) {
            if (log)
                log(line);
        };
        auto s = DoctorSession::begin(m_fs, std::move(o));
        if (!s)
            m_report.trialsNotRun = s.error().message;
        else
            m_session = std::move(s).value();
    }
    if (!m_session) {
        m_report.trialsWanted = int(m_trials.size());
        for (size_t i : m_trials)
            m_report.findings[i].trial.why = "not tried: " + m_report.trialsNotRun;
        m_trials.clear();
        return finish(DoctorStage::Done);
    }
    m_report.trialsRun = true;
    m_report.trialsWanted = int(m_trials.size());
    m_trialExp = std::make_unique<LatencyExperiment>();
    m_trialExp->setLockAllMemory(true);
    m_trialExp->setCollectorPace(10 * kNsPerMs, 50 * kNsPerMs);
    if (Error e = m_trialExp->start(measuringConfig(false), m_topology)) {
        m_report.error = "the trials' measurement could not start: " + e.message;
        return finish(DoctorStage::Failed);
    }
    m_progress.stage = DoctorStage::Trials;
    for (size_t n = 0; n < m_trials.size(); ++n) {
        Finding& f = m_report.findings[m_trials[n]];
        m_progress.finding = f.id;
        const std::string label =
            "trial " + std::to_string(n + 1) + " of " + std::to_string(m_trials.size()) + ": " + f.fix.target;
        if (!trial({&f.fix}, f.trial, f.id, label))
            return finish(stopping() ? DoctorStage::Stopped : DoctorStage::Failed);
        log(f.id + ": " + verdictName(f.trial.verdict) + " — " + f.trial.why);
    }
    std::vector<const Fix*> helpful;
    for (const Finding& f : m_report.findings)
        if (f.trial.verdict == Verdict::Helped) {
            helpful.push_back(&f.fix);
            m_report.combinedIds.push_back(f.id);
        }
    if (helpful.size() >= 2) {
        m_progress.stage = DoctorStage::Combined;
        m_progress.finding = "combined";
        if (!trial(helpful, m_report.combined, "combined", "the helpful fixes together"))
            return finish(stopping() ? DoctorStage::Stopped : DoctorStage::Failed);
        log("combined: " + std::string(verdictName(m_report.combined.verdict)) + " — " + m_report.combined.why);
    } else {
        m_report.combined.why = helpful.empty() ? "no fix helped" : "one fix helped: its own trial is the combined one";
    }
    m_trialExp.reset();
    if ((m_plan.keep || m_plan.hold) && !stopping()) {
        m_progress.stage = DoctorStage::Keeping;
        publish("keeping what helped");
        keepHelpful();
    }
    finish(DoctorStage::Done);
}

DoctorRun::DoctorRun() = default;

DoctorRun::~DoctorRun()
{
    stop();
}

Error DoctorRun::start(const DoctorPlan& plan, const CpuTopology& topology)
{
    if (m_running.load())
        return failure(ErrorKind::InvalidConfig, "the doctor is already running");
    if (const auto problems = plan.validate(topology); !problems.empty()) {
        std::string text;
        for (const std::string& p : problems)
            text += (text.empty() ? "" : "; ") + p;
        return failure(ErrorKind::InvalidConfig, text);
    }
    // A second doctor (or the GUI) refuses before it measures anything: its baseline would measure the first one's
    // trials. The session checks again under the lock before the first change.
    if (plan.tryFixes && ::geteuid() == 0) {
        RootFs fs(plan.root);
        const JournalStatus status = journalStatus(fs, plan.journal);
        if (status.state != JournalState::None)
            return failure(ErrorKind::Unavailable, status.sentence);
    }
    if (m_thread.joinable())
        m_thread.join();
    m_stop.store(false);
    m_running.store(true);
    {
        std::lock_guard lock(m_mutex);
        m_progress = DoctorProgress{};
        m_report.reset();
    }
    m_thread = std::thread([this, plan, topology] {
        Loop loop(*this, plan, topology);
        loop.run();
        {
            std::lock_guard lock(m_mutex); // under the lock: wait() must not miss it
            m_running.store(false);
        }
        m_cv.notify_all();
    });
    return Error::none();
}

void DoctorRun::requestStop()
{
    {
        std::lock_guard lock(m_mutex); // under the lock: a sleepFor() between its check and its wait must see it
        m_stop.store(true);
    }
    m_cv.notify_all();
}

void DoctorRun::stop()
{
    requestStop();
    if (m_thread.joinable())
        m_thread.join();
}

bool DoctorRun::wait(int timeoutMs)
{
    std::unique_lock lock(m_mutex);
    const auto done = [this] {
        return !m_running.load();
    };
    if (timeoutMs < 0)
        m_cv.wait(lock, done);
    else
        m_cv.wait_for(lock, std::chrono::milliseconds(timeoutMs), done);
    return done();
}

DoctorProgress DoctorRun::progress() const
{
    std::lock_guard lock(m_mutex);
    return m_progress;
}

std::unique_ptr<HeldFixes> DoctorRun::takeHeld()
{
    std::lock_guard lock(m_mutex);
    return std::move(m_held);
}

HeldFixes::HeldFixes(std::unique_ptr<RootFs> fs, std::unique_ptr<DoctorSession> session,
                     std::vector<std::string> findings)
    : m_fs(std::move(fs))
    , m_session(std::move(session))
    , m_findings(std::move(findings))
{}

HeldFixes::~HeldFixes()
{
    m_session.reset(); // finish(): every change put back, before the file system it acts on goes
}

std::vector<std::string> HeldFixes::changes() const
{
    std::vector<std::string> out;
    if (active())
        for (const Knob* k : m_session->applied())
            out.push_back(k->label() + ": " + k->change().from + " \u2192 " + k->change().to);
    return out;
}

bool HeldFixes::active() const
{
    return m_session && !m_session->finished();
}

Error HeldFixes::revertAll()
{
    if (!active())
        return Error::none();
    return m_session->finish();
}

Error HeldFixes::keepUntilReboot()
{
    if (!active())
        return Error::none();
    return m_session->keep();
}

std::shared_ptr<const DoctorReport> DoctorRun::report() const
{
    std::lock_guard lock(m_mutex);
    return m_report;
}

void DoctorRun::publish(const DoctorProgress& progress, std::shared_ptr<const DoctorReport> report)
{
    {
        std::lock_guard lock(m_mutex);
        m_progress = progress;
        m_report = std::move(report);
    }
    m_cv.notify_all();
}

} // namespace rtscope::doctor
