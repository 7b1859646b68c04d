# Cross-compiling rtscope for 64-bit ARM (aarch64) on Debian or Ubuntu with their multiarch packages: the compiler from
# crossbuild-essential-arm64 and the target's libraries as <name>:arm64 packages, which install beside the host's in
# /usr/lib/aarch64-linux-gnu. scripts/build-agent-arm64 installs both and uses this file; docs/remote.md,
# "Cross-built agent", says what the result is for.
#   cmake -S . -B build/arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake \
#         -DRTSCOPE_BUILD_UI=OFF -DRTSCOPE_BUILD_TESTS=OFF -DRTSCOPE_BUILD_BENCH=OFF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(RTSCOPE_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${RTSCOPE_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${RTSCOPE_CROSS_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${RTSCOPE_CROSS_TRIPLET})

# Multiarch has no separate sysroot: the target's libraries live under / in their own triplet folders, and the
# arch-independent parts (the headers of nlohmann-json and CLI11, their CMake package files) are shared with the
# host. So the root is / (Debian's cross compiler already searches /usr/include/aarch64-linux-gnu and
# /usr/lib/aarch64-linux-gnu), and what keeps a host (x86) library out of the link is that libraries are looked up
# in the target's triplet folders, never in the host's: CMake adds lib/<CMAKE_LIBRARY_ARCHITECTURE> to its search,
# and pkg-config is pointed at the target's .pc files only.
set(CMAKE_FIND_ROOT_PATH /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (libtracefs, libtraceevent, libtracecmd): the arm64 .pc files and the arch-independent
# ones, never /usr/lib/x86_64-linux-gnu/pkgconfig. PKG_CONFIG_LIBDIR replaces the default path (PKG_CONFIG_PATH would
# only add to it, and the host's files would still be found). RTSCOPE_CROSS_PKG_CONFIG_DIR, when given, is searched
# first: scripts/build-agent-arm64 unpacks there the arm64 libtracecmd that Debian 12 cannot install beside the
# host's.
# The toolchain file is read again in every try_compile project, in the same process: the variable goes with it,
# or the environment set there would drop the folder again.
set(RTSCOPE_CROSS_PKG_CONFIG_DIR "" CACHE PATH "Extra folder of target .pc files, searched first")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES RTSCOPE_CROSS_PKG_CONFIG_DIR)
set(_rtscope_pc_dirs /usr/lib/${RTSCOPE_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig)
if(RTSCOPE_CROSS_PKG_CONFIG_DIR)
    set(_rtscope_pc_dirs ${RTSCOPE_CROSS_PKG_CONFIG_DIR}:${_rtscope_pc_dirs})
endif()
set(ENV{PKG_CONFIG_LIBDIR} ${_rtscope_pc_dirs})
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
