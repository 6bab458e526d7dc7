// libmicrohttpd, the HTTP server of `jwsinspect listen` (jwsinspect-fetch alone), and
// fixed-argument wrappers for its variadic calls, which Swift cannot make. Shims carry the
// module prefix.
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <microhttpd.h>

/// The first message libmicrohttpd logs (why a daemon did not start), kept by
/// `CMicroHTTPD_log` under its own mutex; later messages (a client's broken request, a reset
/// connection) are dropped: the server says nothing on its own.
typedef struct {
    pthread_mutex_t mutex;
    char message[512];
} CMicroHTTPD_Log;

static inline void CMicroHTTPD_Log_init(CMicroHTTPD_Log *log) {
    pthread_mutex_init(&log->mutex, NULL);
    log->message[0] = 0;
}

static inline void CMicroHTTPD_Log_destroy(CMicroHTTPD_Log *log) { pthread_mutex_destroy(&log->mutex); }

/// Copies the first message logged into `buffer` (NUL-terminated, `capacity` bytes at most),
/// its trailing newline removed; an empty string when none was.
static inline void CMicroHTTPD_Log_read(CMicroHTTPD_Log *log, char *buffer, size_t capacity) {
    if (capacity == 0) return;
    pthread_mutex_lock(&log->mutex);
    snprintf(buffer, capacity, "%s", log->message);
    pthread_mutex_unlock(&log->mutex);
    size_t length = strlen(buffer);
    while (length > 0 && (buffer[length - 1] == '\n' || buffer[length - 1] == '\r')) buffer[--length] = 0;
}

/// libmicrohttpd's logger (MHD_OPTION_EXTERNAL_LOGGER): `cls` is a CMicroHTTPD_Log.
static inline void CMicroHTTPD_log(void *cls, const char *format, va_list arguments) {
    CMicroHTTPD_Log *log = (CMicroHTTPD_Log *)cls;
    pthread_mutex_lock(&log->mutex);
    if (log->message[0] == 0) vsnprintf(log->message, sizeof log->message, format, arguments);
    pthread_mutex_unlock(&log->mutex);
}

/// The request target as sent (MHD_OPTION_UNESCAPE_CALLBACK): no percent-decoding.
static inline size_t CMicroHTTPD_unescape_nothing(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// What a daemon is started with (every bound libmicrohttpd enforces itself).
typedef struct {
    /// MHD_USE_* flags.
    unsigned int flags;
    /// Where to bind (a sockaddr_in or sockaddr_in6, numeric), its port included.
    const struct sockaddr *address;
    unsigned int connectionLimit;
    /// 0: none.
    unsigned int perAddressLimit;
    /// Seconds a connection may stay silent.
    unsigned int idleTimeout;
    /// Bytes of a connection's memory pool (read buffer, headers, the answer's headers).
    size_t memoryLimit;
    size_t threadStackSize;
    MHD_AccessHandlerCallback accessHandler;
    void *accessHandlerClosure;
    MHD_RequestCompletedCallback completed;
    void *completedClosure;
    CMicroHTTPD_Log *log;
    /// PEM, NUL-terminated, alive as long as the daemon; NULL without TLS.
    const char *certificatePEM;
    const char *keyPEM;
} CMicroHTTPD_Settings;

/// MHD_start_daemon with `settings` (one MHD_OPTION_ARRAY); NULL when it did not start (the
/// reason in `settings->log`).
static inline struct MHD_Daemon *CMicroHTTPD_start(const CMicroHTTPD_Settings *settings) {
    struct MHD_OptionItem options[16];
    int count = 0;
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, (void *)settings->address};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, settings->connectionLimit, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->perAddressLimit, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, settings->idleTimeout, NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->memoryLimit,
                                               NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_STACK_SIZE, (intptr_t)settings->threadStackSize,
                                               NULL};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)settings->completed,
                                               settings->completedClosure};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)CMicroHTTPD_log, settings->log};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)CMicroHTTPD_unescape_nothing,
                                               NULL};
    if (settings->certificatePEM != NULL && settings->keyPEM != NULL) {
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)settings->certificatePEM};
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)settings->keyPEM};
    }
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(settings->flags, 0, NULL, NULL, settings->accessHandler, settings->accessHandlerClosure,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port `daemon` listens on, 0 when unknown.
static inline uint16_t CMicroHTTPD_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The client's address of `connection`, numeric (an IPv4-mapped IPv6 address as IPv4), into
/// `buffer` (NUL-terminated); 0 on success, -1 when there is none.
static inline int CMicroHTTPD_client_address(struct MHD_Connection *connection, char *buffer, size_t capacity) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || capacity == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        return inet_ntop(AF_INET, &v4->sin_addr, buffer, (socklen_t)capacity) == NULL ? -1 : 0;
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr))
            return inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], buffer, (socklen_t)capacity) == NULL ? -1 : 0;
        return inet_ntop(AF_INET6, &v6->sin6_addr, buffer, (socklen_t)capacity) == NULL ? -1 : 0;
    }
    return -1;
}

/// A numeric `host` and `port` as a socket address in `storage`; its length, or 0 when `host`
/// is neither an IPv4 nor an IPv6 address.
static inline socklen_t CMicroHTTPD_numeric_address(const char *host, uint16_t port,
                                                    struct sockaddr_storage *storage) {
    memset(storage, 0, sizeof *storage);
    struct sockaddr_in *v4 = (struct sockaddr_in *)storage;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return sizeof *v4;
    }
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)storage;
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        return sizeof *v6;
    }
    return 0;
}

/// Binds a socket to `address` as libmicrohttpd will (SO_REUSEADDR; IPV6_V6ONLY as `v6only`),
/// then closes it: 0 when that worked, otherwise the errno of the failure (EADDRINUSE,
/// EADDRNOTAVAIL, EACCES …).
static inline int CMicroHTTPD_probe_bind(const struct sockaddr_storage *address, socklen_t length, int v6only) {
    int fd = socket(address->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (address->ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    int result = bind(fd, (const struct sockaddr *)address, length) == 0 ? 0 : errno;
    close(fd);
    return result;
}

#endif
