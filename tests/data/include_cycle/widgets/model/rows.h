#pragma once
#include "widgets/panel/panel_state.h"
