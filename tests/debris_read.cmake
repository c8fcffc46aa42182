# Debris keys of scene files (tests/test_debris_read.c): read, and every bad value refused.
