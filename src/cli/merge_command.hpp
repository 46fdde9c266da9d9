// `speedqa merge SHARD... -o OUT`: the shards of a clip (--frame_range)
// joined into the file one run of the whole clip writes.
#pragma once

namespace speedqa::cli {

// argv[0] is "merge". Returns the process exit status; prints one line on error.
int merge_main(int argc, char** argv);

}  // namespace speedqa::cli
