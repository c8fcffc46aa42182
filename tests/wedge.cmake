# rubble wedge (docs/wedge.md): a small wedge run here, through GNU parallel
# and a Slurm array task run by hand, against single headless runs; its
# refusals. The variants run on the default backend (OpenCL on PoCL here).
rb_add_test(test_wedge SOURCES test_wedge.c LIBS rubble_scenes rubble_shapes rubble_base cjson)
target_compile_definitions(test_wedge PRIVATE RB_TEST_RUBBLE="$<TARGET_FILE:rubble>"
                                              RB_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
                                              RB_TEST_PLUGIN_DIR="${RB_PLUGIN_OUTPUT_DIR}")
add_dependencies(test_wedge rubble cube cube2)

# A one-node Slurm of its own (tests/data/wedge_slurm.sh: slurmctld, slurmd
# and munged from scripts/deps' slurm-wlm, on their own ports and socket)
# runs a prepared wedge's slurm.sbatch; each variant's digest is one
# headless run's.
add_test(NAME test_wedge_slurm COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/data/wedge_slurm.sh $<TARGET_FILE:rubble>
                                          ${CMAKE_BINARY_DIR}/tests/wedge-slurm)
set_tests_properties(test_wedge_slurm PROPERTIES ENVIRONMENT "${RB_TEST_ENV}" TIMEOUT 300)
