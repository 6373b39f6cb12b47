# Fails when a source file includes a header from a folder its layer may not use
# (docs/architecture.md): cmake -DSOURCE_DIR=<repo> -P tools/check_layers.cmake
#
# Layers of core, each may include itself and the ones before it:
#   model <- import <- pytorch <- costs <- reports <- views
# and load (the entry point that imports, correlates and prices a trace) sits beside views over
# costs and over cache (the model cache, which knows only the model); prepared (the view cache:
# what the window shows first, kept beside the model cache) sits over views and cache; compare (two runs matched by meaning) sits over reports.
# findings (what is wrong with a trace, from the reports) sits over reports and compare.
# present (the presentation layer: what the loader thread prepares for the views, plain data a test
# builds without Qt) sits on top of every layer; of load and job it uses the job's summaries and
# the ModelPool that a session of summaries takes its ranks' models from. widgets include core (present among it);
# app includes widgets and core; tests include anything.
# Also: core never includes Qt (so neither does core/present), and only core/import touches SQLite.
cmake_minimum_required(VERSION 3.22)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P tools/check_layers.cmake")
endif()

set(core_order model import pytorch costs reports views)
set(allowed_core_model model)
set(allowed_core_import model import)
set(allowed_core_pytorch model import pytorch)
set(allowed_core_costs model import pytorch costs)
set(allowed_core_reports model import pytorch costs reports)
set(allowed_core_views model import pytorch costs reports views)
set(allowed_core_load model import pytorch costs cache load)
set(allowed_core_cache model cache)
set(allowed_core_job model import pytorch costs reports cache load job)
set(allowed_core_prepared model import pytorch costs reports views cache prepared)
set(allowed_core_compare model import pytorch costs reports compare)
set(allowed_core_findings model import pytorch costs reports compare findings)
set(allowed_core_present model import pytorch costs reports views cache prepared compare findings load job present)

# The layer of a path relative to the repo: core/<folder>, widgets, app or tests.
function(layer_of path out)
  if(path MATCHES "^core/([a-z_]+)/")
    set(${out} "core_${CMAKE_MATCH_1}" PARENT_SCOPE)
  elseif(path MATCHES "^core/")
    set(${out} "core_root" PARENT_SCOPE)
  elseif(path MATCHES "^(widgets|app|tests|fuzz)/")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE sources RELATIVE "${SOURCE_DIR}"
     "${SOURCE_DIR}/core/*.h" "${SOURCE_DIR}/core/*.cpp"
     "${SOURCE_DIR}/widgets/*.h" "${SOURCE_DIR}/widgets/*.cpp"
     "${SOURCE_DIR}/app/*.h" "${SOURCE_DIR}/app/*.cpp")
set(violations 0)
set(checked 0)
foreach(src IN LISTS sources)
  layer_of("${src}" from)
  file(STRINGS "${SOURCE_DIR}/${src}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(line IN LISTS includes)
    math(EXPR checked "${checked} + 1")
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*" "\\1" header "${line}")
    set(why "")
    if(from STREQUAL "core_root")
      set(why "core's sources live in a layer folder")
    elseif(from MATCHES "^core_")
      if(header MATCHES "^Q[A-Za-z]*$" OR header MATCHES "^Qt[A-Za-z]*/")
        set(why "core never includes Qt")
      elseif(header MATCHES "^sqlite3\\.h$" AND NOT from STREQUAL "core_import")
        set(why "only core/import touches SQLite")
      elseif(header MATCHES "^(widgets|app|tests)/")
        set(why "core includes only core")
      elseif(header MATCHES "^core/([a-z_]+)/")
        set(to "${CMAKE_MATCH_1}")
        if(NOT DEFINED allowed_${from})
          set(why "${from} is not a known layer of core (add it to tools/check_layers.cmake)")
        elseif(NOT to IN_LIST allowed_${from})
          set(why "core/${to} is above ${from}")
        endif()
      endif()
    elseif(from STREQUAL "widgets")
      if(header MATCHES "^(app|tests)/")
        set(why "widgets include only widgets and core")
      elseif(header MATCHES "^sqlite3\\.h$")
        set(why "nothing in widgets touches SQLite")
      endif()
    elseif(from STREQUAL "app" AND header MATCHES "^tests/")
      set(why "app never includes tests")
    endif()
    if(why)
      message(SEND_ERROR "${src}: #include <${header}>: ${why}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH sources files)
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) break the layering (checked ${checked} includes in ${files} files)")
endif()
message(STATUS "layering holds: ${checked} includes in ${files} files")
