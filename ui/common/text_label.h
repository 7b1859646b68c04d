#pragma once
// A label that is text to read rather than a caption (a status line, a banner's message, a verdict): found by its
// name in tests, wrapped to the width it is given, its text selectable with the mouse (to copy a path or a figure).
#include <qnamespace.h>

class QLabel;

namespace rtscope {

/// Makes @p label text to read: named @p name, wrapped, selectable with the mouse; @p format Qt::RichText for HTML.
void initTextLabel(QLabel* label, const char* name, Qt::TextFormat format = Qt::AutoText);

} // namespace rtscope
