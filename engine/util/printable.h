#pragma once
/// @file Text from a file (a recording's host, command and markers, a preset's title) made safe to print on a
/// terminal: a file may carry escape sequences that retitle the window, clear the screen or rewrite earlier lines.
#include <string>
#include <string_view>

namespace rtscope {

/// @brief @p text with every byte a terminal could act on written as "\xNN" (two lower-case hex digits): the C0
/// controls (0x00–0x1F, tab and newline included, so one field stays on one line), DEL (0x7F), the C1 controls
/// U+0080–U+009F (each byte of their UTF-8 form), and every byte that is not part of well-formed UTF-8 (stray
/// continuation bytes, overlong forms, surrogates, code points above U+10FFFF, sequences cut short). Everything
/// else, including any valid UTF-8 such as "µs", is kept as it is. For display only: a backslash is not
/// escaped, so the result is not meant to be parsed back.
std::string printable(std::string_view text);

} // namespace rtscope
