/* sandbox_stats.c - the figures the sandbox reports: the state the tests
 * read (rb_sandbox_get_stats, sandbox.h) and the --stats-every line for long
 * runs (stats.h; scripts/soak reads it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox_internal.h"

void rb_sandbox_get_stats(const rb_sandbox *sb, rb_sandbox_stats *o) {
    double mean;
    double last = rb_view_host_ms(sb->view, &mean);
    const rb_world *world = rb_sandbox_live_world(sb);
    *o = (rb_sandbox_stats){
        .frame = sb->frame,
        .time = sb->clock,
        .steps = sb->steps,
        .bodies = rb_world_body_count(world),
        .particles = rb_world_particle_count(world),
        .tool = sb->input.tool,
        .shape = sb->selected_shape,
        .shape_count = (int)rb_entities_count(rb_sandbox_table(sb)),
        .formation = sb->formation,
        .paused = sb->paused,
        .particle_view = sb->particle_view,
        .exploded_view = sb->look.exploded,
        .help = sb->help,
        .quit = sb->quit,
        .grabbing = sb->hands.grab.active,
        .grabbed = sb->hands.grab.active ? sb->hands.grab.body : (rb_body_id){0},
        .last_thrown = sb->hands.last_thrown,
        .last_deleted = sb->hands.last_deleted,
        .last_exploded = sb->hands.last_exploded,
        .gl_errors = rb_renderer_gl_errors(),
        .shader_error = sb->shader_error[0] != '\0',
        .screenshots = sb->screenshots,
        .frame_steps = sb->steps_clock.frame_steps,
        .slowed = sb->steps_clock.slowed,
        .sim_rate = sb->steps_clock.sim_rate,
        .read_ms = last,
        .read_ms_mean = mean,
        .quality = rb_renderer_quality(sb->renderer),
        .gl_renderer = rb_renderer_gl_name(sb->renderer),
    };
    rb_view_drawn(sb->view, &o->drawn_instances, &o->drawn_particle_bodies);
    rb_stage_debris_active(sb->stage, &o->emitters, &o->fields);
    o->message = rb_notice_text(&sb->notice, sb->clock);
    o->scene_file = sb->scene_file;
    o->last_saved = sb->last_saved;
    memcpy(o->grab_target, sb->hands.grab.target, sizeof o->grab_target);
    o->hover = sb->look.hover, o->selected = sb->look.selected;
    for (int k = 0; k < RB_DEBUG_VIEW_COUNT; k++) o->debug_views |= (uint32_t)rb_debug_views_on(sb->look.debug, k) << k;
    bool cut;
    rb_debug_views_counts(sb->look.debug, &o->contacts_drawn, &o->cells_drawn, &cut);
}

const rb_replay *rb_sandbox_replay(const rb_sandbox *sb) { return sb->replay; }
const rb_view *rb_sandbox_view(const rb_sandbox *sb) { return sb->view; }
/* ---- --frame-stats ---- */

void rb_sandbox_print_frame_stats(const rb_sandbox *sb) {
    const rb_render_quality q = rb_renderer_quality(sb->renderer);
    const rb_quality_preset preset = rb_quality_preset_of(&q);
    const rb_frame_stats_setting setting = {
        .quality = rb_quality_preset_name(preset),
        .msaa = q.msaa,
        .shadows = q.shadow_size,
        .render_scale = q.scale,
        .automatic = sb->quality_automatic,
        .gl_renderer = rb_renderer_gl_name(sb->renderer),
        .width = sb->width,
        .height = sb->height,
        .bodies = rb_world_body_count(rb_sandbox_live_world(sb)),
        .particles = rb_world_particle_count(rb_sandbox_live_world(sb)),
    };
    char *text = rb_frame_stats_json(&sb->frame_stats, &setting);
    printf("%s\n", text ? text : "{}");
    fflush(stdout);
    free(text);
}

/* ---- figures for long runs ---- */

static uint32_t count_nonfinite(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 1;
    return 0;
}

/* --stats-every: one line of the period's figures on stdout (scripts/soak reads them). */
void rb_sandbox_report_stats(rb_sandbox *sb, double now) {
    rb_stats_line l = {0};
    rb_world *world = rb_sandbox_live_world(sb);
    rb_stats_take(&sb->stats, now, &l);
    l.sim_s = sb->clock;
    l.bodies = rb_world_body_count(world);
    l.particles = rb_world_particle_count(world);
    l.rss_bytes = rb_stats_rss_bytes();
    l.device_bytes = rb_world_device_bytes(world);
    for (uint32_t i = 0; i < l.bodies; i++) {
        rb_body_state b;
        if (rb_world_get_body(world, i, &b))
            l.nonfinite += count_nonfinite(b.position, 3) | count_nonfinite(b.orientation, 4) |
                           count_nonfinite(b.velocity, 3) | count_nonfinite(b.angular_velocity, 3);
    }
    char line[512];
    rb_stats_format(&l, line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
}
