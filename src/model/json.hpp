// A small strict JSON reader for model files (RFC 8259): the whole text is
// one value, nothing may follow it. Numbers keep the text they were written
// with, because libvmaf reads them two ways: strtod of that text for model
// parameters, and the text itself (normalised) for feature options.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace speedqa::model::json {

enum class Type { null, boolean, number, string, array, object };

const char* type_name(Type t);  // "null", "a boolean", "a number", ...

struct Value {
    Type type = Type::null;
    bool boolean = false;
    double number = 0;   // strtod of `text`: what libvmaf's reader gives; may be +-inf
    std::string text;    // a string's contents (UTF-8), or a number as written
    std::vector<Value> items;       // array elements
    std::vector<std::string> keys;  // object members, in file order...
    std::vector<Value> members;     // ...and their values
    int line = 0, column = 0;       // where the value starts, 1-based

    // The first member named `key`, or nullptr.
    const Value* find(std::string_view key) const;
};

// A text that is not JSON: `what()` says where ("line 3, column 7: ...").
class SyntaxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Nesting deeper than this is refused (it would only serve to exhaust the
// stack; model files nest four levels).
constexpr int kMaxDepth = 64;

Value parse(std::string_view text);

}  // namespace speedqa::model::json
