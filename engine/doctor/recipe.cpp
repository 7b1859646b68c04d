#include "engine/doctor/recipe.h"

#include "engine/doctor/knob_rules.h"
#include "engine/util/printable.h"

#include <cstdio>
#include <set>

namespace rtscope::doctor {

namespace {

// A comment line: the text made printable and kept on one line, so a name from the machine cannot end the comment.
std::string recipeComment(const std::string& text)
{
    return "# " + printable(text) + "\n";
}

std::string measuredEffect(const Finding& f)
{
    const TrialResult& t = f.trial;
    char buf[200];
    if (t.phases.empty())
        std::snprintf(buf, sizeof buf, "not measured (%s)", verdictName(t.verdict));
    else
        std::snprintf(buf, sizeof buf, "%s: p99 %.1f -> %.1f us, max %.1f -> %.1f us over %zu alternated phases",
                      verdictName(t.verdict), t.before.p99Us, t.after.p99Us, t.before.maxUs, t.after.maxUs,
                      t.phases.size());
    return buf;
}

bool recipeWanted(const DoctorReport& r, const Finding& f)
{
    if (f.trial.verdict == Verdict::Helped)
        return true;
    for (const std::string& id : r.kept)
        if (id == f.id)
            return true;
    return false;
}

// A shell command for a unit's ExecStart: single-quoted for /bin/sh -c; every value comes from the knobs' grammar
// (CPU lists, numbers, THP words), never from a device name.
std::string unitExecLine(const std::string& command)
{
    return "ExecStart=/bin/sh -c '" + command + "'\n";
}

} // namespace

std::vector<RecipeFile> recipeFiles(const DoctorReport& r)
{
    const std::string header = "Written by rtscope doctor for CPU " + std::to_string(r.cpu) + " (" + r.measuring +
                               ", load " + r.load + "). Nothing of it is installed: review it first.";
    std::string sysctl, unit, cmdline, tunedSysctl, tunedSysfs, tunedCpu, readme;
    std::set<std::string> cmdWords;
    for (const Finding& f : r.findings) {
        const bool boot = !f.fix.runtime;
        if (!boot && !recipeWanted(r, f))
            continue;
        if (boot && f.tailShare <= 0 && f.share <= 0 && f.rule != "boot-isolation")
            continue;
        const std::string why =
            f.title + " — " + (boot ? "boot only, explains " : "measured ") +
            (boot ? std::to_string(int(f.tailShare * 100 + 0.5)) + " % of the worst wake-ups' lateness"
                  : measuredEffect(f));
        switch (f.fix.kind) {
        case FixKind::Sysctl:
            for (const KnobChange& c : f.fix.changes) {
                sysctl += recipeComment(why) + c.target + " = " + c.to + "\n";
                tunedSysctl += c.target + " = " + c.to + "\n";
            }
            break;
        case FixKind::IrqAffinity:
            for (const KnobChange& c : f.fix.changes)
                unit += recipeComment(why) +
                        unitExecLine("echo " + c.to + " > /proc/irq/" + c.target + "/smp_affinity_list");
            break;
        case FixKind::Thp:
            for (const KnobChange& c : f.fix.changes) {
                unit += recipeComment(why) +
                        unitExecLine("echo " + c.to + " > /sys/kernel/mm/transparent_hugepage/" + c.target);
                tunedSysfs += "/sys/kernel/mm/transparent_hugepage/" + c.target + " = " + c.to + "\n";
            }
            break;
        case FixKind::WorkqueueCpumask:
            unit += recipeComment(why) + recipeComment("the CPU list " + f.fix.to + " as the kernel's hex mask") +
                    unitExecLine("echo " + detail::maskFromCpuList(f.fix.changes.front().to) +
                                 " > /sys/devices/virtual/workqueue/cpumask");
            tunedSysfs +=
                "/sys/devices/virtual/workqueue/cpumask = " + detail::maskFromCpuList(f.fix.changes.front().to) + "\n";
            break;
        case FixKind::CpuDmaLatency:
            tunedCpu += recipeComment(why) + "force_latency = 0\n";
            break;
        case FixKind::PreemptMode:
        case FixKind::KernelCmdline:
            cmdline += recipeComment(why);
            cmdWords.insert(f.fix.permanent.empty() ? f.fix.to : f.fix.permanent);
            break;
        default:
            readme += "- " + printable(f.title) + ": " + printable(f.fix.permanent) + " (" + measuredEffect(f) + ")\n";
            break;
        }
    }
    std::vector<RecipeFile> files;
    if (!sysctl.empty())
        files.push_back(
            {"99-rtscope-doctor.conf", recipeComment(header) +
                                           recipeComment("Install: cp 99-rtscope-doctor.conf /etc/sysctl.d/ && "
                                                         "sysctl --system. Undo: remove it and reboot.") +
                                           sysctl});
    if (!unit.empty()) {
        files.push_back(
            {"rtscope-doctor-irq.service",
             recipeComment(header) +
                 recipeComment("Install: cp rtscope-doctor-irq.service /etc/systemd/system/ && systemctl "
                               "enable --now rtscope-doctor-irq.service. Undo: systemctl disable it, reboot.") +
                 "[Unit]\nDescription=rtscope doctor: interrupt affinities and memory settings that "
                 "helped\n\n[Service]\nType=oneshot\n"
                 "RemainAfterExit=yes\n" +
                 unit + "\n[Install]\nWantedBy=multi-user.target\n"});
    }
    if (!cmdWords.empty()) {
        std::string words;
        for (const std::string& w : cmdWords)
            words += (words.empty() ? "" : " ") + w;
        files.push_back(
            {"kernel-cmdline.txt",
             recipeComment(header) +
                 recipeComment("Add these words to GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub "
                               "and reboot; remove them to undo.") +
                 cmdline + words + "\n"});
    }
    std::string tuned;
    if (!tunedSysctl.empty())
        tuned += "[sysctl]\n" + tunedSysctl;
    if (!tunedSysfs.empty())
        tuned += "[sysfs]\n" + tunedSysfs;
    if (!tunedCpu.empty())
        tuned += "[cpu]\n" + tunedCpu;
    if (!cmdWords.empty()) {
        std::string words;
        for (const std::string& w : cmdWords)
            words += (words.empty() ? "" : " ") + w;
        tuned += "[bootloader]\ncmdline_rtscope_doctor = " + words + "\n";
    }
    if (!tuned.empty())
        files.push_back({"tuned/rtscope-doctor/tuned.conf",
                         recipeComment(header) +
                             recipeComment("Install: cp -r tuned/rtscope-doctor /etc/tuned/ && tuned-adm profile "
                                           "rtscope-doctor. Undo: tuned-adm profile <the previous one>.") +
                             "[main]\nsummary=What rtscope doctor measured to help on this machine\n"
                             "include=network-latency\n" +
                             tuned});
    std::string index;
    for (const RecipeFile& f : files)
        index += "- " + f.name + "\n";
    files.push_back({"README.txt", header + "\n\nFiles:\n" + (index.empty() ? "- none: nothing helped\n" : index) +
                                       (readme.empty() ? "" : "\nBy hand (no file makes these permanent):\n" + readme) +
                                       "\nEach file says how to install it and how to undo it.\n"});
    return files;
}

} // namespace rtscope::doctor
