#include "plot/canvas.hpp"

#include <cstdio>

namespace speedqa::plot {

std::string Color::hex() const {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
    return buf;
}

double text_width(const std::string& utf8, double size) {
    // Advance widths of DejaVu Sans, in em, for ' ' .. '~'.
    static const double kAdvance[95] = {
        .318, .401, .460, .838, .636, .950, .780, .275, .390, .390, .500, .838, .318, .361, .318, .337,  // ' ' .. '/'
        .636, .636, .636, .636, .636, .636, .636, .636, .636, .636,                                      // digits
        .337, .337, .838, .838, .838, .531, 1.0,                                                         // ':' .. '@'
        .684, .686, .698, .770, .632, .575, .775, .752, .295, .295, .656, .557, .863,                    // A .. M
        .748, .787, .603, .787, .695, .635, .611, .732, .684, .989, .685, .611, .685,                    // N .. Z
        .390, .337, .390, .838, .500, .500,                                                              // '[' .. '`'
        .613, .635, .550, .635, .615, .352, .635, .634, .278, .278, .579, .278, .974,                    // a .. m
        .634, .612, .635, .635, .411, .521, .392, .634, .592, .818, .592, .592, .525,                    // n .. z
        .636, .337, .636, .838};                                                                         // '{' .. '~'
    double em = 0;
    for (unsigned char c : utf8) {
        if (c >= 0x20 && c < 0x7f) em += kAdvance[c - 0x20];
        else if (c >= 0xc0 || c < 0x20) em += 0.7;  // the first byte of a non-ASCII character
    }
    return em * size;
}

}  // namespace speedqa::plot
