#ifndef CCHILDPROCESS_H
#define CCHILDPROCESS_H

#include <sys/types.h>

/// Starts `path` (looked up in PATH when it holds no slash) with `argv` and `envp`, both
/// NULL-terminated, for the tests' one process helper (`ChildProcess`, in TestSupport).
///
/// The child gets exactly three descriptors: `stdin_fd` (or /dev/null when it is -1),
/// `stdout_fd` and `stderr_fd`, as 0, 1 and 2; every other descriptor is closed in the child,
/// whatever its close-on-exec flag (another thread of the test process may have opened one a
/// moment ago without it). The child leads a process group of its own (its ID is the child's
/// process ID), starts in `directory` (NULL: the caller's), with no signal blocked and every
/// signal's action the default (a test runner's threads block most, and a child would
/// inherit that mask).
///
/// The caller's descriptors are left as they were. Returns 0 and the child's process ID in
/// `*pid`, or an errno value.
int CChildProcess_spawn(
    pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory, int stdin_fd,
    int stdout_fd, int stderr_fd);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends no started program takes along (pipe2 is declared
/// only with _GNU_SOURCE). Returns 0, or -1 with errno set.
int CChildProcess_pipe(int fds[2]);

#endif
