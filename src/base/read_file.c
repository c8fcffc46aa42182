/* read_file.c - a whole text file read into memory within bounds (see read_file.h). */
#include "read_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode) {
    return S_ISDIR(mode)    ? "a folder"
           : S_ISFIFO(mode) ? "a FIFO (named pipe)"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

/* "256 MiB", "16 KiB", "100 bytes": a cap as a person reads it. */
static void say_bytes(size_t n, char *out, size_t size) {
    if (n >= ((size_t)1 << 20) && n % ((size_t)1 << 20) == 0)
        snprintf(out, size, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(out, size, "%zu KiB", n >> 10);
    else
        snprintf(out, size, "%zu bytes", n);
}

char *rb_read_file(const char *path, const char *what, size_t max_bytes, size_t *size, char *err, size_t err_size) {
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer without it;
     * the type is checked on the open file, so it cannot change in between */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, err_size, "%s: is %s, not %s (a regular file)", path, kind_of(st.st_mode), what);
        close(fd);
        return NULL;
    }
    char cap[32];
    say_bytes(max_bytes, cap, sizeof cap);
    if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes) {
        snprintf(err, err_size, "%s: %lld bytes is larger than %s may be (at most %s)", path, (long long)st.st_size,
                 what, cap);
        close(fd);
        return NULL;
    }
    /* the size stat gave, and one byte more to see a file that grew past it */
    const size_t want = (size_t)st.st_size;
    char *text = malloc(want + 2);
    if (!text) {
        snprintf(err, err_size, "%s: out of memory for %zu bytes", path, want);
        close(fd);
        return NULL;
    }
    size_t got = 0;
    while (got < want + 1) {
        ssize_t n = read(fd, text + got, want + 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(err, err_size, "%s: cannot read: %s", path, strerror(errno));
            free(text);
            close(fd);
            return NULL;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (got > want) {
        snprintf(err, err_size, "%s: grew while it was read (%s is read whole, at most %s)", path, what, cap);
        free(text);
        return NULL;
    }
    text[got] = '\0';
    const char *nul = memchr(text, '\0', got);
    if (nul) {
        size_t line = 1;
        for (const char *c = text; c < nul; c++) line += *c == '\n';
        snprintf(err, err_size, "%s:%zu: holds a NUL byte (at offset %zu): not a text file", path, line,
                 (size_t)(nul - text));
        free(text);
        return NULL;
    }
    if (size) *size = got;
    return text;
}
