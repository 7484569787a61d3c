# `cmake --install BUILD --prefix P`: libadarl for programs that embed it.
#   P/lib/libadarl_*.a                       the static libraries of libadarl
#   P/include/adarl/DIR/*.hpp                the public headers and what they include
#   P/lib/cmake/adarl/adarlConfig.cmake      find_package(adarl 0.3 REQUIRED), then
#                                            target_link_libraries(app adarl::adarl)
# libadarl is torch-free: the LibTorch policy and the command line are not installed.
# Included from the top-level CMakeLists.txt once the libraries are defined.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
include(${CMAKE_CURRENT_LIST_DIR}/public_headers.cmake)

set(ADARL_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/adarl")

# The version header (adarl/version.hpp), generated into the build tree.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in
               ${PROJECT_BINARY_DIR}/include/adarl/version.hpp @ONLY)
target_include_directories(adarl_base PUBLIC $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)

# libadarl's libraries under their package names (adarl::pipelines, ...). adarl_warnings
# is only a link-time dependency of the static libraries (no flags reach a consumer).
# A library of adarl that one of these starts to link must join this list (CMake stops
# at generation with "requires target ... that is not in any export set"), or be kept
# out of libadarl.
set(ADARL_EXPORTED_TARGETS adarl adarl_base adarl_algorithms adarl_math adarl_tasks adarl_tokenizers adarl_formats
    adarl_engines
    adarl_actors adarl_pipelines adarl_runtime adarl_net adarl_config adarl_report adarl_warnings)
foreach(t IN LISTS ADARL_EXPORTED_TARGETS)
  string(REGEX REPLACE "^adarl_" "" name "${t}")
  if(t STREQUAL "adarl_warnings")
    set(name internal_warnings)
  endif()
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${name})
  # The source tree is the include root while building; installed, include/ (for
  # <adarl/...>) and include/adarl (for the headers' own "DIR/FILE.hpp" includes).
  get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
  if(dirs)
    set(wrapped "")
    foreach(d IN LISTS dirs)
      string(FIND "${d}" "${PROJECT_SOURCE_DIR}" in_source)
      string(FIND "${d}" "${PROJECT_BINARY_DIR}" in_build)
      if(in_source EQUAL 0 OR in_build EQUAL 0)
        list(APPEND wrapped "$<BUILD_INTERFACE:${d}>")
      else()
        list(APPEND wrapped "${d}")
      endif()
    endforeach()
    set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")
  endif()
endforeach()
target_compile_features(adarl INTERFACE cxx_std_20)
# xxHash has no CMake package in Debian 12: adarl_net links this target, which the
# package's config file makes again with find_library.
add_library(adarl::xxhash UNKNOWN IMPORTED GLOBAL)
set_target_properties(adarl::xxhash PROPERTIES IMPORTED_LOCATION "${XXHASH_LIBRARY}")
add_library(adarl::adarl ALIAS adarl)

# `cmake --build BUILD --target adarl_library` builds what the install needs, and no more
# (no LibTorch translation unit).
set(built ${ADARL_EXPORTED_TARGETS})
list(REMOVE_ITEM built adarl adarl_warnings)
add_custom_target(adarl_library DEPENDS ${built})

install(TARGETS ${ADARL_EXPORTED_TARGETS} EXPORT adarlTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_INSTALL_INCLUDEDIR}/adarl)
install(EXPORT adarlTargets NAMESPACE adarl:: DESTINATION ${ADARL_INSTALL_CMAKEDIR})

# Headers: the public ones and, found at install time (so that a new include is never
# missed), every header of the source tree they include, directly or not.
install(FILES ${PROJECT_BINARY_DIR}/include/adarl/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/adarl)
install(CODE "
  set(ADARL_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(ADARL_HEADER_DESTINATION \"${CMAKE_INSTALL_INCLUDEDIR}/adarl\")
  set(ADARL_PUBLIC_HEADERS \"${ADARL_PUBLIC_HEADERS}\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/install_headers.cmake\")")

# The package: config, version (0.x: a minor version may break the API, so 0.3 accepts
# 0.3.* only), the dependencies' finders.
list(TRANSFORM ADARL_PUBLIC_HEADERS PREPEND "adarl/" OUTPUT_VARIABLE ADARL_PUBLIC_HEADERS_TEXT)
list(APPEND ADARL_PUBLIC_HEADERS_TEXT adarl/version.hpp)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/adarlConfig.cmake.in
  ${PROJECT_BINARY_DIR}/adarlConfig.cmake INSTALL_DESTINATION ${ADARL_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/adarlConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/adarlConfig.cmake ${PROJECT_BINARY_DIR}/adarlConfigVersion.cmake
        ${CMAKE_CURRENT_LIST_DIR}/FindCAF.cmake DESTINATION ${ADARL_INSTALL_CMAKEDIR})
