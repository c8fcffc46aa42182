/* wedge.h - `rubble wedge`: one scene, many variations, run side by side
 * here or prepared for GNU parallel or Slurm (docs/wedge.md). */
#ifndef RB_WEDGE_H
#define RB_WEDGE_H

/* rubble wedge WEDGE [options], or rubble wedge --run-one DIR I; argv[0]
 * is "wedge". Returns the exit status: 0 every variant ok (or prepared),
 * 1 a variant failed, 2 the command line, the wedge file or a variant was
 * refused before anything ran. */
int rb_wedge_main(int argc, char **argv);

#endif
