/* An engine that answers at once: it replays one fixed legal game from the start position.

   The game comes from "game.h" (written by benchmarks/arbiter_vs_cutegames.py at run time):
   GAME_MOVES, the moves of one legal game, and GAME_RESULT, its result as UGI words it
   (p1win, p2win or draw).  The ply to answer is the number of moves on the last `position`
   line, so both engines of a game replay the same game whoever plays which side.

   It speaks UCI and UGI as protocol/SPEC.md asks of an engine (uci/ugi, isready, setoption,
   ucinewgame/uginewgame, position, go, stop, quit) and answers cutegames' queries
   (`query gameover`, `query result`, `query p1turn`) from the same stored game.

   With $INSTANT_ENGINE_INFO set to N, it writes N info lines before each bestmove (depth 1 to
   N, a score, nodes, a four-move pv of the stored game), as an engine that searches writes
   them: what reading them costs a runner.

   With $INSTANT_ENGINE_THINK_US set to N, it waits N microseconds (asleep: no CPU) before each
   bestmove, as an engine that leaves its core to others while it thinks (one searching on
   another machine, or on a GPU): so that a runner's throughput can grow with its concurrency
   until its own CPU fills the cores.

   When it ends (quit, or the end of its input) it appends its own CPU time and its process id,
   "<user> <system> <pid>" (seconds), to the file $INSTANT_ENGINE_CPU if that is set: so the
   benchmark can take the engines' time out of a runner's whole process tree. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "game.h"

static const char *moves[] = {GAME_MOVES};
static const int game_length = (int)(sizeof moves / sizeof moves[0]);

/* The number of moves after the word "moves" on a `position` line. */
static int count_moves(const char *line) {
    const char *at = strstr(line, " moves");
    int count = 0;
    if (at == NULL) return 0;
    at += 6;
    while (*at != '\0') {
        while (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r') at++;
        if (*at == '\0') break;
        count++;
        while (*at != '\0' && *at != ' ' && *at != '\t' && *at != '\n' && *at != '\r') at++;
    }
    return count;
}

static int starts(const char *line, const char *word) {
    size_t length = strlen(word);
    return strncmp(line, word, length) == 0 && (line[length] == '\0' || line[length] == ' '
                                                 || line[length] == '\n' || line[length] == '\r');
}

int main(void) {
    const char *info = getenv("INSTANT_ENGINE_INFO");
    const int info_lines = info != NULL ? atoi(info) : 0;
    const char *think = getenv("INSTANT_ENGINE_THINK_US");
    const long think_us = think != NULL ? atol(think) : 0;
    const struct timespec pause = {think_us / 1000000, (think_us % 1000000) * 1000};
    char *line = NULL;
    size_t capacity = 0;
    int ply = 0;
    while (getline(&line, &capacity, stdin) > 0) {
        if (starts(line, "uci")) {
            fputs("id name instant\nid author benchmarks\nuciok\n", stdout);
        } else if (starts(line, "ugi")) {
            fputs("id name instant\nid author benchmarks\nugiok\n", stdout);
        } else if (starts(line, "isready")) {
            fputs("readyok\n", stdout);
        } else if (starts(line, "position")) {
            ply = count_moves(line);
        } else if (starts(line, "go")) {
            if (think_us > 0) nanosleep(&pause, NULL);
            for (int depth = 1; depth <= info_lines && ply < game_length; depth++) {
                printf("info depth %d seldepth %d score cp %d nodes %d nps 1000000 time %d pv", depth, depth + 2,
                       (depth * 7) % 50 - 25, depth * 1000, depth);
                for (int next = ply; next < ply + 4 && next < game_length; next++) printf(" %s", moves[next]);
                putchar('\n');
            }
            printf("bestmove %s\n", ply < game_length ? moves[ply] : "(none)");
        } else if (starts(line, "query")) {
            const char *item = line + 6;
            if (starts(item, "gameover")) {
                printf("response %s\n", ply >= game_length ? "true" : "false");
            } else if (starts(item, "p1turn")) {
                printf("response %s\n", ply % 2 == 0 ? "true" : "false");
            } else if (starts(item, "result")) {
                printf("response %s\n", ply >= game_length ? GAME_RESULT : "none");
            }
        } else if (starts(line, "quit")) {
            break;
        }
        fflush(stdout);
    }
    free(line);
    const char *report = getenv("INSTANT_ENGINE_CPU");
    if (report != NULL) {
        struct rusage usage;
        FILE *file = fopen(report, "a");
        if (file != NULL && getrusage(RUSAGE_SELF, &usage) == 0) {
            fprintf(file, "%ld.%06ld %ld.%06ld %ld\n", (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec,
                    (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec, (long)getpid());
        }
        if (file != NULL) fclose(file);
    }
    return 0;
}
