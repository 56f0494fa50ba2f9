/*
 * The live view's drawing (live_ui.h, docs/live.md). Everything it shows
 * is a number the live analysis (tracewire/analysis/live.h) or the
 * recorder computed; this file lays them out.
 *
 * Terminal: ncurses (Debian libncurses-dev), redrawn every 250 ms, keys
 * read every 50 ms without waiting (q stop, space pause, s sort). It
 * fits 80x24 (what an SSH session gives by default): the task table takes
 * the rows the findings leave. The recorder's messages go to the last
 * line while the screen is up and are printed in full after it.
 *
 * Not a terminal (a pipe, a file, CI): the same numbers as a few plain
 * lines on stdout every second, and a last report at the end.
 */
#include <curses.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "live_ui.h"
#include "tracewire/io/sys.h"
#include "tracewire/model/rtos.h"

#define TICK_NS 50000000ull     /* keys */
#define DRAW_NS 250000000ull    /* the screen */
#define PLAIN_NS 1000000000ull  /* plain lines */
#define LINK_BYTES 0
#define LINK_PACKETS 1
#define LINK_EVENTS 2
#define LINK_RING 3
#define LINK_TRANSPORT 4
#define LINK_UNEXPLAINED 5
#define LINK_N 6

struct live_ui {
  struct live_ui_cfg cfg;
  char from[300], out[300];  /* (cfg's strings, kept) */
  struct tw_live *live;
  struct tw_meter link;      /* wall time: the recorder's counters */
  struct live_link lk;
  struct tw_live_view view;  /* the one drawn (kept while paused) */
  SCREEN *scr;
  int curses, keys, color, paused;
  enum tw_live_sort sort;
  unsigned long long t0, last_tick, last_draw, last_plain;
  const char *ended;         /* why the recording is over, once it is */
  char *msgs;                /* messages kept while the screen is up */
  size_t nmsgs, capmsgs;
  char last_msg[256];
};

/* ---- messages ---------------------------------------------------------------------------- */

static void keep_msg(void *ctx, const char *line)
{
  struct live_ui *ui = ctx;
  size_t n = strlen(line);
  snprintf(ui->last_msg, sizeof ui->last_msg, "%s", line);
  if (ui->nmsgs + n + 2 > ui->capmsgs) {
    size_t cap = ui->capmsgs ? ui->capmsgs * 2 : 4096;
    while (cap < ui->nmsgs + n + 2)
      cap *= 2;
    char *p = realloc(ui->msgs, cap);
    if (!p)
      return; /* still on the last line; the final print says nothing of it */
    ui->msgs = p;
    ui->capmsgs = cap;
  }
  memcpy(ui->msgs + ui->nmsgs, line, n);
  ui->nmsgs += n;
  ui->msgs[ui->nmsgs++] = '\n';
  ui->msgs[ui->nmsgs] = 0;
}

/* ---- formatting -------------------------------------------------------------------------- */

static void fmt_si(char *b, size_t cap, double v, const char *unit)
{
  if (v >= 1e9)
    snprintf(b, cap, "%.1f G%s", v / 1e9, unit);
  else if (v >= 1e6)
    snprintf(b, cap, "%.1f M%s", v / 1e6, unit);
  else if (v >= 1e4)
    snprintf(b, cap, "%.1f k%s", v / 1e3, unit);
  else
    snprintf(b, cap, "%.0f %s", v, unit);
}

static void fmt_ns(char *b, size_t cap, uint64_t ns)
{
  if (ns >= 1000000000ull)
    snprintf(b, cap, "%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000ull)
    snprintf(b, cap, "%.3f ms", (double)ns / 1e6);
  else
    snprintf(b, cap, "%.3f us", (double)ns / 1e3);
}

static const char *kind_short(enum tw_an_finding_kind k)
{
  switch (k) {
  case TW_AN_PRIO_INVERSION: return "inversion";
  case TW_AN_DEADLOCK: return "deadlock";
  case TW_AN_STARVATION: return "starved";
  case TW_AN_BLOCKED_AT_END: return "blocked";
  default: return tw_an_finding_name(k);
  }
}

/* "running", "blocked on res", "blocked (time)" */
static void state_text(char *b, size_t cap, const struct tw_live_task *t)
{
  if (t->state == TW_RTOS_BLOCKED && t->waits_on[0])
    snprintf(b, cap, "blocked on %s", t->waits_on);
  else if (t->state == TW_RTOS_BLOCKED)
    snprintf(b, cap, "blocked (%s)", tw_rtos_wait_name((enum tw_rtos_wait)t->wait));
  else
    snprintf(b, cap, "%s", tw_rtos_state_name((enum tw_rtos_state)t->state));
}

static void link_sample(struct live_ui *ui, unsigned long long now, const struct live_link *lk)
{
  uint64_t v[LINK_N] = {lk->bytes, lk->packets, lk->events, lk->ring, lk->transport,
                        lk->unexplained};
  ui->lk = *lk;
  tw_meter_add(&ui->link, now, v, LINK_N);
}

/* ---- the screen -------------------------------------------------------------------------- */

enum { C_RUN = 1, C_READY, C_BLOCKED, C_BAR, C_FIND, C_BAD };

static void line(int y, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(int y, const char *fmt, ...)
{
  char b[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  if (y >= 0 && y < LINES)
    mvaddnstr(y, 0, b, COLS);
}

static void draw_header(struct live_ui *ui, unsigned long long now)
{
  char el[32], st[96], src[160];
  snprintf(el, sizeof el, "%.1f s", (double)(now - ui->t0) / 1e9);
  if (ui->ended)
    snprintf(st, sizeof st, "%s; trace complete", ui->ended);
  else if (ui->paused)
    snprintf(st, sizeof st, "PAUSED (recording on)");
  else
    snprintf(st, sizeof st, "recording");
  if (ui->cfg.sources > 1)
    snprintf(src, sizeof src, "%s +%zu", ui->cfg.from, ui->cfg.sources - 1);
  else
    snprintf(src, sizeof src, "%s", ui->cfg.from);
  attron(A_REVERSE);
  mvhline(0, 0, ' ', COLS);
  line(0, " tracewire  %s -> %s", src, ui->cfg.out);
  int w = (int)(strlen(el) + strlen(st) + 4);
  if (COLS > w)
    mvprintw(0, COLS - w, " %s  %s ", el, st);
  attroff(A_REVERSE);
}

static void draw_link(struct live_ui *ui)
{
  char b[32], p[32], e[32], tb[32], te[32];
  const struct live_link *lk = &ui->lk;
  fmt_si(b, sizeof b, tw_meter_rate(&ui->link, LINK_BYTES), "B/s");
  fmt_si(p, sizeof p, tw_meter_rate(&ui->link, LINK_PACKETS), "pkt/s");
  fmt_si(e, sizeof e, tw_meter_rate(&ui->link, LINK_EVENTS), "ev/s");
  fmt_si(tb, sizeof tb, (double)lk->bytes, "B");
  fmt_si(te, sizeof te, (double)lk->events, "events");
  line(1, "link  %s  %s  %s    total %s, %s", b, p, e, tb, te);
  unsigned long long r1 = tw_meter_delta(&ui->link, LINK_RING, NULL),
                     t1 = tw_meter_delta(&ui->link, LINK_TRANSPORT, NULL),
                     u1 = tw_meter_delta(&ui->link, LINK_UNEXPLAINED, NULL);
  int bad = r1 || t1 || u1;
  if (bad && ui->color)
    attron(COLOR_PAIR(C_BAD));
  line(2, "loss  ring %llu (last s %llu)  transport %llu (%llu)  unexplained %llu (%llu)", lk->ring,
       r1, lk->transport, t1, lk->unexplained, u1);
  if (bad && ui->color)
    attroff(COLOR_PAIR(C_BAD));
  if (ui->view.view_skipped) {
    char sk[64];
    snprintf(sk, sizeof sk, "  view behind: %llu pkt",
             (unsigned long long)ui->view.view_skipped);
    int x = 0, y = 0;
    getyx(stdscr, y, x);
    (void)y;
    if (x + (int)strlen(sk) < COLS)
      mvaddstr(2, x, sk);
  }
}

static void draw_trace(struct live_ui *ui)
{
  const struct tw_live_view *v = &ui->view;
  char span[32], win[32];
  fmt_ns(span, sizeof span, v->t - v->t0);
  fmt_ns(win, sizeof win, v->window_ns);
  line(3, "trace %s, %d core%s, irq %.1f%%, not known %.1f%%   sort: %s", span, v->ncores,
       v->ncores == 1 ? "" : "s", v->irq_pct, v->unknown_pct, tw_live_sort_name(ui->sort));
  attron(A_BOLD);
  line(4, "%-16s %4s  %-20s %-*s %6s", "TASK", "PRIO", "STATE", COLS > 74 ? COLS - 52 : 22,
       "CPU, last second", "TOTAL");
  attroff(A_BOLD);
}

/* One row, built whole and clipped to the screen's width (a narrow
 * terminal loses the right columns, nothing wraps), then coloured. */
static void draw_task(struct live_ui *ui, int y, const struct tw_live_task *t)
{
  char prio[16], st[64], bar[256], row[512];
  int barw = COLS > 74 ? COLS - 59 : 15;
  barw = barw > (int)sizeof bar - 1 ? (int)sizeof bar - 1 : barw;
  snprintf(prio, sizeof prio, t->prio >= 0 ? "%d" : "?", t->prio);
  state_text(st, sizeof st, t);
  int n = (int)(t->cpu_window / 100.0 * barw + 0.5);
  n = n < 0 ? 0 : n > barw ? barw : n;
  for (int i = 0; i < barw; i++)
    bar[i] = i < n ? '#' : i % 4 == 3 ? '.' : ' ';
  bar[barw] = 0;
  snprintf(row, sizeof row, "%-16.16s %4s  %-20.20s %5.1f%% %s %5.1f%%", t->name, prio, st,
           t->cpu_window, bar, t->cpu_total);
  line(y, "%s", row);
  if (!ui->color)
    return;
  int pair = t->state == TW_RTOS_RUNNING ? C_RUN : t->state == TW_RTOS_READY ? C_READY
             : t->state == TW_RTOS_BLOCKED ? C_BLOCKED : 0;
  if (pair && COLS > 23)
    mvchgat(y, 23, COLS - 23 < 20 ? COLS - 23 : 20, A_NORMAL, (short)pair, NULL);
  if (n && COLS > 51)
    mvchgat(y, 51, COLS - 51 < n ? COLS - 51 : n, A_NORMAL, C_BAR, NULL);
}

static void draw_irqs(struct live_ui *ui, int y)
{
  const struct tw_live_view *v = &ui->view;
  char b[1024];
  size_t o = (size_t)snprintf(b, sizeof b, "IRQ/s");
  if (!v->nirqs)
    o += (size_t)snprintf(b + o, sizeof b - o, "  none");
  for (size_t i = 0; i < v->nirqs && o < sizeof b; i++) {
    size_t before = o;
    o += (size_t)snprintf(b + o, sizeof b - o, "  %s %.0f", v->irqs[i].name, v->irqs[i].per_s);
    if (o > (size_t)COLS - 8 && i + 1 < v->nirqs) { /* the rest does not fit */
      snprintf(b + before, sizeof b - before, "  +%zu more", v->nirqs_total - i);
      break;
    }
  }
  line(y, "%s", b);
}

static void draw_groups(struct live_ui *ui, int y, int rows)
{
  const struct tw_live_view *v = &ui->view;
  attron(A_BOLD);
  if (v->ngroups_total)
    line(y, "FINDINGS  %llu in %zu group%s, worst first%s", (unsigned long long)v->findings,
         v->ngroups_total, v->ngroups_total == 1 ? "" : "s",
         v->ngroups_total > (size_t)rows ? " (tracewire analyze: all)" : "");
  else
    line(y, "FINDINGS  none so far");
  attroff(A_BOLD);
  for (int i = 0; i < rows && (size_t)i < v->ngroups; i++) {
    const struct tw_live_group *g = &v->groups[i];
    char cnt[32], worst[32], at[32], last[32];
    snprintf(cnt, sizeof cnt, "x%llu", (unsigned long long)g->count);
    fmt_ns(worst, sizeof worst, g->worst_ns);
    fmt_ns(at, sizeof at, g->worst_t0);
    fmt_ns(last, sizeof last, g->last);
    int attr = (ui->color ? COLOR_PAIR(C_FIND) : 0) | (g->new_count ? A_BOLD : 0); /* new: bold */
    attron(attr);
    char b[512];
    if (g->kind == TW_AN_BLOCKED_AT_END) /* (only at the end) */
      snprintf(b, sizeof b, " %-9s %-6s %s, since %s", kind_short(g->kind), cnt, g->what, at);
    else if (snprintf(b, sizeof b, " %-9s %-6s %s: worst %s at %s, last %s", kind_short(g->kind),
                      cnt, g->what, worst, at, last) > COLS)
      snprintf(b, sizeof b, " %-9s %-6s %s: worst %s at %s", kind_short(g->kind), cnt, g->what,
               worst, at); /* narrow: what and the worst first */
    line(y + 1 + i, "%s", b);
    attroff(attr);
  }
}

static void draw(struct live_ui *ui, unsigned long long now)
{
  erase();
  draw_header(ui, now);
  draw_link(ui);
  draw_trace(ui);
  const struct tw_live_view *v = &ui->view;
  /* rows: 5 on top, 1 for keys, 1 for interrupts, 1 + groups for findings */
  int free_rows = LINES - 8;
  int groups = (int)(v->ngroups < 4 ? v->ngroups : 4);
  if (free_rows - groups < 3)
    groups = free_rows > 4 ? free_rows - 3 : 0;
  int tasks = free_rows - groups, more = 0;
  if ((size_t)tasks >= v->ntasks_total)
    tasks = (int)v->ntasks;
  else if (tasks > 1) /* a row says how many are not shown */
    more = 1, tasks--;
  for (int i = 0; i < tasks; i++)
    draw_task(ui, 5 + i, &v->tasks[i]);
  if (more)
    line(5 + tasks, "  ... %zu more tasks (s: sort)", v->ntasks_total - (size_t)tasks);
  int y = 5 + tasks + more;
  draw_irqs(ui, y);
  draw_groups(ui, y + 1, groups);
  attron(A_REVERSE);
  mvhline(LINES - 1, 0, ' ', COLS);
  line(LINES - 1, " %s  %s", ui->ended ? "q quit" : "q stop  space pause  s sort",
       ui->last_msg[0] ? ui->last_msg : ui->view.err ? "analysis incomplete: out of memory" : "");
  attroff(A_REVERSE);
  refresh();
}

static int start_curses(struct live_ui *ui)
{
  const char *term = getenv("TERM");
  if (!term || !*term || !strcmp(term, "dumb"))
    return -1;
  setlocale(LC_ALL, "");
  ui->scr = newterm(NULL, stdout, stdin);
  if (!ui->scr)
    return -1;
  set_term(ui->scr);
  ui->keys = isatty(0);
  cbreak();
  noecho();
  nodelay(stdscr, TRUE);
  keypad(stdscr, TRUE);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(C_RUN, COLOR_GREEN, -1);
    init_pair(C_READY, COLOR_YELLOW, -1);
    init_pair(C_BLOCKED, COLOR_RED, -1);
    init_pair(C_BAR, COLOR_CYAN, -1);
    init_pair(C_FIND, COLOR_MAGENTA, -1);
    init_pair(C_BAD, COLOR_RED, -1);
    ui->color = 1;
  }
  ui->curses = 1;
  cli_set_sink(keep_msg, ui);
  return 0;
}

static void stop_curses(struct live_ui *ui)
{
  if (!ui->curses)
    return;
  endwin();
  delscreen(ui->scr);
  ui->curses = 0;
  cli_set_sink(NULL, NULL);
  if (ui->nmsgs)
    fputs(ui->msgs, stderr);
}

/* ---- plain lines --------------------------------------------------------------------------- */

static void plain(struct live_ui *ui, unsigned long long now, int last)
{
  const struct tw_live_view *v = &ui->view;
  const struct live_link *lk = &ui->lk;
  char b[32], p[32], e[32], w[2048];
  double el = (double)(now - ui->t0) / 1e9;
  fmt_si(b, sizeof b, tw_meter_rate(&ui->link, LINK_BYTES), "B/s");
  fmt_si(p, sizeof p, tw_meter_rate(&ui->link, LINK_PACKETS), "pkt/s");
  fmt_si(e, sizeof e, tw_meter_rate(&ui->link, LINK_EVENTS), "ev/s");
  printf("[%.1f s] %s: link %s, %s, %s; %llu events; loss: ring %llu (last s %llu), transport %llu "
         "(%llu), unexplained %llu (%llu)%s\n",
         el, last ? "end" : "live", b, p, e, lk->events, lk->ring,
         (unsigned long long)tw_meter_delta(&ui->link, LINK_RING, NULL), lk->transport,
         (unsigned long long)tw_meter_delta(&ui->link, LINK_TRANSPORT, NULL), lk->unexplained,
         (unsigned long long)tw_meter_delta(&ui->link, LINK_UNEXPLAINED, NULL),
         v->view_skipped ? "; the view is behind" : "");
  size_t o = (size_t)snprintf(w, sizeof w, "[%.1f s] cpu %%, last second (since start):", el);
  for (size_t i = 0; i < v->ntasks && i < 8 && o < sizeof w; i++)
    o += (size_t)snprintf(w + o, sizeof w - o, "%s %s %.1f (%.1f)", i ? "," : "",
                          v->tasks[i].name, v->tasks[i].cpu_window, v->tasks[i].cpu_total);
  if (v->ntasks > 8 && o < sizeof w)
    o += (size_t)snprintf(w + o, sizeof w - o, ", +%zu", v->ntasks_total - 8);
  if (!v->ntasks && o < sizeof w)
    snprintf(w + o, sizeof w - o, " no task seen yet");
  puts(w);
  o = (size_t)snprintf(w, sizeof w, "[%.1f s] irq/s:", el);
  for (size_t i = 0; i < v->nirqs && i < 8 && o < sizeof w; i++)
    o += (size_t)snprintf(w + o, sizeof w - o, "%s %s %.0f", i ? "," : "", v->irqs[i].name,
                          v->irqs[i].per_s);
  if (!v->nirqs && o < sizeof w)
    snprintf(w + o, sizeof w - o, " none");
  puts(w);
  printf("[%.1f s] findings: %llu in %zu groups\n", el, (unsigned long long)v->findings,
         v->ngroups_total);
  for (size_t i = 0; i < v->ngroups && i < (last ? 12u : 3u); i++) {
    const struct tw_live_group *g = &v->groups[i];
    char worst[32], at[32], lt[32];
    fmt_ns(worst, sizeof worst, g->worst_ns);
    fmt_ns(at, sizeof at, g->worst_t0);
    fmt_ns(lt, sizeof lt, g->last);
    if (g->kind == TW_AN_BLOCKED_AT_END)
      printf("[%.1f s]   %s x%llu: %s, since %s\n", el, tw_an_finding_name(g->kind),
             (unsigned long long)g->count, g->what, at);
    else
      printf("[%.1f s]   %s x%llu: %s: worst %s at %s, last %s\n", el,
             tw_an_finding_name(g->kind), (unsigned long long)g->count, g->what, worst, at, lt);
  }
  fflush(stdout);
}

/* ---- the recorder's side --------------------------------------------------------------------- */

int live_ui_open(struct live_ui **out, const struct live_ui_cfg *cfg)
{
  struct live_ui *ui = calloc(1, sizeof *ui);
  *out = NULL;
  if (!ui) {
    cli_err("record: --live: out of memory");
    return -1;
  }
  ui->cfg = *cfg;
  snprintf(ui->from, sizeof ui->from, "%s", cfg->from ? cfg->from : "");
  snprintf(ui->out, sizeof ui->out, "%s", cfg->out ? cfg->out : "");
  ui->cfg.from = ui->from;
  ui->cfg.out = ui->out;
  ui->sort = TW_LIVE_SORT_WINDOW;
  ui->t0 = ui->last_plain = tw_sys_mono_ns();
  tw_meter_init(&ui->link, 1000000000ull);
  struct tw_live_cfg lc = {.starve_ns = cfg->starve_ns, .sources = cfg->sources,
                           .low_priority = 1};
  int rc = tw_live_open(&ui->live, &lc);
  if (rc < 0) {
    cli_err("record: --live: cannot start the live analysis: %s", tw_strerror(rc));
    free(ui);
    return -1;
  }
  if (!cfg->plain && isatty(1) && start_curses(ui) < 0)
    cli_err("record: --live: cannot use this terminal (TERM=%s): plain lines instead",
            getenv("TERM") ? getenv("TERM") : "");
  *out = ui;
  return 0;
}

struct tw_live *live_ui_live(struct live_ui *ui) { return ui->live; }

static int read_keys(struct live_ui *ui)
{
  int quit = 0, c;
  while (ui->keys && (c = getch()) != ERR) {
    if (c == 'q' || c == 'Q')
      quit = 1;
    else if (c == ' ')
      ui->paused = !ui->paused;
    else if (c == 's' || c == 'S')
      ui->sort = (enum tw_live_sort)((ui->sort + 1) % TW_LIVE_NSORTS);
    else
      continue;
    ui->last_draw = 0; /* show it now */
  }
  return quit;
}

int live_ui_tick(struct live_ui *ui, unsigned long long now, const struct live_link *lk)
{
  int quit = 0;
  if (now - ui->last_tick < TICK_NS)
    return 0;
  ui->last_tick = now;
  if (!ui->paused) /* (paused: the whole display stands still) */
    link_sample(ui, now, lk);
  if (!ui->curses) {
    if (now - ui->last_plain >= PLAIN_NS) {
      tw_live_snapshot(ui->live, &ui->view);
      tw_live_sort(&ui->view, TW_LIVE_SORT_WINDOW);
      plain(ui, now, 0);
      ui->last_plain = now;
    }
    return 0;
  }
  quit = read_keys(ui);
  if (now - ui->last_draw >= DRAW_NS || !ui->last_draw) {
    if (!ui->paused) {
      tw_live_snapshot(ui->live, &ui->view);
      tw_live_sort(&ui->view, ui->sort);
    }
    draw(ui, now);
    ui->last_draw = now;
  }
  return quit;
}

void live_ui_end(struct live_ui *ui, const struct live_link *lk, const char *why, int no_wait,
                 volatile sig_atomic_t *interrupt)
{
  unsigned long long now = tw_sys_mono_ns();
  link_sample(ui, now, lk);
  tw_live_end(ui->live);
  ui->ended = why;
  ui->paused = 0;
  /* the last analysis: what was queued, and the end-of-trace detectors */
  for (int i = 0; i < 500; i++) {
    tw_live_snapshot(ui->live, &ui->view);
    if (ui->view.finished)
      break;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  tw_live_sort(&ui->view, ui->curses ? ui->sort : TW_LIVE_SORT_WINDOW);
  if (!ui->curses) {
    plain(ui, now, 1);
    return;
  }
  ui->last_draw = 0;
  while (!no_wait && ui->keys && !*interrupt) {
    now = tw_sys_mono_ns();
    if (read_keys(ui))
      break;
    if (!ui->last_draw || now - ui->last_draw >= DRAW_NS) {
      tw_live_sort(&ui->view, ui->sort);
      draw(ui, now);
      ui->last_draw = now;
    }
    nanosleep(&(struct timespec){0, TICK_NS}, NULL);
  }
  draw(ui, tw_sys_mono_ns());
}

void live_ui_close(struct live_ui *ui)
{
  if (!ui)
    return;
  stop_curses(ui);
  unsigned long long skipped = tw_live_skipped(ui->live); /* the queue's own count, exact */
  cli_msg("tracewire record: live view: %llu of %llu packets analysed%s",
          ui->lk.packets >= skipped ? ui->lk.packets - skipped : 0, ui->lk.packets,
          skipped ? " (it fell behind: the rest are in the trace, not in the view)" : "");
  tw_live_close(ui->live);
  tw_meter_free(&ui->link);
  free(ui->msgs);
  free(ui);
}
