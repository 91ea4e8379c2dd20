/*
 * arch_got.h - the relocation types of the GOT slots through which one
 * object calls or takes the address of another's function, read by the
 * preload's GOT fallback (preload/engine/got.c).
 */
#ifndef SCOPE_ARCH_GOT_H
#define SCOPE_ARCH_GOT_H

#include <elf.h>

/* a PLT call's slot */
#define SCOPE_ARCH_R_JUMP_SLOT R_X86_64_JUMP_SLOT
/* a -fno-plt call's or an address-taken use's slot */
#define SCOPE_ARCH_R_GLOB_DAT R_X86_64_GLOB_DAT

#endif /* SCOPE_ARCH_GOT_H */
