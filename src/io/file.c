/* Inputs and outputs of a command (tracewire/io/file.h). */
/* Messages are cut to their buffers on purpose. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracewire/io/file.h"
#include "tracewire/io/sys.h"
#include "tracewire/error.h"

/* A table installed by a test may predate version 4. */
static int do_fstat(int fd, struct stat *st)
{
  return tw_sys->iVersion >= 4 && tw_sys->fstat ? tw_sys->fstat(fd, st) : fstat(fd, st);
}

static int do_stat(const char *path, struct stat *st)
{
  return tw_sys->iVersion >= 4 && tw_sys->stat ? tw_sys->stat(path, st) : stat(path, st);
}

/* A command reads a handful of files; more than this is a bug. */
#define MAX_GUARDED 64

static struct {
  pthread_mutex_t lock;
  struct { dev_t dev; ino_t ino; unsigned refs; } e[MAX_GUARDED];
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void id_of(const struct stat *st, struct tw_file_id *id)
{
  id->dev = st->st_dev;
  id->ino = st->st_ino;
  id->valid = 1;
}

int tw_file_id(const char *path, struct tw_file_id *id)
{
  struct stat st;
  memset(id, 0, sizeof *id);
  if ((strcmp(path, "-") ? do_stat(path, &st) : do_fstat(0, &st)) != 0)
    return TW_ENOENT;
  id_of(&st, id);
  return 0;
}

int tw_file_same(const char *a, const char *b)
{
  struct tw_file_id x, y;
  return tw_file_id(a, &x) == 0 && tw_file_id(b, &y) == 0 && x.dev == y.dev && x.ino == y.ino;
}

int tw_file_guard(const char *path, struct tw_file_id *id)
{
  struct stat st;
  memset(id, 0, sizeof *id);
  if ((strcmp(path, "-") ? do_stat(path, &st) : do_fstat(0, &st)) != 0)
    return 0;
  /* what writing can destroy or feed back into: a file, a FIFO; not a
   * terminal or /dev/null, which stdin and stdout often share */
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return 0;
  id_of(&st, id);
  int rc = TW_ENOSPC, free_slot = -1;
  pthread_mutex_lock(&reg.lock);
  for (int i = 0; i < MAX_GUARDED; i++) {
    if (reg.e[i].refs && reg.e[i].dev == id->dev && reg.e[i].ino == id->ino) {
      reg.e[i].refs++;
      rc = 0;
      break;
    }
    if (!reg.e[i].refs && free_slot < 0)
      free_slot = i;
  }
  if (rc < 0 && free_slot >= 0) {
    reg.e[free_slot].dev = id->dev;
    reg.e[free_slot].ino = id->ino;
    reg.e[free_slot].refs = 1;
    rc = 0;
  }
  pthread_mutex_unlock(&reg.lock);
  if (rc < 0)
    id->valid = 0;
  return rc;
}

void tw_file_unguard(struct tw_file_id *id)
{
  if (!id || !id->valid)
    return;
  pthread_mutex_lock(&reg.lock);
  for (int i = 0; i < MAX_GUARDED; i++)
    if (reg.e[i].refs && reg.e[i].dev == id->dev && reg.e[i].ino == id->ino) {
      reg.e[i].refs--;
      break;
    }
  pthread_mutex_unlock(&reg.lock);
  id->valid = 0;
}

int tw_file_guarded(const struct tw_file_id *id)
{
  int hit = 0;
  if (!id->valid)
    return 0;
  pthread_mutex_lock(&reg.lock);
  for (int i = 0; i < MAX_GUARDED && !hit; i++)
    hit = reg.e[i].refs && reg.e[i].dev == id->dev && reg.e[i].ino == id->ino;
  pthread_mutex_unlock(&reg.lock);
  return hit;
}

static int refuse(const char *path, char *err, size_t errcap)
{
  if (!strcmp(path, "-"))
    snprintf(err, errcap, "standard output is a file this command reads; it would be destroyed");
  else
    snprintf(err, errcap, "%s: is a file this command reads (the same file, perhaps through a "
             "link); writing it would destroy it", path);
  return TW_EEXIST;
}

int tw_file_check_output(const char *path, char *err, size_t errcap)
{
  struct stat st;
  struct tw_file_id id;
  if ((strcmp(path, "-") ? do_stat(path, &st) : do_fstat(1, &st)) != 0)
    return 0; /* not there yet: a new file cannot be an input */
  id_of(&st, &id);
  return tw_file_guarded(&id) ? refuse(path, err, errcap) : 0;
}

int tw_file_create(const char *path, char *err, size_t errcap)
{
  struct stat st;
  struct tw_file_id id;
  int out = !strcmp(path, "-");
  /* no O_TRUNC: the identity is checked on the open file before it is cut */
  int fd = out ? dup(1) : tw_sys->open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errcap, "%s: cannot create: %s", out ? "standard output" : path, strerror(errno));
    return errno == ENOSPC ? TW_ENOSPC : TW_ESYS;
  }
  if (do_fstat(fd, &st) == 0) {
    id_of(&st, &id);
    if (tw_file_guarded(&id)) {
      tw_sys->close(fd);
      return refuse(path, err, errcap);
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0 && !out &&
        (tw_sys->iVersion < 2 || tw_sys->ftruncate(fd, 0) != 0)) {
      snprintf(err, errcap, "%s: cannot truncate: %s", path, strerror(errno));
      tw_sys->close(fd);
      return TW_ESYS;
    }
  }
  return fd;
}

FILE *tw_file_fopen_w(const char *path, char *err, size_t errcap)
{
  if (!strcmp(path, "-")) {
    if (tw_file_check_output(path, err, errcap) < 0)
      return NULL;
    return stdout;
  }
  int fd = tw_file_create(path, err, errcap);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    snprintf(err, errcap, "%s: cannot create: %s", path, strerror(errno));
    tw_sys->close(fd);
  }
  return f;
}

int tw_file_rereadable(const char *path)
{
  struct stat st;
  if ((strcmp(path, "-") ? do_stat(path, &st) : do_fstat(0, &st)) != 0)
    return TW_ENOENT;
  return S_ISREG(st.st_mode) || S_ISBLK(st.st_mode);
}

long long tw_file_size(const char *path)
{
  struct stat st;
  if (do_stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return -1;
  return (long long)st.st_size;
}

int tw_file_rename(const char *from, const char *to, char *err, size_t errcap)
{
  int rc = tw_sys->iVersion >= 4 && tw_sys->rename ? tw_sys->rename(from, to) : rename(from, to);
  if (rc != 0) {
    snprintf(err, errcap, "cannot rename %s to %s: %s", from, to, strerror(errno));
    return TW_ESYS;
  }
  return 0;
}

int tw_file_unlink(const char *path)
{
  int rc = tw_sys->iVersion >= 4 && tw_sys->unlink ? tw_sys->unlink(path) : unlink(path);
  return rc == 0 ? 0 : TW_ESYS;
}
