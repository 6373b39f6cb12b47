#include "core/reports/roofline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace ls {

std::string_view rooflineBoundName(RooflineBound b) {
    switch (b) {
    case RooflineBound::Memory:
        return "memory";
    case RooflineBound::Compute:
        return "compute";
    case RooflineBound::Unknown:
        break;
    }
    return "";
}

double RooflinePoint::intensity() const {
    return bytes > 0 ? flops / bytes : std::numeric_limits<double>::infinity();
}

double RooflinePoint::achieved() const {
    return gpuTimeNs ? flops / (static_cast<double>(gpuTimeNs) * 1e-9) : NAN;
}

double RooflinePoint::computeRoof() const { return peaks ? computePeak(*peaks, dtype, tc) : NAN; }

double RooflinePoint::bandwidth() const { return peaks ? peaks->bandwidth : NAN; }

double RooflinePoint::roof() const {
    const double compute = computeRoof(),
                 memory = intensity() * bandwidth(); // memory is +inf without bytes
    if (std::isnan(compute) || std::isnan(memory)) return NAN;
    return std::min(compute, memory);
}

double RooflinePoint::percentOfRoof() const { return 100.0 * achieved() / roof(); }

RooflineBound RooflinePoint::bound() const {
    const double compute = computeRoof(), memory = intensity() * bandwidth();
    if (std::isnan(compute) || std::isnan(memory)) return RooflineBound::Unknown;
    return memory < compute ? RooflineBound::Memory : RooflineBound::Compute;
}

RooflineGroupOf rooflineGroupOf(const Trace& t, RooflineGrouping g) {
    switch (g) {
    case RooflineGrouping::Kernel:
        return [&t](uint32_t k) {
            const StringId id =
                t.kernels.shortName[k].valid() ? t.kernels.shortName[k] : t.kernels.name[k];
            return RooflineGroup{std::string(t.str(id)), Direction::Other};
        };
    case RooflineGrouping::Op:
        // As op_sum groups: the op instance's marker name and the kernel's direction.
        return [&t](uint32_t k) {
            const OpId op = t.kernelLinks.opInstance[k];
            std::string name = op.valid()
                                   ? std::string(t.str(t.ranges.name[t.ops.range[op.value].value]))
                                   : "(none)";
            return RooflineGroup{std::move(name), t.kernelLinks.direction[k]};
        };
    case RooflineGrouping::Layer:
        return [&t](uint32_t k) {
            const StringId layer = t.kernelLinks.layer[k];
            return RooflineGroup{layer.valid() ? std::string(t.str(layer)) : "(none)",
                                 t.kernelLinks.direction[k]};
        };
    }
    return {};
}

std::vector<RooflinePoint> roofline(const Trace& t, const RooflineGroupOf& groupOf) {
    // Peaks per CUDA device id, looked up once.
    std::map<uint32_t, const Device*> devices;
    for (const Device& d : t.devices) devices[d.id] = &d;

    using Key = std::tuple<std::string, Direction, DType, TcState, uint32_t>;
    std::map<Key, RooflinePoint> points;
    const auto& m = t.metrics;
    for (uint32_t k = 0; k < t.kernels.size(); ++k) {
        if (k >= m.flops.size() || !std::isfinite(m.flops[k]) || !std::isfinite(m.bytes[k]))
            continue;
        RooflineGroup group = groupOf(k);
        const uint32_t device = t.streamOf(t.kernels, k).device;
        const Key key{group.name, group.direction, m.dtype[k], m.tc[k], device};
        auto [it, fresh] = points.try_emplace(key);
        RooflinePoint& p = it->second;
        if (fresh) {
            p.group = std::move(group);
            p.dtype = m.dtype[k];
            p.tc = m.tc[k];
            const auto d = devices.find(device);
            if (d != devices.end()) {
                p.gpu = d->second->name;
                p.peaks = devicePeaks(d->second->name, d->second->memoryBytes);
            }
        }
        ++p.kernels;
        p.gpuTimeNs += static_cast<uint64_t>(t.kernels.end[k] - t.kernels.start[k]);
        p.flops += m.flops[k];
        p.bytes += m.bytes[k];
    }
    std::vector<RooflinePoint> out;
    out.reserve(points.size());
    for (auto& [key, p] : points) out.push_back(std::move(p));
    std::stable_sort(out.begin(), out.end(), [](const RooflinePoint& a, const RooflinePoint& b) {
        return a.gpuTimeNs > b.gpuTimeNs;
    });
    return out;
}

} // namespace ls
