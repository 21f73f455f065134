# gangplank_target_defaults(<target>): warnings, include root and C++20 for one of the project's targets.
function(gangplank_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(GANGPLANK_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_features(${target} PUBLIC cxx_std_20)
endfunction()
