// Fuzz target: the nvprof converter's name paths (core/import/nvprof/nvprof_names.h). Kernel
// names come from the database's StringTable, are demangled, cut to their base name and scanned
// for types; marker objectIds are blobs; API names come from callback ids.
#include "core/costs/op_costs.h"
#include "core/import/common/kernel_base_name.h"
#include "core/import/nvprof/nvprof_convert.h"
#include "core/import/nvprof/nvprof_names.h"
#include "core/model/dtype.h"
#include "core/model/platform.h"
#include "fuzz/fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);

    // The kernel name path of the converter, and the base name of the raw text as well.
    const std::string demangled = ls::platform::demangle(text);
    for (const std::string* name : {&demangled, &text}) {
        const std::string base = ls::kernelBaseName(*name);
        FUZZ_CHECK(name->find(base) != std::string::npos); // a piece of the name, never made up
        (void)ls::dtypeFromKernelName(*name);
        (void)ls::isMathKernelName(*name);
    }

    // objectId blobs and callback ids, from the same bytes.
    (void)ls::nvprofGlobalTidOf(std::string_view(text));
    if (size >= 17) {
        int64_t a = 0, b = 0;
        std::memcpy(&a, data + 1, 8);
        std::memcpy(&b, data + 9, 8);
        FUZZ_CHECK(!ls::cuptiApiName((data[0] & 1) != 0, a).empty());
        FUZZ_CHECK(ls::nvprofGlobalTid(a, b) >= 0);
    }
    return 0;
}
