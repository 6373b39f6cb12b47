// The program recorded into nvtx_ranges.nsys-rep (README.md): a few NVTX push/pop ranges on the
// main thread, CPU only. Build: g++ -O1 -I$NSYS_DIR/nvtx/include nvtx_ranges.cpp -o nvtx_ranges
// -ldl
#include <chrono>
#include <nvtx3/nvToolsExt.h>
#include <thread>

static void busy(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

int main() {
    for (int step = 0; step < 2; ++step) {
        nvtxRangePushA("step");
        nvtxRangePushA("forward");
        nvtxRangePushA("layer1");
        busy(2);
        nvtxRangePop();
        nvtxRangePushA("layer2");
        busy(2);
        nvtxRangePop();
        nvtxRangePop();
        nvtxRangePushA("backward");
        busy(3);
        nvtxRangePop();
        nvtxRangePop();
    }
    return 0;
}
