#include "io/shared_library.hpp"

#include <dlfcn.h>

namespace speedqa::io {

void* open_shared_library(const char* soname, const std::string& note, std::string& failure) {
    void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        failure = std::string("cannot load ") + soname + " (" + note + "): " + (why ? why : "dlopen failed");
    }
    return handle;
}

void* shared_library_function(void* handle, const char* soname, const char* name, std::string& failure) {
    void* f = dlsym(handle, name);
    if (!f) failure = std::string(soname) + " has no " + name;
    return f;
}

}  // namespace speedqa::io
