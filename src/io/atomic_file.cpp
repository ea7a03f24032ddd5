#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

#include "core/error.h"

namespace graspsim {
namespace {

void write_all(int fd, const std::string& data, const std::string& file) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(file + ": cannot write: " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void write_atomically(const std::filesystem::path& path, const std::string& data) {
  const std::string file = path.string();
  const std::filesystem::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(file + ": cannot open " + tmp.string() + " for writing: " + std::strerror(errno));
  try {
    write_all(fd, data, file);
    if (::fsync(fd) != 0) throw InputError(file + ": cannot flush: " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
  if (::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw InputError(file + ": cannot write: " + why);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw InputError(file + ": cannot rename " + tmp.string() + " to it: " + ec.message());
  }
  // The rename itself reaches the disk with the directory (best effort: not every file
  // system lets a directory be opened for this).
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

std::string read_whole_file(const std::filesystem::path& path, const std::string& what) {
  const std::string file = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(file + ": no such " + what);
  if (std::filesystem::is_directory(path, ec)) throw InputError(file + ": is a directory, not a " + what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open the " + what + " for reading");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(file + ": error while reading the " + what);
  return data;
}

}  // namespace graspsim
