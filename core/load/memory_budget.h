#pragma once
// The memory the app may give to the full models of a session's ranks (every rank keeps its small
// summary regardless): a quarter of the machine's memory unless the user says otherwise
// (`--memory-budget`, or the setting). Sizes are written as people write them: "1G", "1.5 GiB",
// "800M", "1073741824".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ls {

// A quarter of physical memory; 1 GiB where that is unknown.
uint64_t defaultMemoryBudget();

// Bytes from "N", "N K|M|G|T" with an optional "B"/"iB" (powers of 1024), decimals allowed;
// nullopt for anything else, for zero, and for sizes past 2^62 bytes.
std::optional<uint64_t> parseByteSize(std::string_view text);

// "1.0 GiB", "640 MiB": what the window and the CLI print.
std::string formatByteSize(uint64_t bytes);

} // namespace ls
