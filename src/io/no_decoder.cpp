// A build without libavformat/libavcodec: encoded video cannot be read.
#include "io/reader_common.hpp"

namespace speedqa::io {

bool decodes_encoded_video() { return false; }

std::unique_ptr<VideoReader> make_decoded_reader(const std::string& path) {
    throw NoDecoderError(path + ": not a y4m file, and this build of speedqa reads no encoded video (it was built "
                                "without libavformat and libavcodec)");
}

}  // namespace speedqa::io
