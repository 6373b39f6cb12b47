#pragma once
// How the app loads traces, from its settings: the nsys that exports reports and the model cache
// (on unless turned off in File → Model Cache or by LAYERSCOPE_NO_CACHE), and the File menu's
// Model Cache submenu that sets it.
#include "core/import/load_error.h"

#include <cstdint>
#include <functional>

class QString;

class QMenu;
class QWidget;

namespace ls::gui {

LoadOptions loadOptionsFromSettings();

// The memory the full models of a session's ranks may take (core/load/memory_budget.h): the
// command line's --memory-budget for this run, else the setting, else a quarter of RAM.
uint64_t memoryBudget();
void setMemoryBudgetForThisRun(uint64_t bytes); // --memory-budget; 0: none given

// The File menu's load settings: "Nsight Systems CLI for Reports…" (the nsys that exports
// .nsys-rep reports; `status` tells which one is used) and the Model Cache submenu: "Keep a Model
// Cache for Fast Reopening" (checkable, remembered) and "Clear Model Cache…"; and "Memory Budget
// for Ranks…" (remembered).
void addLoadSettingsMenus(QMenu* file, QWidget* parent,
                          const std::function<void(const QString&)>& status);

} // namespace ls::gui
