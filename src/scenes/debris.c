/* debris.c - debris effects on the host (see debris.h). */
#include "debris.h"
