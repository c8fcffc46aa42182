# Debris effects at run time (tests/test_debris.c): emitters, lifetimes, fields.
