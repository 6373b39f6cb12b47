#pragma once
// The one place for platform calls.
#include <cstdint>
#include <string>

namespace ls::platform {

// Peak resident set size of this process in bytes (0 when unknown).
uint64_t peakRssBytes();

// Makes large allocations (trace columns) always come from their own mappings, returned to the
// system when freed. glibc otherwise raises its mmap threshold after the first free and keeps
// later columns in per-thread heaps, so each reload of a big trace grew the resident size.
void preferMappedLargeAllocations();

// The demangled form of an Itanium C++ ABI name ("_Z3fooi" -> "foo(int)"); the name itself when
// it is not mangled or the platform has no demangler.
std::string demangle(const std::string& name);

} // namespace ls::platform
