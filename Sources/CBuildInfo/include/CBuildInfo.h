#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/// The git commit the program was built from ("" when it was not built from a git checkout):
/// the Makefile sets it through JWSINSPECT_COMMIT, which Package.swift passes as a define to
/// this one file, so a new commit recompiles this file alone.
const char *jwsinspect_build_commit(void);

#endif
