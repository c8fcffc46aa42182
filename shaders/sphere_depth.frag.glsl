#version 330 core
// Shadow pass of the sphere impostors: the depth of the sphere's near side.
#include "sphere_common.glsl"
void main() { rb_sphere_hit(); }
