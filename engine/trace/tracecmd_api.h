#pragma once
/// @file The part of libtracecmd (trace-cmd's library, Debian libtracecmd-dev 1.3) that writes and reads trace-cmd
/// .dat files, declared for C++. Its public header trace-cmd.h includes libtracefs' tracefs.h, which is not valid C++
/// (see tracefs_api.h), and the functions that write a file are exported by libtracecmd.so.1 but declared only in
/// trace-cmd's private header, which Debian does not install. So they are declared here with the signatures the
/// library gives them. This file is also valid C: the installed public header checks the reading half of it
/// (FILE being this file):
///     gcc -fsyntax-only -x c $(pkg-config --cflags libtracecmd) -include trace-cmd/trace-cmd.h FILE
/// Only engine/trace/*.cpp include this.
#include <event-parse.h>

#ifdef __cplusplus
#include <cstdint>
extern "C" {
#else
#include <stdbool.h>
#endif

struct tracecmd_input;
struct tracecmd_output;
struct tracecmd_event_list;

// Writing (trace-output.c).
struct tracecmd_output* tracecmd_output_create_fd(int fd);
void tracecmd_set_quiet(struct tracecmd_output* handle, bool set_quiet);
int tracecmd_output_set_trace_dir(struct tracecmd_output* handle, const char* tracing_dir);
int tracecmd_output_set_version(struct tracecmd_output* handle, int file_version);
void tracecmd_set_out_clock(struct tracecmd_output* handle, const char* clock);
int tracecmd_output_write_headers(struct tracecmd_output* handle, struct tracecmd_event_list* list);
int tracecmd_write_cmdlines(struct tracecmd_output* handle);
int tracecmd_write_cpus(struct tracecmd_output* handle, int cpus);
int tracecmd_write_options(struct tracecmd_output* handle);
int tracecmd_write_cpu_data(struct tracecmd_output* handle, int cpus, char* const* cpu_data_files,
                            const char* buff_name);
void tracecmd_output_close(struct tracecmd_output* handle);
void tracecmd_set_loglevel(enum tep_loglevel level);

// Reading (trace-input.c; public in trace-cmd.h).
struct tracecmd_input* tracecmd_open(const char* file, int flags);
void tracecmd_close(struct tracecmd_input* handle);
struct tep_handle* tracecmd_get_tep(struct tracecmd_input* handle);
struct tep_record* tracecmd_read_data(struct tracecmd_input* handle, int cpu);
void tracecmd_free_record(struct tep_record* record);
int tracecmd_cpus(struct tracecmd_input* handle);

#ifdef __cplusplus
}
#endif
