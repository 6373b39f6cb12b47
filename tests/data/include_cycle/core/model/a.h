#pragma once
#include "core/model/b.h"
