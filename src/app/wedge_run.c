/* wedge_run.c - one variant of a prepared wedge run (see wedge_run.h). */
#include "wedge_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/replace.h"
#include "wedge_file.h"

extern char **environ;

bool rb_wedge_self(char *path, size_t size) {
    const ssize_t n = readlink("/proc/self/exe", path, size - 1);
    if (n <= 0 || (size_t)n >= size - 1) return false;
    path[n] = '\0';
    return true;
}

bool rb_wedge_write(const char *path, const char *text, char *err, size_t err_size) {
    rb_replace r;
    char why[512];
    FILE *f = rb_replace_open(&r, path, "w", why, sizeof why);
    if (!f || !rb_replace_close(&r, fputs(text, f) >= 0, why, sizeof why)) {
        snprintf(err, err_size, "%.2048s: %.400s", path, why);
        return false;
    }
    return true;
}

cJSON *rb_wedge_read_plan(const char *dir, char *err, size_t err_size) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/wedge.json", dir);
    char *text = rb_wedge_read_text(path, err, err_size);
    cJSON *plan = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!text) return NULL;
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(plan, "steps");
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(plan, "variants")) || !cJSON_IsNumber(steps) ||
        steps->valuedouble < 0 || steps->valuedouble > 1e9) {
        snprintf(err, err_size, "%s: not a wedge plan (written by rubble wedge: steps, variants)", path);
        cJSON_Delete(plan);
        return NULL;
    }
    return plan;
}

cJSON *rb_wedge_read_summary(const char *dir, const char *name) {
    char path[PATH_MAX + 64], err[256];
    snprintf(path, sizeof path, "%s/%s/summary.json", dir, name);
    if (access(path, F_OK) != 0) return NULL;
    char *text = rb_wedge_read_text(path, err, sizeof err);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    free(text);
    return j;
}

/* The child's command line: rubble --headless on the variant's scene, with its outputs. */
typedef struct child_args {
    char *argv[24];
    char steps[32], scene[PATH_MAX + 32], record[PATH_MAX + 32], csv[PATH_MAX + 32], gltf[PATH_MAX + 32];
    char shots[RB_WEDGE_MAX_SHOTS * 24], prefix[PATH_MAX + 32];
} child_args;

static bool has_output(const cJSON *plan, const char *name) {
    const cJSON *o;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(plan, "outputs")) {
        if (cJSON_IsString(o) && !strcmp(o->valuestring, name)) return true;
    }
    return false;
}

static void make_args(child_args *a, const char *exe, const char *dir, const char *name, const cJSON *plan) {
    int n = 0;
    a->argv[n++] = (char *)exe;
    a->argv[n++] = "--headless";
    snprintf(a->scene, sizeof a->scene, "%s/%s/scene.json", dir, name);
    a->argv[n++] = "--scene";
    a->argv[n++] = a->scene;
    snprintf(a->steps, sizeof a->steps, "%.0f", cJSON_GetObjectItemCaseSensitive(plan, "steps")->valuedouble);
    a->argv[n++] = "--steps";
    a->argv[n++] = a->steps;
    a->argv[n++] = "--json";
    if (has_output(plan, "record")) {
        snprintf(a->record, sizeof a->record, "%s/%s/run.rbc", dir, name);
        a->argv[n++] = "--record";
        a->argv[n++] = a->record;
    }
    if (has_output(plan, "csv")) {
        snprintf(a->csv, sizeof a->csv, "%s/%s/run.csv", dir, name);
        a->argv[n++] = "--csv";
        a->argv[n++] = a->csv;
    }
    if (has_output(plan, "gltf")) {
        snprintf(a->gltf, sizeof a->gltf, "%s/%s/run.glb", dir, name);
        a->argv[n++] = "--gltf";
        a->argv[n++] = a->gltf;
    }
    /* --shots and --shot-prefix: the headless screenshots (docs/wedge.md) */
    const cJSON *shots = cJSON_GetObjectItemCaseSensitive(plan, "shots"), *t;
    size_t len = 0;
    a->shots[0] = '\0';
    cJSON_ArrayForEach(t, shots) {
        if (cJSON_IsNumber(t) && len < sizeof a->shots)
            len += (size_t)snprintf(a->shots + len, sizeof a->shots - len, "%s%.17g", len ? "," : "", t->valuedouble);
    }
    if (len && len < sizeof a->shots) {
        snprintf(a->prefix, sizeof a->prefix, "%s/%s/shot-", dir, name);
        a->argv[n++] = "--shots";
        a->argv[n++] = a->shots;
        a->argv[n++] = "--shot-prefix";
        a->argv[n++] = a->prefix;
    }
    a->argv[n] = NULL;
}

/* The last line of a file that is not empty (the child's last word on stderr), at most size - 1 bytes. */
static void last_line(const char *path, char *out, size_t size) {
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0]) snprintf(out, size, "%.400s", line);
    }
    fclose(f);
}

/* Runs the child with stdout into out (at most RB_WEDGE_MAX_STDOUT bytes
 * kept) and stderr into the file log. Returns its wait status, or -1 with
 * the reason in err when it could not be started. */
static int run_child(char *const argv[], const char *log, char *out, size_t out_size, char *err, size_t err_size) {
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) {
        snprintf(err, err_size, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t acts;
    posix_spawn_file_actions_init(&acts);
    posix_spawn_file_actions_adddup2(&acts, pipe_fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&acts, pipe_fd[0]);
    posix_spawn_file_actions_addclose(&acts, pipe_fd[1]);
    posix_spawn_file_actions_addopen(&acts, STDERR_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    const int rc = posix_spawn(&pid, argv[0], &acts, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&acts);
    close(pipe_fd[1]);
    if (rc != 0) {
        close(pipe_fd[0]);
        snprintf(err, err_size, "cannot start %s: %s", argv[0], strerror(rc));
        return -1;
    }
    size_t n = 0;
    char drop[4096];
    for (;;) { /* read to the end, keeping the first out_size - 1 bytes */
        const ssize_t got =
            n + 1 < out_size ? read(pipe_fd[0], out + n, out_size - 1 - n) : read(pipe_fd[0], drop, sizeof drop);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (n + 1 < out_size) n += (size_t)got;
    }
    out[n] = '\0';
    close(pipe_fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

/* The child's summary: the line of its stdout that is a JSON object. */
static cJSON *child_json(const char *out) {
    const char *line = out;
    while (*line) {
        const size_t len = strcspn(line, "\n");
        if (line[0] == '{') {
            cJSON *j = cJSON_ParseWithLength(line, len);
            if (cJSON_IsObject(j)) return j;
            cJSON_Delete(j);
        }
        line += len + (line[len] == '\n');
    }
    return NULL;
}

/* The summary from the child's JSON: bodies, breaks, max_speed, nan, digest (null where it printed none). */
static void add_results(cJSON *s, const cJSON *j) {
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(j, "bodies");
    const cJSON *debris = cJSON_GetObjectItemCaseSensitive(j, "debris");
    const cJSON *breaks = cJSON_GetObjectItemCaseSensitive(debris, "breaks");
    const cJSON *speed = cJSON_GetObjectItemCaseSensitive(j, "max_speed");
    const cJSON *nan = cJSON_GetObjectItemCaseSensitive(j, "nan");
    const cJSON *digest = cJSON_GetObjectItemCaseSensitive(j, "digest");
    cJSON_AddItemToObject(s, "bodies",
                          cJSON_IsNumber(bodies) ? cJSON_CreateNumber(bodies->valuedouble) : cJSON_CreateNull());
    /* a scene without a debris layer breaks nothing */
    cJSON_AddItemToObject(s, "breaks",
                          cJSON_IsNumber(breaks) ? cJSON_CreateNumber(breaks->valuedouble)
                          : j                    ? cJSON_CreateNumber(0)
                                                 : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "max_speed",
                          cJSON_IsNumber(speed) ? cJSON_CreateNumber(speed->valuedouble) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "nan", cJSON_IsBool(nan) ? cJSON_CreateBool(cJSON_IsTrue(nan)) : cJSON_CreateNull());
    cJSON_AddItemToObject(s, "digest",
                          cJSON_IsString(digest) ? cJSON_CreateString(digest->valuestring) : cJSON_CreateNull());
}

/* Why a finished child failed, or "" when it did not. */
static void failure(int status, const cJSON *j, const char *log, char *why, size_t size) {
    char said[512];
    last_line(log, said, sizeof said);
    why[0] = '\0';
    if (WIFSIGNALED(status))
        snprintf(why, size, "killed by signal %d (%s)%s%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
                 said[0] ? ": " : "", said);
    else if (!WIFEXITED(status))
        snprintf(why, size, "ended with wait status %d", status);
    else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "nan")))
        snprintf(why, size, "the state went NaN (not finite)");
    else if (WEXITSTATUS(status) != 0)
        snprintf(why, size, "exit status %d%s%s", WEXITSTATUS(status), said[0] ? ": " : "", said);
    else if (!j)
        snprintf(why, size, "printed no JSON summary");
}

int rb_wedge_run_one(const char *exe, const char *dir, uint32_t i) {
    char err[PATH_MAX + 512];
    cJSON *plan = rb_wedge_read_plan(dir, err, sizeof err);
    const cJSON *variant = plan ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(plan, "variants"), (int)i) : NULL;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(variant, "name");
    if (!plan || !cJSON_IsString(name) || strlen(name->valuestring) != 4 ||
        strspn(name->valuestring, "0123456789") != 4) {
        if (plan)
            fprintf(stderr, "rubble wedge --run-one: %s/wedge.json has no variant %u (it has %d)\n", dir, i,
                    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "variants")));
        else
            fprintf(stderr, "rubble wedge --run-one: %s\n", err);
        cJSON_Delete(plan);
        return 2;
    }
    child_args args;
    make_args(&args, exe, dir, name->valuestring, plan);
    char log[PATH_MAX + 64], summary_path[PATH_MAX + 64];
    snprintf(log, sizeof log, "%s/%s/run.log", dir, name->valuestring);
    snprintf(summary_path, sizeof summary_path, "%s/%s/summary.json", dir, name->valuestring);
    char *out = malloc(RB_WEDGE_MAX_STDOUT);
    const double t0 = rb_seconds();
    const int status = out ? run_child(args.argv, log, out, RB_WEDGE_MAX_STDOUT, err, sizeof err) : -1;
    const double wall_s = rb_seconds() - t0;
    if (!out) snprintf(err, sizeof err, "out of memory");
    cJSON *j = status >= 0 ? child_json(out) : NULL;
    free(out);
    char why[1024];
    if (status < 0)
        snprintf(why, sizeof why, "%.1000s", err);
    else
        failure(status, j, log, why, sizeof why);
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "variant", name->valuestring);
    cJSON_AddItemToObject(s, "values", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(variant, "values"), true));
    cJSON_AddStringToObject(s, "status", why[0] ? "failed" : "ok");
    if (why[0]) cJSON_AddStringToObject(s, "error", why);
    add_results(s, j);
    cJSON_AddNumberToObject(s, "wall_s", wall_s);
    cJSON_AddNumberToObject(s, "steps", cJSON_GetObjectItemCaseSensitive(plan, "steps")->valuedouble);
    char *text = cJSON_Print(s);
    const bool wrote = text && rb_wedge_write(summary_path, text, err, sizeof err);
    if (!wrote) fprintf(stderr, "rubble wedge --run-one: %s\n", text ? err : "out of memory");
    if (wrote && why[0]) fprintf(stderr, "rubble wedge: variant %s failed: %s\n", name->valuestring, why);
    free(text);
    cJSON_Delete(j);
    cJSON_Delete(s);
    cJSON_Delete(plan);
    return !wrote ? 2 : why[0] ? 1 : 0;
}
