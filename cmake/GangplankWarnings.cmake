# gangplank_target_defaults(<target>): warnings, include root and C++20 for one of the project's targets.
function(gangplank_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(GANGPLANK_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_features(${target} PUBLIC cxx_std_20)
endfunction()

# gangplank_add_child_dirs(): add every immediate subfolder that has a CMakeLists.txt, so test and
# benchmark folders can hold one suite per area without a central list.
function(gangplank_add_child_dirs)
  file(GLOB children LIST_DIRECTORIES true ${CMAKE_CURRENT_SOURCE_DIR}/*)
  foreach(child ${children})
    if(IS_DIRECTORY ${child} AND EXISTS ${child}/CMakeLists.txt)
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()
