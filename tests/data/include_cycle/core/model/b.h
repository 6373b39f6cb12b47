#pragma once
#include "core/model/a.h"
