/* mesh_header.h - what a mesh file says it holds, checked before assimp
 * reads it.
 *
 * assimp allocates for the element counts a file's header declares: a
 * 300-byte PLY that declares 10^9 vertices costs gigabytes and minutes
 * before it is refused. rb_mesh_header_check reads the header (PLY, OFF,
 * binary STL), walks binary PLY data, or counts the lines (OBJ) and refuses, in microseconds, a
 * count the file's size cannot hold or one over the caps below. It needs no
 * assimp and allocates nothing: a fuzz harness can call it on any bytes. */
#ifndef RB_MESH_HEADER_H
#define RB_MESH_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one mesh file may cost (README.md, "Limits"): a mesh over these is
 * refused before it is read. */
#define RB_MESH_MAX_FILE_BYTES (64u << 20)
#define RB_MESH_MAX_VERTICES 1000000u
#define RB_MESH_MAX_FACES 1000000u

/* Checks a mesh file from its bytes. name: the file name (its extension says
 * the format; other formats pass unless over the size cap); data, size: the
 * file's first bytes (the whole file for OBJ; a PLY or OFF header must lie
 * within them); file_size: the whole file's size. Returns true if the file
 * may be read; false with the reason in err, such as "header declares
 * 1000000000 vertices, the file can hold at most 12". */
bool rb_mesh_header_check(const char *name, const void *data, size_t size, uint64_t file_size, char *err,
                          size_t err_size);

/* The same for a file on disk: reads its first 64 KiB (an OBJ or a PLY
 * whole, up to the size cap: OBJ lines are counted, binary PLY data walked
 * list by list and must end where the file ends). */
bool rb_mesh_header_check_file(const char *path, char *err, size_t err_size);

#endif
