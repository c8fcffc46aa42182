/* decimal.h - a float written as the shortest decimal that reads back as the
 * same float (0.001, not 0.0010000000474974513): for JSON that people read
 * and for saved scenes that must reload bit for bit. */
#ifndef RB_DECIMAL_H
#define RB_DECIMAL_H

#include <stdio.h>
#include <stdlib.h>

/* Writes x into text (at least 32 bytes) and returns text. Nine significant
 * digits always read back exactly; most floats need fewer. */
static inline const char *rb_float_decimal(float x, char text[32]) {
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(text, 32, "%.*g", digits, x);
        if (strtof(text, NULL) == x) break;
    }
    return text;
}

/* A double the same way, up to 17 digits: a message echoes the number as
 * the file or the command line had it (1.0000000000000002, not 1; the
 * limit 9007199254740992, not 9.0072e+15). */
static inline const char *rb_double_decimal(double x, char text[32]) {
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, 32, "%.*g", digits, x);
        if (strtod(text, NULL) == x) break;
    }
    return text;
}

/* The same as a double: JSON numbers come out as a person wrote them. */
static inline double rb_decimal(float x) {
    char text[32];
    return strtod(rb_float_decimal(x, text), NULL);
}

#endif
