#pragma once
// Element reads of the compact columns run millions of times in each of the load's passes. GCC
// called TimeColumn's out of line (7 % of the samples after the read), for the sake of its rare
// side-table branch: the common path is forced inline and the rare one kept out of the way.
#if defined(__GNUC__)
#define LS_HOT_INLINE [[gnu::always_inline]] inline
#define LS_COLD [[gnu::noinline, gnu::cold]]
#else
#define LS_HOT_INLINE inline
#define LS_COLD
#endif
