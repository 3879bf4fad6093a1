/* athread.h (MPE side) for the tkc host emulator: the names Sunway host
 * programs use. `athread_spawn(f, arg)` runs `slave_f(arg)` on 64 CPE threads;
 * the CPE source is compiled with `tk-sw5cc -slave`, which gives each of its
 * global symbols the slave_ prefix as the real toolchain does. */
#ifndef TK_ATHREAD_ATHREAD_H
#define TK_ATHREAD_ATHREAD_H
#include "tk_athread.h"

/* Programs declare CPE entry points as `extern SLAVE_FUN(f)(void*);`. */
#define SLAVE_FUN(x) slave_##x

#define athread_init() tk_athread_init()
#define athread_spawn(f, arg) tk_athread_spawn((tk_athread_fn)slave_##f, (void *)(arg))
#define athread_join() tk_athread_join()
#define athread_halt() tk_athread_halt()
#define athread_get_max_threads() TK_ATHREAD_CPES
#define rpcc() tk_athread_cycles()

#endif
