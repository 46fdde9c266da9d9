# Encoded video input (src/io/decoded_reader.cpp) through FFmpeg's
# libavformat, libavcodec and libavutil (Debian 12: libavformat-dev
# libavcodec-dev libavutil-dev, FFmpeg 5.1). Without them speedqa reads y4m
# and raw video only and says how to pipe encoded video in. Built against
# their headers, not linked: src/io/libav.cpp opens them with dlopen at the
# first encoded input, so that other runs do not pay for loading them.
set(SPEEDQA_LIBAV "AUTO" CACHE STRING "Read encoded video through libavformat/libavcodec: AUTO (if found), ON or OFF")
set(SPEEDQA_HAVE_LIBAV OFF)
if(NOT SPEEDQA_LIBAV STREQUAL "OFF")
  find_path(SPEEDQA_LIBAV_INCLUDE libavformat/avformat.h)
  find_library(SPEEDQA_AVFORMAT_LIB avformat)
  find_library(SPEEDQA_AVCODEC_LIB avcodec)
  find_library(SPEEDQA_AVUTIL_LIB avutil)
  if(SPEEDQA_LIBAV_INCLUDE AND SPEEDQA_AVFORMAT_LIB AND SPEEDQA_AVCODEC_LIB AND SPEEDQA_AVUTIL_LIB)
    set(SPEEDQA_HAVE_LIBAV ON)
    add_library(speedqa_libav INTERFACE)
    target_include_directories(speedqa_libav SYSTEM INTERFACE ${SPEEDQA_LIBAV_INCLUDE})
    target_link_libraries(speedqa_libav INTERFACE ${CMAKE_DL_LIBS})
  elseif(SPEEDQA_LIBAV STREQUAL "ON")
    message(FATAL_ERROR "SPEEDQA_LIBAV=ON but libavformat, libavcodec or libavutil was not found: "
                        "apt-get install libavformat-dev libavcodec-dev libavutil-dev")
  endif()
endif()
message(STATUS "speedqa: encoded video input (libavformat/libavcodec) ${SPEEDQA_HAVE_LIBAV}")
