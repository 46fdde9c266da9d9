#include "core/env.hpp"

#include <cstdlib>

#include "core/error.hpp"

namespace speedqa {

int env_choice(const char* name, std::initializer_list<const char*> choices, int fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    int i = 0;
    std::string list;
    for (const char* c : choices) {
        if (std::string(v) == c) return i;
        list += (i ? ", " : "") + std::string(c);
        i++;
    }
    throw Error(std::string(name) + "=" + v + " is not a value speedqa knows (expected " + list + ")");
}

bool env_flag(const char* name) { return env_choice(name, {"0", "1"}, 0) == 1; }

}  // namespace speedqa
