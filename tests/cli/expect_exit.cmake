# Runs a program and checks its exit status exactly (WILL_FAIL would accept any failure).
#   cmake -DPROGRAM=exe -DARGS="a|b|c" -DEXPECT_EXIT=2 [-DEXPECT_STDERR=regex]
#         [-DEXPECT_EMPTY_STDOUT=ON] -P expect_exit.cmake
# ARGS separates the arguments with '|' (a ';' would be split by add_test).
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${args}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit status ${status}, expected ${EXPECT_EXIT}\nstderr: ${err}")
endif()
if(DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}':\n${err}")
endif()
if(EXPECT_EMPTY_STDOUT AND NOT out STREQUAL "")
  message(FATAL_ERROR "expected no output, got:\n${out}")
endif()
