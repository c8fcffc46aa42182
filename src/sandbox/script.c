/* script.c - input scripts: parsing the timed event lines, and feeding them to SDL (see script.h). */
#include "script.h"

#include "base/log.h"
#include "base/read_file.h"
#include "app/paths.h"

#include <SDL.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum rb_script_op {
    OP_KEY_DOWN,
    OP_KEY_UP,
    OP_MOVE, /* absolute cursor position, relative motion from the last one */
    OP_LOOK, /* relative motion only (mouse look) */
    OP_BUTTON_DOWN,
    OP_BUTTON_UP,
    OP_WHEEL,
    OP_SCREENSHOT,
    OP_DROP,
    OP_TEXT, /* typed text, as SDL's text input events bring it */
    OP_QUIT,
} rb_script_op;

typedef struct rb_script_event {
    double time; /* s */
    rb_script_op op;
    SDL_Keycode key;
    int button; /* SDL_BUTTON_LEFT ... */
    float x, y; /* pixels, or wheel notches in y */
    char *text; /* screenshot file, dropped file, typed text */
} rb_script_event;

struct rb_script {
    rb_script_event *events;
    size_t count, capacity, next;
    float mouse_x, mouse_y; /* the cursor as the script has moved it */
    int buttons;            /* SDL_BUTTON_LMASK bits held */
};

/* The most bytes one 'text' line types: SDL brings them in pieces of 31,
 * each an event (rb_script_pump), so a line's events stay few. */
#define RB_SCRIPT_TEXT_MAX 1024

static uint32_t g_screenshot_event;

uint32_t rb_script_screenshot_event(void) { return g_screenshot_event; }

static bool push_event(rb_script *s, const rb_script_event *e) {
    if (s->count == s->capacity) {
        size_t cap = s->capacity ? 2 * s->capacity : 32;
        rb_script_event *p = realloc(s->events, cap * sizeof *p);
        if (!p) return false;
        s->events = p, s->capacity = cap;
    }
    s->events[s->count++] = *e;
    return true;
}

static int parse_button(const char *w) {
    if (!strcmp(w, "left")) return SDL_BUTTON_LEFT;
    if (!strcmp(w, "right")) return SDL_BUTTON_RIGHT;
    if (!strcmp(w, "middle")) return SDL_BUTTON_MIDDLE;
    return 0;
}

/* Stable sort by time: a merge sort (n log n: a script of a hundred
 * thousand lines in reverse order sorts in milliseconds), ties in the
 * file's order. False when memory for the merge runs out. */
static bool sort_events(rb_script *s) {
    const size_t n = s->count;
    if (n < 2) return true;
    rb_script_event *from = s->events, *to = malloc(n * sizeof *to);
    if (!to) return false;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            const size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) to[k++] = from[j].time < from[i].time ? from[j++] : from[i++];
            while (i < mid) to[k++] = from[i++];
            while (j < hi) to[k++] = from[j++];
        }
        rb_script_event *t = from;
        from = to, to = t;
    }
    if (from != s->events) memcpy(s->events, from, n * sizeof *from);
    free(from == s->events ? to : from);
    return true;
}

static char *trim(char *p) {
    while (isspace((unsigned char)*p)) p++;
    size_t n = strlen(p);
    while (n > 0 && isspace((unsigned char)p[n - 1])) p[--n] = '\0';
    return p;
}

/* Parses exactly count numbers from text (space separated, nothing after). */
static bool parse_numbers(const char *text, float *out, int count) {
    for (int i = 0; i < count; i++) {
        char *end;
        out[i] = strtof(text, &end);
        if (end == text || !isfinite(out[i]) || (*end && !isspace((unsigned char)*end))) return false;
        text = end;
    }
    while (isspace((unsigned char)*text)) text++;
    return *text == '\0';
}

rb_script *rb_script_parse(const char *text, const char *name, char *err, size_t err_size) {
    rb_script *s = calloc(1, sizeof *s);
    char *copy = strdup(text);
    if (!s || !copy) {
        free(s), free(copy);
        snprintf(err, err_size, "%s: out of memory", name);
        return NULL;
    }
    double last_time = 0.0;
    int line_no = 0;
    char *save = NULL;
    /* strtok_r would skip empty lines and lose the count; walk lines by hand. */
    for (char *line = copy; line; line = save) {
        line_no++;
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl) *nl = '\0';
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        line = trim(line);
        if (!*line) continue;

        rb_script_event e = {0};
        char *end;
        bool relative = line[0] == '+';
        e.time = strtod(line + (relative ? 1 : 0), &end);
        if (end == line + (relative ? 1 : 0) || !isfinite(e.time) || e.time < 0.0 || !isspace((unsigned char)*end)) {
            snprintf(err, err_size, "%s:%d: a line starts with a time in seconds ('1.5', or '+0.2' after the last)",
                     name, line_no);
            goto fail;
        }
        if (relative) e.time += last_time;
        if (!isfinite(e.time)) { /* '+1e308' twice */
            snprintf(err, err_size, "%s:%d: the time is too large", name, line_no);
            goto fail;
        }
        last_time = e.time;
        char *rest = trim(end);
        char verb[32] = "", arg[32] = "";
        int used = 0;
        sscanf(rest, "%31s %n", verb, &used);
        char *args = rest + used;
        if (!strcmp(verb, "key")) {
            /* key down NAME | key up NAME | key NAME (a tap: down and up) */
            int n2 = 0;
            sscanf(args, "%31s %n", arg, &n2);
            bool down = !strcmp(arg, "down"), up = !strcmp(arg, "up");
            const char *key_name = (down || up) ? trim(args + n2) : args;
            e.key = SDL_GetKeyFromName(key_name);
            if (e.key == SDLK_UNKNOWN) {
                snprintf(err, err_size, "%s:%d: unknown key '%s' (SDL key names: W, Space, F5, Left Shift, Tab ...)",
                         name, line_no, key_name);
                goto fail;
            }
            e.op = up ? OP_KEY_UP : OP_KEY_DOWN;
            if (!push_event(s, &e)) goto oom;
            if (!down && !up) {
                e.op = OP_KEY_UP;
                if (!push_event(s, &e)) goto oom;
            }
        } else if (!strcmp(verb, "move") || !strcmp(verb, "look")) {
            float xy[2];
            if (!parse_numbers(args, xy, 2)) {
                snprintf(err, err_size, "%s:%d: '%s' takes two numbers (pixels)", name, line_no, verb);
                goto fail;
            }
            e.x = xy[0], e.y = xy[1];
            e.op = verb[0] == 'm' ? OP_MOVE : OP_LOOK;
            if (!push_event(s, &e)) goto oom;
        } else if (!strcmp(verb, "button") || !strcmp(verb, "click")) {
            /* button down|up left|right|middle [X Y] | click left|right|middle [X Y] */
            char which[32] = "";
            int got;
            bool click = verb[0] == 'c';
            int used_words = 0;
            if (click)
                got = sscanf(args, "%31s %n", which, &used_words) + 1;
            else
                got = sscanf(args, "%31s %31s %n", arg, which, &used_words);
            const char *tail = args + used_words;
            float xy[2];
            if (got == 2 && *tail) got = parse_numbers(tail, xy, 2) ? 4 : 3; /* a position, or junk */
            if (got == 4) e.x = xy[0], e.y = xy[1];
            e.button = parse_button(which);
            bool down = click || !strcmp(arg, "down"), up = !strcmp(arg, "up");
            if (got < 2 || e.button == 0 || (!click && !down && !up) || got == 3) {
                snprintf(err, err_size, "%s:%d: write 'button down|up left|right|middle [X Y]' or 'click BUTTON [X Y]'",
                         name, line_no);
                goto fail;
            }
            if (got == 4) { /* a position first */
                rb_script_event m = e;
                m.op = OP_MOVE;
                if (!push_event(s, &m)) goto oom;
            }
            e.op = up ? OP_BUTTON_UP : OP_BUTTON_DOWN;
            if (!push_event(s, &e)) goto oom;
            if (click) {
                e.op = OP_BUTTON_UP;
                if (!push_event(s, &e)) goto oom;
            }
        } else if (!strcmp(verb, "wheel")) {
            if (!parse_numbers(args, &e.y, 1)) {
                snprintf(err, err_size, "%s:%d: 'wheel' takes a number of notches (+ away from you)", name, line_no);
                goto fail;
            }
            e.op = OP_WHEEL;
            if (!push_event(s, &e)) goto oom;
        } else if (!strcmp(verb, "screenshot")) {
            if (!*args) {
                snprintf(err, err_size, "%s:%d: 'screenshot' takes a file name", name, line_no);
                goto fail;
            }
            char why[PATH_MAX + 64];
            if (!rb_path_writable(args, why, sizeof why)) {
                snprintf(err, err_size, "%s:%d: screenshot %s: %s", name, line_no, args, why);
                goto fail;
            }
            e.op = OP_SCREENSHOT;
            e.text = strdup(args);
            if (!e.text || !push_event(s, &e)) goto oom;
        } else if (!strcmp(verb, "drop")) {
            if (!*args) {
                snprintf(err, err_size, "%s:%d: 'drop' takes a file name", name, line_no);
                goto fail;
            }
            e.op = OP_DROP;
            e.text = strdup(args);
            if (!e.text || !push_event(s, &e)) goto oom;
        } else if (!strcmp(verb, "text")) {
            /* text STRING: typed into whatever takes text (a panel's field); the rest of the line as it is */
            if (!*args) {
                snprintf(err, err_size, "%s:%d: 'text' takes the text typed", name, line_no);
                goto fail;
            }
            if (strlen(args) > RB_SCRIPT_TEXT_MAX) {
                snprintf(err, err_size, "%s:%d: 'text' types at most %d bytes a line (split it over lines)", name,
                         line_no, RB_SCRIPT_TEXT_MAX);
                goto fail;
            }
            e.op = OP_TEXT;
            e.text = strdup(args);
            if (!e.text || !push_event(s, &e)) goto oom;
        } else if (!strcmp(verb, "quit")) {
            if (*args) {
                snprintf(err, err_size, "%s:%d: 'quit' takes nothing after it", name, line_no);
                goto fail;
            }
            e.op = OP_QUIT;
            if (!push_event(s, &e)) goto oom;
        } else {
            snprintf(err, err_size,
                     "%s:%d: unknown event '%s' (key, move, look, button, click, wheel, text, screenshot, drop, quit)",
                     name, line_no, verb);
            goto fail;
        }
    }
    free(copy);
    copy = NULL;
    if (!sort_events(s)) goto oom;
    if (g_screenshot_event == 0) {
        Uint32 t = SDL_RegisterEvents(1);
        g_screenshot_event = t == (Uint32)-1 ? 0 : t;
    }
    return s;
oom:
    snprintf(err, err_size, "%s:%d: out of memory", name, line_no);
fail:
    free(copy);
    rb_script_destroy(s);
    return NULL;
}

rb_script *rb_script_load(const char *path, char *err, size_t err_size) {
    /* a regular file of at most RB_SCRIPT_FILE_MAX_BYTES, without NUL bytes */
    char *text = rb_read_file(path, "an input script", RB_SCRIPT_FILE_MAX_BYTES, NULL, err, err_size);
    if (!text) return NULL;
    rb_script *s = rb_script_parse(text, path, err, err_size);
    free(text);
    return s;
}

void rb_script_destroy(rb_script *s) {
    if (!s) return;
    for (size_t i = 0; i < s->count; i++) free(s->events[i].text);
    free(s->events);
    free(s);
}

bool rb_script_done(const rb_script *s) { return s->next >= s->count; }
double rb_script_length(const rb_script *s) { return s->count ? s->events[s->count - 1].time : 0.0; }

static int button_mask(int button) { return 1 << (button - 1); }

int rb_script_pump(rb_script *s, double t, uint32_t window_id) {
    int pushed = 0;
    /* a batch a call: the frame drains SDL's queue between calls, so the
     * queue (65535 events) never fills, whatever the script holds at once */
    while (s->next < s->count && s->events[s->next].time <= t && pushed < RB_SCRIPT_PUMP_BATCH) {
        const rb_script_event *e = &s->events[s->next];
        SDL_Event ev;
        memset(&ev, 0, sizeof ev);
        Uint32 now = SDL_GetTicks();
        /* the cursor and buttons as they are once this event is in the queue */
        float mouse_x = s->mouse_x, mouse_y = s->mouse_y;
        int buttons = s->buttons;
        switch (e->op) {
        case OP_KEY_DOWN:
        case OP_KEY_UP:
            ev.type = e->op == OP_KEY_DOWN ? SDL_KEYDOWN : SDL_KEYUP;
            ev.key.timestamp = now;
            ev.key.windowID = window_id;
            ev.key.state = e->op == OP_KEY_DOWN ? SDL_PRESSED : SDL_RELEASED;
            ev.key.keysym.sym = e->key;
            ev.key.keysym.scancode = SDL_GetScancodeFromKey(e->key);
            break;
        case OP_MOVE:
        case OP_LOOK:
            ev.type = SDL_MOUSEMOTION;
            ev.motion.timestamp = now;
            ev.motion.windowID = window_id;
            ev.motion.state = (Uint32)buttons;
            if (e->op == OP_MOVE) {
                ev.motion.xrel = (Sint32)lroundf(e->x - mouse_x);
                ev.motion.yrel = (Sint32)lroundf(e->y - mouse_y);
                mouse_x = e->x, mouse_y = e->y;
            } else {
                ev.motion.xrel = (Sint32)lroundf(e->x);
                ev.motion.yrel = (Sint32)lroundf(e->y);
            }
            ev.motion.x = (Sint32)lroundf(mouse_x);
            ev.motion.y = (Sint32)lroundf(mouse_y);
            break;
        case OP_BUTTON_DOWN:
        case OP_BUTTON_UP:
            ev.type = e->op == OP_BUTTON_DOWN ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
            ev.button.timestamp = now;
            ev.button.windowID = window_id;
            ev.button.button = (Uint8)e->button;
            ev.button.state = e->op == OP_BUTTON_DOWN ? SDL_PRESSED : SDL_RELEASED;
            ev.button.clicks = 1;
            ev.button.x = (Sint32)lroundf(mouse_x);
            ev.button.y = (Sint32)lroundf(mouse_y);
            if (e->op == OP_BUTTON_DOWN)
                buttons |= button_mask(e->button);
            else
                buttons &= ~button_mask(e->button);
            break;
        case OP_WHEEL:
            ev.type = SDL_MOUSEWHEEL;
            ev.wheel.timestamp = now;
            ev.wheel.windowID = window_id;
            ev.wheel.y = (Sint32)lroundf(e->y);
            ev.wheel.preciseY = e->y;
            ev.wheel.direction = SDL_MOUSEWHEEL_NORMAL;
            break;
        case OP_SCREENSHOT:
            if (g_screenshot_event == 0) { /* no user event could be registered: said as the script was read */
                s->next++;
                continue;
            }
            ev.type = g_screenshot_event;
            ev.user.windowID = window_id;
            ev.user.data1 = e->text;
            break;
        case OP_DROP:
            /* As SDL delivers a file dropped on the window: the receiver frees the name. */
            ev.type = SDL_DROPFILE;
            ev.drop.timestamp = now;
            ev.drop.windowID = window_id;
            ev.drop.file = SDL_strdup(e->text);
            if (!ev.drop.file) {
                rb_log(RB_LOG_ERROR, "script: out of memory for a dropped file's name (tried again next frame)");
                return -1;
            }
            break;
        case OP_TEXT: {
            /* SDL brings typed text in pieces of up to 31 bytes: so does the script */
            const size_t n = strlen(e->text), piece = sizeof ev.text.text - 1;
            for (size_t at = 0; at < n; at += piece) {
                memset(&ev, 0, sizeof ev);
                ev.type = SDL_TEXTINPUT;
                ev.text.timestamp = now;
                ev.text.windowID = window_id;
                snprintf(ev.text.text, sizeof ev.text.text, "%.*s", (int)piece, e->text + at);
                if (at + piece >= n) break;
                if (SDL_PushEvent(&ev) < 0) {
                    rb_log(RB_LOG_ERROR, "script: SDL_PushEvent failed: %s", SDL_GetError());
                    return -1;
                }
                pushed++; /* each piece an event in the queue */
            }
            break; /* the last piece is pushed below */
        }
        case OP_QUIT:
            ev.type = SDL_QUIT;
            break;
        }
        if (SDL_PushEvent(&ev) < 0) {
            /* kept: pushed again at the next call, never dropped */
            if (ev.type == SDL_DROPFILE) SDL_free(ev.drop.file);
            rb_log(RB_LOG_ERROR, "script: SDL_PushEvent failed (tried again next frame): %s", SDL_GetError());
            return -1;
        }
        s->mouse_x = mouse_x, s->mouse_y = mouse_y, s->buttons = buttons;
        s->next++;
        pushed++;
        /* The frame's picture is taken after all of its events: what the
         * file says after a screenshot waits for the next frame, so the
         * shot shows the lines before it and none after. */
        if (e->op == OP_SCREENSHOT) break;
    }
    return pushed;
}
