#pragma once
// Whole files written so that a reader (or a crash) never sees half of one: a flushed
// temporary file renamed over the target. run.json and state.bin are written this way.

#include <filesystem>
#include <string>

namespace graspsim {

// Writes `data` to `path` atomically: `path`.tmp, fsync, rename, then the directory's fsync
// (best effort). Throws InputError naming the file when it cannot.
void write_atomically(const std::filesystem::path& path, const std::string& data);

}  // namespace graspsim
