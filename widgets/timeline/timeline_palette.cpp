#include "widgets/timeline/timeline_palette.h"

#include <array>
#include <cmath>
#include <iterator>

namespace ls::gui {

QColor kernelClassColor(KernelClass c) {
    switch (c) {
    case KernelClass::GemmTensorCore:
        return QColor(0x2e, 0x8b, 0x57); // green: the math we want
    case KernelClass::GemmNoTensorCore:
        return QColor(0xd9, 0x3a, 0x2b); // red: math that missed the Tensor Cores
    case KernelClass::Attention:
        return QColor(0x7b, 0x4f, 0xc9);
    case KernelClass::Elementwise:
        return QColor(0x4a, 0x90, 0xd9);
    case KernelClass::Reduction:
        return QColor(0xe0, 0x9b, 0x2d);
    case KernelClass::Communication:
        return QColor(0xc2, 0x3b, 0x8a);
    case KernelClass::Triton:
        return QColor(0x1f, 0xa8, 0xa0); // teal: generated, fused
    case KernelClass::GraphLaunch:
        return QColor(0x6d, 0x6d, 0x8a); // slate: a whole graph, its kernels not traced
    case KernelClass::Other:
        return QColor(0x9e, 0x9e, 0x9e);
    }
    return Qt::gray;
}

QColor directionColor(Direction d) {
    switch (d) {
    case Direction::Forward:
        return QColor(0x3b, 0x7d, 0xd8);
    case Direction::Backward:
        return QColor(0xe0, 0x6c, 0x2d);
    case Direction::Optimizer:
        return QColor(0x5a, 0xa0, 0x4a);
    case Direction::Other:
        return QColor(0xa0, 0xa0, 0xa0);
    }
    return Qt::gray;
}

QColor memcpyColor(CopyKind k) {
    switch (k) {
    case CopyKind::HtoD:
        return QColor(0xd4, 0xa0, 0x17);
    case CopyKind::DtoH:
        return QColor(0xb0, 0x6a, 0x10);
    case CopyKind::DtoD:
        return QColor(0x8f, 0x8f, 0x3a);
    default:
        return QColor(0xa8, 0x8f, 0x5f);
    }
}

QColor nameColor(uint32_t stringId) {
    // Golden-ratio hue steps: neighbouring ids get distant hues; soft saturation for text on top.
    // Quantized to a table: paint asks for thousands of these per frame.
    static const std::array<QColor, 128> table = [] {
        std::array<QColor, 128> colors;
        for (size_t i = 0; i < colors.size(); ++i)
            colors[i] = QColor::fromHsvF(static_cast<float>(i) / 128.f, 0.38f, 0.93f);
        return colors;
    }();
    const double hue = std::fmod(static_cast<double>(stringId) * 0.618033988749895, 1.0);
    return table[static_cast<size_t>(hue * 128) & 127];
}

QString kernelClassShortName(KernelClass c) {
    static const char* const names[] = {"TC GEMM",     "GEMM no TC", "attention",
                                        "elementwise", "reduction",  "comm",
                                        "Triton",      "graph",      "other"};
    static_assert(std::size(names) == kKernelClassCount);
    const auto i = static_cast<size_t>(c);
    return QString::fromLatin1(i < std::size(names) ? names[i] : "other");
}

} // namespace ls::gui
