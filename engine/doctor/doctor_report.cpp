#include "engine/doctor/doctor_report.h"

#include "engine/formats/probe_json.h"
#include "engine/util/printable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace rtscope::doctor {

namespace {

using nlohmann::json;

json damonJson(const std::vector<DamonFact>& monitors)
{
    json out = json::array();
    for (const DamonFact& d : monitors)
        out.push_back({{"kdamond", d.index},
                       {"state", d.state},
                       {"operations", d.operations},
                       {"sample_us", d.sampleUs >= 0 ? json(d.sampleUs) : json()}});
    return out;
}

double rounded(double v)
{
    return std::round(v * 10.0) / 10.0;
}

json figuresJson(const LatencyFigures& f)
{
    return {{"p50_us", rounded(f.p50Us)},
            {"p99_us", rounded(f.p99Us)},
            {"p99_9_us", rounded(f.p99_9Us)},
            {"max_us", rounded(f.maxUs)},
            {"samples", f.samples}};
}

json trialJson(const TrialResult& t)
{
    const bool measured = t.verdict != Verdict::NotTried || !t.phases.empty();
    return {{"before", measured ? figuresJson(t.before) : json()},
            {"after", measured ? figuresJson(t.after) : json()},
            {"verdict", verdictName(t.verdict)},
            {"why", t.why}};
}

json factsJson(const MachineFacts& f)
{
    json irqs = json::array();
    for (const IrqFact& i : f.irqs)
        if (i.irq >= 0 && (i.runCount > 0 || i.effective == std::to_string(f.cpu)))
            irqs.push_back({{"irq", i.irq},
                            {"name", i.name},
                            {"affinity", i.affinity},
                            {"effective", i.effective},
                            {"count_during_baseline", i.runCount}});
    json threads = json::array();
    for (const SystemThread& t : f.threads)
        if (t.realtime())
            threads.push_back({{"tid", t.tid},
                               {"name", t.name},
                               {"policy", t.policy},
                               {"priority", t.rtPriority},
                               {"cpus", t.allowedCpus}});
    json idle = json::array();
    for (const IdleStateFact& s : f.idleStates)
        idle.push_back({{"name", s.name}, {"exit_latency_us", s.exitLatencyUs}, {"disabled", s.disabled}});
    return {{"probe", toJson(f.probe)},
            {"preempt_mode", f.preemptMode.empty() ? json() : json(f.preemptMode)},
            {"preempt_mode_note", f.preemptModeNote},
            {"cmdline", f.cmdline},
            {"irqs_on_cpu", irqs},
            {"realtime_threads_on_cpu", threads},
            {"idle_driver", f.idleDriver},
            {"idle_governor", f.idleGovernor},
            {"idle_states", idle},
            {"cpufreq_governor", f.cpufreqGovernor},
            {"thp_enabled", f.thpEnabled},
            {"thp_defrag", f.thpDefrag},
            {"damon", damonJson(f.damon)},
            {"timer_migration", f.timerMigration},
            {"nmi_watchdog", f.nmiWatchdog},
            {"soft_watchdog", f.softWatchdog},
            {"watchdog_cpumask", f.watchdogCpumask},
            {"workqueue_cpumask", f.workqueueCpumask},
            {"smt_siblings", f.smtSiblings},
            {"cpuset_v1", f.cpusets.v1},
            {"cpuset_v2", f.cpusets.v2}};
}

std::string trialSummary(const TrialResult& t)
{
    if (t.verdict == Verdict::NotTried)
        return std::string("not tried") + (t.why.empty() ? "" : ": " + t.why);
    return std::string(verdictName(t.verdict)) + ": p99 " + usText(t.before.p99Us) + " -> " + usText(t.after.p99Us) +
           " us, p50 " + usText(t.before.p50Us) + " -> " + usText(t.after.p50Us) + " us, max " +
           usText(t.before.maxUs) + " -> " + usText(t.after.maxUs) + " us (" + t.why + ")";
}

std::string fixText(const Fix& f)
{
    return std::string(fixKindName(f.kind)) + " " + f.target + ": " + f.from + " -> " + f.to +
           (f.runtime ? " (run time)" : " (boot only)");
}

std::string htmlText(const std::string& text)
{
    std::string out;
    for (char c : printable(text)) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

// One histogram as a step line over a logarithmic latency axis, counts as a share of the samples (log scale too, so
// that the rare late wake-ups the fixes are about are visible next to the bulk).
struct HistogramCurve {
    const Histogram* h;
    const char* colour;
    const char* label;
};

std::string svgHistogram(const std::vector<HistogramCurve>& curves)
{
    constexpr double kW = 640, kH = 220, kLeft = 50, kRight = 10, kTop = 10, kBottom = 36;
    double lo = 1e9, hi = 0;
    double minShare = 1;
    for (const HistogramCurve& c : curves) {
        if (c.h->count() == 0)
            continue;
        c.h->forEachBucket([&](int64_t low, int64_t high, uint64_t n) {
            lo = std::min(lo, std::max(0.1, double(low) / 1000.0));
            hi = std::max(hi, double(high) / 1000.0);
            minShare = std::min(minShare, double(n) / double(c.h->count()));
        });
    }
    if (hi <= lo)
        return "<p>(no samples)</p>";
    // Whole decades on both axes, at least one each (a single bucket would make an axis of no width).
    const double lx0 = std::floor(std::log10(lo)), lx1 = std::max(std::ceil(std::log10(hi)), lx0 + 1);
    const double ly1 = 0, ly0 = std::min(std::floor(std::log10(minShare)), ly1 - 1);
    const double xMin = std::pow(10.0, lx0); // the axis starts at its first decade, where its first tick is
    const auto x = [&](double v) {
        return kLeft + (std::log10(std::max(v, xMin)) - lx0) / (lx1 - lx0) * (kW - kLeft - kRight);
    };
    const auto y = [&](double share) {
        return kTop + (ly1 - std::log10(share)) / (ly1 - ly0) * (kH - kTop - kBottom);
    };
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + usText(kW) + "\" height=\"" + usText(kH) +
                      "\" viewBox=\"0 0 " + usText(kW) + " " + usText(kH) +
                      "\" font-size=\"11\" font-family=\"sans-serif\">";
    svg += "<rect x=\"0\" y=\"0\" width=\"" + usText(kW) + "\" height=\"" + usText(kH) + "\" fill=\"#fff\"/>";
    for (double d = lx0; d <= lx1; ++d) {
        const double v = std::pow(10.0, d);
        svg += "<line x1=\"" + usText(x(v)) + "\" x2=\"" + usText(x(v)) + "\" y1=\"" + usText(kTop) + "\" y2=\"" +
               usText(kH - kBottom) + "\" stroke=\"#ddd\"/>";
        // The last decade's label ends at the axis' end: centred there, "10000" would run off the picture.
        svg += "<text x=\"" + usText(x(v)) + "\" y=\"" + usText(kH - kBottom + 14) + "\" text-anchor=\"" +
               (d == lx1 ? "end" : "middle") + "\">" + (v < 1 ? usText(v) : std::to_string(int64_t(v))) + "</text>";
    }
    for (double d = ly0; d <= ly1; ++d) {
        svg += "<line x1=\"" + usText(kLeft) + "\" x2=\"" + usText(kW - kRight) + "\" y1=\"" +
               usText(y(std::pow(10.0, d))) + "\" y2=\"" + usText(y(std::pow(10.0, d))) + "\" stroke=\"#eee\"/>";
        svg += "<text x=\"" + usText(kLeft - 4) + "\" y=\"" + usText(y(std::pow(10.0, d)) + 4) +
               "\" text-anchor=\"end\">1e" + std::to_string(int(d)) + "</text>";
    }
    svg += "<text x=\"" + usText((kW + kLeft) / 2) + "\" y=\"" + usText(kH - 4) +
           "\" text-anchor=\"middle\">latency (us, log)</text>";
    double legendX = kW - kRight - 190;
    for (const HistogramCurve& c : curves) {
        if (c.h->count() == 0)
            continue;
        std::string points;
        c.h->forEachBucket([&](int64_t low, int64_t high, uint64_t n) {
            const double share = double(n) / double(c.h->count());
            const double yTop = y(share);
            points += usText(x(double(low) / 1000.0)) + "," + usText(kH - kBottom) + " " +
                      usText(x(double(low) / 1000.0)) + "," + usText(yTop) + " " + usText(x(double(high) / 1000.0)) +
                      "," + usText(yTop) + " " + usText(x(double(high) / 1000.0)) + "," + usText(kH - kBottom) + " ";
        });
        svg += "<polyline fill=\"none\" stroke=\"" + std::string(c.colour) + "\" stroke-width=\"1.5\" points=\"" +
               points + "\"/>";
        svg += "<rect x=\"" + usText(legendX) + "\" y=\"" + usText(kTop + 2) + "\" width=\"10\" height=\"10\" fill=\"" +
               c.colour + "\"/><text x=\"" + usText(legendX + 14) + "\" y=\"" + usText(kTop + 11) + "\">" + c.label +
               "</text>";
        legendX += 95;
    }
    return svg + "</svg>";
}

std::string figuresRow(const char* name, const LatencyFigures& f)
{
    return std::string("<tr><th>") + name + "</th><td>" + usText(f.p50Us) + "</td><td>" + usText(f.p99Us) +
           "</td><td>" + usText(f.p99_9Us) + "</td><td>" + usText(f.maxUs) + "</td><td>" + std::to_string(f.samples) +
           "</td></tr>";
}

std::string trialHtml(const TrialResult& t)
{
    std::string s = "<p class=\"verdict " + std::string(verdictName(t.verdict)) + "\">" + verdictName(t.verdict) +
                    (t.why.empty() ? "" : ": " + htmlText(t.why)) + "</p>";
    if (t.phases.empty())
        return s;
    s += "<table><tr><th></th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th><th>wake-ups</th></tr>" +
         figuresRow("without (A)", t.before) + figuresRow("with (B)", t.after) + "</table>";
    s += "<p class=\"phases\">phases (p99, us): ";
    for (const PhaseFigures& p : t.phases)
        s += std::string(p.withFix ? "B " : "A ") + usText(p.figures.p99Us) + " &middot; ";
    s += "</p>";
    return s +
           svgHistogram({{&t.beforeHistogram, "#888", "without the fix"}, {&t.afterHistogram, "#1a7f37", "with it"}});
}

} // namespace

json reportJson(const DoctorReport& r)
{
    json findings = json::array();
    for (const Finding& f : r.findings)
        findings.push_back({{"id", f.id},
                            {"title", f.title},
                            {"evidence", f.evidence},
                            {"fix",
                             {{"kind", fixKindName(f.fix.kind)},
                              {"target", f.fix.target},
                              {"from", f.fix.from},
                              {"to", f.fix.to},
                              {"runtime", f.fix.runtime}}},
                            {"trial", trialJson(f.trial)}});
    return {{"format", "rtscope-doctor"},
            {"version", 1},
            {"cpu", r.cpu},
            {"measuring", r.measuring},
            {"load", r.load},
            {"depth", depthName(r.depth)},
            {"elapsed_s", rounded(double(r.elapsedNs) / 1e9)},
            {"baseline", r.baselineDone ? figuresJson(r.baseline) : json()},
            {"anatomy", r.anatomyNote},
            {"facts", factsJson(r.facts)},
            {"findings", findings},
            {"combined", {{"ids", r.combinedIds}, {"trial", trialJson(r.combined)}}},
            {"trials_not_run", r.trialsNotRun},
            {"kept", r.kept},
            {"keep_note", r.keepNote},
            {"restore_problems", r.restore},
            {"stopped", r.stopped},
            {"error", r.error}};
}

std::string reportTable(const DoctorReport& r)
{
    std::string s = "rtscope doctor: CPU " + std::to_string(r.cpu) + ", " + r.measuring + ", load " + r.load + ", " +
                    depthName(r.depth) + " run in " + usText(double(r.elapsedNs) / 1e9) + " s\n";
    if (r.baselineDone)
        s += "Baseline: p50 " + usText(r.baseline.p50Us) + "  p99 " + usText(r.baseline.p99Us) + "  p99.9 " +
             usText(r.baseline.p99_9Us) + "  max " + usText(r.baseline.maxUs) + " us  (" +
             std::to_string(r.baseline.samples) + " wake-ups)\n";
    if (!r.anatomyNote.empty())
        s += "Anatomy: " + printable(r.anatomyNote) + "\n";
    s += "\n  #  tail   all  verdict    p99 before -> after   culprit\n";
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const Finding& f = r.findings[i];
        char line[96];
        const bool measured = !f.trial.phases.empty();
        std::snprintf(line, sizeof line, "%3zu %5s %5s  %-10s %10s -> %-8s  ", i + 1, shareText(f.tailShare).c_str(),
                      shareText(f.share).c_str(), verdictName(f.trial.verdict),
                      measured ? usText(f.trial.before.p99Us).c_str() : "-",
                      measured ? usText(f.trial.after.p99Us).c_str() : "-");
        s += line + printable(f.title) + "\n";
    }
    s += "\n(tail: share of the worst wake-ups' lateness it explains; all: of every analysed wake-up's)\n";
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const Finding& f = r.findings[i];
        s += "\n" + std::to_string(i + 1) + ". " + printable(f.title) + "  [" + f.id + "]\n";
        s += "   evidence: " + printable(f.evidence) + "\n";
        s += "   fix:      " + printable(fixText(f.fix)) + "\n";
        s += "   trial:    " + printable(trialSummary(f.trial)) + "\n";
    }
    if (r.combinedIds.size() >= 2) {
        s += "\nTogether (";
        for (size_t i = 0; i < r.combinedIds.size(); ++i)
            s += (i ? ", " : "") + r.combinedIds[i];
        s += "): " + printable(trialSummary(r.combined)) + "\n";
    }
    if (!r.trialsNotRun.empty())
        s += "\nTrials not run: " + printable(r.trialsNotRun) + "\n";
    if (!r.kept.empty()) {
        s += "\nKept until reboot (rtscope doctor --undo puts them back):";
        for (const std::string& id : r.kept)
            s += " " + id;
        s += "\n";
    }
    if (!r.keepNote.empty())
        s += "Keep: " + printable(r.keepNote) + "\n";
    for (const std::string& p : r.restore)
        s += "NOT RESTORED: " + printable(p) + "\n";
    if (r.trialsRun && r.restore.empty() && r.kept.empty())
        s += "\nEvery setting the trials changed has been put back and read back as before.\n";
    if (!r.error.empty())
        s += "\nError: " + printable(r.error) + "\n";
    return s;
}

std::string reportHtml(const DoctorReport& r)
{
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rtscope doctor, CPU " +
                    std::to_string(r.cpu) +
                    "</title><style>"
                    "body{font-family:sans-serif;max-width:60em;margin:1em auto;color:#222;padding:0 1em}"
                    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
                    "table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ccc;padding:2px 8px;"
                    "text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}"
                    ".verdict{font-weight:bold}.helped{color:#1a7f37}.hurt{color:#b42318}.no_effect{color:#666}"
                    ".not_tried{color:#8a6d00}.phases{font-size:.85em;color:#555}.evidence{margin:.3em 0}"
                    "code{background:#f4f4f4;padding:0 3px}</style></head><body>\n";
    s += "<h1>rtscope doctor: CPU " + std::to_string(r.cpu) + ", " + htmlText(r.measuring) + "</h1>\n";
    s += "<p>Load: " + htmlText(r.load) + " &middot; " + depthName(r.depth) + " run in " +
         usText(double(r.elapsedNs) / 1e9) + " s &middot; " + htmlText(r.facts.probe.kernelRelease) + ", " +
         htmlText(r.facts.probe.preemptModel) + ", " + htmlText(r.facts.probe.cpuModel) + "</p>\n";
    if (r.baselineDone) {
        s += "<h2>Baseline</h2><table><tr><th></th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th>"
             "<th>wake-ups</th></tr>" +
             figuresRow("baseline (us)", r.baseline) + "</table><p>" + htmlText(r.anatomyNote) + "</p>" +
             svgHistogram({{&r.baselineHistogram, "#1f5fa8", "baseline"}}) + "\n";
    }
    s += "<h2>Findings</h2><table><tr><th>#</th><th>tail</th><th>all</th><th class=\"l\">culprit</th>"
         "<th class=\"l\">verdict</th><th>p99 before</th><th>p99 after</th></tr>";
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const Finding& f = r.findings[i];
        const bool measured = !f.trial.phases.empty();
        s += "<tr><td>" + std::to_string(i + 1) + "</td><td>" + shareText(f.tailShare) + "</td><td>" +
             shareText(f.share) + "</td><td class=\"l\"><a href=\"#" + htmlText(f.id) + "\">" + htmlText(f.title) +
             "</a></td><td class=\"l " + verdictName(f.trial.verdict) + "\">" + verdictName(f.trial.verdict) +
             "</td><td>" + (measured ? usText(f.trial.before.p99Us) : "") + "</td><td>" +
             (measured ? usText(f.trial.after.p99Us) : "") + "</td></tr>";
    }
    s += "</table>\n";
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const Finding& f = r.findings[i];
        s += "<h2 id=\"" + htmlText(f.id) + "\">" + std::to_string(i + 1) + ". " + htmlText(f.title) + "</h2>";
        s += "<p class=\"evidence\">" + htmlText(f.evidence) + "</p>";
        s += "<p>Fix: <code>" + htmlText(fixText(f.fix)) + "</code></p>";
        s += trialHtml(f.trial) + "\n";
    }
    if (r.combinedIds.size() >= 2) {
        std::string ids;
        for (const std::string& id : r.combinedIds)
            ids += (ids.empty() ? "" : ", ") + id;
        s += "<h2>Together: " + htmlText(ids) + "</h2>" + trialHtml(r.combined) + "\n";
    }
    if (!r.trialsNotRun.empty())
        s += "<h2>Trials not run</h2><p>" + htmlText(r.trialsNotRun) + "</p>\n";
    s += "<h2>Facts</h2><table>";
    const auto fact = [&](const std::string& k, const std::string& v) {
        s += "<tr><th class=\"l\">" + htmlText(k) + "</th><td class=\"l\">" + htmlText(v) + "</td></tr>";
    };
    const MachineFacts& f = r.facts;
    fact("kernel", f.probe.kernelRelease + " " + f.probe.kernelVersion);
    fact("preemption",
         f.probe.preemptModel + (f.preemptMode.empty() ? " (run-time mode not readable: " + f.preemptModeNote + ")"
                                                       : ", mode " + f.preemptMode));
    fact("RT throttling", std::to_string(f.probe.rtRuntimeUs) + " us of " + std::to_string(f.probe.rtPeriodUs));
    fact("virtual machine", f.probe.virtualMachine ? "yes " + f.probe.hypervisor : "no");
    fact("idle", "driver " + f.idleDriver + ", governor " + f.idleGovernor + ", " +
                     std::to_string(f.idleStates.size()) + " state(s)");
    fact("THP", "enabled " + f.thpEnabled + ", defrag " + f.thpDefrag);
    std::string damon;
    for (const DamonFact& d : f.damon)
        damon += (damon.empty() ? "" : "; ") + d.text();
    fact("memory monitor (DAMON)", damon.empty() ? "none" : damon);
    fact("timer migration", std::to_string(f.timerMigration));
    fact("watchdogs", "nmi " + std::to_string(f.nmiWatchdog) + ", soft " + std::to_string(f.softWatchdog) + ", CPUs " +
                          f.watchdogCpumask);
    fact("workqueue cpumask", f.workqueueCpumask);
    fact("kernel command line", f.cmdline);
    for (const IrqFact& i : f.irqs)
        if (i.irq >= 0 && i.runCount > 0)
            fact("IRQ " + std::to_string(i.irq) + " " + i.name,
                 std::to_string(i.runCount) + " on CPU " + std::to_string(r.cpu) + " during the baseline; affinity " +
                     i.affinity + ", delivered to " + i.effective);
    s += "</table>\n";
    if (!r.restore.empty())
        for (const std::string& p : r.restore)
            s += "<p class=\"hurt\">Not restored: " + htmlText(p) + "</p>";
    if (!r.error.empty())
        s += "<p class=\"hurt\">Error: " + htmlText(r.error) + "</p>";
    return s +
           "<p class=\"phases\">Written by rtscope doctor; nothing on this page loads anything.</p></body></html>\n";
}

} // namespace rtscope::doctor
