/*
 * Every system call the host transports and the trace-file writer make goes
 * through one table, so a test can replace any of them and inject a fault
 * (a short read, EINTR, EAGAIN, ECONNRESET, ENOSPC) without touching the
 * code under test. The idea is SQLite's aSyscall[]: the table is versioned
 * (iVersion first; a field is valid since the version named next to it) so
 * later fault-injection work (issue 10) can append calls without breaking
 * tests that install an older table.
 *
 * Use: the code calls tw_sys->read(...) etc. A test copies tw_sys_default,
 * overrides some fields, and installs it with tw_sys_set(); tw_sys_set(NULL)
 * restores the default. The functions keep POSIX conventions (-1 + errno);
 * the callers turn those into TW_E* codes with context.
 *
 * Context: tw_sys_set() is not thread-safe; call it while no source is in
 * use (tests do it between cases). The calls themselves are as thread-safe
 * as the POSIX functions they stand for.
 */
#ifndef TRACEWIRE_IO_SYS_H
#define TRACEWIRE_IO_SYS_H

#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <termios.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tw_sys {
  int iVersion; /* 4 */
  /* valid since version 1 */
  int (*open)(const char *path, int flags, int mode);
  int (*close)(int fd);
  ssize_t (*read)(int fd, void *buf, size_t n);
  ssize_t (*write)(int fd, const void *buf, size_t n);
  int (*poll)(struct pollfd *fds, nfds_t n, int timeout_ms);
  int (*socket)(int domain, int type, int protocol);
  int (*connect)(int fd, const struct sockaddr *a, socklen_t len);
  int (*bind)(int fd, const struct sockaddr *a, socklen_t len);
  int (*listen)(int fd, int backlog);
  int (*accept)(int fd, struct sockaddr *a, socklen_t *len);
  ssize_t (*recvfrom)(int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *len);
  ssize_t (*sendto)(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a, socklen_t len);
  int (*setsockopt)(int fd, int level, int name, const void *val, socklen_t len);
  int (*getsockname)(int fd, struct sockaddr *a, socklen_t *len);
  int (*tcgetattr)(int fd, struct termios *t);
  int (*tcsetattr)(int fd, int act, const struct termios *t);
  int (*fsync)(int fd);
  off_t (*lseek)(int fd, off_t off, int whence);
  int (*clock_gettime)(clockid_t id, struct timespec *ts);
  /* valid since version 2 */
  int (*ftruncate)(int fd, off_t len);
  /* valid since version 3: a non-blocking connect's outcome (SO_ERROR) */
  int (*getsockopt)(int fd, int level, int name, void *val, socklen_t *len);
  /* valid since version 4: file identity (no output may be an input,
   * io/file.h) and the rename that replaces a file only when its new
   * content is verified (`tracewire index`) */
  int (*fstat)(int fd, struct stat *st);
  int (*stat)(const char *path, struct stat *st);
  int (*rename)(const char *from, const char *to);
  int (*unlink)(const char *path);
};

extern const struct tw_sys tw_sys_default;
/* The table in force; never NULL. */
extern const struct tw_sys *tw_sys;
/* Install a table (NULL: the default). Returns the previous one. */
const struct tw_sys *tw_sys_set(const struct tw_sys *s);

/* Monotonic and wall-clock time in ns, through tw_sys->clock_gettime. */
unsigned long long tw_sys_mono_ns(void);
unsigned long long tw_sys_wall_ns(void);

#ifdef __cplusplus
}
#endif

#endif
