#include "engine/util/printable.h"

#include <cstdint>

namespace rtscope {

namespace {

void appendHexEscape(std::string& out, uint8_t byte)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
}

// The length of the well-formed UTF-8 sequence that starts at @p i (2 to 4), or 0 when there is none. The ranges
// of the second byte are those of the Unicode standard's table of well-formed sequences, which is what rules out
// overlong forms, surrogates and code points above U+10FFFF.
size_t wellFormedUtf8Length(std::string_view s, size_t i)
{
    const auto b0 = uint8_t(s[i]);
    size_t n = 0;
    uint8_t lo = 0x80, hi = 0xbf;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
        n = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
        n = 3;
        if (b0 == 0xe0)
            lo = 0xa0;
        else if (b0 == 0xed)
            hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        n = 4;
        if (b0 == 0xf0)
            lo = 0x90;
        else if (b0 == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (s.size() - i < n)
        return 0;
    const auto b1 = uint8_t(s[i + 1]);
    if (b1 < lo || b1 > hi)
        return 0;
    for (size_t k = 2; k < n; ++k)
        if ((uint8_t(s[i + k]) & 0xc0) != 0x80)
            return 0;
    return n;
}

} // namespace

std::string printable(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto b = uint8_t(text[i]);
        if (b >= 0x20 && b < 0x7f) {
            out += char(b);
            ++i;
            continue;
        }
        const size_t n = b >= 0x80 ? wellFormedUtf8Length(text, i) : 0;
        // U+0080–U+009F (C2 80 … C2 9F) are the C1 controls: a terminal in UTF-8 mode may take U+009B as CSI.
        const bool c1 = n == 2 && b == 0xc2 && uint8_t(text[i + 1]) <= 0x9f;
        if (n == 0 || c1) {
            const size_t bytes = c1 ? 2 : 1;
            for (size_t k = 0; k < bytes; ++k)
                appendHexEscape(out, uint8_t(text[i + k]));
            i += bytes;
            continue;
        }
        out.append(text.substr(i, n));
        i += n;
    }
    return out;
}

} // namespace rtscope
