#pragma once
// The name a page answers to (ExperimentPage::name(): presets, `--page`, the saved last page) for an experiment of
// the engine's registry: the same string presets and `rtscope run` use, from one place.
#include "engine/experiments/registry.h"

#include <QString>

namespace rtscope {

template <class Config> QString experimentName()
{
    constexpr std::string_view name = ExperimentTraits<Config>::kName;
    return QString::fromLatin1(name.data(), qsizetype(name.size()));
}

} // namespace rtscope
