// posix_spawn's GNU extensions (closefrom, chdir) and pipe2 are declared only with _GNU_SOURCE, which
// Swift's Glibc module does not define: this file is the tests' one platform shim for them.
#define _GNU_SOURCE
#include "CChildProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

#if defined(__GLIBC__) && !__GLIBC_PREREQ(2, 34)
#error "the tests need glibc 2.34 or later (posix_spawn_file_actions_addclosefrom_np)"
#endif

/// A copy of `fd` numbered 3 or above, close-on-exec: the dup2 actions below then never
/// overwrite a source they still need (a pipe made while 0, 1 or 2 was closed may be one).
static int high_copy(int fd) { return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3); }

int CChildProcess_spawn(
    pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory, int stdin_fd,
    int stdout_fd, int stderr_fd) {
    int sources[3] = {high_copy(stdin_fd), high_copy(stdout_fd), high_copy(stderr_fd)};
    int result = 0;
    for (int i = 0; i < 3; i++) {
        if (sources[i] < 0 && (i > 0 || stdin_fd >= 0)) result = errno;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int has_actions = 0, has_attributes = 0;
    if (result == 0) result = posix_spawn_file_actions_init(&actions);
    if (result == 0) has_actions = 1;
    if (result == 0) {
        result = sources[0] < 0 ? posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
                                : posix_spawn_file_actions_adddup2(&actions, sources[0], 0);
    }
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, sources[1], 1);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, sources[2], 2);
#if defined(__APPLE__)
    // POSIX_SPAWN_CLOEXEC_DEFAULT (below) closes the rest.
#else
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    if (result == 0 && directory != NULL) result = posix_spawn_file_actions_addchdir_np(&actions, directory);
    if (result == 0) result = posix_spawnattr_init(&attributes);
    if (result == 0) has_attributes = 1;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP;
#if defined(__APPLE__)
    flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;
#endif
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawnattr_setflags(&attributes, flags);
    if (result == 0) {
        result = strchr(path, '/') != NULL ? posix_spawn(pid, path, &actions, &attributes, argv, envp)
                                           : posix_spawnp(pid, path, &actions, &attributes, argv, envp);
    }
    if (has_attributes) posix_spawnattr_destroy(&attributes);
    if (has_actions) posix_spawn_file_actions_destroy(&actions);
    for (int i = 0; i < 3; i++) {
        if (sources[i] >= 0) close(sources[i]);
    }
    return result;
}

int CChildProcess_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
