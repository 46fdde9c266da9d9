// Errors the library reports: bad input or options, one line for the user.
#pragma once

#include <stdexcept>
#include <string>

namespace speedqa {

// Any problem with input or options: the message is one line, ready for stderr.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace speedqa
