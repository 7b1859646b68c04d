#pragma once
/// @file What each kind of knob accepts (internal to engine/doctor): the grammar of its target, the path the target
/// derives, the values it takes and their canonical form; and the constructors of the knob classes, which trust what
/// passed here. knob.h's makeKnob() is the only caller that builds a knob from a KnobChange.
#include "engine/doctor/knob.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtscope::doctor::detail {

/// @brief The path @p target derives for @p kind, or the sentence why @p target is none of that kind's.
Expected<std::string> derivedPath(KnobKind kind, std::string_view target);
/// @brief @p value in the kind's canonical form ("1,0" -> "0-1"), or nullopt when the knob does not take it.
std::optional<std::string> canonicalValue(KnobKind kind, std::string_view target, std::string_view value);
/// @brief What the knob takes, for the sentence of a refused value: "0 or 1", "a CPU list such as 0-1".
std::string valuesText(KnobKind kind, std::string_view target);

/// @brief A CPU list in the form /proc prints ("0-1,4"), or nullopt. Empty text is an empty list when @p allowEmpty.
std::optional<std::string> canonicalCpuList(std::string_view text, bool allowEmpty);
/// @brief A kernel cpumask ("3", "ff,ffffffff") as a CPU list; nullopt when it is not one.
std::optional<std::string> cpuListFromMask(std::string_view mask);
/// @brief A CPU list as the kernel's cpumask text: 32-bit hex groups, most significant first, separated by commas.
std::string maskFromCpuList(std::string_view cpuList);
/// @brief The whole line less surrounding blanks.
std::string trimmed(std::string_view text);

// The knob classes (file_knobs.cpp, thread_knobs.cpp, dma_latency_knob.cpp), for a change makeKnob() checked.
std::unique_ptr<Knob> makeFileKnob(RootFs& fs, KnobChange change);
std::unique_ptr<Knob> makeCpusetDirectoryKnob(RootFs& fs, KnobChange change);
std::unique_ptr<Knob> makeDebugfsMountKnob(RootFs& fs, KnobChange change);
std::unique_ptr<Knob> makeThreadKnob(RootFs& fs, KnobChange change, ThreadIdentity thread);
std::unique_ptr<Knob> makeDmaLatencyKnob(RootFs& fs, KnobChange change);

} // namespace rtscope::doctor::detail
