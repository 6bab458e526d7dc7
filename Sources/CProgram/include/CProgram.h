#ifndef CPROGRAM_H
#define CPROGRAM_H

/// The git commit the program was built from ("" when it was not built from a git checkout):
/// the Makefile sets it through JWSINSPECT_COMMIT, which Package.swift passes as a define to
/// Program.c alone.
const char *jwsinspect_build_commit(void);

/// The arguments as the C runtime handed them to the program (glibc passes argc and argv to
/// constructors), or NULL with *count 0 where it did not. Swift's CommandLine finds them
/// through /proc on Linux, so without /proc (a chroot, a sandbox) it has none.
char *const *jwsinspect_arguments(int *count);

#endif
