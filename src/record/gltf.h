/* gltf.h - an animation (anim.h) as a binary glTF 2.0 file (.glb): one
 * material a colour, one mesh a shape in each pair of colours its bodies
 * have (its surface in the body's colour, the faces a break cut inside it in
 * the inside colour: docs/gltf-export.md), one node a body, one animation with a translation and a rotation
 * channel a body sampled at the animation's rate; a body is scaled to zero
 * outside its life (a scale channel, step interpolation), so what Blender,
 * Godot, Unity (glTFast) or three.js import shows it only while it lived;
 * the camera the run was seen through (anim.camera) as a perspective
 * camera on a node of its own, keyed the same way; the frame range and
 * rate as the scene's extras. */
#ifndef RB_GLTF_H
#define RB_GLTF_H

#include <stdbool.h>
#include <stddef.h>

#include "anim.h"

/* Writes anim to path (to a temporary file, renamed when whole: a failed
 * export leaves nothing under the name). False with "path: what is wrong"
 * in err. */
bool rb_gltf_write(const char *path, const rb_anim *anim, char *err, size_t err_size);

#endif
