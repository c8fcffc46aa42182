# Takes the example plugin's code block out of plugins/README.md (checking it
# is plugins/example/tetra.c word for word), builds it out of tree as the
# README tells a plugin author to (the public header alone on the include
# path), then runs it: rubble --plugins DIR --headless --shape tetra --json,
# and checks that bodies were simulated and nothing became NaN.
#   cmake -DCC=... -DHEADER=... -DREADME=... -DSOURCE=... -DWORK=... -DRUBBLE=... -P run_example_plugin.cmake
foreach(v CC HEADER README SOURCE WORK RUBBLE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_example_plugin.cmake needs -D${v}=...")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/include ${WORK}/plugins)
file(COPY ${HEADER} DESTINATION ${WORK}/include)

file(READ ${README} readme)
set(open_mark "<!-- example: tetra.c -->\n```c\n")
set(close_mark "```\n<!-- end example -->")
string(FIND "${readme}" "${open_mark}" start)
string(FIND "${readme}" "${close_mark}" end)
if(start LESS 0 OR end LESS start)
  message(FATAL_ERROR "${README}: no example block between '<!-- example: tetra.c -->' and '<!-- end example -->'")
endif()
string(LENGTH "${open_mark}" open_length)
math(EXPR start "${start} + ${open_length}")
math(EXPR length "${end} - ${start}")
string(SUBSTRING "${readme}" ${start} ${length} example)
file(READ ${SOURCE} source)
if(NOT example STREQUAL source)
  message(FATAL_ERROR "the example in ${README} differs from ${SOURCE}: keep them the same")
endif()
file(WRITE ${WORK}/tetra.c "${example}")

set(build ${CC} -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -I${WORK}/include ${WORK}/tetra.c
          -o ${WORK}/plugins/tetra.so)
string(REPLACE ";" " " shown "${build}")
message(STATUS "${shown}")
execute_process(COMMAND ${build} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README example does not build out of tree:\n${out}")
endif()

set(run ${RUBBLE} --plugins ${WORK}/plugins --headless --shape tetra --bodies 20 --steps 300 --backend reference --json)
string(REPLACE ";" " " shown "${run}")
message(STATUS "${shown}")
execute_process(COMMAND ${run} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rubble failed (exit ${rc})")
endif()
string(JSON shape GET "${out}" shape)
string(JSON bodies GET "${out}" bodies)
string(JSON particles GET "${out}" particles)
string(JSON nan GET "${out}" nan)
string(JSON steps GET "${out}" steps)
string(JSON max_speed GET "${out}" max_speed)
string(JSON min_y GET "${out}" min_y)
# 300 steps of 1.6 ms from rest: no body faster than free fall for 0.48 s
# (4.709 m/s), some still falling or tumbling, and none through the ground.
math(EXPR expected_particles "${bodies} * 10")
if(NOT shape STREQUAL "tetra" OR NOT bodies GREATER 0 OR NOT particles EQUAL expected_particles OR NOT steps EQUAL 300
   OR NOT nan STREQUAL "OFF" OR NOT max_speed GREATER 0.1 OR max_speed GREATER 4.71 OR min_y LESS -0.02)
  message(FATAL_ERROR "unexpected run: shape ${shape}, ${bodies} bodies, ${particles} particles, ${steps} steps, "
                      "nan ${nan}, max speed ${max_speed}, lowest point ${min_y}")
endif()
message(STATUS "ok: ${bodies} tetra bodies (${particles} particles) simulated for ${steps} steps, no NaN")
