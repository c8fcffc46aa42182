// lighting.glsl - one sun with a shadow map, a sky/ground ambient, fog, gamma.
// Colours come in as sRGB; lighting is done in linear space.
uniform sampler2DShadow u_shadow_map;
uniform mat4 u_light_view_proj;
uniform vec3 u_light_dir;     // unit, from the surface toward the sun
uniform vec3 u_eye;           // m, world
uniform float u_shadow_texel; // 1 / shadow map side; 0: no shadow map (shadows off)

const vec3 RB_SUN = vec3(1.0, 0.94, 0.84) * 1.05;
const vec3 RB_SKY_ZENITH = vec3(0.30, 0.48, 0.75);
const vec3 RB_SKY_HORIZON = vec3(0.78, 0.84, 0.90);

vec3 rb_linear(vec3 srgb) { return pow(srgb, vec3(2.2)); }
vec4 rb_output(vec3 linear, float alpha) { return vec4(pow(linear, vec3(1.0 / 2.2)), alpha); }

// 1 lit, 0 in shadow. Four taps a texel apart, each a 2x2 hardware-filtered
// compare, soften the edge over about 3x3 texels (9 taps cost a software rasterizer too much).
float rb_shadow(vec3 world, vec3 n) {
    if (u_shadow_texel <= 0.0) return 1.0;
    // Offsetting along the normal keeps lit surfaces from shadowing themselves.
    vec4 l = u_light_view_proj * vec4(world + n * 0.03, 1.0);
    vec3 s = l.xyz / l.w * 0.5 + 0.5;
    if (s.x < 0.0 || s.x > 1.0 || s.y < 0.0 || s.y > 1.0 || s.z > 1.0) return 1.0;
    float d = s.z - 0.0008, o = u_shadow_texel * 0.75;
    float sum = texture(u_shadow_map, vec3(s.xy + vec2(-o, -o), d)) + texture(u_shadow_map, vec3(s.xy + vec2(o, -o), d)) +
                texture(u_shadow_map, vec3(s.xy + vec2(-o, o), d)) + texture(u_shadow_map, vec3(s.xy + vec2(o, o), d));
    return 0.25 * sum;
}

vec3 rb_shade(vec3 albedo, vec3 world, vec3 n, float shininess) {
    float ndl = max(dot(n, u_light_dir), 0.0);
    float lit = ndl > 0.0 ? rb_shadow(world, n) : 0.0;
    vec3 v = normalize(u_eye - world);
    vec3 h = normalize(v + u_light_dir);
    float spec = pow(max(dot(n, h), 0.0), shininess) * 0.18 * lit;
    // Hemisphere ambient: sky from above, warm bounce from the ground below.
    vec3 ambient = mix(vec3(0.16, 0.14, 0.12), vec3(0.28, 0.33, 0.42), n.y * 0.5 + 0.5);
    return albedo * (ambient + RB_SUN * ndl * lit) + RB_SUN * spec;
}

vec3 rb_sky(vec3 dir) {
    float up = clamp(dir.y, 0.0, 1.0);
    vec3 c = mix(RB_SKY_HORIZON, RB_SKY_ZENITH, sqrt(up));
    float sun = max(dot(dir, u_light_dir), 0.0);
    return c + RB_SUN * (pow(sun, 600.0) * 4.0 + pow(sun, 12.0) * 0.12);
}

// Distance haze toward the horizon colour (linear space in, linear out).
vec3 rb_fog(vec3 c, vec3 world) {
    float d = length(world - u_eye);
    float f = 1.0 - exp(-max(d - 60.0, 0.0) * 0.005);
    return mix(c, rb_linear(RB_SKY_HORIZON), f);
}
