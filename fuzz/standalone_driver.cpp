// A main() for the fuzz targets where libFuzzer is not used (the gcc dev build, under ASan and
// UBSan): it runs the corpus, then a bounded number of fresh inputs made by a small deterministic
// mutator, so ctest runs every target in a few seconds. It is not coverage-guided; long runs use
// libFuzzer (tools/fuzz.sh).
//
//   fuzz_NAME [--runs N] [--seconds S] [--seed N|time] [--max-len N] [--timeout S] [--dict FILE]
//             [--artifact-prefix P] [--reproduce] PATH...
//
// PATHs are corpus folders (read recursively) or files. With --reproduce the files are run once
// each and nothing else. A failing input is written to P + "crash-<seed>-<iteration>" before the
// process dies (sanitizer report, abort, uncaught exception, or no answer within --timeout), and
// the seed and iteration are printed: the same seed over the same corpus makes the same inputs.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Defined when a sanitizer runtime is linked in: its report then ends in our callback.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));
// gcc links UBSan as its own runtime, which never calls that callback: make its reports abort
// (SIGABRT, caught below) and show where they happened.
extern "C" const char* __ubsan_default_options() { return "abort_on_error=1:print_stacktrace=1"; }

namespace {

using Bytes = std::vector<uint8_t>;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// What is running now, for the handlers that save it when the process dies.

const uint8_t* gData = nullptr;
size_t gSize = 0;
const char* gCorpusFile = nullptr; // set while a corpus file runs: it is its own reproducer
uint64_t gSeed = 0, gIteration = 0;
std::string gArtifactPrefix;
volatile sig_atomic_t gSaving = 0;

// Async-signal-safe output helpers (no stdio inside handlers).
void put(const char* s) {
    const ssize_t ignored = ::write(STDERR_FILENO, s, std::strlen(s));
    (void)ignored;
}
void appendNumber(char* buf, size_t cap, uint64_t v) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    size_t len = std::strlen(buf);
    while (n > 0 && len + 1 < cap) buf[len++] = digits[--n];
    buf[len] = 0;
}

void saveInput(const char* why) {
    if (gSaving || !gData) return;
    gSaving = 1;
    put("\n==standalone fuzz driver== ");
    put(why);
    if (gCorpusFile) {
        put(" on corpus file ");
        put(gCorpusFile);
        put("\n");
        return;
    }
    char path[1024] = "";
    std::strncat(path, gArtifactPrefix.c_str(), sizeof path - 64);
    std::strcat(path, "crash-");
    appendNumber(path, sizeof path, gSeed);
    std::strcat(path, "-");
    appendNumber(path, sizeof path, gIteration);
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        const ssize_t ignored = ::write(fd, gData, gSize);
        (void)ignored;
        ::close(fd);
    }
    char line[64] = "";
    put(" on a fresh input: seed ");
    appendNumber(line, sizeof line, gSeed);
    put(line);
    line[0] = 0;
    put(", iteration ");
    appendNumber(line, sizeof line, gIteration);
    put(line);
    put(fd >= 0 ? "; saved as " : "; could not save it as ");
    put(path);
    put("; rerun it with --reproduce\n");
}

void onSanitizerDeath() { saveInput("sanitizer report"); }

void onSignal(int sig) {
    saveInput(sig == SIGALRM   ? "timeout"
              : sig == SIGABRT ? "abort (UBSan report or failed FUZZ_CHECK)"
                               : "fatal signal");
    if (sig == SIGALRM) ::_exit(70);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void onTerminate() {
    saveInput("uncaught exception");
    std::signal(SIGABRT, SIG_DFL);
    std::abort();
}

// ---------------------------------------------------------------------------------------------
// Deterministic mutator.

struct Rng { // splitmix64: tiny, and the same sequence everywhere
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    size_t below(size_t n) { return n ? static_cast<size_t>(next() % n) : 0; }
};

// Bytes that delimit things in the formats we parse: quotes, brackets, separators, digits, signs,
// NUL and 0xFF.
constexpr char kDelimiters[] = "'\"()[]{},:; =<>!~/\\|&*+-.0123456789eExX_\n\r\t\0\xff";
constexpr std::string_view kInterestingBytes{kDelimiters, sizeof kDelimiters - 1};
constexpr std::string_view kInterestingNumbers[] = {"0",
                                                    "1",
                                                    "-1",
                                                    "-0",
                                                    "255",
                                                    "65536",
                                                    "2147483647",
                                                    "-2147483648",
                                                    "4294967295",
                                                    "4294967296",
                                                    "9223372036854775807",
                                                    "-9223372036854775808",
                                                    "18446744073709551616",
                                                    "1e308",
                                                    "1e-400",
                                                    "1,234",
                                                    "1,23",
                                                    "0.5",
                                                    ".5",
                                                    "nan",
                                                    "inf",
                                                    "99999999999999999999999999"};

void insertText(Bytes& b, size_t pos, std::string_view s) {
    b.insert(b.begin() + static_cast<ptrdiff_t>(pos), s.begin(), s.end());
}

Bytes mutate(Bytes b, const std::vector<Bytes>& pool, const std::vector<std::string>& dict,
             Rng& rng, size_t maxLen) {
    const size_t steps = 1 + rng.below(4);
    for (size_t step = 0; step < steps; ++step) {
        const size_t pos = rng.below(b.size() + 1); // an insertion point
        switch (rng.below(dict.empty() ? 8 : 10)) {
        case 0: // flip one bit
            if (!b.empty()) b[rng.below(b.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
            break;
        case 1: // any byte
            if (!b.empty()) b[rng.below(b.size())] = static_cast<uint8_t>(rng.next());
            break;
        case 2: // insert a delimiter
            b.insert(b.begin() + static_cast<ptrdiff_t>(pos),
                     static_cast<uint8_t>(kInterestingBytes[rng.below(kInterestingBytes.size())]));
            break;
        case 3: // overwrite with a delimiter
            if (!b.empty())
                b[rng.below(b.size())] =
                    static_cast<uint8_t>(kInterestingBytes[rng.below(kInterestingBytes.size())]);
            break;
        case 4: { // delete a run
            if (b.empty()) break;
            const size_t at = rng.below(b.size()),
                         len = 1 + rng.below(std::min<size_t>(16, b.size() - at));
            b.erase(b.begin() + static_cast<ptrdiff_t>(at),
                    b.begin() + static_cast<ptrdiff_t>(at + len));
            break;
        }
        case 5: { // duplicate a run elsewhere
            if (b.empty()) break;
            const size_t at = rng.below(b.size()),
                         len = 1 + rng.below(std::min<size_t>(32, b.size() - at));
            const Bytes run(b.begin() + static_cast<ptrdiff_t>(at),
                            b.begin() + static_cast<ptrdiff_t>(at + len));
            b.insert(b.begin() + static_cast<ptrdiff_t>(pos), run.begin(), run.end());
            break;
        }
        case 6: { // splice: our head, another entry's tail
            const Bytes& other = pool[rng.below(pool.size())];
            b.resize(pos);
            const size_t from = rng.below(other.size() + 1);
            b.insert(b.end(), other.begin() + static_cast<ptrdiff_t>(from), other.end());
            break;
        }
        case 7: { // a number that tests a parser's limits, replacing the digits at pos if any
            size_t end = pos;
            while (end < b.size() && b[end] >= '0' && b[end] <= '9') ++end;
            b.erase(b.begin() + static_cast<ptrdiff_t>(pos),
                    b.begin() + static_cast<ptrdiff_t>(end));
            insertText(b, pos, kInterestingNumbers[rng.below(std::size(kInterestingNumbers))]);
            break;
        }
        default: // a token of the format
            insertText(b, pos, dict[rng.below(dict.size())]);
            break;
        }
    }
    if (b.size() > maxLen) b.resize(maxLen);
    return b;
}

// ---------------------------------------------------------------------------------------------
// Inputs.

bool readFile(const fs::path& p, Bytes& out) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

// Files of the given folders (recursively) and files, each folder's sorted by name.
std::vector<fs::path> corpusFiles(const std::vector<std::string>& paths) {
    std::vector<fs::path> out;
    for (const auto& p : paths) {
        if (!fs::is_directory(p)) {
            out.emplace_back(p);
            continue;
        }
        std::vector<fs::path> files;
        for (const auto& e : fs::recursive_directory_iterator(p))
            if (e.is_regular_file()) files.push_back(e.path());
        std::sort(files.begin(), files.end());
        out.insert(out.end(), files.begin(), files.end());
    }
    return out;
}

// libFuzzer's dictionary format: one "token" per line (optionally name="token"), \\ \" \xNN.
std::vector<std::string> readDictionary(const fs::path& p) {
    std::vector<std::string> out;
    std::ifstream in(p);
    for (std::string line; std::getline(in, line);) {
        const size_t open = line.find('"'), close = line.rfind('"');
        if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open) continue;
        std::string token;
        for (size_t i = open + 1; i < close; ++i) {
            if (line[i] != '\\' || i + 1 >= close) {
                token += line[i];
            } else if (line[i + 1] == 'x' && i + 3 < close) {
                token += static_cast<char>(std::strtol(line.substr(i + 2, 2).c_str(), nullptr, 16));
                i += 3;
            } else {
                token += line[++i];
            }
        }
        if (!token.empty()) out.push_back(token);
    }
    return out;
}

void run(const Bytes& input) {
    gData = input.data();
    gSize = input.size();
    LLVMFuzzerTestOneInput(input.data(), input.size());
}

int usage(const char* argv0) {
    std::fprintf(stderr,
                 "usage: %s [--runs N] [--seconds S] [--seed N|time] [--max-len N] [--timeout S] "
                 "[--dict FILE]\n"
                 "          [--artifact-prefix P] [--reproduce] CORPUS_DIR_OR_FILE...\n",
                 argv0);
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    uint64_t runs = 20000, maxLen = 4096;
    double seconds = 3;
    unsigned timeout = 20;
    bool reproduce = false;
    gSeed = 14; // issue 14; fixed so that ctest makes the same inputs every time
    std::string dictPath;
    std::vector<std::string> paths;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--reproduce")
            reproduce = true;
        else if (a == "--runs" && hasValue)
            runs = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--seconds" && hasValue)
            seconds = std::strtod(argv[++i], nullptr);
        else if (a == "--max-len" && hasValue)
            maxLen = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--timeout" && hasValue)
            timeout = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--dict" && hasValue)
            dictPath = argv[++i];
        else if (a == "--artifact-prefix" && hasValue)
            gArtifactPrefix = argv[++i];
        else if (a == "--seed" && hasValue) {
            const std::string_view v = argv[++i];
            gSeed = v == "time" ? static_cast<uint64_t>(
                                      std::chrono::system_clock::now().time_since_epoch().count())
                                : std::strtoull(argv[i], nullptr, 10);
        } else if (a.starts_with("--"))
            return usage(argv[0]);
        else
            paths.emplace_back(a);
    }
    if (paths.empty()) return usage(argv[0]);

    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(onSanitizerDeath);
    else
        std::signal(SIGSEGV, onSignal); // without a sanitizer; with one, its own handler reports
    std::signal(SIGABRT, onSignal);
    std::signal(SIGALRM, onSignal);
    std::set_terminate(onTerminate);

    const std::string name = fs::path(argv[0]).filename().string();
    std::vector<Bytes> pool;
    for (const auto& file : corpusFiles(paths)) {
        Bytes b;
        if (!readFile(file, b)) {
            std::fprintf(stderr, "%s: cannot read %s\n", name.c_str(), file.c_str());
            return 2;
        }
        const std::string shown = file.string();
        gCorpusFile = shown.c_str();
        alarm(timeout);
        run(b);
        alarm(0);
        pool.push_back(std::move(b));
    }
    gCorpusFile = nullptr;
    if (reproduce) {
        std::printf("%s: %zu input(s) ran without a failure\n", name.c_str(), pool.size());
        return 0;
    }

    const std::vector<std::string> dict =
        dictPath.empty() ? std::vector<std::string>() : readDictionary(dictPath);
    std::printf("%s: %zu corpus inputs ran; now up to %llu fresh inputs for %.1f s, seed %llu "
                "(--seed %llu repeats them)\n",
                name.c_str(), pool.size(), static_cast<unsigned long long>(runs), seconds,
                static_cast<unsigned long long>(gSeed), static_cast<unsigned long long>(gSeed));
    std::fflush(stdout);
    const size_t corpusSize = pool.size();
    if (pool.empty()) pool.emplace_back();
    Rng rng{gSeed};
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    for (gIteration = 0; gIteration < runs && elapsed() < seconds; ++gIteration) {
        Bytes input = mutate(pool[rng.below(pool.size())], pool, dict, rng, maxLen);
        alarm(timeout);
        run(input);
        alarm(0);
        // Keep some inputs as parents, so mutations stack up over the run (the pool stays small).
        if (rng.below(8) == 0) {
            if (pool.size() < 2 * corpusSize + 64)
                pool.push_back(std::move(input));
            else
                pool[corpusSize + rng.below(pool.size() - corpusSize)] = std::move(input);
        }
    }
    std::printf("%s: ok: %zu corpus inputs and %llu fresh inputs in %.1f s (seed %llu)\n",
                name.c_str(), corpusSize, static_cast<unsigned long long>(gIteration), elapsed(),
                static_cast<unsigned long long>(gSeed));
    return 0;
}
