# Installs the Khronos glTF validator (npm's gltf-validator, at VERSION) under
# PREFIX, for tests/gltf/validate.js; nothing to do when that version is there.
# Fails, saying why, without npm or without the npm registry: the glTF test
# needs the validator, and a test that quietly passes without it checks nothing.
#   cmake -DNPM=... -DPREFIX=... -DVERSION=... -P install_validator.cmake
set(manifest ${PREFIX}/node_modules/gltf-validator/package.json)
if(EXISTS ${manifest})
  file(READ ${manifest} text)
  string(JSON have ERROR_VARIABLE bad GET "${text}" version)
  if(have STREQUAL VERSION)
    return()
  endif()
endif()
if(NOT NPM)
  message(FATAL_ERROR "npm is not installed, and the glTF test needs it for the Khronos validator: "
                      "scripts/deps installs Debian's nodejs and npm")
endif()
message(STATUS "installing gltf-validator@${VERSION} under ${PREFIX}")
execute_process(COMMAND ${NPM} install --prefix ${PREFIX} --no-audit --no-fund --no-save gltf-validator@${VERSION}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS ${manifest})
  message(FATAL_ERROR "npm could not install gltf-validator@${VERSION} under ${PREFIX} (exit ${rc}): "
                      "is the npm registry (https://registry.npmjs.org) reachable?")
endif()
