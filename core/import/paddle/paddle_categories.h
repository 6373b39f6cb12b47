#pragma once
// Paddle's event categories (TracerEventType, as StringTracerEventType names them; lowercase in
// releases before 2.3) and what each becomes in the model, through the Kineto builder.
#include <cstdint>
#include <string_view>

namespace ls {

enum class PaddleRole : uint8_t {
    Kineto,      // handed to the builder under the Kineto category in `kinetoCategory`
    LayerScope,  // Forward: a Layer's forward call, kept as a module scope (a layer range)
    Memory,      // [memory] Allocate / Free / ReservedAllocate / ReservedFree instant events
    NotModelled, // understood, not kept (PythonOp: Python API spans around the C++ ops)
    Unknown,
};

struct PaddleCategory {
    PaddleRole role = PaddleRole::Unknown;
    std::string_view kinetoCategory; // for PaddleRole::Kineto
};

// By the category text as written ("Operator", "operator", "OperatorInner", "CudaRuntime" …).
PaddleCategory paddleCategory(std::string_view cat);

} // namespace ls
