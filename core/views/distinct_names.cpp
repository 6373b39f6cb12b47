#include "core/views/distinct_names.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ls {
namespace {

// The text inside the outermost template brackets after the short name, or the name's tail for
// kernels whose parameters live in the name itself (nvjet_sm90_hsh_96x64_…).
std::string_view argumentsOf(std::string_view full, std::string_view shortName) {
    const size_t at = full.find(shortName);
    if (at == std::string_view::npos) return full;
    std::string_view rest = full.substr(at + shortName.size());
    if (!rest.empty() && rest.front() == '<') {
        int depth = 0;
        for (size_t i = 0; i < rest.size(); ++i) {
            if (rest[i] == '<')
                ++depth;
            else if (rest[i] == '>' && --depth == 0)
                return rest.substr(1, i - 1);
        }
    }
    return rest;
}

std::vector<std::string> wordsOf(std::string_view text) {
    std::vector<std::string> words;
    std::string w;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            w += c;
        } else if (!w.empty()) {
            words.push_back(w);
            w.clear();
        }
    }
    if (!w.empty()) words.push_back(w);
    return words;
}

// Words a GEMM name carries its configuration in, most telling first.
bool isElementType(const std::string& w) {
    static const std::set<std::string> types = {
        "f16", "bf16", "f32",  "tf32",     "fp16",  "fp32",   "fp8",  "e4m3", "e5m2",
        "hsh", "tst",  "Half", "BFloat16", "float", "double", "half", "int8", "s8"};
    return types.count(w) > 0;
}
// [0-9]+x[0-9]+(x[0-9]+)?, by hand: a std::regex built per word cost seconds on a 64-rank session.
bool isTile(const std::string& w) {
    int numbers = 0;
    size_t i = 0;
    while (i < w.size()) {
        const size_t digits = i;
        while (i < w.size() && std::isdigit(static_cast<unsigned char>(w[i]))) ++i;
        if (i == digits) return false;
        ++numbers;
        if (i == w.size()) break;
        if (w[i] != 'x') return false;
        ++i;
        if (i == w.size()) return false;
    }
    return numbers == 2 || numbers == 3;
}
bool isLayout(const std::string& w) {
    return w == "nn" || w == "nt" || w == "tn" || w == "tt" || w == "NN" || w == "NT" ||
           w == "TN" || w == "TT";
}

// "cutlass_75_tensorop_f16_s1688gemm_f16_128x128_tn_align1" splits on '_' too.
std::vector<std::string> partsOf(std::string_view args) {
    std::vector<std::string> parts;
    for (const std::string& w : wordsOf(args)) parts.push_back(w);
    std::vector<std::string> out;
    for (const std::string& p : parts) {
        size_t start = 0;
        for (size_t i = 0; i <= p.size(); ++i)
            if (i == p.size() || p[i] == '_') {
                if (i > start) out.push_back(p.substr(start, i - start));
                start = i + 1;
            }
    }
    return out;
}

std::string describe(std::string_view args, const std::set<std::string>& common) {
    const std::vector<std::string> parts = partsOf(args);
    std::vector<std::string> config;
    for (const auto& p : parts)
        if ((isElementType(p) || isTile(p) || isLayout(p)) &&
            std::find(config.begin(), config.end(), p) == config.end())
            config.push_back(p);
    // A GEMM-like name: its element type, tile and layout say it all.
    if (std::any_of(config.begin(), config.end(),
                    [](const std::string& p) { return isTile(p) || isLayout(p); })) {
        std::string out;
        for (const auto& p : config) out += (out.empty() ? "" : " ") + p;
        return out;
    }
    // Else the words only this name has (at most three), skipping numbers and namespaces.
    std::string out;
    int taken = 0;
    std::set<std::string> seen;
    for (const std::string& w : wordsOf(args)) {
        if (taken == 3) break;
        if (common.count(w) || seen.count(w) ||
            std::isdigit(static_cast<unsigned char>(w.front())) || w == "native" || w == "at" ||
            w == "c10" || w == "std" || w == "lambda" || w == "instance" || w == "int" ||
            w == "unsigned" || w == "long" || w == "const")
            continue;
        seen.insert(w);
        out += (out.empty() ? "" : " ") + w;
        ++taken;
    }
    return out;
}

} // namespace

std::vector<std::string> distinctShortNames(const std::vector<std::string_view>& fullNames,
                                            const std::vector<std::string_view>& shortNames) {
    std::vector<std::string> out(shortNames.begin(), shortNames.end());
    std::map<std::string_view, std::set<std::string_view>> fullsOfShort;
    for (size_t i = 0; i < fullNames.size(); ++i) fullsOfShort[shortNames[i]].insert(fullNames[i]);
    for (const auto& [shortName, fulls] : fullsOfShort) {
        if (fulls.size() < 2) continue;
        // Words every name of the group has say nothing about which one it is.
        std::set<std::string> common;
        bool first = true;
        for (std::string_view f : fulls) {
            const auto words = wordsOf(argumentsOf(f, shortName));
            std::set<std::string> mine(words.begin(), words.end());
            if (first)
                common = mine;
            else {
                std::set<std::string> both;
                std::set_intersection(common.begin(), common.end(), mine.begin(), mine.end(),
                                      std::inserter(both, both.begin()));
                common = both;
            }
            first = false;
        }
        for (size_t i = 0; i < fullNames.size(); ++i) {
            if (shortNames[i] != shortName) continue;
            const std::string d = describe(argumentsOf(fullNames[i], shortName), common);
            if (!d.empty()) out[i] = std::string(shortName) + " ·" + d;
        }
    }
    return out;
}

} // namespace ls
