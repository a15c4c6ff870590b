// unit_sandbox: runs a program under the parts of antidrift.service's
// sandbox that matter to the daemon, for machines where systemd is not PID 1
// (issue 17 item 1; docs/TECH-NOTES.md §8). Root only.
//
//   unit_sandbox [--rw PATH]... [--families AF_UNIX,AF_INET,...] [--env K=V]...
//                -- PROGRAM [ARG]...
//
// - ProtectSystem=strict: a private mount namespace in which every mount is
//   remounted read-only except /proc, /sys, /dev and each --rw PATH (bound
//   onto itself first, as ReadWritePaths= does).
// - RestrictAddressFamilies=: a seccomp filter that makes socket(2) fail with
//   EAFNOSUPPORT for any other family, as systemd's filter does.
// - A service's environment: only the --env variables (systemd starts a
//   service with a minimal environment plus Environment=).
// Exits 125 with a message on stderr when the sandbox cannot be set up.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "unit_sandbox: " << what << ": " << std::strerror(errno) << "\n";
  std::exit(125);
}

/// A mount point from /proc/self/mountinfo, octal escapes (\040) decoded.
std::string unescape(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      out += static_cast<char>(std::stoi(field.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

bool isUnder(const std::string& path, const std::string& directory) {
  return path == directory ||
         (path.size() > directory.size() && path.compare(0, directory.size(), directory) == 0 &&
          (directory == "/" || path[directory.size()] == '/'));
}

/// The MS_* flags a read-only remount must keep (a bind remount that drops
/// nosuid, nodev or noexec is refused).
unsigned long keptFlags(const std::string& mountPoint) {
  struct statvfs info {};
  if (::statvfs(mountPoint.c_str(), &info) != 0) {
    return 0;
  }
  unsigned long flags = 0;
  if (info.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (info.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (info.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (info.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (info.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (info.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

void protectSystemStrict(const std::vector<std::string>& writable) {
  if (::unshare(CLONE_NEWNS) != 0) fail("unshare(CLONE_NEWNS)");
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("make / private");
  for (const std::string& path : writable) {
    if (::mount(path.c_str(), path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      fail("bind " + path);
    }
  }
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::vector<std::string> mountPoints;
  for (std::string line; std::getline(mountinfo, line);) {
    std::istringstream fields(line);
    std::string id, parent, device, root, mountPoint;
    fields >> id >> parent >> device >> root >> mountPoint;
    mountPoints.push_back(unescape(mountPoint));
  }
  for (const std::string& mountPoint : mountPoints) {
    bool keep =
        isUnder(mountPoint, "/proc") || isUnder(mountPoint, "/sys") || isUnder(mountPoint, "/dev");
    for (const std::string& path : writable) keep = keep || isUnder(mountPoint, path);
    if (keep) continue;
    if (::mount(nullptr, mountPoint.c_str(), nullptr,
                MS_REMOUNT | MS_BIND | MS_RDONLY | keptFlags(mountPoint), nullptr) != 0 &&
        errno != ENOENT && errno != EACCES) {
      fail("remount read-only " + mountPoint);
    }
  }
}

void restrictAddressFamilies(const std::vector<int>& families) {
#if defined(__x86_64__)
  const __u32 arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  const __u32 arch = AUDIT_ARCH_AARCH64;
#else
#error "unit_sandbox: add this architecture's AUDIT_ARCH"
#endif
  std::vector<sock_filter> program = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      // The family: the low 32 bits of the first argument (little endian).
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
  };
  for (int family : families) {
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(family), 0, 1));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  }
  program.push_back(
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EAFNOSUPPORT & SECCOMP_RET_DATA)));
  sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("PR_SET_NO_NEW_PRIVS");
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter) != 0) fail("seccomp filter");
}

int familyNamed(const std::string& name) {
  static const std::map<std::string, int> kFamilies = {
      {"AF_UNIX", AF_UNIX},       {"AF_INET", AF_INET},     {"AF_INET6", AF_INET6},
      {"AF_NETLINK", AF_NETLINK}, {"AF_PACKET", AF_PACKET},
  };
  const auto found = kFamilies.find(name);
  if (found == kFamilies.end()) {
    std::cerr << "unit_sandbox: unknown address family " << name << "\n";
    std::exit(125);
  }
  return found->second;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> writable;
  std::vector<int> families;
  bool restrictFamilies = false;
  std::vector<std::string> environment;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) {
      std::cerr << "unit_sandbox: " << arg << " needs a value\n";
      return 125;
    }
    const std::string value = argv[++i];
    if (arg == "--rw") {
      writable.push_back(value);
    } else if (arg == "--env") {
      environment.push_back(value);
    } else if (arg == "--families") {
      restrictFamilies = true;
      std::istringstream names(value);
      for (std::string name; std::getline(names, name, ',');) families.push_back(familyNamed(name));
    } else {
      std::cerr << "unit_sandbox: unknown option " << arg << "\n";
      return 125;
    }
  }
  if (i >= argc) {
    std::cerr << "usage: unit_sandbox [--rw PATH]... [--families A,B] [--env K=V]... -- PROGRAM "
                 "[ARG]...\n";
    return 125;
  }
  protectSystemStrict(writable);
  if (restrictFamilies) restrictAddressFamilies(families);
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  ::execve(argv[i], argv + i, envp.data());
  fail(std::string("exec ") + argv[i]);
}
