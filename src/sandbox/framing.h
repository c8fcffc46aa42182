/* framing.h - where the camera stands to see a box whole: the sandbox's
 * opening view of a scene without a start camera, F with nothing selected,
 * and a replay's first view of a recording without one. Pure maths on
 * the fly camera (camera.h); the box is the caller's (view.h,
 * rb_view_bounds: the bodies' particles' extents). */
#ifndef RB_FRAMING_H
#define RB_FRAMING_H

#include "camera.h"

/* The heading the sandbox frames a scene from: from the front right,
 * looking down (rad; camera.h's yaw and pitch). */
#define RB_FRAMING_YAW 0.6108652f    /* 35 degrees */
#define RB_FRAMING_PITCH -0.4363323f /* -25 degrees */
/* The share of the view's half-width and half-height kept free around the box. */
#define RB_FRAMING_MARGIN 0.12f

/* Moves the eye of c (its yaw, pitch and fov_y kept) so that each of the
 * box's 8 corners is in front of it and inside the view of a width /
 * height = aspect viewport, less `top` (0..0.5) of the view's height along
 * its top (kept free for the HUD's lines), with `margin` (0..0.9) of that
 * view's half-width and half-height to spare: at least one corner on that
 * inner edge, none beyond it. The box's centre is drawn in the middle of
 * that view (its middle across, and top / 2 of the height below the
 * window's middle). The eye is never nearer the centre than 1.5 m. */
void rb_framing_fit(rb_camera *c, const float lo[3], const float hi[3], float aspect, float margin, float top);

/* The box the sandbox frames for the bodies' extents lo..hi (m): each side
 * grown to at least 2 m (upward from its floor), with room above for a
 * scene that grows (a quarter of its height) and around it for what
 * spreads (a twentieth of its size across each way). Empty (lo > hi): a
 * 8 x 3 x 8 m box on the ground. */
void rb_framing_box(const float lo[3], const float hi[3], float out_lo[3], float out_hi[3]);

#endif
