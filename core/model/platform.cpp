#include "core/model/platform.h"

#if defined(__GNUC__) || defined(__clang__)
#include <cxxabi.h>
#endif
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>

#if defined(_WIN32)
#include <mutex>
#include <psapi.h>
#include <thread>
#include <windows.h>
#else
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if !defined(_WIN32)
extern char** environ; // the environment a spawned program inherits
#endif

namespace ls::platform {

uint64_t peakRssBytes() {
#if defined(_WIN32)
    PROCESS_MEMORY_COUNTERS pmc;
    if (GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) return pmc.PeakWorkingSetSize;
    return 0;
#else
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
#if defined(__APPLE__)
    return static_cast<uint64_t>(u.ru_maxrss); // bytes on macOS
#else
    return static_cast<uint64_t>(u.ru_maxrss) * 1024; // kilobytes on Linux
#endif
#endif
}

uint64_t physicalMemoryBytes() {
#if defined(_WIN32)
    MEMORYSTATUSEX m{};
    m.dwLength = sizeof m;
    return GlobalMemoryStatusEx(&m) ? m.ullTotalPhys : 0;
#elif defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
#else
    return 0;
#endif
}

uint64_t currentRssBytes() {
#if defined(__linux__)
    // statm's second field: resident pages.
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, resident = 0;
    const int got = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return got == 2 ? resident * pageSize() : 0;
#else
    return peakRssBytes(); // an upper bound where the current size is not at hand
#endif
}

void releaseFreedMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void preferMappedLargeAllocations() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

std::string demangle(const std::string& name) {
#if defined(__GNUC__) || defined(__clang__)
    if (name.rfind("_Z", 0) != 0) return name;
    int status = 0;
    char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out) return name;
    std::string result(out);
    std::free(out);
    return result;
#else
    return name;
#endif
}

// ---------------------------------------------------------------- files, folders, programs

namespace {

std::string envVar(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

// Keeps the last kTailBytes of a stream and cuts it into lines at '\n' or '\r'.
class OutputSink {
  public:
    static constexpr size_t kTailBytes = 4096;
    OutputSink(std::string& tail, const std::function<void(std::string_view)>& onLine)
        : tail_(tail), onLine_(onLine) {}
    void feed(const char* data, size_t n) {
        tail_.append(data, n);
        if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
        if (!onLine_) return;
        for (size_t i = 0; i < n; ++i) {
            if (data[i] == '\n' || data[i] == '\r')
                flush();
            else if (line_.size() < kTailBytes)
                line_ += data[i];
        }
    }
    void finish() {
        flush();
        if (tail_.size() > kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
    }

  private:
    void flush() {
        if (!line_.empty() && onLine_) onLine_(line_);
        line_.clear();
    }
    std::string& tail_;
    const std::function<void(std::string_view)>& onLine_;
    std::string line_;
};

} // namespace

std::string userCacheDir() {
#if defined(_WIN32)
    return envVar("LOCALAPPDATA");
#else
    // XDG: a relative XDG_CACHE_HOME is invalid and ignored.
    if (std::string xdg = envVar("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/') return xdg;
    const std::string home = envVar("HOME");
    if (home.empty()) return {};
#if defined(__APPLE__)
    return home + "/Library/Caches";
#else
    return home + "/.cache";
#endif
#endif
}

bool fileStamp(const std::string& path, FileStamp& out) {
#if defined(_WIN32)
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return false;
    const auto mtime = std::filesystem::last_write_time(path, ec);
    if (ec) return false;
    out = {0, 0,
           std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count(),
           size};
    return true;
#else
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
#if defined(__APPLE__)
    const int64_t ns = int64_t(st.st_mtimespec.tv_sec) * 1000000000 + st.st_mtimespec.tv_nsec;
#else
    const int64_t ns = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
#endif
    out = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), ns,
           static_cast<uint64_t>(st.st_size)};
    return true;
#endif
}

std::tm localTime(std::time_t t) {
    std::tm tm{};
#if defined(_WIN32)
    localtime_s(&tm, &t);
#else
    localtime_r(&t, &tm);
#endif
    return tm;
}

uint64_t processId() {
#if defined(_WIN32)
    return ::GetCurrentProcessId();
#else
    return static_cast<uint64_t>(::getpid());
#endif
}

bool processRunning(uint64_t pid) {
#if defined(_WIN32)
    HANDLE h = ::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
    if (!h) return ::GetLastError() != ERROR_INVALID_PARAMETER;
    DWORD code = 0;
    const bool running = ::GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
    ::CloseHandle(h);
    return running;
#else
    if (pid == 0 || pid > static_cast<uint64_t>(std::numeric_limits<pid_t>::max())) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
#endif
}

bool isExecutableFile(const std::string& path) {
    if (path.empty()) return false;
#if defined(_WIN32)
    const DWORD attributes = GetFileAttributesA(path.c_str());
    return attributes != INVALID_FILE_ATTRIBUTES && !(attributes & FILE_ATTRIBUTE_DIRECTORY);
#else
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
#endif
}

char pathListSeparator() {
#if defined(_WIN32)
    return ';';
#else
    return ':';
#endif
}

std::string_view executableSuffix() {
#if defined(_WIN32)
    return ".exe";
#else
    return "";
#endif
}

#if defined(_WIN32)

namespace {

std::wstring widen(const std::string& s) {
    if (s.empty()) return {};
    const int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
    std::wstring w(static_cast<size_t>(n), L'\0');
    MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), w.data(), n);
    return w;
}

// One argument quoted as CommandLineToArgvW and the C runtime read it back.
void appendQuoted(std::wstring& line, const std::wstring& arg) {
    if (!line.empty()) line += L' ';
    if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
        line += arg;
        return;
    }
    line += L'"';
    for (size_t i = 0;; ++i) {
        size_t backslashes = 0;
        while (i < arg.size() && arg[i] == L'\\') ++i, ++backslashes;
        if (i == arg.size()) {
            line.append(backslashes * 2, L'\\');
            break;
        }
        if (arg[i] == L'"')
            line.append(backslashes * 2 + 1, L'\\');
        else
            line.append(backslashes, L'\\');
        line += arg[i];
    }
    line += L'"';
}

} // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, const std::atomic<bool>* cancel,
                         const std::function<void(std::string_view)>& onOutputLine) {
    ProcessResult r;
    if (argv.empty()) {
        r.startError = "no program to run";
        return r;
    }
    SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE outRead = nullptr, outWrite = nullptr, errRead = nullptr, errWrite = nullptr;
    if (!CreatePipe(&outRead, &outWrite, &inherit, 0) ||
        !CreatePipe(&errRead, &errWrite, &inherit, 0)) {
        r.startError = "cannot create a pipe";
        return r;
    }
    SetHandleInformation(outRead, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(errRead, HANDLE_FLAG_INHERIT, 0);
    HANDLE nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                             OPEN_EXISTING, 0, nullptr);
    STARTUPINFOW si{};
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = nul;
    si.hStdOutput = outWrite;
    si.hStdError = errWrite;
    std::wstring line;
    for (const auto& a : argv) appendQuoted(line, widen(a));
    PROCESS_INFORMATION pi{};
    const std::wstring program = widen(argv[0]);
    const BOOL ok = CreateProcessW(program.c_str(), line.data(), nullptr, nullptr, TRUE,
                                   CREATE_NO_WINDOW, nullptr, nullptr, &si, &pi);
    CloseHandle(outWrite);
    CloseHandle(errWrite);
    if (nul != INVALID_HANDLE_VALUE) CloseHandle(nul);
    if (!ok) {
        r.startError = "cannot start it (Windows error " + std::to_string(GetLastError()) + ")";
        CloseHandle(outRead);
        CloseHandle(errRead);
        return r;
    }
    r.started = true;
    CloseHandle(pi.hThread);
    // Anonymous pipes cannot be polled: one reader thread per stream, the lines passed on under a
    // lock.
    std::mutex lineLock;
    const std::function<void(std::string_view)> locked = [&](std::string_view l) {
        std::lock_guard lock(lineLock);
        if (onOutputLine) onOutputLine(l);
    };
    const auto reader = [&locked](HANDLE h, std::string& tail) {
        OutputSink sink(tail, locked);
        char buf[4096];
        DWORD n = 0;
        while (ReadFile(h, buf, sizeof buf, &n, nullptr) && n > 0) sink.feed(buf, n);
        sink.finish();
    };
    std::thread outThread(reader, outRead, std::ref(r.stdoutTail));
    std::thread errThread(reader, errRead, std::ref(r.stderrTail));
    while (WaitForSingleObject(pi.hProcess, 100) == WAIT_TIMEOUT) {
        if (cancel && cancel->load(std::memory_order_relaxed) && !r.cancelled) {
            r.cancelled = true;
            TerminateProcess(pi.hProcess, 1);
        }
    }
    outThread.join();
    errThread.join();
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    r.exitCode = static_cast<int>(code);
    CloseHandle(pi.hProcess);
    CloseHandle(outRead);
    CloseHandle(errRead);
    return r;
}

#else

namespace {

bool makePipe(int fds[2]) {
#if defined(__linux__)
    return ::pipe2(fds, O_CLOEXEC) == 0;
#else
    if (::pipe(fds) != 0) return false;
    ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return true;
#endif
}

} // namespace

ProcessResult runProcess(const std::vector<std::string>& argv, const std::atomic<bool>* cancel,
                         const std::function<void(std::string_view)>& onOutputLine) {
    using Clock = std::chrono::steady_clock;
    ProcessResult r;
    if (argv.empty()) {
        r.startError = "no program to run";
        return r;
    }
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (!makePipe(out) || !makePipe(err)) {
        r.startError = std::string("cannot create a pipe: ") + std::strerror(errno);
        for (const int fd : {out[0], out[1], err[0], err[1]})
            if (fd >= 0) ::close(fd);
        return r;
    }
    // The pipes' own descriptors close at exec; dup2 gives the child inheritable copies.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        r.startError = std::strerror(rc);
        ::close(out[0]);
        ::close(err[0]);
        return r;
    }
    r.started = true;

    OutputSink outSink(r.stdoutTail, onOutputLine), errSink(r.stderrTail, onOutputLine);
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open = 2, status = 0;
    bool reaped = false, killed = false;
    Clock::time_point terminatedAt{}, exitedAt{};
    const auto reap = [&](int flags) {
        if (reaped) return;
        pid_t w;
        do w = ::waitpid(pid, &status, flags);
        while (w < 0 && errno == EINTR);
        if (w == pid || w < 0) {
            reaped = true;
            exitedAt = Clock::now();
        }
    };
    while (open > 0) {
        if (cancel && cancel->load(std::memory_order_relaxed) && !r.cancelled) {
            r.cancelled = true;
            terminatedAt = Clock::now();
            if (!reaped) ::kill(pid, SIGTERM);
        }
        if (r.cancelled && !killed && !reaped &&
            Clock::now() - terminatedAt > std::chrono::seconds(3)) {
            killed = true;
            ::kill(pid, SIGKILL);
        }
        reap(WNOHANG);
        // A child of the program may hold the pipes open after it exits: stop reading soon after.
        if (reaped && Clock::now() - exitedAt > std::chrono::seconds(1)) break;
        const int n = ::poll(fds, 2, 100);
        if (n < 0 && errno != EINTR) break;
        if (n <= 0) continue;
        for (pollfd& p : fds) {
            if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[4096];
            const ssize_t got = ::read(p.fd, buf, sizeof buf);
            if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (got <= 0) {
                ::close(p.fd);
                p.fd = -1;
                --open;
                continue;
            }
            (&p == &fds[0] ? outSink : errSink).feed(buf, static_cast<size_t>(got));
        }
    }
    for (pollfd& p : fds)
        if (p.fd >= 0) ::close(p.fd);
    outSink.finish();
    errSink.finish();
    reap(0);
    if (WIFEXITED(status))
        r.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        r.signal = WTERMSIG(status);
    return r;
}

#endif

} // namespace ls::platform
