# blender_import.py - imports a Rubble glTF export into Blender and sets the
# scene up from it (docs/gltf-export.md, "Blender"): the timeline's rate
# from the file's scene extras before importing (Blender's importer puts a
# key at t seconds on frame t x the scene's rate at that moment), its range
# after, the exported camera as the scene's camera. Prints what the
# importer made (its rate, range, the keys' frames), so that the facts in
# the doc can be checked again. For the picture it adds a ground plane at
# Rubble's y = 0 (the default ground; an export holds no planes).
#
#   blender -b --python scripts/blender_import.py -- FILE.glb [OUT.png FRAME [--keep-fps]]
#
# With OUT.png and FRAME it renders that frame with Workbench to OUT.png.
import json
import struct
import sys

import bpy
import numpy

numpy.bool = bool  # Debian 12's numpy 1.24 dropped the name the importer uses

args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
if not args:
    sys.exit("usage: blender -b --python scripts/blender_import.py -- FILE.glb [OUT.png FRAME]")
path = args[0]


def scene_extras(glb):
    """The extras of a .glb's scene: its JSON chunk read as the importer will."""
    with open(glb, "rb") as f:
        data = f.read()
    length, = struct.unpack_from("<I", data, 12)
    gltf = json.loads(data[20:20 + length])
    return gltf.get("scenes", [{}])[gltf.get("scene", 0)].get("extras", {})


# an empty scene: Blender's default one holds a cube, a light and a camera
bpy.ops.wm.read_factory_settings(use_empty=True)
s = bpy.context.scene
if len(args) >= 4 and args[3] == "--keep-fps":
    pass  # to see what the importer does at Blender's default 24 fps
elif "fps" in scene_extras(path):
    s.render.fps = int(round(scene_extras(path)["fps"]))  # before importing: keys land on frame t x this rate
print(f"before import: fps {s.render.fps}")
bpy.ops.import_scene.gltf(filepath=path)
print(f"after import: fps {s.render.fps}, frames {s.frame_start}-{s.frame_end}, "
      f"extras {dict((k, s[k]) for k in s.keys() if k in ('fps', 'frame_start', 'frame_end'))}, "
      f"camera {s.camera.name if s.camera else None}")
frames = sorted({round(k.co[0], 4) for o in bpy.data.objects if o.animation_data and o.animation_data.action
                 for fc in o.animation_data.action.fcurves for k in fc.keyframe_points})
off = [f for f in frames if abs(f - round(f)) > 1e-3]
print(f"{len(frames)} distinct key frames, {len(off)} off a whole frame; first {frames[:6]}")
cams = [o for o in bpy.data.objects if o.type == 'CAMERA']
for o in cams:
    print(f"camera object {o.name}: angle_y {o.data.angle_y:.4f} rad, sensor_fit {o.data.sensor_fit}, "
          f"clip {o.data.clip_start:g}-{o.data.clip_end:g}")

if "fps" in s:
    s.frame_start, s.frame_end = int(s["frame_start"]), int(s["frame_end"])
if cams:
    s.camera = cams[0]
print(f"set up: fps {s.render.fps}, frames {s.frame_start}-{s.frame_end}, camera {s.camera.name if s.camera else None}")

if len(args) >= 3:
    bpy.ops.mesh.primitive_plane_add(size=80, location=(0, 0, 0))  # Rubble's ground, y = 0 (Blender's z)
    ground = bpy.context.object
    ground.name = "ground"
    grey = bpy.data.materials.new("ground")
    grey.diffuse_color = (0.45, 0.45, 0.42, 1)
    ground.data.materials.append(grey)
    s.render.engine = 'BLENDER_WORKBENCH'
    s.display.shading.light = 'STUDIO'
    s.display.shading.color_type = 'MATERIAL'
    s.render.resolution_x, s.render.resolution_y, s.render.resolution_percentage = 960, 540, 100
    world = bpy.data.worlds.new("sky")
    world.color = (0.55, 0.7, 0.9)
    s.world = world
    s.frame_set(int(args[2]))
    s.render.filepath = args[1]
    bpy.ops.render.render(write_still=True)
    print(f"rendered frame {args[2]} to {args[1]}")
