# Run by `cmake --install` (cmake/install.cmake): installs ADARL_PUBLIC_HEADERS and every
# header of ADARL_SOURCE_DIR they include with "DIR/FILE.hpp", recursively, under
# ${CMAKE_INSTALL_PREFIX}/${ADARL_HEADER_DESTINATION}. An include that is neither in the
# source tree nor a system header (<...>) fails the install.
set(todo ${ADARL_PUBLIC_HEADERS})
set(seen "")
while(todo)
  list(POP_FRONT todo header)
  list(FIND seen "${header}" at)  # (not IN_LIST: install scripts run with old policies)
  if(at GREATER -1)
    continue()
  endif()
  if(NOT EXISTS "${ADARL_SOURCE_DIR}/${header}")
    message(FATAL_ERROR "adarl install: ${header} is included by a public header but is "
                        "not in ${ADARL_SOURCE_DIR}")
  endif()
  list(APPEND seen "${header}")
  file(STRINGS "${ADARL_SOURCE_DIR}/${header}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" included "${line}")
    list(APPEND todo "${included}")
  endforeach()
endwhile()
list(SORT seen)
foreach(header IN LISTS seen)
  get_filename_component(dir "${header}" DIRECTORY)
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/${ADARL_HEADER_DESTINATION}/${dir}"
       TYPE FILE FILES "${ADARL_SOURCE_DIR}/${header}")
endforeach()
list(LENGTH seen count)
message(STATUS "adarl: ${count} headers installed")
