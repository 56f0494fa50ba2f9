/* The default system-call table: thin wrappers so every entry has the
 * exact signature of struct tw_sys (open/ioctl-style varargs do not). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracewire/io/sys.h"

static int sys_open(const char *path, int flags, int mode) { return open(path, flags, mode); }
static int sys_fstat(int fd, struct stat *st) { return fstat(fd, st); }
static int sys_stat(const char *path, struct stat *st) { return stat(path, st); }

const struct tw_sys tw_sys_default = {
  .iVersion = 4,
  .open = sys_open,
  .close = close,
  .read = read,
  .write = write,
  .poll = poll,
  .socket = socket,
  .connect = connect,
  .bind = bind,
  .listen = listen,
  .accept = accept,
  .recvfrom = recvfrom,
  .sendto = sendto,
  .setsockopt = setsockopt,
  .getsockname = getsockname,
  .tcgetattr = tcgetattr,
  .tcsetattr = tcsetattr,
  .fsync = fsync,
  .lseek = lseek,
  .clock_gettime = clock_gettime,
  .ftruncate = ftruncate,
  .getsockopt = getsockopt,
  .fstat = sys_fstat,
  .stat = sys_stat,
  .rename = rename,
  .unlink = unlink,
};

const struct tw_sys *tw_sys = &tw_sys_default;

const struct tw_sys *tw_sys_set(const struct tw_sys *s)
{
  const struct tw_sys *old = tw_sys;
  tw_sys = s ? s : &tw_sys_default;
  return old;
}

static unsigned long long clock_ns(clockid_t id)
{
  struct timespec ts;
  if (tw_sys->clock_gettime(id, &ts) != 0)
    return 0;
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

unsigned long long tw_sys_mono_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
unsigned long long tw_sys_wall_ns(void) { return clock_ns(CLOCK_REALTIME); }
