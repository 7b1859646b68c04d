#pragma once
// What every config mapper of a control panel starts from (ui/widgets/experiment_controls.h, MappedControls): the
// struct of the panel's fields it maps a config to and from, handed over by the panel, which owns the widgets. The
// field types (check and combo boxes, spin boxes, duration and period editors…) are field_edits.h's.
#include "ui/widgets/field_edits.h"

namespace rtscope {

/// A mapper of the fields in @p Widgets; the subclass adds populate(), unrepresentable(), setConfig(), config() and
/// updateEnabled().
template <class Widgets> class WidgetMapper {
public:
    explicit WidgetMapper(const Widgets& widgets)
        : m_w(widgets)
    {}

    const Widgets& widgets() const { return m_w; }

protected:
    Widgets m_w;
};

} // namespace rtscope
