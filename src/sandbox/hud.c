/* hud.c - the heads-up display and the F1 help overlay, drawn as overlay text (see hud.h). */
#include "hud.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Pixels per stb_easy_font unit (its glyphs are about 7 units tall): 2 in a
 * window of normal size, 1 in a small one so the HUD leaves room for the scene. */
static float g_scale = 2.0f;
#define RB_HUD_SCALE g_scale
#define RB_HUD_LINE (11.0f * g_scale)

/* Key, what it does: drawn in two columns (stb_easy_font is not monospaced). */
const char *const rb_hud_help_lines[][2] = {
    {"W A S D", "fly"},
    {"Q / E, Ctrl", "down / up, down"},
    {"Shift", "fly faster"},
    {"right mouse", "look around (hold)"},
    {"wheel", "flying speed; while grabbing: nearer / farther"},
    {"left mouse", "use the tool (throw: hold longer to throw harder)"},
    {"T  G  X  B", "tool: throw, grab, delete, explode (a blast: a 4 m radial field)"},
    {"Alt + left", "grab, whatever the tool"},
    {"middle mouse", "select the body under the cursor (nothing there: none)"},
    {"Alt + right, O", "orbit about the selection or the point under the cursor (O: right mouse orbits)"},
    {"F", "focus on the selection (else the body under the cursor; else frame the whole scene)"},
    {"Ctrl / Shift + 1-3", "store / recall a camera bookmark (saved with the scene)"},
    {"M", "an emitter of the shape at the cursor, 20 a second (M on it again: gone)"},
    {"Shift+M", "remove the last emitter"},
    {"J", "wind along the view for 3 s"},
    {"C", "a vortex at the cursor for 5 s"},
    {"Tab  [  ]", "next / previous / next shape to throw"},
    {"1 - 5", "reset to a formation"},
    {"R", "reset (the scene, or the formation)"},
    {"Ctrl+S", "save the scene (rubble-scene-DATE-TIME.json)"},
    {"Ctrl+O", "load the last saved scene (or the --scene file)"},
    {"drop a file", "a .json scene loads; a mesh becomes a shape to throw"},
    {"Space", "pause"},
    {"N", "one step while paused"},
    {"P", "particle view (a breakable body's particles in its pieces' colours)"},
    {"Shift+P", "exploded view: breakable bodies' pieces pulled apart"},
    {"L", "rescan plugins and meshes (new shapes join the cycle; rebuilt ones replaced)"},
    {"F3 F4 F6 F7 F8", "views: sleeping tinted, contacts and forces, axes, grid cells, fields' reach"},
    {"F5", "reload the shaders"},
    {"F12", "screenshot (rubble-DATE-TIME.png)"},
    {"V", "vsync on / off"},
    {"H", "hide the HUD"},
    {"F1", "this help"},
    {"F2", "settings panels: world, material, tools, shapes, inspector, scene"},
    {"Esc", "quit"},
    {NULL, NULL},
};

/* --replay: the camera and the view as in a live run, and the replay's keys. */
const char *const rb_hud_replay_help_lines[][2] = {
    {"W A S D", "fly"},
    {"Q / E, Ctrl", "down / up, down"},
    {"Shift", "fly faster"},
    {"right mouse", "look around (hold)"},
    {"wheel", "flying speed"},
    {"Space", "play / pause"},
    {".  ,  (Right Left)", "a frame forward / back (pauses)"},
    {"[  ]", "slower / faster: 0.25x 0.5x 1x 2x 4x"},
    {"Home  End", "first / last frame"},
    {"left mouse", "on the timeline: go to that frame (drag to scrub)"},
    {"Enter", "simulate from here: live, from the keyframe at or before this frame"},
    {"P", "particle view"},
    {"F5", "reload the shaders"},
    {"F12", "screenshot (rubble-DATE-TIME.png)"},
    {"V", "vsync on / off"},
    {"F9", "quality: low, medium, high (multisampling, shadows, render scale)"},
    {"H", "hide the HUD"},
    {"F1", "this help"},
    {"F2", "settings panels (the Scene panel: the timeline)"},
    {"Esc", "quit"},
    {NULL, NULL},
};

static const float g_white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
static const float g_dim[4] = {0.80f, 0.86f, 0.92f, 1.0f};
static const float g_warn[4] = {1.0f, 0.78f, 0.30f, 1.0f};
static const float g_error[4] = {1.0f, 0.42f, 0.36f, 1.0f};
static const float g_panel[4] = {0.05f, 0.07f, 0.10f, 0.55f};

/* The widest a line may be drawn (pixels): the window's, less the "F1
 * help" hint beside the first line. */
static float g_max_w = 1e9f;

const char *rb_hud_fit(const char *text, float scale, float max_w, char *cut, size_t cut_size) {
    float w, h;
    rb_renderer_text_size(text, scale, &w, &h);
    if (w <= max_w || cut_size < 4) return text;
    for (size_t n = strlen(text); n > 0; n--) {
        if (n + 4 > cut_size) continue;
        snprintf(cut, cut_size, "%.*s...", (int)n, text);
        rb_renderer_text_size(cut, scale, &w, &h);
        if (w <= max_w) return cut;
    }
    snprintf(cut, cut_size, "...");
    return cut;
}

/* A line of text over a dark strip, so it reads on sky and ground alike;
 * cut with "..." where it is wider than g_max_w. */
static float line(rb_renderer *r, float x, float y, const float color[4], const char *text) {
    char cut[320];
    text = rb_hud_fit(text, RB_HUD_SCALE, g_max_w, cut, sizeof cut);
    float w, h;
    rb_renderer_text_size(text, RB_HUD_SCALE, &w, &h);
    rb_renderer_rect(r, x - 3.0f * g_scale, y - 2.0f * g_scale, w + 6.0f * g_scale, RB_HUD_LINE, g_panel);
    rb_renderer_text(r, x, y, RB_HUD_SCALE, color, text);
    return y + RB_HUD_LINE;
}

size_t rb_hud_piece(const char *p, const char *lead, float scale, float max_w, bool last, char *buf, size_t size) {
    size_t cols = (size_t)(max_w / (6.0f * scale));
    if (cols < 20) cols = 20;
    if (cols > size - 16) cols = size - 16;
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (n > cols) n = cols;
    /* cols guesses 6 units a character; wide letters (m, w) take 7: measured */
    float w, h;
    for (;; n--) {
        const bool more = p[n] != '\0' && p[n] != '\n';
        snprintf(buf, size, "%s%.*s%s", lead, (int)n, p, last && more ? "..." : "");
        rb_renderer_text_size(buf, scale, &w, &h);
        if (n <= 1 || w <= max_w) break;
    }
    if (!last && p[n] != '\0' && p[n] != '\n') { /* after its last space, if in its second half */
        size_t k = n;
        while (k > n / 2 && p[k - 1] != ' ') k--;
        if (k > n / 2) n = k, snprintf(buf, size, "%s%.*s", lead, (int)n, p);
    }
    return n;
}

/* Long messages (shader logs) are cut into lines that fit the window
 * (rb_hud_piece), at most max_lines. */
static float wrapped(rb_renderer *r, float x, float y, float max_w, const float color[4], const char *prefix,
                     const char *text, int max_lines) {
    char buf[160];
    const char *p = text;
    for (int lines = 0; *p && lines < max_lines; lines++) {
        p += rb_hud_piece(p, lines == 0 ? prefix : "  ", RB_HUD_SCALE, fminf(max_w, g_max_w), lines + 1 == max_lines,
                          buf, sizeof buf);
        y = line(r, x, y, color, buf);
        if (*p == '\n') p++;
    }
    return y;
}

float rb_hud_scale(int width) { return width >= 900 ? 2.0f : 1.0f; }

float rb_hud_lines_height(int width) { return (6.0f + 5.0f * 11.0f) * rb_hud_scale(width); }

/* "body" or "bodies", for a count of n. */
static const char *bodies_word(unsigned n) { return n == 1 ? "body" : "bodies"; }

/* A live run: bodies, backend, tool, shape, scene, debris, paused or slowed. */
static float live_lines(rb_renderer *r, float x, float y, const rb_hud_info *in) {
    char buf[256], device[48];
    /* Device names run long ("pthread-skylake-avx512-Intel(R) Xeon(R) ..."): the start says enough, cut with "..." */
    snprintf(device, sizeof device, strlen(in->device) > 40 ? "%.37s..." : "%s", in->device);
    snprintf(buf, sizeof buf, "%u %s  %u %s   %s on %s", in->bodies, bodies_word(in->bodies), in->particles,
             in->particles == 1 ? "particle" : "particles", in->backend, device);
    y = line(r, x, y, g_dim, buf);
    if (in->formation > 0)
        snprintf(buf, sizeof buf, "tool %s   shape %s (%d/%d)   formation %d: %s", in->tool, in->shape,
                 in->shape_index + 1, in->shape_count, in->formation, in->formation_name);
    else
        snprintf(buf, sizeof buf, "tool %s   shape %s (%d/%d)   scene %s", in->tool, in->shape, in->shape_index + 1,
                 in->shape_count, in->formation_name);
    y = line(r, x, y, g_dim, buf);
    if (in->debris) {
        snprintf(buf, sizeof buf, "debris: %u emitter%s, %u field%s active", in->emitters, in->emitters == 1 ? "" : "s",
                 in->fields, in->fields == 1 ? "" : "s");
        y = line(r, x, y, g_dim, buf);
    }
    if (in->paused)
        y = line(r, x, y, g_warn, "PAUSED   (Space resumes, N steps once)");
    else if (in->slowed) {
        snprintf(buf, sizeof buf, "SLOW MOTION: the simulation runs at %.0f%% of real time", 100.0 * in->sim_rate);
        y = line(r, x, y, g_warn, buf);
    }
    if (in->time_scale > 0.0 && in->time_scale != 1.0 && !in->paused) {
        snprintf(buf, sizeof buf, "time scale %.2gx%s", in->time_scale, in->time_scale < 1.0 ? ": slow motion" : "");
        y = line(r, x, y, g_warn, buf);
    }
    return y;
}

/* The timeline along the bottom: the part played, a tick at each keyframe
 * (the one Enter simulates from brighter), a handle at the frame shown. */
static void timeline(rb_renderer *r, const rb_hud_replay *rp) {
    const float s = g_scale, bx = rp->bar[0], by = rp->bar[1], bw = rp->bar[2], bh = rp->bar[3];
    static const float track[4] = {0.55f, 0.60f, 0.66f, 0.55f}, played[4] = {0.35f, 0.62f, 1.0f, 0.95f};
    static const float key[4] = {0.95f, 0.62f, 0.15f, 0.95f}, from[4] = {1.0f, 0.86f, 0.35f, 1.0f};
    rb_renderer_rect(r, bx - 5.0f * s, by - 9.0f * s, bw + 10.0f * s, bh + 13.0f * s, g_panel);
    rb_renderer_rect(r, bx, by, bw, bh, track);
    rb_renderer_rect(r, bx, by, rp->head_x - bx, bh, played);
    for (uint32_t k = 0; k < rp->key_count; k++)
        rb_renderer_rect(r, rp->key_x[k] - s, by - 5.0f * s, 2.0f * s, bh + 5.0f * s, key);
    if (rp->from_x >= 0.0f) rb_renderer_rect(r, rp->from_x - 1.5f * s, by - 8.0f * s, 3.0f * s, bh + 8.0f * s, from);
    rb_renderer_rect(r, rp->head_x - 1.5f * s, by - 3.0f * s, 3.0f * s, bh + 6.0f * s, g_white);
}

/* --replay: where the replay is, what it shows, and what Enter does. */
static float replay_lines(rb_renderer *r, float x, float y, const rb_hud_replay *rp) {
    char buf[320];
    snprintf(buf, sizeof buf, "replay %.120s   frame %u/%u   %.3f s   %gx", rp->file, rp->frame, rp->last, rp->time,
             rp->speed);
    y = line(r, x, y, g_white, buf);
    if (rp->key_frame >= 0)
        snprintf(buf, sizeof buf, "%u %s   Enter: simulate from the keyframe at frame %d", rp->bodies,
                 bodies_word(rp->bodies), rp->key_frame);
    else
        snprintf(buf, sizeof buf, "%u %s   no keyframe to simulate from", rp->bodies, bodies_word(rp->bodies));
    y = line(r, x, y, g_dim, buf);
    if (rp->cut_short) y = line(r, x, y, g_warn, "cut short: the recording ends without its end mark");
    if (!rp->playing) y = line(r, x, y, g_warn, "PAUSED   (Space plays, . and , step a frame)");
    return y;
}

/* "F1 help" in the top right corner. */
static void help_hint(rb_renderer *r, int width) {
    g_max_w = 1e9f;
    const char *hint = "F1 help";
    float w, h;
    rb_renderer_text_size(hint, RB_HUD_SCALE, &w, &h);
    line(r, (float)width - w - 7.0f * g_scale, 6.0f * g_scale, g_dim, hint);
}

/* The top of F1's help: below "F1 help", at the HUD's scale. */
static float help_top(int width) { return 20.0f * rb_hud_scale(width); }

rb_hud_help_fit rb_hud_help_layout(int width, int height, bool replay) {
    const char *const(*lines)[2] = replay ? rb_hud_replay_help_lines : rb_hud_help_lines;
    rb_hud_help_fit fit = {1.0f, 0.0f, 0.0f, 0, 0};
    float w, h;
    for (; lines[fit.lines][0]; fit.lines++) {
        rb_renderer_text_size(lines[fit.lines][0], 1.0f, &w, &h);
        fit.key_w = fmaxf(fit.key_w, w);
        rb_renderer_text_size(lines[fit.lines][1], 1.0f, &w, &h);
        fit.what_w = fmaxf(fit.what_w, w);
    }
    /* at scale 1: the columns, their gap and the margins; the title, a blank row, the lines */
    const float unit_w = fit.key_w + 16.0f + fit.what_w + 20.0f, room = (float)height - help_top(width) - 4.0f;
    static const float scales[] = {2.0f, 1.5f, 1.0f};
    for (int k = 0; k < 3; k++)
        if (scales[k] * unit_w <= (float)width - 8.0f && scales[k] * ((float)(fit.lines + 2) * 11.0f + 10.0f) <= room) {
            fit.scale = scales[k];
            break;
        }
    /* all of them where they fit; else as many as fit with a row left for what did not */
    fit.shown = fit.lines;
    if (fit.scale * ((float)(fit.lines + 2) * 11.0f + 10.0f) > room)
        while (fit.shown > 0 && ((float)(fit.shown + 3) * 11.0f + 10.0f) * fit.scale > room) fit.shown--;
    return fit;
}

/* F1's help over the middle of the window, alone: the HUD's lines would
 * show through its backdrop (rb_hud_help_layout: its scale, and what fits). */
static void help_overlay(rb_renderer *r, int width, int height, bool replay) {
    const char *const(*lines)[2] = replay ? rb_hud_replay_help_lines : rb_hud_help_lines;
    const rb_hud_help_fit fit = rb_hud_help_layout(width, height, replay);
    g_scale = fit.scale;
    const int rows = fit.shown < fit.lines ? fit.shown + 1 : fit.lines; /* the last row: what did not fit */
    const float gap = 16.0f * g_scale, wmax = (fit.key_w + 16.0f + fit.what_w) * g_scale;
    const float ph = (float)(rows + 2) * RB_HUD_LINE;
    const float px = fmaxf(10.0f * g_scale, 0.5f * ((float)width - wmax)),
                py = fmaxf(help_top(width) + 8.0f * g_scale, 0.5f * ((float)height - ph));
    const float back[4] = {0.03f, 0.04f, 0.06f, 0.88f};
    rb_renderer_rect(r, px - 10.0f * g_scale, py - 8.0f * g_scale, wmax + 20.0f * g_scale, ph + 10.0f * g_scale, back);
    rb_renderer_text(r, px, py, RB_HUD_SCALE, g_warn, replay ? "Rubble replay controls" : "Rubble controls");
    /* a window too narrow for the widest line: what does not fit is cut with "..." */
    const float what_x = px + fit.key_w * g_scale + gap, what_max = (float)width - 4.0f - what_x;
    for (int i = 0; i < fit.shown; i++) {
        const float ly = py + (float)(i + 2) * RB_HUD_LINE;
        char cut[160];
        rb_renderer_text(r, px, ly, RB_HUD_SCALE, g_warn, lines[i][0]);
        rb_renderer_text(r, what_x, ly, RB_HUD_SCALE, g_white,
                         rb_hud_fit(lines[i][1], RB_HUD_SCALE, what_max, cut, sizeof cut));
    }
    if (fit.shown < fit.lines) {
        char more[96];
        snprintf(more, sizeof more, "... %d more: a taller window shows them (README, Controls)",
                 fit.lines - fit.shown);
        rb_renderer_text(r, px, py + (float)(fit.shown + 2) * RB_HUD_LINE, RB_HUD_SCALE, g_dim, more);
    }
}

void rb_hud_draw(rb_renderer *r, int width, int height, const rb_hud_info *in, bool help) {
    g_scale = rb_hud_scale(width);
    g_max_w = 1e9f;
    char buf[256];
    if (help) {
        help_hint(r, width);
        help_overlay(r, width, height, in->replay != NULL);
        return;
    }
    float x = 7.0f * g_scale, y = 6.0f * g_scale;
    if (in->replay) /* nothing is simulated */
        snprintf(buf, sizeof buf, "%.0f fps  %.1f ms", in->fps, in->frame_ms);
    else
        snprintf(buf, sizeof buf, "%.0f fps  %.1f ms   sim %.1f ms/frame, %u steps", in->fps, in->frame_ms, in->sim_ms,
                 in->steps);
    float hint_w, hint_h;
    rb_renderer_text_size("F1 help", RB_HUD_SCALE, &hint_w, &hint_h);
    g_max_w = (float)width - x - hint_w - 24.0f * g_scale; /* the first line, beside the hint */
    y = line(r, x, y, g_white, buf);
    g_max_w = (float)width - x - 7.0f * g_scale;
    if (in->quality && *in->quality) {
        snprintf(buf, sizeof buf, "quality: %s   F9: next", in->quality);
        y = line(r, x, y, g_dim, buf);
    }
    if (in->replay) {
        y = replay_lines(r, x, y, in->replay);
        timeline(r, in->replay);
    } else {
        y = live_lines(r, x, y, in);
    }
    if (in->particle_view) y = line(r, x, y, g_dim, "particle view (P)");
    if (in->exploded_view) y = line(r, x, y, g_dim, "exploded view (Shift+P): breakable bodies' pieces pulled apart");
    if (in->views && *in->views) y = line(r, x, y, g_dim, in->views);
    if (in->shader_error && *in->shader_error)
        y = wrapped(r, x, y, (float)width - 40.0f, g_error, "shader: ", in->shader_error, 6);
    else if (in->error && *in->error)
        y = wrapped(r, x, y, (float)width - 40.0f, in->warning ? g_warn : g_error,
                    in->warning ? "warning: " : "error: ", in->error, 3);
    if (in->message && *in->message) y = line(r, x, y, g_white, in->message);

    /* The throw's charge: a bar that fills while the button is held. */
    if (in->throw_charge >= 0.0f) {
        float bw = 200.0f, bx = 0.5f * ((float)width - bw), by = (float)height - 60.0f;
        rb_renderer_rect(r, bx - 2, by - 2, bw + 4, 14, g_panel);
        const float fill[4] = {1.0f, 0.55f + 0.4f * (1.0f - in->throw_charge), 0.2f, 0.9f};
        rb_renderer_rect(r, bx, by, bw * in->throw_charge, 10, fill);
    }
    if (in->grabbing) {
        const float a[4] = {1.0f, 0.9f, 0.2f, 0.9f}, t[4] = {0.3f, 0.9f, 1.0f, 0.9f};
        rb_renderer_rect(r, in->grab_anchor[0] - 4, in->grab_anchor[1] - 4, 8, 8, a);
        rb_renderer_rect(r, in->grab_target[0] - 3, in->grab_target[1] - 3, 6, 6, t);
    }

    help_hint(r, width);
}

/* ---- notices ---- */

void rb_notice_vsay(rb_notice *n, double now, const char *format, va_list args) {
    vsnprintf(n->text, sizeof n->text, format, args);
    n->until = now + RB_NOTICE_SECONDS;
}

void rb_notice_say(rb_notice *n, double now, const char *format, ...) {
    va_list args;
    va_start(args, format);
    rb_notice_vsay(n, now, format, args);
    va_end(args);
}

const char *rb_notice_text(const rb_notice *n, double now) { return now < n->until ? n->text : ""; }
