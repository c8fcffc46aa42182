/* temps.h - the temporary files a program has open (a file written beside
 * its name before the rename, a headless run's temporary cache), removed
 * if SIGINT or SIGTERM ends the program before it could remove them.
 *
 * The handler is installed with the first path added, and only for a
 * signal nobody else handles (SDL's window turns SIGINT and SIGTERM into a
 * quit event, and the program then cleans up as it always does). It unlinks
 * the paths, restores the default action and raises the signal again, so
 * the program still ends as the signal says. */
#ifndef RB_TEMPS_H
#define RB_TEMPS_H

#include <stdbool.h>

/* Paths held at once; one more is refused (the caller's file is still
 * written, only not cleaned up after a signal). */
#define RB_TEMPS_MAX 16

/* Notes path (copied) as a temporary file. Returns a slot for
 * rb_temps_remove, or -1 if the table is full or the path too long. */
int rb_temps_add(const char *path);
/* Forgets slot (the file itself is the caller's to remove or rename);
 * -1 does nothing. */
void rb_temps_remove(int slot);

#endif
