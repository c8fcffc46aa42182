# rubble --stats-every as scripts/soak runs it: a line of figures per period
# on stdout, with the world's bodies, memory and no non-finite body.
# cmake -DRUBBLE=... -DOUT=folder -P stats_cli.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${RUBBLE} --frames 30 --stats-every 0.000001 --width 320 --height 240 --bodies 20
                        --backend reference --no-vsync
                WORKING_DIRECTORY ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rubble exited with ${rc}: ${out}${err}")
endif()
string(REGEX MATCHALL "stats wall_s=[0-9.]+ sim_s=[0-9.]+ frames=1 frame_ms=[0-9.]+ frame_max_ms=[0-9.]+ bodies=20 particles=540 rss_kb=[1-9][0-9]* device_kb=[0-9]+ nonfinite=0\n"
       lines "${out}")
list(LENGTH lines n)
# one line a frame (each frame outlasts the 1 us period), every frame but the first timed one
if(n LESS 29)
  message(FATAL_ERROR "expected a stats line per frame with bodies=20 particles=540 nonfinite=0, got ${n}:\n${out}")
endif()
message("${n} stats lines; the last: ${out}")
