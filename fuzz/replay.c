/*
 * The plain-program face of every fuzz target: runs LLVMFuzzerTestOneInput
 * on each file named (a directory: each file in it), so a crash found by
 * libFuzzer reproduces under gdb or valgrind with no fuzzer runtime, and
 * ctest replays the seed corpus and the regression files in every build
 * (ASan/UBSan included). Each input is copied into a buffer of exactly its
 * size so an overread is an overread. Missing arguments are skipped (a
 * target may have no regression files yet).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long runs;

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) {
    fprintf(stderr, "replay: %s: cannot open\n", path);
    if (f)
      fclose(f);
    return 1;
  }
  size_t n = (size_t)st.st_size;
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf || fread(buf, 1, n, f) != n) {
    fprintf(stderr, "replay: %s: cannot read %zu bytes\n", path, n);
    free(buf);
    fclose(f);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  runs++;
  return 0;
}

static int cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  char **names = NULL;
  size_t n = 0;
  int bad = 0;
  if (!d)
    return 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char **g = realloc(names, (n + 1) * sizeof *g);
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!g || !(g[n] = malloc(len)))
      abort();
    snprintf(g[n], len, "%s/%s", dir, e->d_name);
    names = g;
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp); /* the same order every run */
  for (size_t i = 0; i < n; i++) {
    bad |= run_file(names[i]);
    free(names[i]);
  }
  free(names);
  return bad;
}

int main(int argc, char **argv)
{
  int bad = 0;
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0)
      continue;
    bad |= S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
  }
  printf("replayed %lu input(s)\n", runs);
  return bad;
}
