# Man pages perfx.1 and perfx-<command>.1, made by help2man from the built perfx's own
# --help text (cmake/perfx_man.sh), and the bash completion (cmake/perfx-completion.bash);
# both installed by `cmake --install`. The commands are the tools/perfx/cmd_*.cpp files.
include(GNUInstallDirs)
find_program(HELP2MAN help2man)
file(GLOB _perfx_cmd_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/perfx/cmd_*.cpp)
set(_perfx_man_dir ${CMAKE_BINARY_DIR}/man/man1)
if(HELP2MAN)
  set(_perfx_pages ${_perfx_man_dir}/perfx.1)
  add_custom_command(
    OUTPUT ${_perfx_man_dir}/perfx.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_perfx_man_dir}
    COMMAND ${CMAKE_SOURCE_DIR}/cmake/perfx_man.sh ${HELP2MAN} $<TARGET_FILE:perfx_cli>
            ${_perfx_man_dir}/perfx.1
    DEPENDS perfx_cli ${CMAKE_SOURCE_DIR}/cmake/perfx_man.sh
    COMMENT "man page perfx.1")
  foreach(src IN LISTS _perfx_cmd_sources)
    get_filename_component(cmd ${src} NAME_WE)
    string(REGEX REPLACE "^cmd_" "" cmd ${cmd})
    string(REPLACE "_" "-" cmd ${cmd})
    set(page ${_perfx_man_dir}/perfx-${cmd}.1)
    add_custom_command(
      OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_perfx_man_dir}
      COMMAND ${CMAKE_SOURCE_DIR}/cmake/perfx_man.sh ${HELP2MAN} $<TARGET_FILE:perfx_cli> ${page}
              ${cmd}
      DEPENDS perfx_cli ${CMAKE_SOURCE_DIR}/cmake/perfx_man.sh
      COMMENT "man page perfx-${cmd}.1")
    list(APPEND _perfx_pages ${page})
  endforeach()
  add_custom_target(perfx_man ALL DEPENDS ${_perfx_pages})
  install(FILES ${_perfx_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found (scripts/setup installs it): no man pages")
endif()
install(FILES ${CMAKE_SOURCE_DIR}/cmake/perfx-completion.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME perfx)
