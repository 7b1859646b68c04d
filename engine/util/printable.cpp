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

// The Unicode standard's table of well-formed UTF-8 byte sequences, by their first byte: the sequence's length and
// the range of its second byte (every later one is 80..BF). Those ranges are what rule out overlong forms,
// surrogates and code points above U+10FFFF.
struct Utf8Lead {
    uint8_t firstLo, firstHi;
    size_t length;
    uint8_t secondLo, secondHi;
};
constexpr Utf8Lead kUtf8Leads[] = {
    {0xc2, 0xdf, 2, 0x80, 0xbf}, {0xe0, 0xe0, 3, 0xa0, 0xbf}, {0xe1, 0xec, 3, 0x80, 0xbf}, {0xed, 0xed, 3, 0x80, 0x9f},
    {0xee, 0xef, 3, 0x80, 0xbf}, {0xf0, 0xf0, 4, 0x90, 0xbf}, {0xf1, 0xf3, 4, 0x80, 0xbf}, {0xf4, 0xf4, 4, 0x80, 0x8f}};

// The length of the well-formed UTF-8 sequence that starts at @p i (2 to 4), or 0 when there is none.
size_t wellFormedUtf8Length(std::string_view s, size_t i)
{
    const auto b0 = uint8_t(s[i]);
    for (const Utf8Lead& lead : kUtf8Leads) {
        if (b0 < lead.firstLo || b0 > lead.firstHi)
            continue;
        const size_t n = lead.length;
        if (s.size() - i < n)
            return 0;
        const auto b1 = uint8_t(s[i + 1]);
        if (b1 < lead.secondLo || b1 > lead.secondHi)
            return 0;
        for (size_t k = 2; k < n; ++k)
            if ((uint8_t(s[i + k]) & 0xc0) != 0x80)
                return 0;
        return n;
    }
    return 0;
}

// The code points that reorder or break the text around them on a terminal without being C0/C1 controls: the
// bidirectional formatting characters (Unicode UAX #9: U+061C ALM, U+200E LRM, U+200F RLM, U+202A–U+202E
// embeddings and overrides, U+2066–U+2069 isolates) make "exe.txt" of "txt.exe", a name in a list swallow the
// columns after it; U+2028 and U+2029 are line and paragraph separators, a newline to some terminals.
bool reordersText(std::string_view s, size_t i, size_t n)
{
    const auto b = [&](size_t k) {
        return uint8_t(s[i + k]);
    };
    if (n == 2)
        return b(0) == 0xd8 && b(1) == 0x9c; // U+061C
    if (n != 3 || b(0) != 0xe2)
        return false;
    if (b(1) == 0x80)
        return b(2) == 0x8e || b(2) == 0x8f || (b(2) >= 0xa8 && b(2) <= 0xae); // U+200E/F, U+2028–U+202E
    return b(1) == 0x81 && b(2) >= 0xa6 && b(2) <= 0xa9;                       // U+2066–U+2069
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
        const bool escaped = c1 || (n > 0 && reordersText(text, i, n));
        if (n == 0 || escaped) {
            const size_t bytes = escaped ? n : 1;
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
