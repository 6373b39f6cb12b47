#include "app/cli/cli.h"
#include "core/model/platform.h"

#include <iostream>

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    ls::platform::preferMappedLargeAllocations();
    return ls::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
