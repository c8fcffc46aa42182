/* video.c - see video.h. */
#include "video.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/temps.h"
#include "app/paths.h"

extern char **environ;

#define NOT_INSTALLED "ffmpeg is not installed (no ffmpeg on PATH; on Debian: apt-get install ffmpeg)"

struct rb_video {
    char path[4096], tmp[4096];
    int width, height; /* even */
    int fd;            /* ffmpeg's stdin; -1 once it stopped taking frames */
    pid_t pid;
    uint8_t *frame; /* the last frame sent, rows from the top */
    uint64_t frames;
    char failure[256]; /* why ffmpeg stopped taking frames; "" while it takes them */
    int temp_slot;     /* the temporary file's in base/temps.h: removed on SIGINT and SIGTERM */
};

/* ffmpeg on PATH, looked for as execvp would (an empty entry is the working
 * folder), in out. */
static bool find_ffmpeg(char *out, size_t out_size) {
    const char *p = getenv("PATH");
    if (!p) p = "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const char *end = strchr(p, ':');
        const int len = end ? (int)(end - p) : (int)strlen(p);
        const int n = snprintf(out, out_size, "%.*s/ffmpeg", len ? len : 1, len ? p : ".");
        struct stat st;
        if (n > 0 && (size_t)n < out_size && stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return true;
        if (!end) return false;
        p = end + 1;
    }
}

bool rb_video_usable(const char *path, char *why, size_t why_size) {
    char ffmpeg[4096];
    if (!find_ffmpeg(ffmpeg, sizeof ffmpeg)) return snprintf(why, why_size, NOT_INSTALLED), false;
    return rb_path_writable(path, why, why_size);
}

/* Starts ffmpeg with a pipe on its stdin (v->fd, its write end). */
static bool spawn(rb_video *v, const char *ffmpeg, int fps, char *why, size_t why_size) {
    char size[32], rate[16];
    snprintf(size, sizeof size, "%dx%d", v->width, v->height);
    snprintf(rate, sizeof rate, "%d", fps);
    /* Rows arrive top down (flipped while cropping): no vflip. -f mp4: the
     * temporary's name says nothing of the format. -nostats: no progress
     * line on the terminal; -loglevel error leaves only what went wrong. */
    char *argv[] = {"ffmpeg",  "-loglevel", "error",    "-nostats", "-y",  "-f",   "rawvideo", "-pix_fmt", "rgba",
                    "-s",      size,        "-r",       rate,       "-i",  "-",    "-c:v",     "libx264",  "-pix_fmt",
                    "yuv420p", "-preset",   "veryfast", "-f",       "mp4", v->tmp, NULL};
    int fds[2];
    if (pipe(fds) != 0) return snprintf(why, why_size, "%s", strerror(errno)), false;
    /* Close-on-exec on both ends: ffmpeg keeps only its stdin (dup2 clears
     * the flag there), and no other child holds the write end open, which
     * would keep ffmpeg waiting for frames after the sandbox is done. */
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
    posix_spawnattr_init(&attr);
    /* A process group of its own: Ctrl+C in the terminal reaches the sandbox,
     * which quits and finishes the video, not ffmpeg, which would stop with a
     * failure. SIGPIPE at its default, whatever the sandbox does with it. */
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigdefault(&attr, &pipe_signal);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    const int e = posix_spawn(&v->pid, ffmpeg, &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(fds[0]);
    if (e != 0) {
        close(fds[1]);
        return snprintf(why, why_size, "%s", strerror(e)), false;
    }
    v->fd = fds[1];
    return true;
}

rb_video *rb_video_start(const char *path, int width, int height, int fps, char *err, size_t err_size) {
    char ffmpeg[4096], why[512];
    if (!find_ffmpeg(ffmpeg, sizeof ffmpeg)) return snprintf(err, err_size, "%s: " NOT_INSTALLED, path), NULL;
    if (!rb_path_writable(path, why, sizeof why)) return snprintf(err, err_size, "%s: %s", path, why), NULL;
    if (width < 2 || height < 2)
        return snprintf(err, err_size, "%s: a frame of %dx%d is too small for a video", path, width, height), NULL;
    rb_video *v = calloc(1, sizeof *v);
    if (!v) return snprintf(err, err_size, "%s: out of memory", path), NULL;
    v->width = width & ~1, v->height = height & ~1, v->fd = -1;
    v->frame = calloc((size_t)v->width * (size_t)v->height, 4); /* black until the first frame */
    if (snprintf(v->path, sizeof v->path, "%s", path) >= (int)sizeof v->path ||
        snprintf(v->tmp, sizeof v->tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof v->tmp)
        snprintf(why, sizeof why, "the path is too long");
    else if (!v->frame)
        snprintf(why, sizeof why, "out of memory");
    else if (spawn(v, ffmpeg, fps, why, sizeof why)) {
        v->temp_slot = rb_temps_add(v->tmp);
        rb_log(RB_LOG_INFO, "recording video to %s (%dx%d%s, %d frames a second)", path, v->width, v->height,
               v->width != width || v->height != height ? ", cropped to even sizes" : "", fps);
        return v;
    }
    snprintf(err, err_size, "%s: cannot start ffmpeg: %s", path, why);
    free(v->frame);
    free(v);
    return NULL;
}

/* Writes all of p to ffmpeg. SIGPIPE is ignored meanwhile: an ffmpeg that
 * has died makes the write fail with EPIPE rather than kill the sandbox. */
static bool write_all(int fd, const uint8_t *p, size_t n) {
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);
    ssize_t k = 0;
    while (n > 0 && ((k = write(fd, p, n)) > 0 || (k < 0 && errno == EINTR)))
        if (k > 0) p += k, n -= (size_t)k;
    const int e = errno;
    sigaction(SIGPIPE, &old, NULL);
    errno = e;
    return n == 0;
}

/* Copies a frame of GL rows (bottom up) into the video's (top down), cropped
 * or padded with black to its size. */
static void copy_frame(rb_video *v, const uint8_t *rgba, int width, int height) {
    const size_t row = (size_t)v->width * 4;
    const size_t keep = (size_t)(width < v->width ? width : v->width) * 4;
    for (int y = 0; y < v->height; y++) {
        uint8_t *to = v->frame + (size_t)y * row;
        const int from = height - 1 - y;
        const size_t kept = from >= 0 ? keep : 0;
        if (kept) memcpy(to, rgba + (size_t)from * (size_t)width * 4, kept);
        memset(to + kept, 0, row - kept);
    }
}

bool rb_video_frame(rb_video *v, const uint8_t *rgba, int width, int height) {
    if (v->fd < 0) return false;
    if (rgba && width > 0 && height > 0) copy_frame(v, rgba, width, height);
    if (write_all(v->fd, v->frame, (size_t)v->width * (size_t)v->height * 4)) {
        v->frames++;
        return true;
    }
    snprintf(v->failure, sizeof v->failure, "ffmpeg stopped taking frames at frame %llu (%s)",
             (unsigned long long)v->frames + 1, strerror(errno));
    rb_log(RB_LOG_ERROR, "%s: %s; the video will not be saved", v->path, v->failure);
    close(v->fd);
    v->fd = -1;
    return false;
}

/* Waits for ffmpeg; "" in why if it exited 0, else what it did. */
static void wait_ffmpeg(rb_video *v, char *why, size_t why_size) {
    int status = 0;
    pid_t r;
    while ((r = waitpid(v->pid, &status, 0)) < 0 && errno == EINTR) continue;
    const unsigned long long n = (unsigned long long)v->frames;
    if (r < 0)
        snprintf(why, why_size, "cannot wait for ffmpeg: %s", strerror(errno));
    else if (WIFSIGNALED(status))
        snprintf(why, why_size, "ffmpeg was killed by signal %d after %llu frames", WTERMSIG(status), n);
    else if (WEXITSTATUS(status) != 0)
        snprintf(why, why_size, "ffmpeg failed (exit status %d) after %llu frames", WEXITSTATUS(status), n);
    else
        why[0] = '\0';
}

bool rb_video_finish(rb_video *v, char *err, size_t err_size) {
    if (!v) return true;
    if (v->fd >= 0) close(v->fd); /* end of input: ffmpeg finishes the file */
    char why[512];
    wait_ffmpeg(v, why, sizeof why);
    /* ffmpeg's own failure first: a dead ffmpeg is why the frames stopped */
    if (!why[0] && v->failure[0]) snprintf(why, sizeof why, "%s", v->failure);
    if (!why[0] && v->frames == 0) snprintf(why, sizeof why, "no frame was drawn");
    if (!why[0] && rename(v->tmp, v->path) != 0) snprintf(why, sizeof why, "cannot replace it: %s", strerror(errno));
    rb_temps_remove(v->temp_slot);
    if (why[0]) {
        remove(v->tmp);
        snprintf(err, err_size, "%s: %s; no video was saved", v->path, why);
    } else {
        rb_log(RB_LOG_INFO, "video saved to %s (%llu frames, %dx%d)", v->path, (unsigned long long)v->frames, v->width,
               v->height);
    }
    free(v->frame);
    free(v);
    return !why[0];
}
