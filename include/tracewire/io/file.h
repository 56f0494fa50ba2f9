/*
 * Files a command reads and writes: no command may destroy its input.
 *
 * A command (or the library that opens a trace for it) registers each file
 * it reads with tw_file_guard(); every library writer creates its output
 * through tw_file_create() / tw_file_fopen_w(), which refuse a file that is
 * a registered input. Identity is the device and inode of the file opened,
 * so a hard link, a symbolic link or another spelling of the path are all
 * caught, and so is "-" (standard output) when the shell redirected it to an
 * input. The check is made on the opened descriptor, before anything is
 * truncated: a refused output is left exactly as it was.
 *
 * Also here: telling apart what can be read twice (a regular file) from a
 * stream (standard input, a FIFO, a socket, a tty) without seeking, and the
 * rename that replaces a file only once its new content has been verified.
 *
 * Every call goes through the syscall table (io/sys.h, version 4).
 *
 * Context: the registry is process-wide and locked; any thread.
 */
#ifndef TRACEWIRE_IO_FILE_H
#define TRACEWIRE_IO_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct tw_file_id {
  dev_t dev;
  ino_t ino;
  int valid;
};

/* The identity of path ("-": standard input); TW_ENOENT (id->valid 0) when
 * it cannot be stat'ed. */
int tw_file_id(const char *path, struct tw_file_id *id);
/* Whether a and b name the same file (both must exist). */
int tw_file_same(const char *a, const char *b);

/* Register path as an input of this process (counted: register and
 * release in pairs). Only regular files and FIFOs are registered: a path
 * that does not exist, a terminal or a device has nothing writing could
 * destroy (0, id left invalid). */
int tw_file_guard(const char *path, struct tw_file_id *id);
void tw_file_unguard(struct tw_file_id *id);
/* 1 if the identity is a registered input. */
int tw_file_guarded(const struct tw_file_id *id);

/* Open path for writing, created if missing, truncated once it is known
 * not to be an input ("-": a duplicate of standard output, checked the
 * same way). Returns the descriptor, or a negative TW_E* with a message
 * naming the file in err: TW_EEXIST "is an input of this command". */
int tw_file_create(const char *path, char *err, size_t errcap);
/* The same as a stdio stream ("-" gives stdout itself, which the caller
 * must not fclose). NULL with the message in err. */
FILE *tw_file_fopen_w(const char *path, char *err, size_t errcap);
/* TW_EEXIST with the message if path (or stdout for "-") is an input; 0
 * otherwise (also when it does not exist yet). For outputs opened by code
 * that cannot use tw_file_create() (a plugin's own fopen). */
int tw_file_check_output(const char *path, char *err, size_t errcap);

/* 1 if path ("-": standard input) can be read twice from the start (a
 * regular file or a block device), 0 if it is a stream, TW_E* if it cannot
 * be stat'ed. */
int tw_file_rereadable(const char *path);

/* The size of a regular file, or -1 (not one, or cannot be stat'ed). */
long long tw_file_size(const char *path);

/* rename(2) through the syscall table, with the message in err. */
int tw_file_rename(const char *from, const char *to, char *err, size_t errcap);
int tw_file_unlink(const char *path);

#endif
