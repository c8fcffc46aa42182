/* read_file.h - a whole text file read into memory within bounds: a regular
 * file only (a FIFO, a device such as /dev/zero or a folder is refused by its
 * type, and opening it never blocks), at most a cap of bytes named in the
 * message, and no NUL byte. Scene files and input scripts are read through
 * it (src/scenes/scene_read.c, src/sandbox/script.c). */
#ifndef RB_READ_FILE_H
#define RB_READ_FILE_H

#include <stddef.h>

/* The caps of the formats read through it (docs/scene-format.md, README
 * "Input scripts"). */
#define RB_SCENE_FILE_MAX_BYTES ((size_t)256 << 20)
#define RB_SCRIPT_FILE_MAX_BYTES ((size_t)16 << 20)

/* The file at path, NUL-terminated (*size: its bytes, without the NUL);
 * free() it. NULL with "path: what is wrong" in err when it is not a regular
 * file, is larger than max_bytes (what: the format, "a scene file", for the
 * message), holds a NUL byte, or cannot be read. Memory: the file's size
 * plus one byte; time: one read of it. */
char *rb_read_file(const char *path, const char *what, size_t max_bytes, size_t *size, char *err, size_t err_size);

#endif
