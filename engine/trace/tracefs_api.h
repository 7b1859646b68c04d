#pragma once
/// @file The part of libtracefs and libtraceevent the trace session uses, declared for C++. libtracefs' own
/// tracefs.h (1.6, Debian 12) is not valid C++: it has no extern "C" block, and an inline function in it passes an
/// int where an enum is expected, which g++ and clang++ refuse. kbuffer.h has no extern "C" block either. So the
/// functions are declared here with the signatures their headers give them (libtracefs.so.1 and libtraceevent.so.1
/// keep them stable); this file is also valid C, so the installed headers check it (a declaration that differs
/// from theirs is a "conflicting types" error), FILE being this file:
///     gcc -fsyntax-only -x c $(pkg-config --cflags libtracefs) -include tracefs.h -include kbuffer.h FILE
/// event-parse.h is valid C++: it is included.
/// Only engine/trace/*.cpp include this.
#include <event-parse.h>

#include <stddef.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct tracefs_instance;
struct tracefs_cpu;
struct kbuffer;

struct tracefs_instance* tracefs_instance_alloc(const char* tracing_dir, const char* name);
void tracefs_instance_free(struct tracefs_instance* instance);
int tracefs_instance_destroy(struct tracefs_instance* instance);
int tracefs_instance_file_write(struct tracefs_instance* instance, const char* file, const char* str);
char* tracefs_instance_file_read(struct tracefs_instance* instance, const char* file, int* psize);
int tracefs_instance_file_read_number(struct tracefs_instance* instance, const char* file, long long* res);
int tracefs_instance_file_open(struct tracefs_instance* instance, const char* file, int mode);
char* tracefs_get_clock(struct tracefs_instance* instance);
int tracefs_instance_set_affinity(struct tracefs_instance* instance, const char* cpu_str);
int tracefs_instance_set_buffer_size(struct tracefs_instance* instance, size_t size, int cpu);
int tracefs_event_file_write(struct tracefs_instance* instance, const char* system, const char* event, const char* file,
                             const char* str);
bool tracefs_tracer_available(const char* tracing_dir, const char* tracer);
int tracefs_tracer_clear(struct tracefs_instance* instance);
int tracefs_trace_off(struct tracefs_instance* instance);
struct tracefs_cpu* tracefs_cpu_alloc_fd(int fd, int subbuf_size, bool nonblock);
void tracefs_cpu_close(struct tracefs_cpu* tcpu);
int tracefs_cpu_read(struct tracefs_cpu* tcpu, void* buffer, bool nonblock);

void kbuffer_free(struct kbuffer* kbuf);
int kbuffer_load_subbuffer(struct kbuffer* kbuf, void* subbuffer);
void* kbuffer_read_event(struct kbuffer* kbuf, unsigned long long* ts);
void* kbuffer_next_event(struct kbuffer* kbuf, unsigned long long* ts);
unsigned long long kbuffer_subbuf_timestamp(struct kbuffer* kbuf, void* subbuf);
int kbuffer_event_size(struct kbuffer* kbuf);
int kbuffer_missed_events(struct kbuffer* kbuf);

#ifdef __cplusplus
}
#endif
