#pragma once
/// @file Text from a file or from the system (a recording's host, command and markers, a preset's title, a task's
/// name) made safe to print on a terminal: it may carry escape sequences that retitle the window, clear the screen
/// or rewrite earlier lines, or bidirectional controls that reorder what follows.
#include <string>
#include <string_view>

namespace rtscope {

/// @brief @p text with every byte a terminal could act on written as "\xNN" (two lower-case hex digits): the C0
/// controls (0x00–0x1F, tab and newline included, so one field stays on one line), DEL (0x7F), the C1 controls
/// U+0080–U+009F (each byte of their UTF-8 form), and every byte that is not part of well-formed UTF-8 (stray
/// continuation bytes, overlong forms, surrogates, code points above U+10FFFF, sequences cut short), and the code
/// points that reorder or break the line around them: the bidirectional controls U+061C, U+200E, U+200F,
/// U+202A–U+202E (U+202E is the right-to-left override) and U+2066–U+2069, and the separators U+2028, U+2029.
/// Everything else, including any valid UTF-8 such as "µs", is kept as it is. For display only: a backslash is not
/// escaped, so the result is not meant to be parsed back.
std::string printable(std::string_view text);

} // namespace rtscope
