# Writes OUT, a one-line C++ source with the commit of SOURCE_DIR's git checkout ("unknown" when it
# is none; "-dirty" appended when tracked files differ from the commit), rewriting it only when
# the text changes, so that a build recompiles one small file when the commit moves. Run at every
# build by the gpufec_git_commit target (CMakeLists.txt).
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE status ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(status EQUAL 0 AND head)
    set(commit ${head})
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain
                            --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE status ERROR_QUIET)
    if(status EQUAL 0 AND changes)
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "// Generated at build time by cmake/git_commit.cmake: the commit this build is of.\n")
string(APPEND text "namespace gpufec::detail {\nextern const char* const built_git_commit;\n")
string(APPEND text "const char* const built_git_commit = \"${commit}\";\n}  // namespace gpufec::detail\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
