# The FreeRTOS kernel, found with FreeRTOS's own convention:
#   cmake -DFREERTOS_KERNEL_PATH=<FreeRTOS-Kernel checkout> ...
# (or the environment variable of the same name; `make` passes
# ../shared/third_party/FreeRTOS-Kernel when it exists). Without it the
# FreeRTOS tests, example and benchmark are not built, and
# tests/sh/freertos_kernel.sh says so loudly (and fails in CI).
#
# tw_freertos_kernel(<target> CONFIG <dir> TRACEWIRE <lib> [NO_HEAP]) builds
# the kernel on the POSIX port (portable/ThirdParty/GCC/Posix, heap_3
# unless NO_HEAP: the program brings pvPortMalloc) as a static library
# whose users get the kernel's headers, <dir>'s FreeRTOSConfig.h and the
# tracewire target library <lib> the hooks record into. Each
# configuration is its own library.
set(FREERTOS_KERNEL_PATH "$ENV{FREERTOS_KERNEL_PATH}" CACHE PATH
    "FreeRTOS-Kernel checkout for the FreeRTOS tests and example (empty: skip them)")
set(TW_FREERTOS_OK OFF)
if(FREERTOS_KERNEL_PATH)
  if(EXISTS ${FREERTOS_KERNEL_PATH}/tasks.c AND EXISTS ${FREERTOS_KERNEL_PATH}/include/FreeRTOS.h)
    set(TW_FREERTOS_OK ON)
  else()
    message(FATAL_ERROR "FREERTOS_KERNEL_PATH=${FREERTOS_KERNEL_PATH} is not a FreeRTOS-Kernel "
                        "checkout (no tasks.c, include/FreeRTOS.h)")
  endif()
endif()

function(tw_freertos_kernel target)
  cmake_parse_arguments(K "NO_HEAP" "CONFIG;TRACEWIRE" "" ${ARGN})
  set(k ${FREERTOS_KERNEL_PATH})
  set(posix ${k}/portable/ThirdParty/GCC/Posix)
  set(heap ${k}/portable/MemMang/heap_3.c)
  if(K_NO_HEAP)
    set(heap)
  endif()
  add_library(${target} STATIC
    ${k}/tasks.c ${k}/queue.c ${k}/list.c ${k}/timers.c ${k}/event_groups.c
    ${k}/stream_buffer.c ${posix}/port.c ${posix}/utils/wait_for_event.c ${heap})
  target_include_directories(${target} PUBLIC ${K_CONFIG} ${k}/include ${posix} ${posix}/utils)
  target_link_libraries(${target} PUBLIC ${K_TRACEWIRE} Threads::Threads)
  # The kernel builds clean with tracewire's warnings (-Werror, GCC and
  # clang), and so do the hooks expanded in every kernel file: kept so.
  # The POSIX port defines _GNU_SOURCE itself; the rest needs it.
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  set_source_files_properties(${posix}/port.c TARGET_DIRECTORY ${target}
                              PROPERTIES COMPILE_OPTIONS "-U_GNU_SOURCE")
endfunction()

# The FreeRTOS glue (src/port/freertos) for a kernel built above.
function(tw_freertos_glue target kernel)
  add_library(${target} STATIC ${PROJECT_SOURCE_DIR}/src/port/freertos/tw_freertos.c)
  target_link_libraries(${target} PUBLIC ${kernel})
endfunction()
