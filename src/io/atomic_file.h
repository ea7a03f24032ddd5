#pragma once
// Whole files: read at once, and written so that a reader (or a crash) never sees half of one
// (a flushed temporary file renamed over the target; run.json and state.bin are written this way).

#include <filesystem>
#include <string>

namespace graspsim {

// Writes `data` to `path` atomically: `path`.tmp, fsync, rename, then the directory's fsync
// (best effort). Throws InputError naming the file when it cannot.
void write_atomically(const std::filesystem::path& path, const std::string& data);

// The bytes of the file at `path`. InputError naming the path and `what` ("state file") when it
// does not exist, is a folder, cannot be opened or fails while being read.
std::string read_whole_file(const std::filesystem::path& path, const std::string& what = "file");

}  // namespace graspsim
