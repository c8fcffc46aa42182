/* wedge.c - `rubble wedge` (see wedge.h, docs/wedge.md): the command line,
 * the output folder prepared (the variants' scenes, wedge.json, jobs.txt,
 * parallel.sh, slurm.sbatch), the variants run as `--run-one` child
 * processes N at a time, and the table at the end. */
#include "wedge.h"
#include "wedge_collect.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "base/clock.h"
#include "options.h"
#include "wedge_check.h"
#include "wedge_file.h"
#include "wedge_run.h"

extern char **environ;

typedef struct wedge_args {
    const char *file;       /* WEDGE */
    const char *out;        /* --out DIR; NULL: NAME-wedge in the working folder */
    long jobs;              /* --jobs N; 0: the online cores */
    long steps;             /* --steps S; -1: the wedge file's */
    bool record, csv, gltf; /* --record, --csv, --gltf: replace the file's outputs */
    const char *shots;      /* --shots T1,T2,...: replace the file's shots */
    bool prepare;           /* --prepare: write the folder, run nothing */
    const char *run_dir;    /* --run-one DIR I */
    long run_index;
} wedge_args;

static bool parse_count(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* A refused command line: after its reason, where the options are. */
static int refused(void) {
    fputs("rubble wedge: 'rubble wedge --help' lists the options\n", stderr);
    return 2;
}

/* Returns -1 to go on, else the exit status (2: refused, with a pointer to --help; 0: --help). */
static int parse_args(wedge_args *a, int argc, char **argv) {
    *a = (wedge_args){.steps = -1};
    const char *bad = NULL;
    for (int i = 1; i < argc && !bad; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--help")) {
            rb_wedge_usage(stdout);
            return 0;
        } else if (!strcmp(o, "--prepare")) {
            a->prepare = true;
        } else if (!strcmp(o, "--record")) {
            a->record = true;
        } else if (!strcmp(o, "--csv")) {
            a->csv = true;
        } else if (!strcmp(o, "--gltf")) {
            a->gltf = true;
        } else if (!strcmp(o, "--out") || !strcmp(o, "--shots")) {
            if (!v || !v[0]) bad = "takes a value";
            *(!strcmp(o, "--out") ? &a->out : &a->shots) = v, i++;
        } else if (!strcmp(o, "--jobs")) {
            if (!v || !parse_count(v, 1, 4096, &a->jobs)) bad = "takes a count from 1 to 4096";
            i++;
        } else if (!strcmp(o, "--steps")) {
            if (!v || !parse_count(v, 0, 1000000000, &a->steps)) bad = "takes a count from 0 to 10^9";
            i++;
        } else if (!strcmp(o, "--run-one")) {
            if (i + 2 >= argc || !parse_count(argv[i + 2], 0, RB_WEDGE_MAX_VARIANTS - 1, &a->run_index))
                bad = "takes a folder and a variant's index (0 to 9999)";
            else
                a->run_dir = v, i += 2;
        } else if (o[0] == '-' || a->file) {
            fprintf(stderr, "rubble wedge: %s: %s\n", o, o[0] == '-' ? "unknown option" : "one wedge file only");
            return refused();
        } else {
            a->file = o;
        }
        if (bad) {
            fprintf(stderr, "rubble wedge: %s %s\n", o, bad);
            return refused();
        }
    }
    if (!a->file && !a->run_dir) {
        fprintf(stderr, "rubble wedge: no wedge file\n");
        return refused();
    }
    return -1;
}

/* The command line's --steps, --record/--csv/--gltf and --shots over the file's. */
static bool override(rb_wedge *w, const wedge_args *a, char *err, size_t err_size) {
    if (a->steps >= 0) w->steps = a->steps;
    if (a->record || a->csv || a->gltf) w->outputs = (rb_wedge_outputs){a->record, a->csv, a->gltf};
    if (!a->shots) return true;
    w->shot_count = 0;
    for (const char *p = a->shots; *p;) {
        char *end;
        const double t = strtod(p, &end);
        if (end == p || !(t >= 0 && t < 1e9) || (*end && *end != ',') || w->shot_count == RB_WEDGE_MAX_SHOTS) {
            snprintf(err, err_size, "--shots takes at most %d times >= 0 (s), comma-separated, not '%s'",
                     RB_WEDGE_MAX_SHOTS, a->shots);
            return false;
        }
        w->shots[w->shot_count++] = t;
        p = *end ? end + 1 : end;
    }
    return true;
}

/* Makes dir and the folders above it, then checks a file can be written
 * there; its absolute path into abs. False with the reason in err. */
static bool make_out(const char *dir, char *abs, size_t abs_size, char *err, size_t err_size) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, err_size, "--out %s: the path is too long", dir);
        return false;
    }
    for (char *p = path + 1;; p++) {
        const char c = *p;
        if (c != '/' && c != '\0') continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            snprintf(err, err_size, "--out %.1024s: cannot make %.1024s: %s", dir, path, strerror(errno));
            return false;
        }
        *p = c;
        if (!c) break;
    }
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/.wedge-probe-%ld", dir, (long)getpid());
    FILE *f = fopen(probe, "w");
    if (!f || fclose(f) != 0 || !realpath(dir, abs) || strlen(abs) >= abs_size - 16) {
        snprintf(err, err_size, "--out %s: cannot write there: %s", dir, strerror(errno));
        remove(probe);
        return false;
    }
    remove(probe);
    return true;
}

/* path as one shell word: as it is when it has only safe bytes, else in single quotes. */
static void shell_word(FILE *f, const char *path) {
    if (strspn(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-=:,@%") == strlen(path)) {
        fputs(path, f);
        return;
    }
    fputc('\'', f);
    for (const char *c = path; *c; c++) *c == '\'' ? fputs("'\\''", f) : fputc(*c, f);
    fputc('\'', f);
}

/* A text made by fn into a memory stream, written whole to dir/name. */
static bool write_made(const char *dir, const char *name, void (*fn)(FILE *, const void *), const void *user, char *err,
                       size_t err_size) {
    char *text = NULL, path[PATH_MAX + 64];
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    fn(m, user);
    fclose(m);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const bool ok = rb_wedge_write(path, text, err, err_size);
    free(text);
    return ok;
}

typedef struct plan {
    const rb_wedge *w;
    const char *exe, *dir; /* absolute */
    long jobs;
} plan;

static void jobs_text(FILE *f, const void *user) {
    const plan *p = user;
    for (uint32_t i = 0; i < p->w->variant_count; i++) {
        shell_word(f, p->exe);
        fputs(" wedge --run-one ", f);
        shell_word(f, p->dir);
        fprintf(f, " %u\n", i);
    }
}

static void parallel_text(FILE *f, const void *user) {
    const plan *p = user;
    fprintf(f,
            "#!/bin/sh\n"
            "# This wedge's %u variants through GNU parallel, JOBS at a time [%ld]: sh parallel.sh [JOBS]\n"
            "# --joblog and --resume: run it again and the variants already run are skipped.\n"
            "# On many machines add --sshlogin (e.g. --sshlogin 16/node1,16/node2, or --sshloginfile FILE)\n"
            "# after --jobs: each machine must see this folder and the rubble program at the same paths\n"
            "# (a shared file system), since jobs.txt names both by their absolute paths.\n",
            p->w->variant_count, p->jobs);
    fputs("parallel --jobs \"${1:-", f);
    fprintf(f, "%ld}\" --joblog ", p->jobs);
    shell_word(f, p->dir);
    fputs("/parallel.log --resume < ", f);
    shell_word(f, p->dir);
    fputs("/jobs.txt\n", f);
}

static void slurm_text(FILE *f, const void *user) {
    const plan *p = user;
    const char *name = strrchr(p->dir, '/');
    fprintf(f,
            "#!/bin/bash\n"
            "#SBATCH --job-name=wedge-%s\n"
            "#SBATCH --array=0-%u\n"
            "#SBATCH --output=%s/slurm-%%A_%%a.log\n"
            "# One array task a variant: task K runs line K+1 of jobs.txt. Submit with\n"
            "# `sbatch slurm.sbatch` (add --array=0-%u%%8 for at most 8 at once). Every node must see\n"
            "# this folder and the rubble program at the same paths. A Slurm whose MaxArraySize is\n"
            "# below %u needs the array split (docs/wedge.md).\n",
            name ? name + 1 : "run", p->w->variant_count - 1, p->dir, p->w->variant_count - 1, p->w->variant_count);
    fputs("line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" ", f);
    shell_word(f, p->dir);
    fputs("/jobs.txt)\n"
          "exec sh -c \"$line\"\n",
          f);
}

static void plan_text(FILE *f, const void *user) {
    const plan *p = user;
    const rb_wedge *w = p->w;
    cJSON *j = cJSON_CreateObject(), *outputs = cJSON_CreateArray(), *keys = cJSON_CreateArray();
    cJSON *variants = cJSON_CreateArray();
    cJSON_AddStringToObject(j, "scene", w->scene);
    cJSON_AddNumberToObject(j, "steps", (double)w->steps);
    if (w->outputs.record) cJSON_AddItemToArray(outputs, cJSON_CreateString("record"));
    if (w->outputs.csv) cJSON_AddItemToArray(outputs, cJSON_CreateString("csv"));
    if (w->outputs.gltf) cJSON_AddItemToArray(outputs, cJSON_CreateString("gltf"));
    cJSON_AddItemToObject(j, "outputs", outputs);
    cJSON_AddItemToObject(j, "shots", cJSON_CreateDoubleArray(w->shots, (int)w->shot_count));
    for (uint32_t k = 0; k < w->key_count; k++) cJSON_AddItemToArray(keys, cJSON_CreateString(w->keys[k].path));
    cJSON_AddItemToObject(j, "keys", keys);
    for (uint32_t i = 0; i < w->variant_count; i++) {
        char name[16];
        rb_wedge_variant_name(i, name);
        cJSON *v = cJSON_CreateObject();
        cJSON_AddStringToObject(v, "name", name);
        cJSON_AddItemToObject(v, "values", rb_wedge_values(w, i));
        cJSON_AddItemToArray(variants, v);
    }
    cJSON_AddItemToObject(j, "variants", variants);
    char *text = cJSON_Print(j);
    if (text) fprintf(f, "%s\n", text);
    free(text);
    cJSON_Delete(j);
}

/* Whether variant name's summary says it ran ok for these steps. */
static bool done_ok(const char *dir, const char *name, long steps) {
    cJSON *s = rb_wedge_read_summary(dir, name);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(s, "status");
    const cJSON *ran = cJSON_GetObjectItemCaseSensitive(s, "steps");
    const bool ok = cJSON_IsString(status) && !strcmp(status->valuestring, "ok") && cJSON_IsNumber(ran) &&
                    ran->valuedouble == (double)steps;
    cJSON_Delete(s);
    return ok;
}

/* Each variant's folder and scene.json; a summary left from another scene or another step count is removed. */
static bool write_variants(const plan *p, char *err, size_t err_size) {
    for (uint32_t i = 0; i < p->w->variant_count; i++) {
        char name[16], folder[PATH_MAX + 16], path[PATH_MAX + 64];
        rb_wedge_variant_name(i, name);
        snprintf(folder, sizeof folder, "%s/%s", p->dir, name);
        if (mkdir(folder, 0777) != 0 && errno != EEXIST) {
            snprintf(err, err_size, "%s: cannot make it: %s", folder, strerror(errno));
            return false;
        }
        cJSON *tree = rb_wedge_variant_scene(p->w, i, NULL, 0, err, err_size);
        char *text = tree ? cJSON_Print(tree) : NULL, *old;
        cJSON_Delete(tree);
        if (!text) return false;
        snprintf(path, sizeof path, "%s/scene.json", folder);
        char why[256], summary[PATH_MAX + 64];
        old = access(path, F_OK) == 0 ? rb_wedge_read_text(path, why, sizeof why) : NULL;
        const bool same = old && !strcmp(old, text);
        free(old);
        if (!same || !done_ok(p->dir, name, p->w->steps)) {
            snprintf(summary, sizeof summary, "%s/summary.json", folder);
            remove(summary);
        }
        const bool ok = same || rb_wedge_write(path, text, err, err_size);
        free(text);
        if (!ok) return false;
    }
    return true;
}

static bool prepare(const plan *p, char *err, size_t err_size) {
    return write_variants(p, err, err_size) && write_made(p->dir, "wedge.json", plan_text, p, err, err_size) &&
           write_made(p->dir, "jobs.txt", jobs_text, p, err, err_size) &&
           write_made(p->dir, "parallel.sh", parallel_text, p, err, err_size) &&
           write_made(p->dir, "slurm.sbatch", slurm_text, p, err, err_size);
}

/* Starts `exe wedge --run-one dir i`. Its pid, or -1 (said on stderr). */
static pid_t start_one(const plan *p, uint32_t i) {
    char index[16];
    snprintf(index, sizeof index, "%u", i);
    char *argv[] = {(char *)p->exe, "wedge", "--run-one", (char *)p->dir, index, NULL};
    pid_t pid;
    const int rc = posix_spawn(&pid, p->exe, NULL, NULL, argv, environ);
    if (rc == 0) return pid;
    fprintf(stderr, "rubble wedge: cannot start %s: %s\n", p->exe, strerror(rc));
    return -1;
}

/* Runs the variants not yet done ok, p->jobs at a time. Returns how many failed. */
static uint32_t run_all(const plan *p) {
    const uint32_t n = p->w->variant_count;
    uint32_t *todo = malloc(n * sizeof *todo), count = 0, done = 0, failed = 0;
    if (!todo) return n;
    for (uint32_t i = 0; i < n; i++) {
        char name[16];
        rb_wedge_variant_name(i, name);
        if (!done_ok(p->dir, name, p->w->steps)) todo[count++] = i;
    }
    if (count < n) fprintf(stderr, "wedge: %u of %u variants already done ok in %s: skipped\n", n - count, n, p->dir);
    const double t0 = rb_seconds();
    uint32_t next = 0, running = 0, finished = 0;
    done = n - count;
    while (finished < count) {
        while (running < (uint32_t)p->jobs && next < count) {
            if (start_one(p, todo[next++]) < 0)
                failed++, finished++, done++;
            else
                running++;
        }
        if (!running) continue;
        int status;
        if (wait(&status) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        running--, finished++, done++;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed++;
        const double per = (rb_seconds() - t0) / finished;
        fprintf(stderr, "wedge: %u of %u done, %u failed, about %.0f s left\n", done, n, failed,
                per * (count - finished));
    }
    free(todo);
    return failed;
}

/* A summary's number at key, formatted into buf; "-" when it has none. */
static const char *number(const cJSON *s, const char *key, const char *format, char *buf, size_t size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, key);
    if (cJSON_IsNumber(v))
        snprintf(buf, size, format, v->valuedouble);
    else
        snprintf(buf, size, "-");
    return buf;
}

/* One row a variant: its values and what its summary says. */
static uint32_t print_table(const plan *p) {
    uint32_t failed = 0;
    printf("%-7s %-7s %-40s %7s %7s %10s %5s %-16s %8s\n", "variant", "status", "values", "bodies", "breaks",
           "max_speed", "nan", "digest", "wall_s");
    for (uint32_t i = 0; i < p->w->variant_count; i++) {
        char name[16], values[512];
        rb_wedge_variant_name(i, name);
        rb_wedge_describe(p->w, i, values, sizeof values);
        cJSON *s = rb_wedge_read_summary(p->dir, name);
        const cJSON *status = cJSON_GetObjectItemCaseSensitive(s, "status");
        const char *st = cJSON_IsString(status) ? status->valuestring : "not run";
        failed += strcmp(st, "ok") != 0;
        const cJSON *digest = cJSON_GetObjectItemCaseSensitive(s, "digest");
        const cJSON *nan = cJSON_GetObjectItemCaseSensitive(s, "nan");
        char b[4][32];
        printf("%-7s %-7s %-40s %7s %7s %10s %5s %-16s %8s\n", name, st, values,
               number(s, "bodies", "%.0f", b[0], sizeof b[0]), number(s, "breaks", "%.0f", b[1], sizeof b[1]),
               number(s, "max_speed", "%.4g", b[2], sizeof b[2]),
               cJSON_IsBool(nan) ? (cJSON_IsTrue(nan) ? "yes" : "no") : "-",
               cJSON_IsString(digest) ? digest->valuestring : "-", number(s, "wall_s", "%.2f", b[3], sizeof b[3]));
        cJSON_Delete(s);
    }
    return failed;
}

/* The default output folder: the wedge file's name less .json, and -wedge, in the working folder. */
static void default_out(const char *file, char *out, size_t size) {
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t len = strlen(base);
    if (len > 5 && !strcmp(base + len - 5, ".json")) len -= 5;
    snprintf(out, size, "%.*s-wedge", (int)len, base);
}

static long online_cores(void) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int rb_wedge_main(int argc, char **argv) {
    wedge_args a;
    const int code = parse_args(&a, argc, argv);
    if (code >= 0) return code;
    char exe[PATH_MAX];
    if (!rb_wedge_self(exe, sizeof exe)) {
        fprintf(stderr, "rubble wedge: cannot find the running program (/proc/self/exe)\n");
        return 2;
    }
    if (a.run_dir) return rb_wedge_run_one(exe, a.run_dir, (uint32_t)a.run_index);
    char err[PATH_MAX + 4096];
    rb_wedge *w = rb_wedge_load(a.file, err, sizeof err);
    if (!w || !override(w, &a, err, sizeof err)) {
        fprintf(stderr, "rubble wedge: %s\n", err);
        rb_wedge_destroy(w);
        return 2;
    }
    /* every variant built before anything is written or run */
    rb_options o;
    rb_options_defaults(&o, RB_PROGRAM_RUBBLE);
    rb_paths paths;
    rb_paths_find(&paths, NULL);
    rb_registry *reg = rb_app_registry(&o, &paths);
    const bool checked = reg && rb_wedge_check(w, reg, err, sizeof err);
    rb_registry_destroy(reg);
    char out_name[PATH_MAX], dir[PATH_MAX];
    if (!a.out) default_out(a.file, out_name, sizeof out_name);
    const plan p = {.w = w, .exe = exe, .dir = dir, .jobs = a.jobs ? a.jobs : online_cores()};
    if (!checked || !make_out(a.out ? a.out : out_name, dir, sizeof dir, err, sizeof err) ||
        !prepare(&p, err, sizeof err)) {
        fprintf(stderr, "rubble wedge: %s\n", reg ? err : "no shape registry");
        rb_wedge_destroy(w);
        return 2;
    }
    if (a.prepare) {
        fprintf(stderr,
                "wedge: %u variants prepared in %s: run them with `sh %s/parallel.sh`, `sbatch %s/slurm.sbatch` "
                "or rubble wedge %s --out %s\n",
                w->variant_count, dir, dir, dir, a.file, dir);
        rb_wedge_destroy(w);
        return 0;
    }
    run_all(&p);
    /* the table, summary.csv, summary.json and the contact sheet of the
     * shots (wedge_collect.c); the table alone where those cannot be written */
    const int collected = rb_wedge_collect(dir, stdout, err, sizeof err);
    if (collected < 0) fprintf(stderr, "rubble wedge: %s\n", err);
    const uint32_t failed = collected < 0 ? print_table(&p) : (uint32_t)collected;
    if (failed)
        fprintf(stderr, "wedge: %u of %u variants failed (their summary.json says why)\n", failed, w->variant_count);
    rb_wedge_destroy(w);
    return failed ? 1 : 0;
}
