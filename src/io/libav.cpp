#include "io/libav.hpp"

#include <mutex>
#include <string>

#include "io/shared_library.hpp"
#include "io/video_reader.hpp"

namespace speedqa::io {
namespace {

#define SPEEDQA_STR2(x) #x
#define SPEEDQA_STR(x) SPEEDQA_STR2(x)
struct Library {
    const char* soname;
    void* handle;
};
Library avutil{"libavutil.so." SPEEDQA_STR(LIBAVUTIL_VERSION_MAJOR), nullptr};
Library avcodec{"libavcodec.so." SPEEDQA_STR(LIBAVCODEC_VERSION_MAJOR), nullptr};
Library avformat{"libavformat.so." SPEEDQA_STR(LIBAVFORMAT_VERSION_MAJOR), nullptr};

Libav loaded;
std::string failure;   // empty once loaded
std::once_flag once;

// what a failure to load them says they are, and where they come from
constexpr const char* kInstall = "FFmpeg's libraries; Debian: apt-get install"
                                 " libavformat" SPEEDQA_STR(LIBAVFORMAT_VERSION_MAJOR)
                                 " libavcodec" SPEEDQA_STR(LIBAVCODEC_VERSION_MAJOR)
                                 " libavutil" SPEEDQA_STR(LIBAVUTIL_VERSION_MAJOR);

void load() {
    for (Library* l : {&avutil, &avcodec, &avformat})
        if (!(l->handle = open_shared_library(l->soname, kInstall, failure))) return;
#define SPEEDQA_LIBAV_LOAD(lib, name)                                                                      \
    if (!(loaded.name = reinterpret_cast<decltype(&::name)>(                                               \
              shared_library_function(lib.handle, lib.soname, #name, failure))))                          \
        return;
    SPEEDQA_LIBAV_FUNCTIONS(SPEEDQA_LIBAV_LOAD)
#undef SPEEDQA_LIBAV_LOAD
    // libav's messages would interleave with ours: ours name the file and
    // say what failed, with libav's reason
    loaded.av_log_set_level(AV_LOG_QUIET);
}

}  // namespace

const Libav& libav(const std::string& path) {
    std::call_once(once, load);
    if (!failure.empty()) throw NoDecoderError(path + ": not a y4m file, and encoded video cannot be read: " + failure);
    return loaded;
}

const Libav& libav() { return loaded; }

}  // namespace speedqa::io
