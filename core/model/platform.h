#pragma once
// The one place for platform calls: nothing else in the project calls the system (or tests which
// system it is) for memory, files, processes or clocks. Pages and file mappings are implemented
// in platform_mapping.cpp, the rest in platform.cpp.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ls::platform {

// Peak resident set size of this process in bytes (0 when unknown).
uint64_t peakRssBytes();

// Resident set size of this process now, in bytes (0 when unknown).
uint64_t currentRssBytes();

// Hands memory freed on the heap back to the system where the allocator keeps it (glibc's
// malloc_trim): after a trace's model is released, so that the resident size falls with it.
void releaseFreedMemory();

// The machine's physical memory in bytes (0 when unknown).
uint64_t physicalMemoryBytes();

// Makes large allocations (trace columns) always come from their own mappings, returned to the
// system when freed. glibc otherwise raises its mmap threshold after the first free and keeps
// later columns in per-thread heaps, so each reload of a big trace grew the resident size.
void preferMappedLargeAllocations();

// The demangled form of an Itanium C++ ABI name ("_Z3fooi" -> "foo(int)"); the name itself when
// it is not mangled or the platform has no demangler.
std::string demangle(const std::string& name);

// The user's cache folder (XDG_CACHE_HOME, else ~/.cache; ~/Library/Caches on macOS; %LOCALAPPDATA%
// on Windows); empty when the environment names none.
std::string userCacheDir();

// What identifies a file's contents without reading them all: its device and inode (0 where the
// platform has none) and its modification time in ns since the epoch. False when it cannot be
// examined.
struct FileStamp {
    uint64_t device = 0, inode = 0;
    int64_t mtimeNs = 0;
    uint64_t size = 0;
};
bool fileStamp(const std::string& path, FileStamp& out);

// Whether the platform maps memory pages (anonymous blocks, ranges of files). Without mappings the
// model's columns come from operator new and the model cache reads its files into memory.
#if defined(_WIN32)
inline constexpr bool kPageMappings = false;
#else
inline constexpr bool kPageMappings = true;
#endif

// The system's page size in bytes (4 KiB, or 16/64 KiB on some aarch64 hosts).
uint64_t pageSize();

// `bytes` (a whole number of pages) of zeroed, private, writable pages of their own, returned to
// the system by unmapPages; null when the system refuses them or has no mappings.
void* mapAnonymousPages(size_t bytes);
// Unmaps pages from mapAnonymousPages or MappableFile::mapPrivate.
void unmapPages(void* pages, size_t bytes);
// Gives the whole pages within [p, p + bytes) of such a mapping back to the system while keeping
// the range mapped (read again, they are zero). Where there are no mappings: nothing.
void discardPages(void* p, size_t bytes);

// A whole file mapped read-only into memory; null where the platform or the file does not allow
// it (callers then read it another way). The file must not shrink while it is mapped.
class MappedFile {
  public:
    static std::unique_ptr<MappedFile> open(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    // Drops [offset, offset + length) from this process's resident pages (whole system pages
    // inside it only); the file's pages stay cached by the system and read back on next use.
    void release(size_t offset, size_t length) const;

  private:
    MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    const uint8_t* data_;
    size_t size_;
};

// A regular file open for mapping, for the model cache: whole and read-only, or page-aligned
// ranges as private, writable pages a column adopts (a write copies that page and never reaches
// the file). Only where kPageMappings; elsewhere open() fails.
class MappableFile {
  public:
    // Null with `error` set (the system's message, "not a regular file") when it cannot be opened.
    static std::unique_ptr<MappableFile> open(const std::string& path, std::string& error);
    ~MappableFile(); // unmaps the whole file's view and closes it; ranges stay mapped
    MappableFile(const MappableFile&) = delete;
    MappableFile& operator=(const MappableFile&) = delete;
    uint64_t size() const { return size_; }
    // False on network and user-space file systems (NFS, SMB/CIFS, FUSE, 9P, NCP, GPFS, Lustre),
    // where another host may rename or evict the file under a mapping.
    bool onLocalFileSystem() const;
    // The whole file, read-only, until this object goes; null when it cannot be mapped.
    const uint8_t* mapWhole();
    // [offset, offset + length) as private, writable pages (offset page aligned), which the
    // caller unmaps with unmapPages; null when they cannot be mapped.
    void* mapPrivate(uint64_t offset, size_t length) const;

  private:
    explicit MappableFile(int fd) : fd_(fd) {}
    int fd_ = -1;
    uint64_t size_ = 0;
    const uint8_t* whole_ = nullptr;
};

// Lowers the calling thread's scheduling priority below a throughput thread's (and that of the
// threads it starts from then on): work nobody waits for, such as a cache's write, then yields the
// cores to what the user waits for. Does nothing where the platform has no such call.
void lowerThreadPriority();

// The scheduling class of the calling thread (and of the threads it starts from then on).
// Throughput is for CPU-bound work behind a window (a load, the views built beside it): on Linux
// a batch thread, which never preempts another when it wakes, at nice 5. Against the GUI thread
// of its own process it then gets a quarter of a core they share, not half: without it, a 20 ms
// paint beside a load on both cores took 40 ms or more. With autogroups (Debian's default) or CPU
// cgroups, Linux weighs nice values only within a group (a terminal session, a desktop launch),
// so its share against programs started elsewhere stays as it was; beside busy programs of its
// own session it is smaller (a load beside two busy loops took 2.3-2.5 times as long). Default
// gives the normal policy back and keeps the nice value. True where the platform took the role
// (Linux).
enum class ThreadRole { Default, Throughput };
bool setThreadRole(ThreadRole role);

// CPU time the calling thread has used, in ms (0 where the platform does not say).
double threadCpuMs();

// `t` broken down in the local time zone.
std::tm localTime(std::time_t t);

// This process's id (names temporaries no other process writes).
uint64_t processId();
// Whether a process with this id runs now (true when unsure: ids are reused, and a process of
// another user cannot be asked).
bool processRunning(uint64_t pid);

// Whether path names a regular file this process may execute.
bool isExecutableFile(const std::string& path);

// The separator of PATH's entries (':', ';' on Windows) and the suffix of programs ("", ".exe").
char pathListSeparator();
std::string_view executableSuffix();

// What runProcess saw of a program it ran.
struct ProcessResult {
    bool started = false; // false: it could not be started (startError says why)
    std::string startError;
    bool cancelled = false; // killed because the cancel flag was set
    int exitCode = -1;      // its exit status; -1 when a signal ended it
    int signal = 0;         // the signal that ended it (POSIX), else 0
    std::string stderrTail; // the last few KiB it wrote to stderr
    std::string stdoutTail; // the last few KiB it wrote to stdout
};

// Runs argv[0] (a path, not searched on PATH) with the arguments argv[1..], without a shell,
// stdin empty, stdout and stderr captured. Calls onOutputLine (on this thread) with each line of
// either stream as it comes, a line ending at '\n' or '\r' (progress bars redraw with '\r').
// When *cancel becomes true the program is terminated (killed a few seconds later if it is still
// running) and the call returns with cancelled set.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::atomic<bool>* cancel,
                         const std::function<void(std::string_view line)>& onOutputLine = {});

} // namespace ls::platform
