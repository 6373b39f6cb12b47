#pragma once
#include "widgets/model/rows.h"
