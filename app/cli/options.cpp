#include "app/cli/options.h"

namespace ls::cli {

Options parseOptions(const std::vector<std::string>& args,
                     const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flagOptions, std::string& error) {
    Options o;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            o.help = true;
        } else if (a.rfind("--", 0) == 0 && a.size() > 2) {
            std::string key = a.substr(2), value;
            const auto eq = key.find('=');
            const bool inlineValue = eq != std::string::npos;
            if (inlineValue) {
                value = key.substr(eq + 1);
                key = key.substr(0, eq);
            }
            if (valueOptions.count(key)) {
                if (!inlineValue) {
                    if (i + 1 >= args.size()) {
                        error = "option --" + key + " needs a value";
                        return o;
                    }
                    value = args[++i];
                }
                o.values[key] = value;
            } else if (flagOptions.count(key) && !inlineValue) {
                o.flags.insert(key);
            } else {
                error = "unknown option " + a;
                return o;
            }
        } else if (a.size() > 1 && a[0] == '-') {
            error = "unknown option " + a;
            return o;
        } else {
            o.positional.push_back(a);
        }
    }
    return o;
}

} // namespace ls::cli
