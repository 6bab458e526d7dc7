#include "CBuildInfo.h"

#ifndef JWSINSPECT_COMMIT
#define JWSINSPECT_COMMIT ""
#endif

const char *jwsinspect_build_commit(void) { return JWSINSPECT_COMMIT; }
