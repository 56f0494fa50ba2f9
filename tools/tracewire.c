/* `tracewire`: dispatch to the subcommands of commands.def. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

#ifndef TW_VERSION_STRING
#define TW_VERSION_STRING "0.1.0"
#endif

struct command {
  const char *name, *summary;
  int (*run)(int argc, char **argv);
  void (*help)(FILE *f);
};

static const struct command commands[] = {
#define TW_COMMAND(name, summary) {#name, summary, tw_cli_##name, tw_cli_##name##_help},
#include "commands.def"
#undef TW_COMMAND
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
  fputs("usage: tracewire [--help] [--version] <command> [<args>]\n\ncommands:\n", f);
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fputs("\n'tracewire <command> --help' describes a command.\n"
        "exit status: 0 ok, 1 error, 2 usage, 3 input damaged (reported on stderr)\n", f);
}

static const struct command *find(const char *name)
{
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return TW_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return TW_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("tracewire %s\n", TW_VERSION_STRING);
    return TW_EXIT_OK;
  }
  if (!strcmp(argv[1], "help")) {
    const struct command *c = argc > 2 ? find(argv[2]) : NULL;
    if (c)
      c->help(stdout);
    else
      usage(stdout);
    return argc > 2 && !c ? TW_EXIT_USAGE : TW_EXIT_OK;
  }
  const struct command *c = find(argv[1]);
  if (!c) {
    fprintf(stderr, "tracewire: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return TW_EXIT_USAGE;
  }
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      c->help(stdout);
      return TW_EXIT_OK;
    }
  return c->run(argc - 1, argv + 1);
}
