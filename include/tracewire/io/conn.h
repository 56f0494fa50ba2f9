/*
 * Connections: the byte sources (and command sinks) the host reads traces
 * from. One vtable, one file per transport (src/io/conn_<name>.c), one
 * URI parser that picks the transport (src/io/conn_uri.c). Adding a
 * transport adds one file and one row in conn_uri.c's table. (Named
 * "connection" because struct tw_source is the target streamer's logger
 * source, include/tracewire/streamer.h; both meet in one test program.)
 *
 *   file.bin | file:///path          raw packets from a file (or a .twt trace)
 *   tcp://host:port                  connect to a target
 *   tcp-listen://[addr]:port         accept one target (default 127.0.0.1)
 *   udp://[addr]:port[?target=h:p]   receive datagrams (default 127.0.0.1);
 *                                    writes go to the last sender (or to
 *                                    the target given, until one sends)
 *   serial:///dev/ttyX?baud=N        termios raw, 8N1, N baud (default 115200)
 *
 * Reads deliver bytes, not packets: framing is the reader's job
 * (reader.h), so every transport behaves like a byte stream, and a UDP
 * datagram is simply a run of bytes.
 *
 * Context: a connection is used by one thread at a time.
 */
#ifndef TRACEWIRE_IO_CONN_H
#define TRACEWIRE_IO_CONN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tw_conn;

struct tw_conn_ops {
  const char *scheme; /* "tcp", "file", ... */
  /* Up to cap bytes. >0 bytes read; TW_EAGAIN when nothing arrived within
   * timeout_ms (-1 waits forever); TW_EOF at the end; another TW_E* on error
   * (with tw_conn_error() set). EINTR is retried inside. */
  int (*read)(struct tw_conn *s, void *buf, size_t cap, int timeout_ms);
  /* All n bytes or an error. TW_ENOTSUP for read-only sources. */
  int (*write)(struct tw_conn *s, const void *buf, size_t n);
  void (*close)(struct tw_conn *s);
  /* Optional: the position in the underlying file of stream byte `off`
   * (a .twt trace stores the stream in chunks); -1 when unknown. */
  long long (*locate)(struct tw_conn *s, unsigned long long off);
};

struct tw_conn {
  const struct tw_conn_ops *ops;
  int fd;                  /* transports with one descriptor; -1 otherwise */
  char name[256];          /* what the user named: "tcp://127.0.0.1:9000" */
  char err[256];           /* last error with context */
  unsigned long long nread; /* stream bytes delivered so far */
  int bound_port;          /* listening transports: the local port */
  /* Reconnect mode (tcp, tcp-listen, serial; `record --reconnect`): when
   * set, a target that goes away (end of stream, connection reset, a
   * serial device that vanished) is not the end: the connection is closed,
   * counted, and later reads wait for the target to come back (tcp-listen
   * accepts the next connection, tcp connects again, serial re-opens the
   * device), returning TW_EAGAIN meanwhile; writes return TW_ENOTCONN.
   * Bytes in flight at the disconnect are lost; the reader reports the cut
   * packet as skipped bytes and the decoder the missing ones as packet/event
   * sequence gaps, so the loss is never silent. Set it after opening. */
  int reconnect;
  unsigned long long disconnects;   /* targets that went away (reconnect mode) */
  unsigned long long disconnect_at; /* stream offset of the last disconnect */
  /* Connections established so far: 1 from the open for transports that
   * are connected when opened (files and UDP included), 0 for tcp-listen
   * until a target connects and for a tcp or serial target still waited
   * for (tw_conn_open_waiting()); each reconnection adds one. A value that grew
   * means "a target (re)appeared": the owner re-sends its start-up
   * commands. Connected now: connects > disconnects. */
  unsigned long long connects;
};

/* Open by URI (see above). 0 and *out set, or a TW_E* code with a message in
 * err[errcap]. The caller frees with tw_conn_close(). */
int tw_conn_open(const char *uri, struct tw_conn **out, char *err, size_t errcap);

/* Open in reconnect mode (tw_conn.reconnect set; `record --reconnect`),
 * where a target that is not there yet is waited for instead of being an
 * error: a board still powered off or being flashed. tcp: connection
 * refused, host or network unreachable or down, no answer within 1 s;
 * serial: the device node absent (ENOENT) or without a device (ENODEV,
 * ENXIO). The connection is then returned waiting: connects 0,
 * tw_conn_connected() 0, the reason in tw_conn_error() ("NAME: connect:
 * Connection refused"); reads try again, paced by the backoff, returning
 * TW_EAGAIN until the target appears (connects becomes 1). Errors that
 * cannot heal stay errors, as from tw_conn_open(): a bad URI, a host name
 * that does not resolve, permission denied, not a tty. Other transports
 * open as with tw_conn_open(). */
int tw_conn_open_waiting(const char *uri, struct tw_conn **out, char *err, size_t errcap);

int tw_conn_read(struct tw_conn *s, void *buf, size_t cap, int timeout_ms);
int tw_conn_write(struct tw_conn *s, const void *buf, size_t n);
void tw_conn_close(struct tw_conn *s);
const char *tw_conn_error(const struct tw_conn *s);
long long tw_conn_locate(struct tw_conn *s, unsigned long long off);

/* Constructors, one per transport file. */
int tw_conn_file_open(const char *path, struct tw_conn **out, char *err, size_t errcap);
/* An open descriptor (a pipe, a FIFO: anything read once) whose first
 * npeek bytes (at most 64) were already read to tell what it holds: they
 * are delivered first. own: close fd with the connection. */
int tw_conn_fd_open(int fd, int own, const char *name, const void *peek, size_t npeek,
                    struct tw_conn **out);
int tw_conn_tcp_connect(const char *host, const char *port, struct tw_conn **out, char *err, size_t errcap);
/* Binds and listens at once (so the port is known before a target
 * connects); the first read accepts. *bound_port receives the port. */
int tw_conn_tcp_listen(const char *addr, const char *port, int *bound_port,
                         struct tw_conn **out, char *err, size_t errcap);
int tw_conn_udp_open(const char *addr, const char *port, int *bound_port,
                       struct tw_conn **out, char *err, size_t errcap);
/* Where writes go before any datagram arrived (udp://:port?target=H:P). */
int tw_conn_udp_set_peer(struct tw_conn *s, const char *host, const char *port, char *err,
                           size_t errcap);
int tw_conn_serial_open(const char *dev, unsigned baud, struct tw_conn **out, char *err, size_t errcap);
/* Bytes in memory (not copied; must outlive the source). */
int tw_conn_mem_open(const void *data, size_t len, struct tw_conn **out);

/* 1 when a target is connected now (always for transports without a
 * connection: files, UDP), 0 while waiting for one (reconnect mode, or
 * tcp-listen before the first target). */
int tw_conn_connected(const struct tw_conn *s);

/* The port a listening source is bound to (0 if not listening). */
int tw_conn_bound_port(const struct tw_conn *s);

/* Internal helpers shared by transport files. */
/* The constructors with the waiting of tw_conn_open_waiting() (wait=1). */
int tw__conn_tcp_connect(const char *host, const char *port, int wait, struct tw_conn **out,
                         char *err, size_t errcap);
int tw__conn_serial_open(const char *dev, unsigned baud, int wait, struct tw_conn **out,
                         char *err, size_t errcap);
void tw__conn_init(struct tw_conn *s, const struct tw_conn_ops *ops, const char *name);
int tw__conn_errno(struct tw_conn *s, const char *what); /* sets err, returns TW_E* */
int tw__fd_wait(struct tw_conn *s, int fd, short events, int timeout_ms);
int tw__fd_write_all(struct tw_conn *s, int fd, const void *buf, size_t n);
int tw__fd_read(struct tw_conn *s, int fd, void *buf, size_t cap, int timeout_ms);
/* Reconnect mode: close s->fd, count the disconnect, say so in s->err
 * ("target disconnected at stream byte N (why); then"). */
void tw__conn_lost(struct tw_conn *s, const char *why, const char *then);
/* Retry pacing for transports that reconnect: the delay between attempts
 * doubles from 50 ms to 1 s, so a dead target costs a few calls a second. */
struct tw__backoff {
  unsigned long long next_ns; /* monotonic time of the next attempt (0: now) */
  unsigned delay_ms;          /* after the next failure (0: the first) */
  unsigned long long failures; /* since the last success */
};
void tw__backoff_failed(struct tw__backoff *b);
void tw__backoff_reset(struct tw__backoff *b);
/* Sleep until the next attempt is due or until deadline_ns (monotonic;
 * 0: no deadline) comes first. 0 when an attempt is due, else TW_EAGAIN. */
int tw__backoff_wait(const struct tw__backoff *b, unsigned long long deadline_ns);
/* The monotonic deadline of a read's timeout (0 for -1: none). */
unsigned long long tw__deadline(int timeout_ms);
/* Milliseconds left until deadline_ns (-1 for none, 0 when past). */
int tw__ms_left(unsigned long long deadline_ns);

#ifdef __cplusplus
}
#endif

#endif
