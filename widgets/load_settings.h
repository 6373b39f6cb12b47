#pragma once
// How the app loads traces, from its settings: the nsys that exports reports and the model cache
// (on unless turned off in File → Model Cache or by LAYERSCOPE_NO_CACHE), and the File menu's
// Model Cache submenu that sets it.
#include "core/import/load_error.h"

class QMenu;
class QWidget;

namespace ls::gui {

LoadOptions loadOptionsFromSettings();

// "Keep a Model Cache for Fast Reopening" (checkable, remembered) and "Clear Model Cache…".
void addModelCacheMenu(QMenu* file, QWidget* parent);

} // namespace ls::gui
