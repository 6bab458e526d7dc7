#include "CProgram.h"

#if defined(__linux__)
#include <features.h>
#endif

#ifndef JWSINSPECT_COMMIT
#define JWSINSPECT_COMMIT ""
#endif

const char *jwsinspect_build_commit(void) { return JWSINSPECT_COMMIT; }

static int argumentCount = 0;
static char *const *argumentValues = 0;

#if defined(__linux__) && defined(__GLIBC__)
// glibc calls constructors (the functions of .init_array) with main's argc, argv and envp.
__attribute__((constructor)) static void capture(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != 0) {
        argumentCount = argc;
        argumentValues = argv;
    }
}
#endif

char *const *jwsinspect_arguments(int *count) {
    *count = argumentCount;
    return argumentValues;
}
