/* `tracewire top URI`: `record --live` with less to type (docs/live.md):
 * watch a target, recording it to -o FILE or to a new file in $TMPDIR
 * (said at the end: the recording is kept). Every record option works. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

void tw_cli_top_help(FILE *f)
{
  fputs("usage: tracewire top SOURCE [-o TRACE.twt] [record options]\n"
        "Watch a target live while recording it: `tracewire record --live --from SOURCE`.\n"
        "Without -o the trace goes to $TMPDIR (or /tmp)/tracewire-top-PID-TIME.twt and\n"
        "is kept; its name is said at the end. When the recording ends by itself (the\n"
        "target went away) the last view stays until q (record --linger).\n"
        "keys: q stop (the trace is complete), space pause the display, s change the sort\n"
        "SOURCE and options: see tracewire record --help.\n"
        "exit status: as record's\n", f);
}

int tw_cli_top(int argc, char **argv)
{
  if (argc < 2 || argv[1][0] == '-') {
    int help = argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
    tw_cli_top_help(help ? stdout : stderr);
    return help ? TW_EXIT_OK : TW_EXIT_USAGE;
  }
  int has_out = 0;
  for (int i = 2; i < argc; i++)
    has_out |= !strncmp(argv[i], "-o", 2); /* -o FILE, -oFILE */
  char tmp[512];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/tracewire-top-%ld-%lld.twt", dir && *dir ? dir : "/tmp",
           (long)getpid(), (long long)time(NULL));
  char **av = calloc((size_t)argc + 7, sizeof *av);
  if (!av) {
    cli_err("top: out of memory");
    return TW_EXIT_ERROR;
  }
  int n = 0;
  av[n++] = "record";
  av[n++] = "--live";
  av[n++] = "--linger"; /* a viewer: the last picture stays until q */
  av[n++] = "--from";
  av[n++] = argv[1];
  if (!has_out) {
    av[n++] = "-o";
    av[n++] = tmp;
  }
  for (int i = 2; i < argc; i++)
    av[n++] = argv[i];
  int rc = tw_cli_record(n, av);
  if (!has_out && rc != TW_EXIT_USAGE)
    cli_msg("tracewire top: the recording is in %s (kept)", tmp);
  free(av);
  return rc;
}
