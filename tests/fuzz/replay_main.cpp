// The replay driver of the fuzz targets (issue 9 item 4): links with one
// *_fuzz.cpp under the normal compiler and feeds it every file named on the
// command line (directories are walked, one level), the way libFuzzer
// replays a corpus. ctest runs it over the checked-in seed corpus and the
// regression inputs (crashes found and fixed), so a crash found once stays
// fixed in every build, with or without clang and ANTIDRIFT_FUZZ.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <Poco/DirectoryIterator.h>
#include <Poco/File.h>
#include <Poco/Path.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

/// The regular files named by `argument`: the file itself, or the files
/// directly inside a directory, sorted by name.
std::vector<std::string> inputsOf(const std::string& argument) {
  const Poco::File file(argument);
  if (!file.isDirectory()) return {argument};
  std::vector<std::string> paths;
  for (Poco::DirectoryIterator it(file), end; it != end; ++it) {
    if (it->isFile()) paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t replayed = 0;
  for (int index = 1; index < argc; ++index) {
    for (const std::string& path : inputsOf(argv[index])) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return 1;
      }
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::fprintf(stderr, "replayed %zu inputs, no property broken\n", replayed);
  return replayed == 0 ? 1 : 0;
}
