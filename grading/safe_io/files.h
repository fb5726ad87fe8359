// Files the grader reads and writes safely: written atomically (a reader or a restarted grader
// sees the old file or the new, never half), read with a size limit, a submission's file read
// without following a link to someone else's, a private temporary folder, a student's name made
// safe as a file name.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace grading {

namespace fs = std::filesystem;

// A folder of this process's own under /tmp (mkdtemp: mode 0700), removed with what it
// holds when the process exits normally. Falls back to /tmp itself (never removed).
class PrivateTempDir {
 public:
  explicit PrivateTempDir(const std::string& prefix);
  ~PrivateTempDir();
  PrivateTempDir(const PrivateTempDir&) = delete;
  PrivateTempDir& operator=(const PrivateTempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool owned_ = false;
};

std::optional<std::string> read_file(const fs::path& p, size_t max_bytes = size_t(1) << 30);
// Writes to a temporary file beside `p`, flushes it to disk, then renames it over `p`: a
// reader (or a grader restarted after a kill) sees the old file or the new one, never half.
// The file is readable by its owner only (0600).
void write_file_atomic(const fs::path& p, std::string_view content);

// A student's name made safe as a file name: letters, digits, '.', '_', '-', '@' kept.
std::string safe_name(std::string_view name);

// A file of a submission read without following a link, from the descriptor it was opened
// with; refused (nullopt, `why` says so) when it is not a regular file, has other hard links
// while its owner is not `owner` (a link to someone else's file), or is larger than max_bytes.
std::optional<std::string> read_submitted_file(const fs::path& p, size_t max_bytes, std::string* why = nullptr,
                                               std::optional<uid_t> owner = std::nullopt);

}  // namespace grading
