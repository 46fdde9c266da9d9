#include "io/y4m.hpp"

#include <charconv>

#include "core/error.hpp"

namespace speedqa::io {

namespace {

struct ChromaTag {
    std::string_view tag;
    PixelFormat pix;
    int bitdepth;
};

constexpr ChromaTag kChromaTags[] = {
    {"420", PixelFormat::yuv420, 8},      {"420jpeg", PixelFormat::yuv420, 8},
    {"420mpeg2", PixelFormat::yuv420, 8}, {"420paldv", PixelFormat::yuv420, 8},
    {"420p10", PixelFormat::yuv420, 10},  {"420p12", PixelFormat::yuv420, 12},
    {"420p16", PixelFormat::yuv420, 16},  {"422", PixelFormat::yuv422, 8},
    {"422p10", PixelFormat::yuv422, 10},  {"422p12", PixelFormat::yuv422, 12},
    {"422p16", PixelFormat::yuv422, 16},  {"444", PixelFormat::yuv444, 8},
    {"444p10", PixelFormat::yuv444, 10},  {"444p12", PixelFormat::yuv444, 12},
    {"444p16", PixelFormat::yuv444, 16},  {"mono", PixelFormat::yuv400, 8},
    {"mono10", PixelFormat::yuv400, 10},  {"mono12", PixelFormat::yuv400, 12},
    {"mono16", PixelFormat::yuv400, 16},
};

std::string supported_chroma_list() {
    std::string s;
    for (const ChromaTag& c : kChromaTags) {
        if (!s.empty()) s += ", ";
        s += c.tag;
    }
    return s;
}

// A W or H value: decimal digits only.
bool parse_side(std::string_view v, int& out) {
    if (v.empty() || v.size() > 9) return false;
    for (char c : v)
        if (c < '0' || c > '9') return false;
    long long n = 0;
    std::from_chars(v.data(), v.data() + v.size(), n);
    out = static_cast<int>(n);
    return true;
}

}  // namespace

std::string printable(std::string_view text, size_t max) {
    std::string s;
    for (size_t i = 0; i < text.size() && i < max; i++) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        s += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
    }
    if (text.size() > max) s += "...";
    return s;
}

bool has_y4m_signature(std::string_view first_bytes) { return first_bytes.starts_with(kY4mSignature); }

void check_format(const VideoFormat& f, const std::string& name) {
    if (f.width <= 0 || f.height <= 0)
        throw Error(name + ": width and height must be positive (got " + std::to_string(f.width) + "x" +
                    std::to_string(f.height) + ")");
    if (f.width > kMaxSide || f.height > kMaxSide ||
        static_cast<long long>(f.width) * f.height > kMaxLumaSamples)
        throw Error(name + ": frame size " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                    " is too large (at most " + std::to_string(kMaxSide) + " a side and " +
                    std::to_string(kMaxLumaSamples) + " pixels)");
    if (f.bitdepth != 8 && f.bitdepth != 10 && f.bitdepth != 12 && f.bitdepth != 16)
        throw Error(name + ": unsupported bit depth " + std::to_string(f.bitdepth) + " (expected 8, 10, 12 or 16)");
}

VideoFormat parse_y4m_header(std::string_view line, const std::string& name) {
    const std::string bad = name + ": malformed y4m header: ";
    if (!has_y4m_signature(line)) throw Error(bad + "it does not start with YUV4MPEG2");
    std::string_view tags = line.substr(kY4mSignature.size());
    if (!tags.empty() && tags[0] != ' ')
        throw Error(bad + "unexpected \"" + printable(line.substr(0, 16)) + "\" where \"YUV4MPEG2 \" was expected");

    VideoFormat f;
    bool got_w = false, got_h = false;
    std::string_view chroma = "420";
    std::string_view interlace = "?";  // libvmaf looks at the first character only
    while (!tags.empty()) {
        size_t start = tags.find_first_not_of(' ');
        if (start == std::string_view::npos) break;
        tags.remove_prefix(start);
        size_t end = tags.find(' ');
        std::string_view tag = tags.substr(0, end);
        tags.remove_prefix(end == std::string_view::npos ? tags.size() : end);
        std::string_view value = tag.substr(1);
        switch (tag[0]) {
        case 'W':
            if (!parse_side(value, f.width)) throw Error(bad + "bad width tag W" + printable(value));
            got_w = true;
            break;
        case 'H':
            if (!parse_side(value, f.height)) throw Error(bad + "bad height tag H" + printable(value));
            got_h = true;
            break;
        case 'C': chroma = value; break;
        case 'I': interlace = value; break;
        default: break;  // F (frame rate), A (aspect), X (comments) and unknown tags are ignored
        }
    }
    if (!got_w) throw Error(bad + "no W (width) tag");
    if (!got_h) throw Error(bad + "no H (height) tag");

    const char mode = interlace.empty() ? '\0' : interlace[0];
    if (mode != '?' && mode != 'p') {
        if (mode == 't' || mode == 'b' || mode == 'm')
            throw Error(name + ": interlaced y4m (I" + printable(interlace) +
                        ") is not supported; only progressive (Ip) video is");
        throw Error(bad + "unknown interlacing tag I" + printable(interlace) + " (expected Ip, It, Ib, Im or I?)");
    }

    bool known = false;
    for (const ChromaTag& c : kChromaTags) {
        if (c.tag == chroma) {
            f.pix = c.pix;
            f.bitdepth = c.bitdepth;
            known = true;
            break;
        }
    }
    if (!known)
        throw Error(name + ": unsupported y4m colour space C" + printable(chroma) +
                    " (supported: " + supported_chroma_list() + ")");
    check_format(f, name);
    return f;
}

void check_frame_header(std::string_view line, const std::string& name, long long frame) {
    if (!line.starts_with(kFrameTag))
        throw Error(name + ": frame " + std::to_string(frame) + ": expected a FRAME header, found \"" +
                    printable(line) + "\"");
}

}  // namespace speedqa::io
