#include "model/json.hpp"

#include <cstdio>
#include <cstdlib>

namespace speedqa::model::json {
namespace {

class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    Value document() {
        Value v = value(0);
        skip_space();
        if (pos_ < s_.size()) fail("unexpected " + describe(pos_) + " after the end of the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw SyntaxError("line " + std::to_string(line_) + ", column " + std::to_string(pos_ - line_start_ + 1) +
                          ": " + what);
    }

    std::string describe(size_t at) const {
        if (at >= s_.size()) return "end of text";
        const unsigned char c = static_cast<unsigned char>(s_[at]);
        char buf[32];
        if (c >= 0x20 && c < 0x7f) std::snprintf(buf, sizeof buf, "character '%c'", c);
        else std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
        return buf;
    }

    // Newlines appear only here: a string may not hold a raw control character.
    void skip_space() {
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '\n') {
                line_++;
                line_start_ = pos_ + 1;
            } else if (c != ' ' && c != '\t' && c != '\r') {
                return;
            }
            pos_++;
        }
    }

    bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

    void expect(char c, const char* where) {
        skip_space();
        if (!at(c)) fail(std::string("expected '") + c + "' " + where + ", found " + describe(pos_));
        pos_++;
    }

    Value value(int depth) {
        skip_space();
        Value v;
        v.line = line_;
        v.column = static_cast<int>(pos_ - line_start_ + 1);
        if (pos_ >= s_.size()) fail("unexpected end of text");
        const char c = s_[pos_];
        if (c == '{' || c == '[') {
            if (depth >= kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
            if (c == '{') object(v, depth + 1);
            else array(v, depth + 1);
        } else if (c == '"') {
            v.type = Type::string;
            v.text = string();
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            number(v);
        } else if (literal("true")) {
            v.type = Type::boolean;
            v.boolean = true;
        } else if (literal("false")) {
            v.type = Type::boolean;
        } else if (literal("null")) {
            v.type = Type::null;
        } else {
            fail("unexpected " + describe(pos_) + " where a value should start" +
                 (s_.substr(pos_, 3) == "NaN" || s_.substr(pos_, 8) == "Infinity" ? " (NaN and Infinity are not JSON)"
                                                                                  : ""));
        }
        return v;
    }

    bool literal(std::string_view word) {
        if (s_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    void object(Value& v, int depth) {
        v.type = Type::object;
        pos_++;  // '{'
        skip_space();
        if (at('}')) {
            pos_++;
            return;
        }
        for (;;) {
            skip_space();
            if (!at('"')) fail("expected a member name in quotes, found " + describe(pos_));
            v.keys.push_back(string());
            expect(':', "after a member name");
            v.members.push_back(value(depth));
            skip_space();
            if (at(',')) {
                pos_++;
                continue;
            }
            if (at('}')) {
                pos_++;
                return;
            }
            fail("expected ',' or '}' after a member value, found " + describe(pos_));
        }
    }

    void array(Value& v, int depth) {
        v.type = Type::array;
        pos_++;  // '['
        skip_space();
        if (at(']')) {
            pos_++;
            return;
        }
        for (;;) {
            v.items.push_back(value(depth));
            skip_space();
            if (at(',')) {
                pos_++;
                continue;
            }
            if (at(']')) {
                pos_++;
                return;
            }
            fail("expected ',' or ']' after an array element, found " + describe(pos_));
        }
    }

    size_t digits() {
        const size_t begin = pos_;
        while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') pos_++;
        return pos_ - begin;
    }

    // JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    void number(Value& v) {
        const size_t begin = pos_;
        if (at('-')) pos_++;
        if (at('0')) pos_++;
        else if (digits() == 0) fail("expected a digit in a number, found " + describe(pos_));
        if (at('.')) {
            pos_++;
            if (digits() == 0) fail("expected a digit after the decimal point, found " + describe(pos_));
        }
        if (at('e') || at('E')) {
            pos_++;
            if (at('+') || at('-')) pos_++;
            if (digits() == 0) fail("expected a digit in the exponent, found " + describe(pos_));
        }
        v.type = Type::number;
        v.text = std::string(s_.substr(begin, pos_ - begin));
        v.number = std::strtod(v.text.c_str(), nullptr);
    }

    unsigned hex4() {
        unsigned u = 0;
        for (int i = 0; i < 4; i++, pos_++) {
            if (pos_ >= s_.size()) fail("unterminated string");
            const char c = s_[pos_];
            u <<= 4;
            if (c >= '0' && c <= '9') u |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') u |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') u |= static_cast<unsigned>(c - 'A' + 10);
            else fail("expected four hex digits after \\u, found " + describe(pos_));
        }
        return u;
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    void escape(std::string& out) {
        pos_++;  // '\\'
        if (pos_ >= s_.size()) fail("unterminated string");
        const char c = s_[pos_++];
        switch (c) {
        case '"': out += '"'; return;
        case '\\': out += '\\'; return;
        case '/': out += '/'; return;
        case 'b': out += '\b'; return;
        case 'f': out += '\f'; return;
        case 'n': out += '\n'; return;
        case 'r': out += '\r'; return;
        case 't': out += '\t'; return;
        case 'u': break;
        default: pos_--; fail("invalid escape \\" + std::string(1, c) + " in a string");
        }
        unsigned cp = hex4();
        if (cp >= 0xdc00 && cp <= 0xdfff) fail("a lone low surrogate in a \\u escape");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (s_.substr(pos_, 2) != "\\u") fail("a high surrogate not followed by a low one");
            pos_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xdc00 || lo > 0xdfff) fail("a high surrogate not followed by a low one");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        append_utf8(out, cp);
    }

    // One UTF-8 sequence starting at pos_ (its first byte >= 0x80), checked
    // for overlong forms, surrogates and code points past U+10FFFF.
    void utf8(std::string& out) {
        const unsigned char b0 = static_cast<unsigned char>(s_[pos_]);
        int len = 0;
        unsigned lo = 0x80, hi = 0xbf;  // range of the second byte
        if (b0 >= 0xc2 && b0 <= 0xdf) len = 2;
        else if (b0 >= 0xe0 && b0 <= 0xef) {
            len = 3;
            if (b0 == 0xe0) lo = 0xa0;
            if (b0 == 0xed) hi = 0x9f;
        } else if (b0 >= 0xf0 && b0 <= 0xf4) {
            len = 4;
            if (b0 == 0xf0) lo = 0x90;
            if (b0 == 0xf4) hi = 0x8f;
        } else {
            fail("invalid UTF-8 in a string");
        }
        if (pos_ + static_cast<size_t>(len) > s_.size()) fail("invalid UTF-8 in a string");
        for (int i = 1; i < len; i++) {
            const unsigned char b = static_cast<unsigned char>(s_[pos_ + static_cast<size_t>(i)]);
            if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf)) fail("invalid UTF-8 in a string");
        }
        out.append(s_.substr(pos_, static_cast<size_t>(len)));
        pos_ += static_cast<size_t>(len);
    }

    std::string string() {
        pos_++;  // opening quote
        std::string out;
        for (;;) {
            if (pos_ >= s_.size()) fail("unterminated string");
            const unsigned char c = static_cast<unsigned char>(s_[pos_]);
            if (c == '"') {
                pos_++;
                return out;
            }
            if (c == '\\') escape(out);
            else if (c < 0x20) fail("a control character (" + describe(pos_) + ") in a string must be escaped");
            else if (c >= 0x80) utf8(out);
            else {
                out += static_cast<char>(c);
                pos_++;
            }
        }
    }

    std::string_view s_;
    size_t pos_ = 0;
    int line_ = 1;
    size_t line_start_ = 0;
};

}  // namespace

const char* type_name(Type t) {
    switch (t) {
    case Type::null: return "null";
    case Type::boolean: return "a boolean";
    case Type::number: return "a number";
    case Type::string: return "a string";
    case Type::array: return "an array";
    default: return "an object";
    }
}

const Value* Value::find(std::string_view key) const {
    for (size_t i = 0; i < keys.size(); i++)
        if (keys[i] == key) return &members[i];
    return nullptr;
}

Value parse(std::string_view text) { return Parser(text).document(); }

}  // namespace speedqa::model::json
